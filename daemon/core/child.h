/* child.h — the child side of a probe run.
 *
 * The runner starts `benchwatch __child` (a fresh exec, not a fork of the
 * daemon); it reads one run request on stdin, lowers its own priority,
 * loads the one plugin it needs, runs it against a bw_host that collects
 * a struct result, and writes the encoded result to fd 3.  Anything the
 * plugin does — crash, hang, leak — stays in this process, and the process
 * does not outlive the runner: when the runner dies (even by SIGKILL) the
 * child is told to stop, and kills its group if it has not within a tenth
 * of a second, busy CPUs or not. */
#ifndef BENCHWATCH_CHILD_H
#define BENCHWATCH_CHILD_H

#define CHILD_RESULT_FD 3
#define CHILD_SUBCOMMAND "__child"

/* argv: benchwatch __child [--parent=PID]; with the runner's PID the
 * child dies with it (PR_SET_PDEATHSIG), cleaning up what it can. */
int child_main(int argc, char **argv);

#endif
