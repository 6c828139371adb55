/* fuzz_evidence_store.c — libFuzzer target for a probe's evidence file
 * (detect/evidence_store.c): any text is parsed or refused; what parses
 * holds no more runs than the limits, and written out and parsed again
 * is the same store.
 *
 * Input: the file's text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/evidence_store.h"

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        return 0;
}

static bool same(double a, double b)
{
        return (isnan(a) && isnan(b)) || a == b;
}

static void check_round_trip(const struct evidence_store *s)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                abort();
        fputs("benchwatch-evidence 1\n", f);
        if (s->cause_label)
                fprintf(f, "cause %s %s\n", s->cause_label, s->cause_text);
        for (size_t i = 0; i < s->n; i++) {
                fprintf(f, "run %.17g %d", s->runs[i].t, s->runs[i].reference);
                for (int k = 0; k < CAUSE_N_FIGURES; k++)
                        fprintf(f, isnan(s->runs[i].fig.f[k]) ? " nan" : " %.17g",
                                s->runs[i].fig.f[k]);
                fputc('\n', f);
        }
        fclose(f);
        struct evidence_store again;
        if (evidence_store_parse(buf, &again) < 0 || again.n != s->n)
                abort();
        for (size_t i = 0; i < s->n; i++)
                for (int k = 0; k < CAUSE_N_FIGURES; k++)
                        if (!same(again.runs[i].fig.f[k], s->runs[i].fig.f[k]))
                                abort();
        evidence_store_clear(&again);
        free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = malloc(size + 1);
        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = 0;
        struct evidence_store s;
        if (evidence_store_parse(text, &s) >= 0) {
                if (s.n > DETECTOR_REF_MAX + EVIDENCE_RECENT_MAX)
                        abort();
                if (!strchr(s.cause_text ? s.cause_text : "", '\n'))
                        check_round_trip(&s);
                evidence_store_clear(&s);
        }
        free(text);
        return 0;
}
