/* history_plot.h — a probe's history drawn as SVG, one panel a figure.
 *
 * What `benchwatch history --plot` writes for an operator without
 * Grafana: the figure over time, its pinned reference with the band of
 * the minimum effect around it (reference × (1 ± threshold)), the runs in
 * a regression in red, the runs that were not counted (host busy) hollow
 * and the learning runs in grey.  Nothing here logs. */
#ifndef BENCHWATCH_HISTORY_PLOT_H
#define BENCHWATCH_HISTORY_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "detect/history.h"

/* Draw entries e[0..n) (oldest first, any number of series) to f, one
 * panel per series key in order of first appearance.  -EINVAL when there
 * is nothing to draw, -EIO on a write error. */
int history_plot_svg(FILE *f, const char *probe, const struct history_entry *e, size_t n,
                     double threshold);

#endif
