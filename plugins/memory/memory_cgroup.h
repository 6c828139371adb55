/* memory_cgroup.h — the memory this process's cgroup still allows.
 *
 * MemAvailable is the host's: in a container, or a systemd unit with
 * MemoryMax=, the memory probe's arrays sized from it can pass the
 * cgroup's limit and the probe is killed by the OOM killer at every run.
 * So the probe takes the smaller of the two.  Room is the limit less what
 * the cgroup uses that it cannot give back: its usage less its inactive
 * page cache (what the kernel reclaims first; kubelet's "working set").
 * Every level from the process's cgroup up to the root of the hierarchy,
 * the tightest (cgroup v2: memory.max, memory.current; v1's memory
 * controller: memory.limit_in_bytes, memory.usage_in_bytes).  In a
 * container sharing the host's cgroup namespace the path names the host's
 * cgroup, not found under the container's mount: there the mount's root
 * is the container's.  Paths are parameters so that tests use fixture
 * trees. */
#ifndef BENCHWATCH_MEMORY_CGROUP_H
#define BENCHWATCH_MEMORY_CGROUP_H

#include <stdint.h>

/* Room under the limit of the cgroup named in self_cgroup (the text of
 * /proc/self/cgroup) whose hierarchies are mounted under mount
 * ("/sys/fs/cgroup": v2 there, v1 in mount/memory).  0 with *ret; -ENOENT
 * when no level has a limit (or nothing can be read: no cgroup, no
 * memory controller). */
int memory_cgroup_room(const char *self_cgroup, const char *mount, uint64_t *ret);

#endif
