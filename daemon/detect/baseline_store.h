/* baseline_store.h — a probe's baseline on disk, surviving restarts,
 * crashes and upgrades.
 *
 * One file per probe, <state_dir>/baseline-<probe>.txt, so a reset is one
 * unlink.  Text, in a format of its own that carries a version number:
 *
 *   benchwatch-baseline 3
 *   probe <probe>
 *   context <item> <value>            } what the reference was learnt on,
 *   seen <item> <value>               } what the last run ran on (context.h)
 *   series <key>                      } once per series (baseline.h)
 *   direction higher|lower            }
 *   reference <pinned 0|1> <UNIX time it was pinned or accepted>
 *   values <v> <v> ...                } reference runs, oldest first
 *   recent <v> <v> ...                } last counted runs, oldest first
 *   state <regression 0|1> <segment> <cusum> <fast cusum> <clear> <shift> <last residual>
 *   end <number of series> <FNV-1a 64 of every byte before this line, hex>
 *
 * (detector.h says what each field is; a context value is the rest of its
 * line, with \\ and \n escaped.)  Version 2 is version 3 without context
 * lines, read as it is.  Version 1, the per-run rule's
 * format (state <regression> <bad runs> <good runs>, then values: the
 * window of accepted runs), is still read and converted: its window
 * becomes the reference, pinned when it held 20 runs (v1's full window)
 * at the file's modification time, else still learning with what it had;
 * the next save writes version 2.
 *
 * Numbers are written with 17 significant digits in the C locale, so they
 * read back bit for bit.  The file is replaced atomically (temporary file,
 * fsync, rename, fsync of the directory), so a crash leaves the old file or
 * the new one, never half of one.  The reader accepts exactly this format
 * and nothing else: a file that is truncated, garbled, another probe's or of
 * an unknown version is never trusted; it is renamed aside to
 * <file>.corrupt-<UTC time> and reported, and the caller starts over.  A
 * future format change bumps BASELINE_FORMAT_VERSION and teaches the reader
 * the old versions too.
 *
 * Writers: the daemon after each run, `baseline reset|accept|import`.  Each save is a
 * whole-file replace, so the daemon should load, update and save around
 * each run rather than keep a baseline in memory across runs: then a reset
 * made meanwhile is not overwritten.
 *
 * Nothing here logs: errors come back as -errno plus a malloc'd message
 * naming the file, for the caller to log once. */
#ifndef BENCHWATCH_BASELINE_STORE_H
#define BENCHWATCH_BASELINE_STORE_H

#include "detect/baseline.h"

#define BASELINE_FORMAT_VERSION 3

/* "<state_dir>/<what>-<probe>.txt": the name of each file the state
 * directory holds per probe (its baseline here, its history, its
 * evidence), malloc'd.  -EINVAL for a bad probe name
 * (baseline_probe_name_ok), -ENOMEM. */
int baseline_store_probe_file(const char *state_dir, const char *what, const char *probe,
                              char **ret_path);
/* "<state_dir>/baseline-<probe>.txt", malloc'd.  -EINVAL, -ENOMEM. */
int baseline_store_path(const char *state_dir, const char *probe, char **ret_path);

/* Read a probe's baseline.  No file yet: 0 and an empty baseline.
 * -EBADMSG (corrupt, truncated, another probe's) or -EPROTONOSUPPORT
 * (another format version): the file was renamed aside.  Other -errno: it
 * could not be read (left alone).  On every error *ret_error (if not NULL)
 * gets a message naming the file and what happened, or NULL when out of
 * memory; the caller frees it. */
int baseline_store_load(const char *state_dir, const char *probe,
                        struct baseline **ret, char **ret_error);
/* The same for a command that only reads (status, baseline show, verify):
 * a bad file is left where it is, for the daemon to set aside. */
int baseline_store_read(const char *state_dir, const char *probe,
                        struct baseline **ret, char **ret_error);

/* The baseline of probe in text[0..len) (a whole file's bytes with a NUL
 * after them, cut into lines in place), as baseline_store_load reads it:
 * what it does once the file is read, apart so that a fuzzer feeds it
 * bytes.  mtime: the file's (a version 1 file's reference was pinned
 * then).  0, -EBADMSG, -EPROTONOSUPPORT or -ENOMEM. */
int baseline_store_parse(char *text, size_t len, const char *probe, double mtime,
                         struct baseline **ret);

/* Replace the stored baseline atomically.  -errno with *ret_error as above. */
int baseline_store_save(const struct baseline *b, const char *state_dir,
                        char **ret_error);

/* Forget a probe's baseline (after an intended change, e.g. a new disk).
 * 0 when removed, -ENOENT when there was none, -EINVAL for a bad name,
 * other -errno. */
int baseline_store_reset(const char *state_dir, const char *probe);

/* Probes that have a baseline file in state_dir, sorted, as a
 * NULL-terminated malloc'd array of malloc'd names (free with
 * baseline_store_strv_free).  A missing state_dir is an empty list. */
int baseline_store_list(const char *state_dir, char ***ret_probes);
void baseline_store_strv_free(char **v);

#endif
