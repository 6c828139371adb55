/* conf_errors.h — the configuration loader's errors, all of them in one
 * go and in the order of the text: by file (as the files were read: the
 * main file, then its drop-ins) and line, however late each was found.
 * The plugins' checks run once every file is read, and a probe's check
 * runs even where another section has an error, so one `check-config`
 * names every fault; its error stands at its probe's line.  Which sections
 * had an error is kept too: a check on values that did not parse would
 * only add noise. */
#ifndef BENCHWATCH_CONF_ERRORS_H
#define BENCHWATCH_CONF_ERRORS_H

#include <stdbool.h>
#include <stddef.h>

struct conf_error;

/* Bounds, so that a file of many thousand faults costs no more than one of
 * a few: the first CONF_ERRORS_KEPT errors found are kept and sorted (the
 * rest only counted), and the first CONF_ERRORS_SECTIONS sections with
 * an error named; past that every section counts as having one. */
#define CONF_ERRORS_KEPT 400
#define CONF_ERRORS_SECTIONS 256

struct conf_errors {
        struct conf_error *v;
        size_t n;           /* kept */
        size_t n_all;       /* found */
        char **files;       /* in the order read */
        size_t n_files;
        char **sections;    /* those with an error, e.g. "probe disk" */
        size_t n_sections;
        bool many_sections; /* more than CONF_ERRORS_SECTIONS */
        bool oom;
};

/* The next file read is file (its errors sort after those of the files
 * before). */
void conf_errors_file(struct conf_errors *e, const char *file);
/* An error at file:line (0: the file as a whole) in section (NULL: none),
 * text as it is to be shown (taken; NULL: out of memory). */
void conf_errors_add(struct conf_errors *e, const char *file, unsigned line,
                     const char *section, char *text);
/* Whether section had an error. */
bool conf_errors_in(const struct conf_errors *e, const char *section);
/* The errors in file and line order, one a line, the first max of them
 * and "(N more errors not shown)"; NULL when there are none or out of
 * memory.  n_all, not n, says whether there are any. */
char *conf_errors_text(const struct conf_errors *e, unsigned max);
void conf_errors_free(struct conf_errors *e);

#endif
