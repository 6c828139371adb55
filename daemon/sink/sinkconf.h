/* sinkconf.h — option handling the network sinks ([pushgateway],
 * [remote_write]) share: extra labels given as name=value,name=value, the
 * default instance (the host name), secrets named by *_file options, and
 * the malloc'd error texts their constructors return. */
#ifndef BENCHWATCH_SINKCONF_H
#define BENCHWATCH_SINKCONF_H

#include <stddef.h>

struct sink_labels {
        char **names, **values;
        size_t n;
};

/* Parse "name=value,name=value" (blanks around either trimmed, empty items
 * skipped) into l (zeroed first).  Names must be Prometheus label names,
 * not reserved (__*), and not job, instance or probe, which benchwatch
 * sets itself.  0, -ENOMEM, or -EINVAL with *ret_error. */
int sink_labels_parse(const char *s, struct sink_labels *l, char **ret_error);
void sink_labels_done(struct sink_labels *l);

/* gethostname(2), malloc'd. 0 or -errno. */
int sink_host_name(char **ret);

/* The secret named by option `option` (a file, or a systemd credential:
 * secret.h), malloc'd; free with secret_free().  0, -ENOMEM, or -errno
 * with *ret_error naming the option and the file. */
int sink_read_secret(const char *option, const char *name, char **ret,
                     char **ret_error);

char *sink_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
