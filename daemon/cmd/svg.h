/* svg.h — what the two SVG writers (`sweep --plot`, `history --svg`)
 * share: text put into a picture as XML text, so that a probe, a series
 * key or a sweep level a user named (with its <, &, > or quotes) shows as
 * written and never breaks the picture.  Nothing here logs. */
#ifndef BENCHWATCH_SVG_H
#define BENCHWATCH_SVG_H

#include <stdio.h>

/* s, with &, <, > and " escaped: for an element's text or an attribute's
 * value in double quotes. */
void svg_text(FILE *f, const char *s);

#endif
