# http_verdict.awk — bench/compare/http.sh's ratios and verdict for one point.
#
# Input: the point's result lines, three per round in run order
# ("tool rps requests p50 p99 cpu_seconds"); -v cb, ca: CPU microseconds
# per request of benchwatch and ab.  The ratios benchwatch/wrk and
# benchwatch/ab are the medians of each round's own ratio (the three ran
# back to back, so drift between rounds cancels out).  A target the
# medians miss counts as missed only when benchwatch also lost in so many
# rounds that two equal clients would do that less than 5% of the time (a
# one-sided sign test: 5 of 5 rounds, 8 of 9, 12 of 15); otherwise the
# point is a tie, reported as such.  With fewer than 5 rounds no test can
# tell, so the medians decide.
# Prints "RATIO_WRK RATIO_AB VERDICT", the verdict being "ok",
# "tie: TARGET (won K/N rounds)..." or the missed targets.

# P(X <= k) for X ~ Binomial(n, 1/2)
function lower_tail(k, n,   j, c, p) {
	c = 1
	for (j = 0; j <= k; j++) { p += c; c = c * (n - j) / (j + 1) }
	return p / 2 ^ n
}

# median of benchwatch's RPS over tool's, round by round
function median_ratio(tool,   j, k, m, v, x) {
	for (j = 0; j < n; j++)
		if (rps[j, tool] > 0) {
			x = rps[j, "bw"] / rps[j, tool]
			for (k = m++; k > 0 && v[k - 1] > x; k--)
				v[k] = v[k - 1]
			v[k] = x
		}
	if (!m)
		return 0
	return m % 2 ? v[(m - 1) / 2] : (v[m / 2 - 1] + v[m / 2]) / 2
}

function judge(name, missed, won) {
	if (!missed)
		return
	if (n < 5 || lower_tail(won, n) < 0.05)
		miss = miss " " name
	else
		tie = tie " " name " (won " won "/" n " rounds)"
}

{ i = int((NR - 1) / 3); rps[i, $1] = $2; cpu[i, $1] = $3 > 0 ? $6 / $3 : 0 }

END {
	n = i + 1
	for (j = 0; j < n; j++) {
		won_wrk += rps[j, "bw"] >= 0.9 * rps[j, "wrk"]
		won_ab += rps[j, "bw"] >= rps[j, "ab"]
		won_cpu += cpu[j, "bw"] <= cpu[j, "ab"]
	}
	rw = median_ratio("wrk")
	ra = median_ratio("ab")
	judge("rps<0.9wrk", rw < 0.9, won_wrk)
	judge("rps<ab", ra < 1, won_ab)
	judge("cpu>ab", cb > ca, won_cpu)
	printf "%.4f %.4f %s\n", rw, ra, miss != "" ? substr(miss, 2) : tie != "" ? "tie:" tie : "ok"
}
