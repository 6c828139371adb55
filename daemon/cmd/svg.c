/* svg.c — see svg.h. */
#include "cmd/svg.h"

void svg_text(FILE *f, const char *s)
{
        for (; s && *s; s++) {
                if (*s == '&')
                        fputs("&amp;", f);
                else if (*s == '<')
                        fputs("&lt;", f);
                else if (*s == '>')
                        fputs("&gt;", f);
                else if (*s == '"')
                        fputs("&quot;", f);
                else
                        fputc(*s, f);
        }
}
