/* sinkconf.h — option handling the sinks share: the value of an option
 * of a sink's table (every sink and the fan-out read theirs this way),
 * and for the network sinks ([pushgateway], [remote_write]) the url that
 * turns them on, the connection and retry options, extra labels given as
 * name=value,name=value, the default instance (the host name), secrets
 * named by *_file options, and the malloc'd error texts their
 * constructors return.  One copy of each, so the sections read the same
 * way. */
#ifndef BENCHWATCH_SINKCONF_H
#define BENCHWATCH_SINKCONF_H

#include <stddef.h>

#include "sink/httpc.h"

struct param_set;
struct bw_param_value;

/* The value of option `name` of a sink's table (asserts it exists). */
const struct bw_param_value *sinkconf_opt(const struct param_set *ps, const char *name);

struct sinkconf_labels {
        char **names, **values;
        size_t n;
};

/* Parse "name=value,name=value" (blanks around either trimmed, empty items
 * skipped) into l (zeroed first).  Names must be Prometheus label names,
 * not reserved (__*), and not job, instance or probe, which benchwatch
 * sets itself.  0, -ENOMEM, or -EINVAL with *ret_error. */
int sinkconf_labels_parse(const char *s, struct sinkconf_labels *l, char **ret_error);
void sinkconf_labels_done(struct sinkconf_labels *l);

/* gethostname(2), malloc'd. 0 or -errno. */
int sinkconf_host_name(char **ret);

/* The secret named by option `option` (a file, or a systemd credential:
 * secret.h), malloc'd; free with secret_free().  0, -ENOMEM, or -errno
 * with *ret_error naming the option and the file. */
int sinkconf_read_secret(const char *option, const char *name, char **ret,
                         char **ret_error);

char *sinkconf_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The url of a network sink: 0 when it is http:// or https://, else
 * -EINVAL with *ret_error. */
int sinkconf_check_url(const char *url, char **ret_error);
/* How a network sink's constructor opens: 1 when its `url` option is set
 * and valid, 0 when it is empty (the sink is off), or -EINVAL with
 * *ret_error. */
int sinkconf_url_given(const struct param_set *opts, char **ret_error);
/* A copy of opts that names no secret file (password_file and
 * bearer_token_file empty), for a check of the configuration: a secret is
 * the environment's (a systemd credential exists only inside the unit, a
 * file may be readable by the service alone), and `status` or
 * `check-config` run by hand must not fail for want of it; the daemon
 * reads it when it starts.  0 or -ENOMEM (*ret NULL). */
int sinkconf_without_secrets(const struct param_set *opts, struct param_set **ret);

/* The options every network sink has alike: ca_file, cert_file, key_file,
 * insecure, connect_timeout and timeout as httpc takes them (strings point
 * into opts; credentials and answer_max are the caller's to add), and the
 * retry delays (retry_max at least retry_min). */
struct sinkconf_conn {
        struct httpc_opts http;
        double retry_min, retry_max;
};
void sinkconf_conn_parse(const struct param_set *opts, struct sinkconf_conn *ret);
/* The delay before the next attempt after another failure: retry_min,
 * then doubled each time up to retry_max. */
double sinkconf_conn_backoff(const struct sinkconf_conn *c, double backoff);

#endif
