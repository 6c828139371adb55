"""child_policies.py PARENT — for cpu_policy.sh: "tid:policy" (sched_getscheduler)
of every task of PARENT's children that have run for half a second (the
child sets its policy when it has read its request, a few ms after it
starts), space-separated on one line; the child's bw-watch thread is left
out (it stays at the daemon's policy on purpose).
"""
import os, sys, time
parent = sys.argv[1]
hz = os.sysconf("SC_CLK_TCK")
uptime = float(open("/proc/uptime").read().split()[0])
out = []
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    try:
        st = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
        if st[1] != parent or uptime - int(st[19]) / hz < 0.5:
            continue
        for tid in os.listdir("/proc/%s/task" % pid):
            # the child's watcher of its parent stays at the daemon's
            # policy on purpose: it must act on the parent's death at once
            if open("/proc/%s/task/%s/comm" % (pid, tid)).read().strip() == "bw-watch":
                continue
            out.append("%s:%d" % (tid, os.sched_getscheduler(int(tid))))
    except (OSError, IndexError):
        continue
print(" ".join(out))
