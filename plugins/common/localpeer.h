/* localpeer.h — whether the server a probe talks to runs on this host.
 *
 * A client and a server on one host share its CPUs.  Where those are full,
 * the requests or transactions a second a client gets also depend on its
 * own CPU per request, and clients differ in that (ab needed 1.16x
 * benchwatch's through the seed's proxies, sysbench oltp 1.05x:
 * docs/reports/benchmarks.md), so a figure measured beside its server is
 * not the server's speed alone.  The http and mysql probes say so in their
 * report, with the client's CPU per request, when the server is here. */
#ifndef BENCHWATCH_LOCALPEER_H
#define BENCHWATCH_LOCALPEER_H

#include <stdbool.h>
#include <sys/socket.h>

/* A loopback address (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104) or an
 * address of one of this host's interfaces. */
bool localpeer_addr(const struct sockaddr *sa);

/* The host of a server as a user gives it: "localhost" or an address
 * literal (IPv6 in brackets or not) that localpeer_addr() calls local.
 * Other names are not looked up (a lookup after a run could wait on DNS
 * for seconds): not known to be local, false. */
bool localpeer_host(const char *host);

#endif
