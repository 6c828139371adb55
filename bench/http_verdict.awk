# http_verdict.awk — bench/http.sh's verdict on one point, from its rounds.
#
# Input: the point's result lines, three per round in run order
# ("tool rps requests p50 p99 cpu_seconds"); -v rw, ra: median ratios of
# benchwatch's RPS to wrk's and ab's; -v cb, ca: CPU microseconds per
# request of benchwatch and ab.  A target the medians miss counts as missed
# only when benchwatch also lost in so many rounds that two equal clients
# would do that less than 5% of the time (a one-sided sign test: 5 of 5
# rounds, 8 of 9, 12 of 15); otherwise the point is a tie, reported as
# such.  With fewer than 5 rounds no test can tell, so the medians decide.
# Prints "ok", "tie: TARGET (won K/N rounds)..." or the missed targets.

# P(X <= k) for X ~ Binomial(n, 1/2)
function lower_tail(k, n,   j, c, p) {
	c = 1
	for (j = 0; j <= k; j++) { p += c; c = c * (n - j) / (j + 1) }
	return p / 2 ^ n
}

function judge(name, missed, won, n) {
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
	judge("rps<0.9wrk", rw < 0.9, won_wrk, n)
	judge("rps<ab", ra < 1, won_ab, n)
	judge("cpu>ab", cb > ca, won_cpu, n)
	if (miss != "")
		print substr(miss, 2)
	else if (tie != "")
		print "tie:" tie
	else
		print "ok"
}
