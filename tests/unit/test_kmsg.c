/* test_kmsg.c — kernel log records are parsed as /dev/kmsg writes them,
 * classified by kind (the kernel's own records only), counted once
 * whatever the cut of the reads, with lost records told from the
 * sequence numbers; a reader goes on after a saved sequence number, and a
 * log it cannot open is an error, not a crash. */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/kmsg.h"
#include "test.h"
#include "util/fdio.h"
#include "util/strutil.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

static char *fixture(const char *rel)
{
        const char *top = getenv("top_srcdir");
        char *p = str_printf("%s/tests/data/evidence/%s", top ? top : TOP_SRCDIR, rel);
        CHECK(p);
        return p;
}

static void test_parse(void)
{
        struct kmsg_record r;
        const char *rec = "6,1234,5678,-;nvme nvme0: I/O 12 QID 3 timeout\n SUBSYSTEM=nvme\n";
        CHECK(kmsg_parse(rec, strlen(rec), &r) == 0);
        CHECK(r.facility == 0 && r.level == 6 && r.seq == 1234 && r.usec == 5678);
        CHECK(r.text_len == strlen("nvme nvme0: I/O 12 QID 3 timeout"));
        CHECK(!strncmp(r.text, "nvme nvme0", 10));
        /* more fields before the ';' (caller id), and ';' or ',' in the text */
        rec = "14,7,8,-,caller=T42;a, b; c";
        CHECK(kmsg_parse(rec, strlen(rec), &r) == 0);
        CHECK(r.facility == 1 && r.level == 6 && r.text_len == 7 && !strncmp(r.text, "a, b; c", 7));
        rec = "6,1,2;no flags";
        CHECK(kmsg_parse(rec, strlen(rec), &r) == 0 && r.usec == 2);
        rec = "6,1,2,-;";
        CHECK(kmsg_parse(rec, strlen(rec), &r) == 0 && r.text_len == 0);
        /* the length is the bound, not a NUL: "6,1,2,-;abc" cut before the ';' */
        CHECK(kmsg_parse("6,1,2,-;abc", 7, &r) == -EINVAL);
        r.seq = 99;
        const char *bad[] = { "6,1234;text", "a,1,2,-;x", "6,,2,-;x", "6,1,2,-", "",
                              "99999999999999999999,1,2,-;x", "134217728,1,2,-;x",
                              "6,1,2x,-;x", "-6,1,2,-;x", " KEY=value" };
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
                EXPECT(kmsg_parse(bad[i], strlen(bad[i]), &r) == -EINVAL);
        CHECK(r.seq == 99); /* untouched on failure */
}

static void test_classify(void)
{
        struct { const char *text; enum kmsg_kind kind; } c[] = {
                { "blk_update_request: I/O error, dev sda, sector 2048", KMSG_IO_ERROR },
                { "Buffer I/O error on dev sda1, logical block 0", KMSG_IO_ERROR },
                { "critical medium error, dev sdb, sector 88", KMSG_IO_ERROR },
                { "nvme nvme0: I/O 123 QID 4 timeout, aborting", KMSG_RESET },
                { "nvme nvme0: resetting controller", KMSG_RESET },
                { "ata1: hard resetting link", KMSG_RESET },
                { "mce: [Hardware Error]: CPU 3: Machine Check: 0 Bank 5", KMSG_MACHINE_CHECK },
                { "Machine check events logged", KMSG_MACHINE_CHECK },
                { "EDAC MC0: 1 CE memory read error on DIMM_A1", KMSG_EDAC },
                { "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.", KMSG_XID },
                /* an EDAC report that says "timeout" is EDAC: the order decides */
                { "EDAC sbridge: timeout reading", KMSG_EDAC },
                { "usb 1-1: new high-speed USB device", KMSG_OTHER },
                { "i/o error", KMSG_OTHER }, /* the kernel's spelling only */
                { "", KMSG_OTHER },
        };
        for (size_t i = 0; i < sizeof(c) / sizeof(*c); i++)
                EXPECT(kmsg_classify(c[i].text, strlen(c[i].text)) == c[i].kind);
        /* the length bounds the search */
        CHECK(kmsg_classify("EDAC", 3) == KMSG_OTHER);
}

/* The counts of the metal fixture's log: kinds of the kernel's records
 * only (facility 0), the two records missing from 1010, 1011 lost. */
static void check_metal(const struct kmsg_counts *c)
{
        CHECK(c->records == 10);
        CHECK(c->lost == 2);
        CHECK(c->kind[KMSG_RESET] == 2);
        CHECK(c->kind[KMSG_IO_ERROR] == 2); /* not the process's fake one */
        CHECK(c->kind[KMSG_MACHINE_CHECK] == 1);
        CHECK(c->kind[KMSG_EDAC] == 1);
        CHECK(c->kind[KMSG_XID] == 1);
}

static void test_reader_file(void)
{
        struct kmsg_reader *k = NULL;
        struct kmsg_counts c;
        char *root = fixture("metal");
        CHECK(kmsg_reader_open(root, 1000, &k) == 0);
        CHECK(kmsg_reader_poll(k) == 0);
        kmsg_reader_counts(k, &c);
        check_metal(&c);
        CHECK(kmsg_reader_next_seq(k) == 1013);
        CHECK(kmsg_reader_poll(k) == 0); /* nothing new: nothing counted twice */
        kmsg_reader_counts(k, &c);
        check_metal(&c);
        kmsg_reader_free(k);
        /* after a saved sequence number: what came before it is not counted */
        CHECK(kmsg_reader_open(root, 1004, &k) == 0);
        CHECK(kmsg_reader_poll(k) == 0);
        kmsg_reader_counts(k, &c);
        CHECK(c.records == 6 && c.kind[KMSG_RESET] == 0 && c.kind[KMSG_IO_ERROR] == 0);
        CHECK(c.kind[KMSG_MACHINE_CHECK] == 1 && c.kind[KMSG_XID] == 1);
        kmsg_reader_free(k);
        /* from now: the end of the log, nothing read */
        CHECK(kmsg_reader_open(root, KMSG_FROM_NOW, &k) == 0);
        CHECK(kmsg_reader_poll(k) == 0);
        kmsg_reader_counts(k, &c);
        CHECK(c.records == 0);
        kmsg_reader_free(k);
        free(root);
        k = (struct kmsg_reader *)&c;
        CHECK(kmsg_reader_open("/nonexistent", KMSG_FROM_NOW, &k) == -ENOENT);
        CHECK(k == (struct kmsg_reader *)&c);
}

/* Whatever the cut of the reads, the same counts. */
static void test_feed_cuts(void)
{
        char *path = fixture("metal/dev/kmsg"), *text = NULL;
        size_t len = 0;
        struct kmsg_counts c;
        CHECK(fdio_read_file(path, 1 << 20, &text, &len, NULL) == 0);
        size_t cuts[] = { 1, 2, 7, 64, 4096 };
        for (size_t i = 0; i < sizeof(cuts) / sizeof(*cuts); i++) {
                struct kmsg_reader *k = NULL;
                CHECK(kmsg_reader_new_detached(1000, &k) == 0);
                for (size_t at = 0; at < len; at += cuts[i])
                        kmsg_reader_feed(k, text + at, len - at < cuts[i] ? len - at : cuts[i]);
                kmsg_reader_counts(k, &c);
                check_metal(&c);
                kmsg_reader_free(k);
        }
        free(text);
        free(path);
}

/* A line longer than a record can be is skipped whole, and a line cut
 * at the end waits for its rest. */
static void test_feed_long_and_partial(void)
{
        struct kmsg_reader *k = NULL;
        struct kmsg_counts c;
        size_t n = 3 * KMSG_RECORD_MAX;
        char *junk = malloc(n);
        CHECK(junk);
        memcpy(junk, "3,5,1,-;", 8);
        memset(junk + 8, 'x', n - 8);
        memcpy(junk + n - 20, "I/O error", 9);
        CHECK(kmsg_reader_new_detached(KMSG_FROM_NOW, &k) == 0);
        kmsg_reader_feed(k, junk, n);
        kmsg_reader_feed(k, "\n3,6,1,-;I/O err", 16);
        kmsg_reader_counts(k, &c);
        CHECK(c.records == 0);
        kmsg_reader_feed(k, "or, dev sda\n", 12);
        kmsg_reader_counts(k, &c);
        CHECK(c.records == 1 && c.kind[KMSG_IO_ERROR] == 1 && c.lost == 0);
        /* a record that goes back (a duplicate) is not counted again */
        kmsg_reader_feed(k, "3,6,1,-;I/O error, dev sda\n3,2,1,-;I/O error\n", 45);
        kmsg_reader_counts(k, &c);
        CHECK(c.records == 1 && c.kind[KMSG_IO_ERROR] == 1);
        CHECK(kmsg_reader_next_seq(k) == 7);
        CHECK(kmsg_reader_poll(k) == -EBADF); /* detached: nothing to read */
        kmsg_reader_free(k);
        free(junk);
}

/* This host's own /dev/kmsg, where it can be read: whole records, one a
 * read, up to EAGAIN, each sequence number after 0 counted once or (gone
 * from the ring before it was read) lost, none twice by a second poll. */
static void test_real_kmsg(void)
{
        struct kmsg_reader *k = NULL;
        struct kmsg_counts a, b;
        int r = kmsg_reader_open("/", 0, &k);
        if (r < 0) {
                printf("this host's /dev/kmsg not read: %s\n", strerror(-r));
                return;
        }
        CHECK(kmsg_reader_poll(k) == 0);
        kmsg_reader_counts(k, &a);
        printf("this host's kernel log: %llu records, %llu lost before the oldest\n",
               (unsigned long long)a.records, (unsigned long long)a.lost);
        CHECK(a.records > 0 && kmsg_reader_next_seq(k) == a.records + a.lost + 1);
        CHECK(kmsg_reader_poll(k) == 0);
        kmsg_reader_counts(k, &b);
        /* every sequence number after 0 counted once or lost, none twice */
        CHECK(b.records >= a.records && kmsg_reader_next_seq(k) == b.records + b.lost + 1);
        kmsg_reader_free(k);
}

int main(void)
{
        test_parse();
        test_classify();
        test_reader_file();
        test_feed_cuts();
        test_feed_long_and_partial();
        test_real_kmsg();
        return test_failures != 0;
}
