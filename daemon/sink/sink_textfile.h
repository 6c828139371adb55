/* sink_textfile.h — the current figures of every probe as a .prom file for
 * node_exporter's textfile collector ([textfile] path = ...). */
#ifndef BENCHWATCH_SINK_TEXTFILE_H
#define BENCHWATCH_SINK_TEXTFILE_H

#include "sink/sink.h"

extern const struct sink_type sink_textfile_type;

#endif
