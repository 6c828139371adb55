/* fuzz_baseline.c — libFuzzer target for the baseline reader
 * (baseline_store.c): a file in the state directory that a crash, a full
 * disk, an older or newer benchwatch or a hand may have left in any state,
 * read by a daemon running as root before every run.
 *
 * Input: the file's bytes, read as they are, and again as the body of a
 * file whose closing "end" line (the series count and the checksum of
 * what comes before) is made to fit, so that mutations reach past the
 * checksum.  A file that is accepted holds series with canonical keys and
 * directions, and survives a round trip: saved and read back, it saves to
 * the same bytes; the daemon's work on it (a run's figures, the gauges,
 * the journal lines) ends without an error. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect/baseline.h"
#include "detect/baseline_report.h"
#include "detect/baseline_store.h"
#include "util/fdio.h"

#include "fuzz.h"

static char dir[64];

static void remove_dir(void)
{
        char path[128];
        snprintf(path, sizeof(path), "%s/baseline-fuzz.txt", dir);
        unlink(path);
        rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof(dir), "%s/fuzz_baseline.XXXXXX",
                 tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
        if (!mkdtemp(dir))
                abort();
        atexit(remove_dir);
        return 0;
}

/* Saved, then the file's bytes. */
static char *saved(const struct baseline *b, size_t *ret_len)
{
        char path[128], *text = NULL, *err = NULL;
        snprintf(path, sizeof(path), "%s/baseline-fuzz.txt", dir);
        if (baseline_store_save(b, dir, &err) < 0 ||
            fdio_read_file(path, 1 << 24, &text, ret_len, NULL) < 0)
                abort(); /* what was read can be written */
        free(err);
        return text;
}

/* The daemon's work on the baseline: a run of one of its figures. */
static void judge(struct baseline *b)
{
        struct detector_config c;
        struct result *res = result_new("fuzz", "fuzz");
        detector_config_default(&c);
        if (!res)
                return;
        res->success = true;
        res->started = 1e9;
        for (size_t i = 0; i < b->n_series && i < 4; i++)
                if (!b->series[i].n_labels &&
                    result_add(res, b->series[i].metric, "", METRIC_GAUGE, NULL, 10, NULL) < 0)
                        abort();
        int r = baseline_update(b, res, &c, true);
        if (r < 0 && r != -ENOMEM)
                abort();
        if (r >= 0 && baseline_report_metrics(b, res, true) < 0)
                abort();
        for (size_t i = 0; r >= 0 && i < b->n_series; i++)
                free(baseline_report_transition(b, &b->series[i]));
        result_free(res);
}

/* data as the body of a file with the "end" line the store writes. */
static char *with_end(const uint8_t *data, size_t size, size_t *ret_len)
{
        uint64_t h = 0xcbf29ce484222325u;
        size_t series = 0;
        char *text = malloc(size + 64);
        if (!text)
                return NULL;
        memcpy(text, data, size);
        if (!size || text[size - 1] != '\n')
                text[size++] = '\n';
        for (size_t i = 0; i < size; i++) {
                h = (h ^ (unsigned char)text[i]) * 0x100000001b3u;
                series += (i == 0 || text[i - 1] == '\n') && !strncmp(text + i, "series ", 7);
        }
        *ret_len = size + (size_t)snprintf(text + size, 64, "end %zu %016" PRIx64 "\n", series, h);
        return text;
}

static void one(char *text, size_t size)
{
        struct baseline *b = NULL, *again = NULL;
        if (!text)
                return;
        int r = baseline_store_parse(text, size, "fuzz", 1e9, &b);
        free(text);
        if (r < 0) {
                if (r != -EBADMSG && r != -EPROTONOSUPPORT && r != -ENOMEM)
                        abort();
                return;
        }
        for (size_t i = 0; i < b->n_series; i++)
                if (b->series[i].direction == DETECTOR_NONE || !b->series[i].key ||
                    baseline_find(b, b->series[i].key) != &b->series[i])
                        abort();
        size_t len1 = 0, len2 = 0;
        char *first = saved(b, &len1);
        if (baseline_store_parse(first, len1, "fuzz", 1e9, &again) < 0)
                abort(); /* what it writes, it reads */
        free(first);
        first = saved(b, &len1);
        char *second = saved(again, &len2);
        if (len1 != len2 || memcmp(first, second, len1))
                abort(); /* and reads it as it was */
        free(first);
        free(second);
        judge(b);
        baseline_free(again);
        baseline_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = malloc(size + 1);
        size_t len = 0;
        if (text) {
                memcpy(text, data, size);
                text[size] = 0;
        }
        one(text, size);
        text = with_end(data, size, &len);
        one(text, len);
        return 0;
}
