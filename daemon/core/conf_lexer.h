/* conf_lexer.h — a configuration file's text as blocks: each section
 * header with its key/value entries and their line numbers, in the order
 * they come.  The first of the loader's two passes (conf.c applies the
 * blocks), apart from any file or table so that a fuzzer links it alone
 * (tests/fuzz/fuzz_config.c).  Every malformed line — a broken header, a
 * line that is no "key = value", a key outside any section, a NUL byte, a
 * line longer than the INI reader takes — is reported with its line
 * number and section and left out; the keys of a broken header's section
 * are dropped.  Nothing here logs. */
#ifndef BENCHWATCH_CONF_LEXER_H
#define BENCHWATCH_CONF_LEXER_H

#include <stddef.h>

struct conf_entry {
        char *key, *value;
        unsigned line;
};

struct conf_block {
        char *section; /* inner text of [...], whitespace runs collapsed */
        unsigned line;
        struct conf_entry *v;
        size_t n;
};

/* A malformed line: its number (1 is the first), the section it is in
 * (NULL: none, or the line is a header), and why (for people). */
typedef void (*conf_lexer_error_fn)(void *userdata, unsigned line, const char *section,
                                    const char *msg);

/* Splits text[0..size) (a leading UTF-8 byte order mark skipped) into
 * blocks, reporting each malformed line through error.  0 with *ret and
 * *ret_n (none: NULL and 0), or -ENOMEM. */
int conf_lexer_run(const char *text, size_t size, conf_lexer_error_fn error, void *userdata,
                   struct conf_block **ret, size_t *ret_n);
void conf_lexer_free(struct conf_block *blocks, size_t n);

#endif
