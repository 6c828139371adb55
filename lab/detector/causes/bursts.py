"""lab/detector/causes/bursts.py — a helper of lab/detector/causes.sh.

bursts.py BUSY PERIOD: spins BUSY seconds at the start of every PERIOD
seconds of the wall clock, for ever.  One pinned to each CPU (taskset)
spins on all of them at once, so a probe's thread finds no idle CPU to
move to and is held up for about BUSY, PERIOD apart: a few of its events
take longer, the median one does not, and its runs wait for a CPU only a
few percent of their time.
"""
import sys, time

busy, period = float(sys.argv[1]), float(sys.argv[2])
while True:
    start = time.time() // period * period
    while time.time() - start < busy:
        pass
    time.sleep(max(0.0, start + period - time.time()))
