/* test_sinkconf.c — the options the sinks share: an option's value by
 * name, the url that turns a network sink on (http:// or https:// only),
 * extra labels (trimmed, empty items skipped, the names benchwatch sets
 * itself and reserved ones refused with their reason), the connection and
 * retry options as httpc takes them and the backoff they give (doubling,
 * capped), and a secret read from a file or refused with the option and
 * the file it named. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "core/param.h"
#include "sink/sink_pushgateway.h"
#include "sink/sinkconf.h"
#include "util/secret.h"

static struct param_set *pushgateway(const char *const *kv)
{
        struct param_set *ps = NULL;
        char *err = NULL;
        CHECK(param_set_new(sink_pushgateway_type.options, &ps, &err) == 0);
        for (; kv && *kv; kv++)
                if (param_set_assign_kv(ps, *kv, &err) < 0) {
                        fprintf(stderr, "%s: %s\n", *kv, err);
                        exit(1);
                }
        return ps;
}

static void test_labels(void)
{
        struct sinkconf_labels l;
        char *err = NULL;
        CHECK(sinkconf_labels_parse(" site = t1 ,, rack=r2,", &l, &err) == 0);
        EXPECT(l.n == 2 && !strcmp(l.names[0], "site") && !strcmp(l.values[0], "t1") &&
               !strcmp(l.names[1], "rack") && !strcmp(l.values[1], "r2"));
        sinkconf_labels_done(&l);
        EXPECT(l.n == 0 && !l.names);
        CHECK(sinkconf_labels_parse("", &l, &err) == 0 && l.n == 0);
        sinkconf_labels_done(&l);
        const struct { const char *text, *why; } bad[] = {
                { "site", "labels: 'site' is not name=value" },
                { "job=x", "labels: 'job' is not a label name benchwatch can group by" },
                { "instance=x", "'instance' is not a label name" },
                { "probe=x", "'probe' is not a label name" },
                { "__name__=x", "'__name__' is not a label name" },
                { "1st=x", "'1st' is not a label name" },
                { "a-b=x", "'a-b' is not a label name" },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                err = NULL;
                EXPECT(sinkconf_labels_parse(bad[i].text, &l, &err) == -EINVAL);
                EXPECT(err && strstr(err, bad[i].why));
                free(err);
                sinkconf_labels_done(&l);
        }
}

static void test_url(void)
{
        char *err = NULL;
        EXPECT(sinkconf_check_url("http://127.0.0.1:9091", &err) == 0 && !err);
        EXPECT(sinkconf_check_url("https://gw.example:9091/", &err) == 0 && !err);
        EXPECT(sinkconf_check_url("ftp://gw", &err) == -EINVAL);
        EXPECT(err && !strcmp(err, "url 'ftp://gw' is not http:// or https://"));
        free(err);
        const char *none[] = { NULL }, *on[] = { "url=http://127.0.0.1:1", NULL };
        const char *off[] = { "url=127.0.0.1:9091", NULL };
        struct param_set *a = pushgateway(none), *b = pushgateway(on), *c = pushgateway(off);
        err = NULL;
        EXPECT(sinkconf_url_given(a, &err) == 0 && !err); /* no url: the sink is off */
        EXPECT(sinkconf_url_given(b, &err) == 1 && !err);
        EXPECT(sinkconf_url_given(c, &err) == -EINVAL && err);
        free(err);
        EXPECT(!strcmp(sinkconf_opt(b, "url")->s, "http://127.0.0.1:1"));
        param_set_free(a);
        param_set_free(b);
        param_set_free(c);
}

static void test_conn(void)
{
        const char *kv[] = { "url=https://gw:9091", "connect_timeout=2s", "timeout=7.5s",
                             "retry_min=2s", "retry_max=9s", "insecure=yes",
                             "ca_file=/etc/ca.pem", NULL };
        const char *swapped[] = { "retry_min=30s", "retry_max=5s", NULL };
        struct param_set *ps = pushgateway(kv), *sw = pushgateway(swapped);
        struct sinkconf_conn c;
        sinkconf_conn_parse(ps, &c);
        EXPECT(c.http.connect_timeout_ms == 2000 && c.http.timeout_ms == 7500);
        EXPECT(c.http.insecure && !strcmp(c.http.ca_file, "/etc/ca.pem"));
        EXPECT(c.retry_min == 2 && c.retry_max == 9);
        double b = 0, seq[] = { 2, 4, 8, 9, 9 };
        for (size_t i = 0; i < 5; i++) {
                b = sinkconf_conn_backoff(&c, b);
                EXPECT(b == seq[i]);
        }
        sinkconf_conn_parse(sw, &c);
        EXPECT(c.retry_min == 30 && c.retry_max == 30); /* at least retry_min */
        EXPECT(sinkconf_conn_backoff(&c, 0) == 30 && sinkconf_conn_backoff(&c, 30) == 30);
        param_set_free(ps);
        param_set_free(sw);
}

static void test_secret(const char *dir)
{
        char path[256], *secret = NULL, *err = NULL;
        snprintf(path, sizeof(path), "%s/token", dir);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0 && write(fd, "s3cret\nignored\n", 15) == 15);
        close(fd);
        EXPECT(sinkconf_read_secret("password_file", path, &secret, &err) == 0);
        EXPECT(secret && !strcmp(secret, "s3cret") && !err);
        secret_free(secret);
        snprintf(path, sizeof(path), "%s/none", dir);
        EXPECT(sinkconf_read_secret("password_file", path, &secret, &err) == -ENOENT);
        EXPECT(err && strstr(err, "cannot open password_file '") && strstr(err, "/none'"));
        free(err);
        err = NULL;
        unsetenv("CREDENTIALS_DIRECTORY");
        EXPECT(sinkconf_read_secret("bearer_token_file", "rw-token", &secret, &err) == -ENXIO);
        EXPECT(err && strstr(err, "bearer_token_file 'rw-token' names a systemd credential "
                                  "but $CREDENTIALS_DIRECTORY is not set"));
        free(err);
        err = NULL;
        setenv("CREDENTIALS_DIRECTORY", dir, 1);
        EXPECT(sinkconf_read_secret("bearer_token_file", "token", &secret, &err) == 0);
        EXPECT(secret && !strcmp(secret, "s3cret"));
        secret_free(secret);
        unsetenv("CREDENTIALS_DIRECTORY");
        snprintf(path, sizeof(path), "%s/token", dir);
        unlink(path);
}

int main(void)
{
        char dir[] = "/tmp/test_sinkconf.XXXXXX", *host = NULL;
        CHECK(mkdtemp(dir));
        test_labels();
        test_url();
        test_conn();
        test_secret(dir);
        EXPECT(sinkconf_host_name(&host) == 0 && host && *host);
        free(host);
        char *e = sinkconf_errorf("%s %d", "x", 4);
        EXPECT(e && !strcmp(e, "x 4"));
        free(e);
        EXPECT(rmdir(dir) == 0);
        if (!test_failures)
                printf("test_sinkconf: ok\n");
        return test_failures != 0;
}
