/* conf_builtin.h — the built-in configuration.
 *
 * The configuration used when none is given: cpu, threads, memory
 * bandwidth and memory latency probes (no server needed) with 1- and
 * 2-second runs every 10 to 30 minutes, under 0.25% of a 2-core host, and a
 * disk probe added by conf_load_builtin() when the disk plugin is
 * available. */
#ifndef BENCHWATCH_CONF_BUILTIN_H
#define BENCHWATCH_CONF_BUILTIN_H

extern const char conf_builtin_default[];
extern const char conf_builtin_disk[];

#endif
