/* test_log.c — log lines stay whole when threads log at once.
 *
 * The daemon's sink threads log beside the main loop; on stderr (the
 * journal's stream under systemd) a line merged with another's loses its
 * priority prefix and reads as something else: the fault campaign took a
 * restart's "started" line for another thread's.  Four threads log 2,000
 * lines each into a pipe read back here; every line must be one whole
 * message with its own prefix. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "test.h"

#define THREADS 4
#define LINES 2000

static void *chatter(void *arg)
{
        int id = (int)(long)arg;
        for (int i = 0; i < LINES; i++)
                log_msg(LOG_INFO, "thread %d line %d of a message long enough to be written in "
                        "parts %s", id, i, "(the end)");
        return NULL;
}

static void *drain(void *arg)
{
        FILE *in = arg, *out = tmpfile();
        char buf[4096];
        size_t n;
        CHECK(out);
        while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
                CHECK(fwrite(buf, 1, n, out) == n);
        rewind(out);
        return out;
}

int main(void)
{
        int fds[2];
        CHECK(pipe(fds) == 0);
        CHECK(setenv("JOURNAL_STREAM", "8:1", 1) == 0); /* the "<6>" prefix */
        int saved = dup(STDERR_FILENO);
        CHECK(saved >= 0 && dup2(fds[1], STDERR_FILENO) >= 0);
        close(fds[1]);
        FILE *in = fdopen(fds[0], "r");
        pthread_t reader, t[THREADS];
        CHECK(in && pthread_create(&reader, NULL, drain, in) == 0);
        for (long i = 0; i < THREADS; i++)
                CHECK(pthread_create(&t[i], NULL, chatter, (void *)i) == 0);
        for (int i = 0; i < THREADS; i++)
                pthread_join(t[i], NULL);
        CHECK(dup2(saved, STDERR_FILENO) >= 0); /* the pipe's last writer gone */
        void *ret;
        pthread_join(reader, &ret);
        FILE *out = ret;
        char line[512];
        unsigned whole = 0, broken = 0;
        while (fgets(line, sizeof(line), out)) {
                int id, i, end = 0;
                int got = sscanf(line, "<6>thread %d line %d of a message long enough to be "
                                 "written in parts (the end)\n%n", &id, &i, &end);
                if (got == 2 && end == (int)strlen(line))
                        whole++;
                else if (broken++ < 3)
                        fprintf(stderr, "broken line: %s", line);
        }
        EXPECT(broken == 0);
        EXPECT(whole == THREADS * LINES);
        fprintf(stderr, "%u whole lines, %u broken\n", whole, broken);
        return test_failures ? 1 : 0;
}
