/* http_parse.c — the http plugin's response parser (see http_parse.h). */
#include "http_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool header_is(const char *line, const char *name, const char **ret_value)
{
        size_t n = strlen(name);
        if (strncasecmp(line, name, n) || line[n] != ':')
                return false;
        line += n + 1;
        while (*line == ' ' || *line == '\t')
                line++;
        *ret_value = line;
        return true;
}

static int end_of_header(struct http_parser *p, bool head)
{
        if (p->status < 200) {
                p->ps = HTTP_P_STATUS; /* interim response: the real one follows */
                return 0;
        }
        if (head || p->status == 204 || p->status == 304)
                return 1;
        if (p->chunked) {
                p->ps = HTTP_P_CHUNK_SIZE;
                return 0;
        }
        if (p->have_len) {
                p->ps = HTTP_P_BODY_LEN;
                return p->left ? 0 : 1;
        }
        p->ps = HTTP_P_BODY_EOF; /* the body ends with the connection */
        p->close = true;
        return 0;
}

static int header_line(struct http_parser *p, bool head)
{
        const char *v;
        char *end;
        if (!p->line_len)
                return end_of_header(p, head);
        if (header_is(p->line, "content-length", &v)) {
                errno = 0;
                unsigned long long n = strtoull(v, &end, 10);
                if (errno || end == v || *v < '0' || *v > '9')
                        return -1;
                p->left = n;
                p->have_len = true;
        } else if (header_is(p->line, "transfer-encoding", &v)) {
                p->chunked = strcasestr(v, "chunked") != NULL;
        } else if (header_is(p->line, "connection", &v)) {
                if (strcasestr(v, "close"))
                        p->close = true;
                else if (strcasestr(v, "keep-alive"))
                        p->close = false;
        }
        return 0;
}

static int status_line(struct http_parser *p)
{
        const char *s = p->line;
        if (p->line_len < 12 || strncmp(s, "HTTP/1.", 7) || s[8] != ' ' ||
            s[9] < '1' || s[9] > '9' || s[10] < '0' || s[10] > '9' ||
            s[11] < '0' || s[11] > '9')
                return -1;
        p->status = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
        p->close = s[7] == '0'; /* HTTP/1.0 closes unless it says keep-alive */
        p->chunked = p->have_len = false;
        p->left = 0;
        p->ps = HTTP_P_HEADER;
        return 0;
}

/* A whole line is in p->line: 1 response complete, 0 more, -1 malformed. */
static int line_done(struct http_parser *p, bool head)
{
        char *end;
        if (p->line_len && p->line[p->line_len - 1] == '\r')
                p->line_len--;
        p->line[p->line_len] = '\0';
        int r = 0;
        switch (p->ps) {
        case HTTP_P_STATUS:
                r = status_line(p);
                break;
        case HTTP_P_HEADER:
                r = header_line(p, head);
                break;
        case HTTP_P_CHUNK_SIZE:
                errno = 0;
                p->left = strtoull(p->line, &end, 16);
                if (errno || end == p->line || !isxdigit((unsigned char)p->line[0]))
                        r = -1;
                else
                        p->ps = p->left ? HTTP_P_CHUNK_DATA : HTTP_P_TRAILER;
                break;
        case HTTP_P_CHUNK_CRLF:
                r = p->line_len ? -1 : 0;
                p->ps = HTTP_P_CHUNK_SIZE;
                break;
        case HTTP_P_TRAILER:
                r = p->line_len ? 0 : 1;
                break;
        }
        p->line_len = 0;
        return r;
}

int http_parse(struct http_parser *p, bool head, const char *data, size_t n)
{
        size_t i = 0;
        while (i < n) {
                if (p->ps == HTTP_P_BODY_EOF)
                        return 0;
                if (p->ps == HTTP_P_BODY_LEN || p->ps == HTTP_P_CHUNK_DATA) {
                        size_t take = n - i < p->left ? n - i : (size_t)p->left;
                        p->left -= take;
                        i += take;
                        if (p->left)
                                return 0;
                        if (p->ps == HTTP_P_BODY_LEN)
                                return 1;
                        p->ps = HTTP_P_CHUNK_CRLF;
                        continue;
                }
                const char *nl = memchr(data + i, '\n', n - i);
                size_t take = nl ? (size_t)(nl - (data + i)) : n - i;
                size_t room = sizeof(p->line) - 1 - p->line_len;
                memcpy(p->line + p->line_len, data + i, take < room ? take : room);
                p->line_len += (uint16_t)(take < room ? take : room);
                i += take;
                if (!nl)
                        return 0;
                i++;
                int r = line_done(p, head);
                if (r)
                        return r;
        }
        return 0;
}

void http_parser_reset(struct http_parser *p)
{
        p->ps = HTTP_P_STATUS;
        p->status = 0;
        p->line_len = 0;
}
