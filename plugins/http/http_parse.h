/* http_parse.h — an HTTP/1.1 response as the http plugin's raw engine
 * reads it: status line, headers (Content-Length, Transfer-Encoding:
 * chunked, Connection), a body of known length, chunked or up to EOF,
 * interim 1xx responses skipped.  Fed incrementally, in place, with no
 * allocation: the state fits in struct http_parser.
 *
 * It reads whatever the server or proxy under test sends, so it lives
 * apart from the I/O loop (http_raw.c) and tests/fuzz/fuzz_http.c links
 * it. */
#ifndef BENCHWATCH_HTTP_PARSE_H
#define BENCHWATCH_HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum http_pstate {
        HTTP_P_STATUS, HTTP_P_HEADER, HTTP_P_BODY_LEN, HTTP_P_BODY_EOF,
        HTTP_P_CHUNK_SIZE, HTTP_P_CHUNK_DATA, HTTP_P_CHUNK_CRLF, HTTP_P_TRAILER,
};

struct http_parser {
        uint8_t ps;           /* enum http_pstate */
        bool chunked, close, have_len;
        int status;           /* of the response, once its status line is in */
        uint64_t left;        /* body or chunk bytes still to come */
        uint16_t line_len;
        char line[126];       /* the line being read; longer ones are cut */
};

/* Ready for a new response on the connection. */
void http_parser_reset(struct http_parser *p);
/* Feed n bytes; head: the request was HEAD (no body follows).  1: the
 * response is complete (p->status, p->close say how), 0: more wanted
 * (HTTP_P_BODY_EOF: the rest is the body, until the connection ends),
 * -1: malformed. */
int http_parse(struct http_parser *p, bool head, const char *data, size_t n);

#endif
