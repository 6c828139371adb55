/* conf_lexer.c — see conf_lexer.h.
 *
 * Our own line reader hands libinih one line at a time, which tells us the
 * line number (Debian builds inih without INI_HANDLER_LINENO), lets us
 * refuse a line longer than inih's buffer instead of having it cut
 * silently, and lets us name the reason for every malformed line or header
 * (inih only returns the number of the first bad line).  Leading
 * whitespace is stripped before inih sees a line, so an indented key is a
 * key and never a "continuation". */
#include "core/conf_lexer.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

struct lexer {
        conf_lexer_error_fn error;
        void *userdata;
        const char *p, *end;  /* text not read yet */
        unsigned line;        /* of the line inih is working on */
        struct conf_block *blocks;
        size_t n_blocks;
        bool bad_section;     /* after a broken header: drop its keys */
        bool oom;
        unsigned n_errors;
};

/* Reports a malformed line (formatted), at the current line. */
static void err_at(struct lexer *lx, const char *section, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void err_at(struct lexer *lx, const char *section, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *msg = str_vprintf(fmt, ap);
        va_end(ap);
        if (!msg) {
                lx->oom = true;
                return;
        }
        lx->n_errors++;
        lx->error(lx->userdata, lx->line, section, msg);
        free(msg);
}

static const char *cur_section(const struct lexer *lx)
{
        if (lx->bad_section || !lx->n_blocks)
                return NULL;
        return lx->blocks[lx->n_blocks - 1].section;
}

static char *collapse_spaces(const char *s, size_t len)
{
        char *t = malloc(len + 1);
        size_t n = 0;
        if (!t)
                return NULL;
        for (size_t i = 0; i < len; i++) {
                if (!isspace((unsigned char)s[i]))
                        t[n++] = s[i];
                else if (n && t[n - 1] != ' ')
                        t[n++] = ' ';
        }
        while (n && t[n - 1] == ' ')
                n--;
        t[n] = 0;
        return t;
}

static void add_block(struct lexer *lx, char *name)
{
        struct conf_block *b = realloc(lx->blocks, (lx->n_blocks + 1) * sizeof(*b));
        if (!b) {
                free(name);
                lx->oom = true;
                return;
        }
        lx->blocks = b;
        b[lx->n_blocks++] = (struct conf_block){ .section = name, .line = lx->line };
        lx->bad_section = false;
}

/* A "[section]" line (s is trimmed, starts with '['). */
static void parse_header(struct lexer *lx, const char *s, size_t len)
{
        const char *close = memchr(s, ']', len);
        lx->bad_section = true;
        if (!close) {
                err_at(lx, NULL, "missing ']' in section header '%.*s'",
                       (int)(len > 60 ? 60 : len), s);
                return;
        }
        const char *rest = close + 1, *end = s + len;
        while (rest < end && isspace((unsigned char)*rest))
                rest++;
        if (rest < end && *rest != ';' && *rest != '#') {
                err_at(lx, NULL, "unexpected text after ']': '%.*s'",
                       (int)(end - rest > 60 ? 60 : end - rest), rest);
                return;
        }
        char *name = collapse_spaces(s + 1, (size_t)(close - s - 1));
        if (!name) {
                lx->oom = true;
                return;
        }
        if (!*name) {
                free(name);
                err_at(lx, NULL, "empty section name");
                return;
        }
        add_block(lx, name);
}

/* Where inih will split "name = value" (it accepts ':' too), or NULL when
 * an inline comment (';' after whitespace) comes first. */
static const char *find_separator(const char *s, size_t len)
{
        bool was_space = false;
        for (size_t i = 0; i < len; i++) {
                if (s[i] == '=' || s[i] == ':')
                        return s + i;
                if (was_space && s[i] == ';')
                        return NULL;
                was_space = isspace((unsigned char)s[i]);
        }
        return NULL;
}

/* True when the (trimmed) line is a "key = value" line for inih; reports
 * every other kind of line that is not blank or a comment. */
static bool check_line(struct lexer *lx, const char *s, size_t len,
                       size_t bufsize)
{
        if (memchr(s, '\0', len)) {
                err_at(lx, cur_section(lx), "line contains a NUL byte");
                return false;
        }
        if (len == 0 || *s == ';' || *s == '#')
                return false;
        if (*s == '[') {
                parse_header(lx, s, len);
                return false;
        }
        const char *sep = find_separator(s, len);
        if (!sep)
                err_at(lx, cur_section(lx),
                       "expected 'key = value', '[section]' or a comment");
        else if (sep == s)
                err_at(lx, cur_section(lx), "missing key name before '%c'", *sep);
        else if (len + 2 > bufsize) /* inih needs room for "\n\0" */
                err_at(lx, cur_section(lx), "line too long (%zu characters, at most %zu)",
                       len, bufsize - 2);
        return sep && sep != s && len + 2 <= bufsize;
}

/* inih's reader: one whole line per call, trimmed, or "\n" in place of a
 * line that inih must not see (comments, headers, lines we refused). */
static char *read_line(char *buf, int num, void *stream)
{
        struct lexer *lx = stream;
        if (lx->p >= lx->end || num < 3)
                return NULL;
        const char *s = lx->p;
        const char *nl = memchr(s, '\n', (size_t)(lx->end - s));
        size_t len = (size_t)((nl ? nl : lx->end) - s);
        lx->p = nl ? nl + 1 : lx->end;
        lx->line++;
        while (len && isspace((unsigned char)*s))
                s++, len--;
        while (len && isspace((unsigned char)s[len - 1]))
                len--;
        if (!check_line(lx, s, len, (size_t)num))
                len = 0;
        memcpy(buf, s, len);
        buf[len] = '\n';
        buf[len + 1] = 0;
        return buf;
}

static int on_key(void *user, const char *section, const char *name,
                  const char *value)
{
        struct lexer *lx = user;
        (void)section; /* ours, from parse_header(), is authoritative */
        if (lx->bad_section)
                return 1;
        if (!lx->n_blocks) {
                err_at(lx, NULL, "%s: outside of any section (put it under [daemon] or "
                       "[probe NAME])", name);
                return 1;
        }
        struct conf_block *b = &lx->blocks[lx->n_blocks - 1];
        struct conf_entry *v = realloc(b->v, (b->n + 1) * sizeof(*v));
        if (!v) {
                lx->oom = true;
                return 0;
        }
        b->v = v;
        v[b->n] = (struct conf_entry){ .key = strdup(name), .value = strdup(value),
                                       .line = lx->line };
        if (!v[b->n].key || !v[b->n].value)
                lx->oom = true;
        b->n++;
        return 1;
}

void conf_lexer_free(struct conf_block *blocks, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                for (size_t k = 0; k < blocks[i].n; k++) {
                        free(blocks[i].v[k].key);
                        free(blocks[i].v[k].value);
                }
                free(blocks[i].v);
                free(blocks[i].section);
        }
        free(blocks);
}

int conf_lexer_run(const char *text, size_t size, conf_lexer_error_fn error, void *userdata,
                   struct conf_block **ret, size_t *ret_n)
{
        struct lexer lx = { .error = error, .userdata = userdata, .p = text,
                            .end = text + size };
        if (size >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
                lx.p += 3; /* a UTF-8 byte order mark */
        int r = ini_parse_stream(read_line, &lx, on_key, &lx);
        if (r > 0 && !lx.n_errors && !lx.oom) {
                lx.line = (unsigned)r;
                err_at(&lx, NULL, "cannot parse this line");
        }
        if (r < 0 || lx.oom) {
                conf_lexer_free(lx.blocks, lx.n_blocks);
                return -ENOMEM;
        }
        *ret = lx.blocks;
        *ret_n = lx.n_blocks;
        return 0;
}
