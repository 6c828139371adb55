/* pg_ledger.h — the Pushgateway groups the daemon pushes to, kept in
 * state_dir, so that the group of a probe that is gone gets deleted.
 *
 * A Pushgateway keeps a group until someone deletes it: a probe removed
 * from the configuration, or an `instance` or `labels` changed, left its
 * old groups on the gateway with their figures frozen, and three hours
 * later BenchwatchPushStale fired for a probe nobody runs.  So the daemon
 * keeps the group URLs of its configuration in
 * <state_dir>/pushgateway-groups, replaced atomically:
 *
 *   benchwatch-pushgateway-groups 1
 *   <group URL>                         one a line
 *
 * At each start and reload the groups listed there that the new
 * configuration does not have are stale: the sink deletes them and then
 * forgets them here.  A list it cannot read is logged and started afresh
 * (nothing on the gateway is deleted on its word).  The sinks of a reload
 * overlap while the old one stops; only the newest ledger writes the
 * file.  Nothing here talks to the gateway. */
#ifndef BENCHWATCH_PG_LEDGER_H
#define BENCHWATCH_PG_LEDGER_H

#include <stddef.h>

struct pg_ledger {
        char *dir, *path;
        unsigned generation;    /* the newest ledger's writes the file */
        char **current;         /* the configuration's groups */
        size_t n_current;
        char **stale;           /* listed, no longer configured: to delete */
        size_t n_stale;
};

/* Reads state_dir's list, takes current[0..n) (copied) as the groups of
 * the configuration, and writes the list again as those and the stale
 * ones.  0, or -errno with *ret_error (malloc'd) naming the file; an
 * unreadable list is not an error (it is logged, nothing is stale). */
int pg_ledger_open(const char *state_dir, const char *const *current, size_t n,
                   struct pg_ledger *ret, char **ret_error);
/* Stale group i is gone (deleted, or left to the operator): removed from
 * the ledger, and from the file where this is the newest ledger.  0 or
 * -errno (the file's error; the group is forgotten all the same). */
int pg_ledger_forget(struct pg_ledger *l, size_t i);
void pg_ledger_done(struct pg_ledger *l);

#endif
