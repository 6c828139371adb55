"""disk-offsets.py EXTENTS DEV START TRACE — bench/compare/disk-offsets.sh's
reading of one run's block trace (see there): the reads the device was
asked for in the test file, how they cover it, what they cost by how long
ago the same block was read and by how near they were to the reads issued
just before (to test whether fio's random map, which hands a taken pick
the next free block, sends late reads of a pass near each other, where
a cache beneath might serve them faster), and the completions per
quarter second.

EXTENTS: `filefrag -v` of the file; DEV: "major,minor" of the disk as the
block tracepoints name it; START: the file system's first sector on that
disk; TRACE: `perf script` of block:block_rq_issue and block_rq_complete.
"""
import collections, re, statistics, sys

BS = 16384
NEAR_BLOCKS, NEAR_READS = 64, 8  # within 1 MiB of one of the 8 reads issued before
ext = []  # (first file block, first disk block, blocks), 4 KiB blocks
for line in open(sys.argv[1]):
    m = re.match(r"\s*\d+:\s+(\d+)\.\.\s*\d+:\s+(\d+)\.\.\s*\d+:\s+(\d+):", line)
    if m:
        ext.append(tuple(int(x) for x in m.groups()))
DEV, START = sys.argv[2], int(sys.argv[3])
EVENT = re.compile(r"\s([\d.]+):\s+block:block_rq_(issue|complete):\s+(\d+,\d+)\s+(\S+)"
                   r"\s+.*?(\d+) \+ (\d+)")


def file_offset(sector):
    b4, within = divmod(sector - START, 8)
    for lo, ph, n in ext:
        if ph <= b4 < ph + n:
            return (lo + b4 - ph) * 4096 + within * 512
    return None


issued, completed, pending = [], [], {}
last, lat = {}, collections.defaultdict(list)
by_nearness = collections.defaultdict(list)  # True: near a read issued just before
for line in open(sys.argv[4]):
    m = EVENT.search(line)
    if not m or m[3] != DEV or "R" not in m[4]:
        continue
    t, sector = float(m[1]), int(m[5])
    off = file_offset(sector)
    if off is None:
        continue
    blk = off // BS
    if m[2] == "issue":
        since = len(issued) - last[blk] if blk in last else None
        near = any(abs(blk - b) <= NEAR_BLOCKS for b in issued[-NEAR_READS:])
        last[blk] = len(issued)
        issued.append(blk)
        pending[sector] = (t, since, near)
    elif sector in pending:
        t0, since, near = pending.pop(sector)
        completed.append(t)
        by_nearness[near].append((t - t0) * 1e6)
        cls = ("never" if since is None else "< 1k reads" if since < 1000 else
               "< 10k reads" if since < 10000 else "< 64k reads" if since < 65536
               else ">= 64k reads")
        lat[cls].append((t - t0) * 1e6)

nblk = sum(e[2] for e in ext) * 4096 // BS
hits = collections.Counter(issued)
six = collections.Counter(b * 16 // nblk for b in issued)
want = len(issued) / 16
chi2 = sum((six[i] - want) ** 2 / want for i in range(16))
print("  device reads %d, distinct 16k blocks %d of %d (%.1f%%), most reads of "
      "one block %d, chi2 over sixteenths %.1f (15 df: 25 at p=0.05)"
      % (len(issued), len(hits), nblk, 100 * len(hits) / nblk,
         max(hits.values()), chi2))
for cls in ("never", "< 1k reads", "< 10k reads", "< 64k reads", ">= 64k reads"):
    v = lat.get(cls)
    if v:
        print("  block last read %-12s %7d reads, service time median %6.1f us, "
              "mean %6.1f us" % (cls + ":", len(v), statistics.median(v),
                                 statistics.fmean(v)))
n_near = len(by_nearness[True])
if n_near + len(by_nearness[False]):
    print("  reads within %d KiB of one of the %d issued before: %d of %d (%.2f%%)"
          % (NEAR_BLOCKS * BS // 1024, NEAR_READS, n_near,
             n_near + len(by_nearness[False]),
             100 * n_near / (n_near + len(by_nearness[False]))))
for near in (True, False):
    v = by_nearness[near]
    if v:
        print("  %-22s %7d reads, service time median %6.1f us, mean %6.1f us"
              % ("near:" if near else "far:", len(v), statistics.median(v),
                 statistics.fmean(v)))
if completed:
    per = collections.Counter(int((t - completed[0]) * 4) for t in completed)
    print("  completions per 250 ms: " + " ".join(str(per[i]) for i in sorted(per)))
