/* secret.c — see secret.h.  Secrets are small: more than SECRET_MAX bytes
 * is a wrong file, not a password. */
#include "util/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fdio.h"
#include "util/strutil.h"

#define SECRET_MAX 65536

/* The file a secret name stands for, malloc'd.  0, -EINVAL for "." or
 * "..", -ENXIO for a credential name without $CREDENTIALS_DIRECTORY, or
 * -ENOMEM. */
static int secret_path(const char *name, char **ret_path)
{
        const char *dir = getenv("CREDENTIALS_DIRECTORY");
        char *p;

        if (strchr(name, '/'))
                p = strdup(name);
        else if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
                return -EINVAL;
        else if (!dir || !*dir)
                return -ENXIO;
        else
                p = str_printf("%s/%s", dir, name);
        if (!p)
                return -ENOMEM;
        *ret_path = p;
        return 0;
}

static int read_first_line(const char *path, char **ret, bool *ret_world)
{
        uint8_t *data = NULL;
        size_t len = 0, n = 0;
        struct stat st;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        int r = fd < 0 || fstat(fd, &st) < 0 ? -errno
                                             : fdio_read_all(fd, SECRET_MAX, &data, &len);
        char *s;

        if (fd >= 0)
                close(fd);
        if (r < 0)
                return r;
        /* Only the first line is copied: no stray bytes outlive the wipe. */
        while (n < len && data[n] != '\r' && data[n] != '\n')
                n++;
        s = strndup(data ? (const char *)data : "", n);
        if (data) {
                explicit_bzero(data, len);
                free(data);
        }
        if (!s)
                return -ENOMEM;
        if (ret_world)
                *ret_world = (st.st_mode & S_IROTH) != 0;
        *ret = s;
        return 0;
}

int secret_read(const char *name, char **ret, char **ret_path, bool *ret_world)
{
        char *path = NULL;
        int r = secret_path(name, &path);

        if (r >= 0)
                r = read_first_line(path, ret, ret_world);
        if (ret_path)
                *ret_path = path;
        else
                free(path);
        return r;
}

void secret_free(char *s)
{
        if (!s)
                return;
        explicit_bzero(s, strlen(s));
        free(s);
}
