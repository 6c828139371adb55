/* spool.h — encoded remote-write requests kept on disk until the receiver
 * has them, one file per run, so that a receiver away for hours or a
 * daemon restarted meanwhile loses no run.
 *
 * Files are <dir>/<20-digit sequence>.rw, each written atomically; the
 * sequence gives the order runs are sent in, across restarts.  The spool
 * is bounded in bytes: to make room the oldest runs go first.  On a full
 * file system the room reserve.h keeps is released and the file written
 * again.  When a file cannot be written still (disk full, read-only) the
 * run is kept in memory, under the same bound, and written to disk by the
 * next spool_add() that can: until then a crash loses it.  One thread uses
 * a spool; nothing here logs. */
#ifndef BENCHWATCH_SPOOL_H
#define BENCHWATCH_SPOOL_H

#include <stddef.h>
#include <stdint.h>

struct spool;

/* Open (creating it, mode 0700) the spool in dir with the given bound and
 * read what an earlier daemon left there; left-over temporary files are
 * removed.  0 or -errno (the directory cannot be created or read). */
int spool_open(const char *dir, uint64_t max_bytes, struct spool **ret);
/* A spool without a directory, for when the directory cannot be used:
 * runs are kept in memory only, under the same bound. 0 or -ENOMEM. */
int spool_open_memory(uint64_t max_bytes, struct spool **ret);
void spool_free(struct spool *s);

/* Where the room of reserve.h is (a copy of dir; NULL: none), released
 * when a file cannot be written for want of space. 0 or -ENOMEM. */
int spool_set_reserve(struct spool *s, const char *dir);

/* Whether dir can hold a spool (creating it, mode 0700), without reading
 * it: a constructor's check. 0 or -errno. */
int spool_check_dir(const char *dir);

/* Drop the oldest runs until the spool is within its bound (a smaller
 * bound than the last daemon's); how many went. */
size_t spool_trim(struct spool *s);

/* Append a run's request.  *ret_dropped (may be NULL) counts the runs
 * dropped to stay within the bound (this one too, when it alone is larger
 * than the bound).  Runs kept in memory before are written first.  0, or
 * -errno when it could only be kept in memory (it is kept nonetheless). */
int spool_add(struct spool *s, const void *data, size_t len,
              size_t *ret_dropped);

/* The oldest run's request, malloc'd.  0, -ENOENT when the spool is
 * empty (or its file is gone), or -errno reading it; then spool_pop() it:
 * it cannot be sent. */
int spool_peek(struct spool *s, uint8_t **ret, size_t *ret_len);
/* Write the runs kept in memory to disk, where it takes them now (the last
 * chance, before a stop or a reload frees the spool): how many are still
 * in memory only, which spool_free() loses. */
size_t spool_persist(struct spool *s);
/* Append the runs src holds in memory only to dst, oldest first, as
 * spool_add() would (to dst's disk where it takes them): a reload's
 * hand-over, so that a new spool loses none of an old one's runs.  How
 * many src held; *ret_dropped (may be NULL) as spool_add()'s, summed. */
size_t spool_add_held(struct spool *dst, const struct spool *src, size_t *ret_dropped);
/* Forget the oldest run (delete its file). 0, or -errno of unlink(2). */
int spool_pop(struct spool *s);

size_t spool_count(const struct spool *s);
uint64_t spool_bytes(const struct spool *s);

#endif
