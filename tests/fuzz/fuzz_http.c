/* fuzz_http.c — libFuzzer target for the http probe's response parser
 * (plugins/http/http_parse.c: status line, headers, Content-Length, chunked,
 * read-to-EOF), which reads whatever the server or proxy under test sends.
 *
 * Input: one byte
 * of options (HEAD request; how to cut the rest into reads), then the bytes
 * the server sends.  They are fed once whole and once in pieces: the
 * parser's verdict (complete, malformed or wanting more), the status and
 * where it stopped must not depend on how the bytes were split into reads,
 * and the line buffer must never overflow. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "http/http_parse.h"

struct outcome {
        int r;          /* first non-zero parse() result, or 0 */
        int status;
        size_t used;    /* bytes fed until then */
        uint8_t ps;
};

static struct outcome feed(bool head, const uint8_t *p, size_t n, size_t piece)
{
        struct http_parser c;
        struct outcome o = { 0 };
        memset(&c, 0, sizeof(c));
        http_parser_reset(&c);
        for (size_t i = 0; i < n; i += piece) {
                size_t k = n - i < piece ? n - i : piece;
                int r = http_parse(&c, head, (const char *)p + i, k);
                if (c.line_len >= sizeof(c.line))
                        abort();
                if (r) {
                        o.r = r;
                        o.used = i + k;
                        break;
                }
        }
        if (o.r > 0 && (c.status < 100 || c.status > 999))
                abort();
        o.status = c.status;
        o.ps = c.ps;
        return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1)
                return 0;
        bool head = data[0] & 1;
        size_t piece = (size_t)(data[0] >> 1) + 1;
        data++, size--;
        struct outcome whole = feed(head, data, size, size ? size : 1);
        struct outcome parts = feed(head, data, size, piece);
        struct outcome bytes = feed(head, data, size, 1);
        /* Where a verdict came, the piecewise feeds reach it in the read that
         * holds the same byte; whole reads stop at the end of input. */
        if (whole.r != parts.r || whole.r != bytes.r ||
            whole.status != bytes.status || whole.ps != bytes.ps ||
            parts.status != bytes.status)
                abort();
        if (bytes.r && (parts.used < bytes.used || parts.used - bytes.used >= piece))
                abort();
        return 0;
}
