/* fuzz_kmsg.c — libFuzzer target for the kernel log as /dev/kmsg gives it
 * (core/kmsg.c): one record parsed and classified, and the whole input
 * fed to a reader.
 *
 * Input: a record, or several lines of them.  A parsed record's text lies
 * inside the input; the reader's counts never have more classified
 * records than records, and are the same whether the input comes in one
 * read or a byte at a time (a partial line waits for its rest, an
 * overlong one is skipped whole either way). */
#include <stdlib.h>
#include <string.h>

#include "core/kmsg.h"

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        return 0;
}

static void counts_of(const uint8_t *data, size_t size, size_t cut, struct kmsg_counts *ret)
{
        struct kmsg_reader *k = NULL;
        if (kmsg_reader_new_detached(size ? data[0] : 0, &k) < 0)
                abort();
        for (size_t at = 0; at < size; at += cut)
                kmsg_reader_feed(k, (const char *)data + at, size - at < cut ? size - at : cut);
        kmsg_reader_counts(k, ret);
        uint64_t kinds = 0;
        for (int i = 0; i < KMSG_N_KINDS; i++)
                kinds += ret->kind[i];
        if (kinds > ret->records)
                abort();
        kmsg_reader_free(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct kmsg_record r;
        const char *text = (const char *)data;
        if (kmsg_parse(text, size, &r) >= 0) {
                if (r.text < text || r.text + r.text_len > text + size || r.level > 7)
                        abort();
                (void)kmsg_classify(r.text, r.text_len);
        }
        struct kmsg_counts whole, bytes;
        counts_of(data, size, size ? size : 1, &whole);
        counts_of(data, size, 1, &bytes);
        if (memcmp(&whole, &bytes, sizeof(whole)))
                abort();
        return 0;
}
