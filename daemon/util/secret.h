/* secret.h — reading a secret (a password, a bearer token) named in the
 * configuration, so that it never sits in the configuration file itself.
 *
 * A name with a '/' is a file; a bare name is a systemd credential,
 * $CREDENTIALS_DIRECTORY/NAME (LoadCredential= in the unit), which keeps
 * the secret out of the daemon's own view of the file system. */
#ifndef BENCHWATCH_SECRET_H
#define BENCHWATCH_SECRET_H

#include <stdbool.h>

/* The first line of the secret `name` (without its line end), malloc'd;
 * an empty file is the empty secret.  *ret_path (may be NULL) gets the
 * file tried, for the caller's message, also on failure; *ret_world (may
 * be NULL) whether every user may read it, for the caller to warn.  The
 * bytes read are wiped before they are freed.  0, -EINVAL for a bad
 * credential name, -ENXIO for a credential without
 * $CREDENTIALS_DIRECTORY, or -errno. */
int secret_read(const char *name, char **ret, char **ret_path, bool *ret_world);

/* Overwrite and free a secret; NULL is fine. */
void secret_free(char *s);

#endif
