/* test_codec.c — the runner's wire format: a result survives the round
 * trip exactly (labels, histograms, errors), and bytes that are not a
 * valid result are refused with a reason instead of trusted. */
#include <errno.h>

#include "core/codec.h"
#include "test.h"

int main(void)
{
        struct result *r = result_new("root-disk", "disk"), *back = NULL;
        struct bw_hist h;
        bw_hist_init(&h);
        for (uint64_t i = 1; i < 5000; i++)
                bw_hist_record(&h, i * 7919);
        r->success = true;
        r->started = 1764500000.25;
        r->duration = 10.5;
        CHECK(result_add_param(r, "mode", "randread") == 0);
        CHECK(result_add(r, "benchwatch_disk_iops", "IOPS", METRIC_GAUGE,
                         (const char *const[]){ "op", "read", NULL }, 7340.44, NULL) == 0);
        CHECK(result_add(r, "benchwatch_disk_latency_seconds", "lat", METRIC_SUMMARY,
                         (const char *const[]){ "op", "read", NULL }, 0, &h) == 0);
        CHECK(result_add(r, "benchwatch_disk_iops", "x", METRIC_COUNTER, NULL, 1, NULL) == -EINVAL);
        CHECK(result_add_probe_families(r) == 0);

        uint8_t *buf;
        size_t size;
        char *why = NULL;
        CHECK(codec_encode_result(r, &buf, &size) == 0);
        CHECK(codec_decode_result(buf, size, &back, &why) == 0);
        CHECK(!strcmp(back->probe, "root-disk") && back->success && back->duration == 10.5);
        CHECK(back->n_params == 1 && !strcmp(back->params[0].value, "randread"));
        const struct sample *s = result_find_sample(back, "benchwatch_disk_iops",
                                                    (const char *const[]){ "op", "read", NULL });
        CHECK(s && s->value == 7340.44);
        s = result_find_sample(back, "benchwatch_disk_latency_seconds", NULL);
        CHECK(s && s->hist && memcmp(s->hist, &h, sizeof(h)) == 0);
        CHECK(result_find_sample(back, "benchwatch_probe_success", NULL)->value == 1);
        result_free(back);

        /* truncated and corrupted bytes are refused, never crash */
        for (size_t cut = 0; cut < size; cut += size / 50 + 1) {
                back = NULL;
                if (codec_decode_result(buf, cut, &back, &why) == 0)
                        result_free(back); /* a prefix may still parse */
                else {
                        CHECK(why);
                        free(why);
                        why = NULL;
                }
        }
        static const uint8_t junk[] = "\x0a\xff\xff\xff\xff\x0fnot a protobuf";
        CHECK(codec_decode_result(junk, sizeof(junk), &back, &why) == -EBADMSG);
        CHECK_STR_CONTAINS(why, "not a result message");
        free(why);

        /* an error result */
        result_free(r);
        r = result_new("x", "cpu");
        result_set_error(r, "cannot open '/nope': No such file or directory");
        free(buf);
        CHECK(codec_encode_result(r, &buf, &size) == 0);
        CHECK(codec_decode_result(buf, size, &back, &why) == 0);
        CHECK(!back->success && !strcmp(back->error, r->error));
        CHECK(!back->yielded);
        result_free(back);
        free(buf);

        /* a run whose plugin made way for other work on its device (plugin.h's
         * -EBUSY) arrives as one that yielded, not as a failure */
        r->yielded = RESULT_YIELDED_DEVICE;
        CHECK(codec_encode_result(r, &buf, &size) == 0);
        CHECK(codec_decode_result(buf, size, &back, &why) == 0);
        CHECK(!back->success && back->yielded && !strcmp(back->yielded, "device"));
        result_free(back);
        /* only a failed run can have yielded */
        r->success = true;
        free(buf);
        CHECK(codec_encode_result(r, &buf, &size) == 0);
        CHECK(codec_decode_result(buf, size, &back, &why) == 0);
        CHECK(back->success && !back->yielded);
        result_free(back);
        result_free(r);
        free(buf);
        printf("test_codec: ok\n");
        return 0;
}
