/* secret.c — see secret.h.  Secrets are small: more than SECRET_MAX bytes
 * is a wrong file, not a password. */
#include "secret.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "strutil.h"

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

static int read_first_line(const char *path, char **ret)
{
        uint8_t *data = NULL;
        size_t len = 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        int r = fd < 0 ? -errno : fd_read_all(fd, SECRET_MAX, &data, &len);
        char *s;

        if (fd >= 0)
                close(fd);
        if (r < 0)
                return r;
        s = strndup(data ? (const char *)data : "", len);
        if (data) {
                explicit_bzero(data, len);
                free(data);
        }
        if (!s)
                return -ENOMEM;
        s[strcspn(s, "\r\n")] = 0;
        *ret = s;
        return 0;
}

int secret_read(const char *name, char **ret, char **ret_path)
{
        char *path = NULL;
        int r = secret_path(name, &path);

        if (r >= 0)
                r = read_first_line(path, ret);
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
