/* test_localpeer.c — which servers are on this host (plugins/common/localpeer.h):
 * loopback addresses of both families, this host's own interface addresses,
 * localhost and address literals; not a documentation address (RFC 5737,
 * RFC 3849), nor a name, which is never looked up. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "../unit/test.h"
#include "common/localpeer.h"

static bool v4(const char *text)
{
        struct sockaddr_in a = { .sin_family = AF_INET };
        CHECK(inet_pton(AF_INET, text, &a.sin_addr) == 1);
        return localpeer_addr((struct sockaddr *)&a);
}

static bool v6(const char *text)
{
        struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
        CHECK(inet_pton(AF_INET6, text, &a.sin6_addr) == 1);
        return localpeer_addr((struct sockaddr *)&a);
}

static void test_addresses(void)
{
        CHECK(v4("127.0.0.1") && v4("127.1.2.3"));
        CHECK(v6("::1") && v6("::ffff:127.0.0.1"));
        CHECK(!v4("192.0.2.1") && !v4("128.0.0.1") && !v4("0.0.0.1"));
        CHECK(!v6("2001:db8::1") && !v6("::ffff:192.0.2.1") && !v6("::2"));
}

/* every address this host's interfaces have is here */
static void test_own_interfaces(void)
{
        struct ifaddrs *all;
        unsigned n = 0;
        CHECK(getifaddrs(&all) == 0);
        for (const struct ifaddrs *i = all; i; i = i->ifa_next) {
                if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET &&
                                     i->ifa_addr->sa_family != AF_INET6))
                        continue;
                CHECK(localpeer_addr(i->ifa_addr));
                n++;
        }
        freeifaddrs(all);
        CHECK(n > 0);
}

static void test_hosts(void)
{
        CHECK(localpeer_host("localhost") && localpeer_host("LocalHost"));
        CHECK(localpeer_host("127.0.0.1"));
        /* names are not looked up, not even /etc/hosts' */
        CHECK(!localpeer_host("ip6-localhost") && !localpeer_host("localhost.localdomain"));
        CHECK(localpeer_host("::1") && localpeer_host("[::1]"));
        CHECK(!localpeer_host("192.0.2.1") && !localpeer_host("[2001:db8::1]"));
        CHECK(!localpeer_host("") && !localpeer_host(NULL) && !localpeer_host("[]"));
}

int main(void)
{
        test_addresses();
        test_own_interfaces();
        test_hosts();
        printf("test_localpeer: all checks passed\n");
        return 0;
}
