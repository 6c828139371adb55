# bench/lib/stats.sh — sourced by the bench scripts: the statistics they print
# over the rounds, of the numbers on stdin, one per line.
# median: the middle value (the mean of the two middle ones for an even count)
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# cv: coefficient of variation, percent (sample standard deviation / mean)
cv() { awk '{ s += $1; q += $1 * $1; n++ } END { m = s / n
        printf "%.1f", (n > 1 && m > 0 ? 100 * sqrt((q - n * m * m) / (n - 1)) / m : 0) }'; }
