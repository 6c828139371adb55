/* kmsg.h — what the kernel logged that can explain a slower run.
 *
 * A disk that retries, a controller that resets, a machine check, an
 * EDAC report or a GPU's Xid show in the kernel log before they show
 * anywhere else; a verdict that names them needs them counted per run.
 * /dev/kmsg gives one record per read(2), "PRIO,SEQ,USEC,FLAGS;text\n"
 * followed by " KEY=value" continuation lines, and keeps its place per
 * open file, so the reader is opened once and each poll reads only what
 * is new (non-blocking; at most KMSG_POLL_MAX records a poll, so a flood
 * costs a bounded time per run).  A record's sequence number says when
 * records were lost to the ring's overwriting and lets a restarted daemon
 * go on after the last record it counted.
 *
 * Only the kernel's own records (facility 0) are classified: text a
 * process wrote into /dev/kmsg cannot fake a disk error.  A record is of
 * the first kind it matches, in the order of enum kmsg_kind:
 *   machine_check  "mce:", "Machine check"
 *   edac           "EDAC"
 *   xid            "NVRM: Xid"
 *   io_error       "I/O error", "blk_update_request", "critical medium error"
 *   reset          "resetting", "reset controller", "timeout"
 * The parser and the classifier are pure (tests/fuzz/fuzz_kmsg.c); the
 * reader feeds them.  Nothing here logs. */
#ifndef BENCHWATCH_KMSG_H
#define BENCHWATCH_KMSG_H

#include <stddef.h>
#include <stdint.h>

enum kmsg_kind {
        KMSG_MACHINE_CHECK,
        KMSG_EDAC,
        KMSG_XID,
        KMSG_IO_ERROR,
        KMSG_RESET,
        KMSG_N_KINDS,
        KMSG_OTHER = KMSG_N_KINDS
};
/* "machine_check", "edac", "xid", "io_error", "reset": label values */
extern const char *const kmsg_kind_names[KMSG_N_KINDS];

struct kmsg_record {
        unsigned facility, level;  /* PRIO = facility * 8 + level */
        uint64_t seq, usec;
        const char *text;          /* the message's first line, not NUL-ended */
        size_t text_len;
};

/* One record of len bytes (its continuation lines may follow the first
 * newline).  0, or -EINVAL when it is not a kmsg record. */
int kmsg_parse(const char *rec, size_t len, struct kmsg_record *ret);
/* The kind of a record's text (KMSG_OTHER when none). */
enum kmsg_kind kmsg_classify(const char *text, size_t len);

#define KMSG_POLL_MAX 4096
#define KMSG_RECORD_MAX 8192  /* the kernel's own limit for one read */

/* Records counted since the reader was opened. */
struct kmsg_counts {
        uint64_t kind[KMSG_N_KINDS];
        uint64_t records;       /* every record read (any facility) */
        uint64_t lost;          /* records the ring overwrote before a poll */
};

struct kmsg_reader;

/* Opens root/dev/kmsg ("/" on a host).  after_seq: count only records
 * with a greater sequence number (a restarted daemon's last one, from
 * kmsg_reader_next_seq); KMSG_FROM_NOW starts at the log's end.  -errno
 * when it cannot be read (a unit with ProtectKernelLogs=yes: -EACCES or
 * -ENOENT): then the kernel log is not available. */
#define KMSG_FROM_NOW UINT64_MAX
int kmsg_reader_open(const char *root, uint64_t after_seq, struct kmsg_reader **ret);
/* Reads what is new.  0, or -errno (the counts so far stand). */
int kmsg_reader_poll(struct kmsg_reader *k);
/* Feeds bytes as a read returned them (the device: whole records; a
 * regular file, as tests use: any cut; a partial line waits for the
 * next feed).  For tests and the fuzzer; kmsg_reader_poll uses it. */
void kmsg_reader_feed(struct kmsg_reader *k, const char *buf, size_t len);
void kmsg_reader_counts(const struct kmsg_reader *k, struct kmsg_counts *ret);
/* The sequence number after the last record read (0: none yet). */
uint64_t kmsg_reader_next_seq(const struct kmsg_reader *k);
/* A reader with no file, for kmsg_reader_feed. */
int kmsg_reader_new_detached(uint64_t after_seq, struct kmsg_reader **ret);
void kmsg_reader_free(struct kmsg_reader *k);

#endif
