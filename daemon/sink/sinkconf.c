/* sinkconf.c — see sinkconf.h. */
#include "sink/sinkconf.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/param.h"
#include "util/secret.h"
#include "util/strutil.h"

const struct bw_param_value *sinkconf_opt(const struct param_set *ps, const char *name)
{
        int i = param_index(ps->defs, name);

        assert(i >= 0);
        return &ps->values[i];
}

char *sinkconf_errorf(const char *fmt, ...)
{
        va_list ap;
        char *s;

        va_start(ap, fmt);
        s = str_vprintf(fmt, ap);
        va_end(ap);
        return s;
}

int sinkconf_check_url(const char *url, char **ret_error)
{
        if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
                *ret_error = sinkconf_errorf("url '%s' is not http:// or https://", url);
                return -EINVAL;
        }
        return 0;
}

int sinkconf_without_secrets(const struct param_set *opts, struct param_set **ret)
{
        static const char *const secrets[] = { "password_file", "bearer_token_file", NULL };
        int r = param_set_copy(opts, ret);
        for (int i = 0; r >= 0 && secrets[i]; i++) {
                char *why = NULL;
                if (param_index(opts->defs, secrets[i]) >= 0)
                        r = param_set_assign(*ret, secrets[i], "", &why);
                free(why);
        }
        if (r < 0) {
                param_set_free(*ret);
                *ret = NULL;
                return -ENOMEM; /* "" is a valid string: only memory fails */
        }
        return 0;
}

int sinkconf_url_given(const struct param_set *opts, char **ret_error)
{
        const char *url = sinkconf_opt(opts, "url")->s;
        if (!url || !*url)
                return 0;
        int r = sinkconf_check_url(url, ret_error);
        return r < 0 ? r : 1;
}

void sinkconf_conn_parse(const struct param_set *o, struct sinkconf_conn *ret)
{
        *ret = (struct sinkconf_conn){
                .http = {
                        .ca_file = sinkconf_opt(o, "ca_file")->s,
                        .cert_file = sinkconf_opt(o, "cert_file")->s,
                        .key_file = sinkconf_opt(o, "key_file")->s,
                        .insecure = sinkconf_opt(o, "insecure")->b,
                        .connect_timeout_ms = (long)(sinkconf_opt(o, "connect_timeout")->d * 1000),
                        .timeout_ms = (long)(sinkconf_opt(o, "timeout")->d * 1000),
                },
                .retry_min = sinkconf_opt(o, "retry_min")->d,
                .retry_max = sinkconf_opt(o, "retry_max")->d,
        };
        if (ret->retry_max < ret->retry_min)
                ret->retry_max = ret->retry_min;
}

double sinkconf_conn_backoff(const struct sinkconf_conn *c, double backoff)
{
        backoff = backoff ? backoff * 2 : c->retry_min;
        return backoff > c->retry_max ? c->retry_max : backoff;
}

static bool valid_label_name(const char *s)
{
        if (!*s || (*s >= '0' && *s <= '9') || !strncmp(s, "__", 2))
                return false;
        for (; *s; s++)
                if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                      (*s >= '0' && *s <= '9') || *s == '_'))
                        return false;
        return true;
}

static char *trimmed(const char *s, size_t n)
{
        while (n && (*s == ' ' || *s == '\t'))
                s++, n--;
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
                n--;
        return strndup(s, n);
}

static int add_label(struct sinkconf_labels *l, const char *item, size_t len,
                     char **ret_error)
{
        const char *eq = memchr(item, '=', len);
        char **nn, **nv, *name, *value;

        if (!eq) {
                *ret_error = sinkconf_errorf("labels: '%.*s' is not name=value", (int)len, item);
                return -EINVAL;
        }
        name = trimmed(item, (size_t)(eq - item));
        value = trimmed(eq + 1, len - (size_t)(eq - item) - 1);
        nn = realloc(l->names, (l->n + 1) * sizeof(*nn));
        if (nn)
                l->names = nn;
        nv = realloc(l->values, (l->n + 1) * sizeof(*nv));
        if (nv)
                l->values = nv;
        if (!name || !value || !nn || !nv) {
                free(name);
                free(value);
                return -ENOMEM;
        }
        l->names[l->n] = name;
        l->values[l->n++] = value;
        if (!valid_label_name(name) || !strcmp(name, "job") ||
            !strcmp(name, "instance") || !strcmp(name, "probe")) {
                *ret_error = sinkconf_errorf("labels: '%s' is not a label name benchwatch "
                                             "can group by", name);
                return -EINVAL;
        }
        return 0;
}

int sinkconf_labels_parse(const char *s, struct sinkconf_labels *l, char **ret_error)
{
        memset(l, 0, sizeof(*l));
        while (s && *s) {
                size_t len = strcspn(s, ",");
                if (strspn(s, " \t") < len) {
                        int r = add_label(l, s, len, ret_error);
                        if (r < 0)
                                return r;
                }
                s += len + (s[len] == ',');
        }
        return 0;
}

void sinkconf_labels_done(struct sinkconf_labels *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->names[i]);
                free(l->values[i]);
        }
        free(l->names);
        free(l->values);
        memset(l, 0, sizeof(*l));
}

int sinkconf_host_name(char **ret)
{
        char buf[256];

        if (gethostname(buf, sizeof(buf)) < 0)
                return -errno;
        buf[sizeof(buf) - 1] = 0;
        *ret = strdup(buf);
        return *ret ? 0 : -ENOMEM;
}

int sinkconf_read_secret(const char *option, const char *name, char **ret,
                         char **ret_error)
{
        char *path = NULL;
        int r = secret_read(name, ret, &path, NULL);

        if (r == -ENXIO)
                *ret_error = sinkconf_errorf("%s '%s' names a systemd credential but "
                                             "$CREDENTIALS_DIRECTORY is not set (give a "
                                             "path with a '/' for a plain file)", option, name);
        else if (r == -EINVAL)
                *ret_error = sinkconf_errorf("%s '%s' is not a file or credential name",
                                             option, name);
        else if (r < 0 && r != -ENOMEM)
                *ret_error = sinkconf_errorf("cannot open %s '%s': %s", option,
                                             path ? path : name, strerror(-r));
        free(path);
        return r;
}
