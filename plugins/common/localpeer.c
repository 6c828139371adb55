/* localpeer.c — see localpeer.h: loopback by its address, the host's other
 * addresses by getifaddrs(3), address literals by getaddrinfo(3) with
 * AI_NUMERICHOST, so that no name is ever looked up. */
#include "localpeer.h"

#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>

static bool loopback(const struct sockaddr *sa)
{
        if (sa->sa_family == AF_INET) {
                const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
                return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
        }
        if (sa->sa_family == AF_INET6) {
                const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
                return IN6_IS_ADDR_LOOPBACK(a) ||
                       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
        }
        return false;
}

static bool same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
        if (a->sa_family != b->sa_family)
                return false;
        if (a->sa_family == AF_INET)
                return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
                       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
        if (a->sa_family == AF_INET6)
                return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                              &((const struct sockaddr_in6 *)b)->sin6_addr,
                              sizeof(struct in6_addr)) == 0;
        return false;
}

bool localpeer_addr(const struct sockaddr *sa)
{
        struct ifaddrs *all;
        bool here = loopback(sa);
        if (here || getifaddrs(&all) < 0)
                return here;
        for (const struct ifaddrs *i = all; i && !here; i = i->ifa_next)
                here = i->ifa_addr && same_addr(i->ifa_addr, sa);
        freeifaddrs(all);
        return here;
}

bool localpeer_host(const char *host)
{
        struct addrinfo hints = { .ai_flags = AI_NUMERICHOST,
                                  .ai_socktype = SOCK_STREAM }, *ai;
        char name[256];
        size_t n = host ? strlen(host) : 0;
        bool here = false;
        if (n == 0 || n >= sizeof(name))
                return false;
        /* an IPv6 literal may come in brackets */
        if (n > 2 && host[0] == '[' && host[n - 1] == ']') {
                memcpy(name, host + 1, n - 2);
                name[n - 2] = '\0';
        } else
                memcpy(name, host, n + 1);
        if (!strcasecmp(name, "localhost"))
                return true;
        if (getaddrinfo(name, NULL, &hints, &ai) != 0)
                return false;
        for (const struct addrinfo *a = ai; a && !here; a = a->ai_next)
                here = localpeer_addr(a->ai_addr);
        freeaddrinfo(ai);
        return here;
}
