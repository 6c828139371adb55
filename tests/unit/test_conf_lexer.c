/* test_conf_lexer.c — a configuration's text as blocks: sections with
 * their entries and line numbers in order, blanks and comments skipped,
 * runs of blanks in a header collapsed, a byte order mark skipped, and
 * every malformed line reported with its number and section and left out
 * (the keys after a broken header too), the rest still read. */
#include <errno.h>

#include "test.h"
#include "core/conf_lexer.h"

struct errors {
        char text[1024];
        size_t n;
};

static void on_error(void *userdata, unsigned line, const char *section, const char *msg)
{
        struct errors *e = userdata;
        size_t len = strlen(e->text);
        snprintf(e->text + len, sizeof(e->text) - len, "%u [%s] %s\n", line,
                 section ? section : "-", msg);
        e->n++;
}

static void test_good(void)
{
        static const char text[] = "\xEF\xBB\xBF# comment\n"
                                   "[daemon]\n"
                                   "  interval = 30min  \n"
                                   "; another\n"
                                   "\n"
                                   "[probe    web ]\n"
                                   "plugin = http\n"
                                   "header = A: b\n"
                                   "header = C: d\n";
        struct errors e = { "", 0 };
        struct conf_block *b = NULL;
        size_t n = 0;
        CHECK(conf_lexer_run(text, sizeof(text) - 1, on_error, &e, &b, &n) == 0);
        EXPECT(e.n == 0);
        CHECK(n == 2);
        EXPECT(!strcmp(b[0].section, "daemon") && b[0].line == 2 && b[0].n == 1);
        EXPECT(!strcmp(b[0].v[0].key, "interval") && !strcmp(b[0].v[0].value, "30min") &&
               b[0].v[0].line == 3);
        EXPECT(!strcmp(b[1].section, "probe web") && b[1].line == 6 && b[1].n == 3);
        EXPECT(!strcmp(b[1].v[1].key, "header") && !strcmp(b[1].v[1].value, "A: b") &&
               b[1].v[2].line == 9 && !strcmp(b[1].v[2].value, "C: d"));
        conf_lexer_free(b, n);
        CHECK(conf_lexer_run("", 0, on_error, &e, &b, &n) == 0 && n == 0 && !b);
}

static void test_bad(void)
{
        static const char text[] = "orphan = 1\n"
                                   "[daemon\n"
                                   "dropped = 1\n"
                                   "[daemon] tail\n"
                                   "[  ]\n"
                                   "[probe a]\n"
                                   "no separator here\n"
                                   "= 5\n"
                                   "plugin = cpu\n";
        struct errors e = { "", 0 };
        struct conf_block *b = NULL;
        size_t n = 0;
        CHECK(conf_lexer_run(text, sizeof(text) - 1, on_error, &e, &b, &n) == 0);
        EXPECT(!strcmp(e.text,
                       "1 [-] orphan: outside of any section (put it under [daemon] or "
                       "[probe NAME])\n"
                       "2 [-] missing ']' in section header '[daemon'\n"
                       "4 [-] unexpected text after ']': 'tail'\n"
                       "5 [-] empty section name\n"
                       "7 [probe a] expected 'key = value', '[section]' or a comment\n"
                       "8 [probe a] missing key name before '='\n"));
        CHECK(n == 1); /* only the good header made a block */
        EXPECT(!strcmp(b[0].section, "probe a") && b[0].n == 1 &&
               !strcmp(b[0].v[0].key, "plugin") && b[0].v[0].line == 9);
        conf_lexer_free(b, n);

        /* a NUL byte, and a line longer than the reader takes */
        char nul[] = "[daemon]\nnice = 1\0x\nsplay = 0.1\n";
        struct errors e2 = { "", 0 };
        CHECK(conf_lexer_run(nul, sizeof(nul) - 1, on_error, &e2, &b, &n) == 0);
        EXPECT(!strcmp(e2.text, "2 [daemon] line contains a NUL byte\n"));
        EXPECT(n == 1 && b[0].n == 1 && !strcmp(b[0].v[0].key, "splay"));
        conf_lexer_free(b, n);
        char *lng = malloc(5000);
        CHECK(lng);
        memcpy(lng, "[daemon]\nx = ", 13);
        memset(lng + 13, 'y', 4000);
        lng[4013] = '\n';
        lng[4014] = 0;
        struct errors e3 = { "", 0 };
        CHECK(conf_lexer_run(lng, strlen(lng), on_error, &e3, &b, &n) == 0);
        EXPECT(e3.n == 1 && strstr(e3.text, "2 [daemon] line too long (4004 characters"));
        EXPECT(n == 1 && b[0].n == 0);
        conf_lexer_free(b, n);
        free(lng);
}

int main(void)
{
        test_good();
        test_bad();
        if (!test_failures)
                printf("test_conf_lexer: ok\n");
        return test_failures != 0;
}
