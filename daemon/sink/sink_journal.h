/* sink_journal.h — each result as one structured journal entry ([journal],
 * on by default), or as one key=value syslog line ([syslog], and [journal]
 * where journald is not running).
 *
 * Fields: MESSAGE (one readable line), PRIORITY (info, or warning for a
 * failed run), BENCHWATCH_PROBE, _PLUGIN, _SUCCESS (1/0), _ERROR (failed
 * runs), _DURATION (seconds), BENCHWATCH_PARAM_<NAME> per parameter and one
 * field per figure: the family name upper-cased, with the labels that tell
 * its samples apart folded in (BENCHWATCH_DISK_IOPS_OP_READ), summaries as
 * _P50/_P95/_P99/_MAX in seconds.  The syslog line is MESSAGE followed by
 * the other fields as KEY=value (values quoted when they need it). */
#ifndef BENCHWATCH_SINK_JOURNAL_H
#define BENCHWATCH_SINK_JOURNAL_H

#include "sink/sink.h"

extern const struct sink_type sink_journal_type;
extern const struct sink_type sink_journal_syslog_type;

/* The journal fields of r as "KEY=value" strings, malloc'd, in the order
 * above. 0 or -ENOMEM. */
int sink_journal_fields(const struct result *r, char ***ret, size_t *ret_n);
void sink_journal_fields_free(char **fields, size_t n);

#endif
