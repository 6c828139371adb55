/* reserve.h — room kept on the state directory's file system for the
 * daemon's own records, for when that file system fills up.
 *
 * A run is in the history and the remote-write spool before the daemon
 * moves on; on a full file system neither can be written, and a run kept
 * only in memory is lost by a crash or kill -9.  So the daemon keeps a
 * file of allocated blocks, <dir>/.reserve; the writer that meets ENOSPC
 * or EDQUOT removes it (reserve_make_room) and writes again, and the next
 * runs' records go into the room it left.  It comes back (reserve_keep)
 * only once the file system has that much to spare again.  The file holds
 * no data; nothing here logs. */
#ifndef BENCHWATCH_RESERVE_H
#define BENCHWATCH_RESERVE_H

#include <stdbool.h>
#include <stdint.h>

#define RESERVE_NAME ".reserve"
#define RESERVE_BYTES (1u << 20)

/* Create <dir>/.reserve with `bytes` allocated, unless it is there or the
 * file system has less than twice that free (others need it more): 1
 * created, 0 nothing to do, -errno. */
int reserve_keep(const char *dir, uint64_t bytes);

/* After a write that returned r: when r says the file system is full
 * (ENOSPC, EDQUOT) and <dir>/.reserve was there, remove it and return true
 * (write again, into its room); false otherwise. */
bool reserve_make_room(const char *dir, int r);

#endif
