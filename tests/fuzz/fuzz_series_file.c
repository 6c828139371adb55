/* fuzz_series_file.c — libFuzzer target for the files an operator hands
 * benchwatch: a history for `replay` and `baseline import`
 * (series_file.c), and the detector fed whatever such a file holds.
 *
 * Input: the file's bytes.  A file that is accepted holds only finite
 * figures > 0 and timestamps that never go back; every one of its values
 * goes through detector_update() (the daemon's detector, in both
 * directions) and detector_verify() without an error, with evidence and
 * changes that are numbers, and a reference imported from it is pinned. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "detect/detector.h"
#include "detect/series_file.h"

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        return 0;
}

static void run_detector(const struct series_point *p, size_t n, enum detector_direction dir)
{
        struct detector_config c = { 0 };
        struct detector d;
        struct detector_verdict v;
        detector_config_default(&c);
        c.reference_runs = 8;
        detector_init(&d);
        for (size_t i = 0; i < n; i++) {
                if (detector_update(&d, &c, dir, p[i].value, p[i].t, i % 7 != 3, &v) < 0)
                        abort();
                if (v.valid && (isnan(v.evidence) || v.evidence < 0 || isnan(v.change)))
                        abort();
        }
        if (d.pinned) {
                struct detector_verify_verdict vv;
                size_t k = n < 20 ? n : 20;
                double fresh[20];
                for (size_t i = 0; i < k; i++)
                        fresh[i] = p[n - k + i].value;
                if (detector_verify(&d, &c, dir, fresh, k, 3, 20, &vv) < 0 || isnan(vv.change))
                        abort();
                if (detector_accept(&d, &c, 1) < 0 && d.n_recent >= 3)
                        abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        FILE *f = fmemopen((void *)data, size, "r");
        struct series_point *p = NULL;
        char *err = NULL;
        size_t n = 0;
        if (!f)
                return 0;
        int r = series_file_parse(f, "fuzz", &p, &n, &err);
        fclose(f);
        if (r < 0) {
                if (!err)
                        abort(); /* a bad file always says why */
                free(err);
                return 0;
        }
        for (size_t i = 0; i < n; i++) {
                if (!isfinite(p[i].value) || !(p[i].value > 0))
                        abort();
                if (i && !isnan(p[i].t) && p[i].t < p[i - 1].t)
                        abort();
        }
        run_detector(p, n, DETECTOR_HIGHER_IS_BETTER);
        run_detector(p, n, DETECTOR_LOWER_IS_BETTER);
        if (n >= DETECTOR_REF_MIN) {
                double *v = malloc(n * sizeof(*v));
                struct detector d;
                for (size_t i = 0; v && i < n; i++)
                        v[i] = p[i].value;
                if (v && (detector_import(&d, v, n, 0) < 0 || !d.pinned))
                        abort();
                free(v);
        }
        free(p);
        return 0;
}
