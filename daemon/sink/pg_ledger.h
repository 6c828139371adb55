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
 * Once a start's or a reload's sink is in use (never a failed reload's),
 * the groups listed there that its configuration does not have are
 * stale: the sink deletes them and then forgets them here.  A list it
 * cannot read is logged and started afresh (nothing on the gateway is
 * deleted on its word); one it cannot write (a full state_dir) is logged
 * and kept in memory, the deletions go on.  Only the newest ledger
 * writes the file.  Nothing here talks to the gateway. */
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
 * ones.  0, or -ENOMEM; a list it cannot read or write is logged, not an
 * error. */
int pg_ledger_open(const char *state_dir, const char *const *current, size_t n,
                   struct pg_ledger *ret);
/* Stale group i is gone (deleted, or left to the operator): removed from
 * the ledger, and from the file where this is the newest ledger (a file
 * it cannot write is logged; the group is forgotten all the same). */
void pg_ledger_forget(struct pg_ledger *l, size_t i);
void pg_ledger_done(struct pg_ledger *l);

#endif
