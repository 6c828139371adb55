/* fuzz_codec.c — libFuzzer target for the runner's result decoding: the
 * bytes a probe's child process sends back.  A crashed, confused or
 * compromised plugin may send anything, and the daemon (often root) must
 * neither crash nor be steered by it.
 *
 * A message that codec_decode_result() accepts then goes through everything
 * the daemon does with a result: every terminal format, the Prometheus text
 * and protobuf encoders, result_copy(), and a baseline update, saved and
 * read back (a label value must not be able to corrupt the baseline file).
 * Re-encoding a decoded result and decoding it again must give the same
 * bytes.  With FUZZ_WRITE_SEEDS=DIR set, writes a few well-formed messages
 * to DIR (how corpus/codec was made) and exits. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/codec.h"
#include "detect/baseline.h"
#include "detect/baseline_report.h"
#include "detect/baseline_store.h"
#include "encode/prom_proto.h"
#include "encode/prom_text.h"
#include "encode/report_format.h"

#include "fuzz.h"

static char state_dir[64];

static void remove_state(void)
{
        char *p = NULL;
        if (baseline_store_path(state_dir, "fuzz", &p) == 0)
                unlink(p);
        free(p);
        rmdir(state_dir);
}

static void write_seed(const char *dir, const char *name, const struct result *r)
{
        uint8_t *buf;
        size_t n;
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || codec_encode_result(r, &buf, &n) < 0 ||
            write(fd, buf, n) != (ssize_t)n)
                abort();
        close(fd);
        free(buf);
}

static void write_seeds(const char *dir)
{
        struct bw_hist h;
        bw_hist_init(&h);
        for (uint64_t v = 1000; v < 5000000; v = v * 3 / 2)
                bw_hist_record(&h, v);
        struct result *r = result_new("cpu", "cpu");
        const char *const lab[] = { "max_prime", "10000", NULL };
        const char *const op[] = { "op", "read", "quantile", "x\"\n\\", NULL };
        if (!r || result_add_param(r, "max_prime", "10000") < 0 ||
            result_add(r, "benchwatch_cpu_events_per_second", "Events per s",
                       METRIC_GAUGE, lab, 1234.5, NULL) < 0 ||
            result_add(r, "benchwatch_cpu_latency_seconds", "Latency",
                       METRIC_SUMMARY, lab, 0, &h) < 0 ||
            result_add(r, "benchwatch_disk_iops", "IOPS", METRIC_GAUGE, op,
                       99, NULL) < 0 ||
            result_add(r, "benchwatch_http_failed_total", "failed",
                       METRIC_COUNTER, NULL, 3, NULL) < 0)
                abort();
        r->success = true;
        r->started = 1764500000.1;
        r->duration = 10.01;
        write_seed(dir, "cpu-ok", r);
        result_set_error(r, "cannot open '/x': No such file");
        write_seed(dir, "failed", r);
        result_free(r);
        r = result_new("", "");
        write_seed(dir, "empty", r);
        result_free(r);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        const char *seeds = getenv("FUZZ_WRITE_SEEDS");
        if (seeds) {
                write_seeds(seeds);
                exit(0);
        }
        const char *tmp = getenv("TMPDIR");
        snprintf(state_dir, sizeof(state_dir), "%s/fuzz_codec.XXXXXX",
                 tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
        if (!mkdtemp(state_dir))
                abort();
        atexit(remove_state);
        return 0;
}

static void sink_all(const struct result *r)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                abort();
        report_format_json(f, r);
        report_format_table(f, r);
        report_format_line(f, r);
        fclose(f);
        free(buf);
        const struct result *rs[] = { r, r };
        if (prom_text_to_string(rs, 2, &buf, &len) == 0)
                free(buf);
        uint8_t *pb;
        if (prom_proto_encode(r, &pb, &len) == 0)
                free(pb);
        result_free(result_copy(r));
}

/* Encoding what was decoded and decoding it again is a fixed point. */
static void roundtrip(const struct result *r)
{
        uint8_t *a, *b;
        size_t na, nb;
        struct result *r2 = NULL;
        char *err = NULL;
        if (codec_encode_result(r, &a, &na) < 0)
                abort();
        if (codec_decode_result(a, na, &r2, &err) < 0) {
                fprintf(stderr, "re-decoding failed: %s\n", err);
                abort();
        }
        if (codec_encode_result(r2, &b, &nb) < 0 || na != nb || memcmp(a, b, na))
                abort();
        free(a);
        free(b);
        result_free(r2);
}

/* Whatever the labels hold, a saved baseline reads back. */
static void baseline_roundtrip(const struct result *r)
{
        struct detector_config c = { 0 };
        detector_config_default(&c);
        struct baseline *b = baseline_new("fuzz"), *b2 = NULL;
        char *err = NULL;
        if (!b)
                abort();
        if (baseline_update(b, r, &c, true) == 0 && b->n_series) {
                if (baseline_store_save(b, state_dir, &err) < 0)
                        abort();
                if (baseline_store_load(state_dir, "fuzz", &b2, &err) < 0) {
                        fprintf(stderr, "baseline does not read back: %s\n", err);
                        abort();
                }
                if (b2->n_series != b->n_series)
                        abort();
                for (size_t i = 0; i < b->n_series; i++)
                        if (!baseline_find(b2, b->series[i].key))
                                abort();
                struct result *m = result_copy(r);
                if (m && baseline_report_metrics(b, m, true) == 0)
                        sink_all(m);
                result_free(m);
        }
        baseline_free(b);
        baseline_free(b2);
        free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct result *r = NULL;
        char *err = NULL;
        int ret = codec_decode_result(data, size, &r, &err);
        if (ret < 0) {
                if (ret != -ENOMEM && !err)
                        abort(); /* a refused message says why */
                free(err);
        } else {
                if (err)
                        abort();
                sink_all(r);
                roundtrip(r);
                baseline_roundtrip(r);
                result_free(r);
        }
        struct run_request *req = NULL;
        if (codec_decode_request(data, size, &req) == 0)
                codec_free_request(req);
        return 0;
}
