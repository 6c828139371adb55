/* test_status_file.c — <state_dir>/status.txt, which the daemon replaces
 * after every run and `benchwatch status` reads: what is written reads
 * back the same (times to the bit, text on one line), a probe and a sink
 * are found by name, a missing file is -ENOENT, one of another kind
 * -EBADMSG with a message naming the file, a torn last line refuses the
 * file, a line of a later version is passed over, and an older daemon's
 * probe line, without the last run's time, reads as "unknown". */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "test.h"
#include "cmd/status_file.h"
#include "util/fdio.h"

static void put(const char *dir, const char *text)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/" STATUS_FILE_NAME, dir);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0 && fdio_write_all(fd, text, strlen(text)) == 0);
        close(fd);
}

static void test_round_trip(const char *dir)
{
        struct status_file_probe probes[] = {
                { .name = "cpu", .plugin = "cpu", .interval = 600, .next = 1764804200.5,
                  .last = 1764803590.0123456, .took = 0.6123, .ok = true, .counted = true,
                  .deferred_day = 2,
                  .waiting_since = 1764803590.0123456, .last_try = 1764803590.0123456,
                  .wait_reason = "none" },
                { .name = "web", .plugin = "http", .interval = 1800, .why =
                  "cannot connect:\nConnection refused", .yielded_day = 3,
                  .waiting_since = 1764800000, .last_try = 1764803300,
                  .wait_reason = "failed" },
        };
        struct sink_health_entry sinks[] = {
                { .name = "textfile", .last_ok = 1764803590.5 },
                { .name = "pushgateway", .last_ok = 1764803000, .last_error = 1764803590.25,
                  .error = "cannot push probe 'cpu' to http://127.0.0.1:9091: refused" },
        };
        struct status_file sf = { .pid = 4242, .started = 1764800000.125, .probes = probes,
                                  .n_probes = 2, .sinks = sinks, .n_sinks = 2 };
        struct status_file *back = NULL;
        char *err = NULL;
        CHECK(status_file_write(dir, &sf, &err) == 0);
        EXPECT(sf.written >= sf.started); /* set by the write */
        CHECK(status_file_read(dir, &back, &err) == 0);
        EXPECT(back->pid == 4242 && back->started == 1764800000.125 &&
               back->written == sf.written);
        CHECK(back->n_probes == 2 && back->n_sinks == 2);
        const struct status_file_probe *c = status_file_find(back, "cpu");
        const struct status_file_probe *w = status_file_find(back, "web");
        CHECK(c && w && !status_file_find(back, "disk"));
        EXPECT(!strcmp(c->plugin, "cpu") && c->interval == 600 && c->next == 1764804200.5);
        EXPECT(c->last == 1764803590.0123456 && c->ok && c->counted && c->deferred_day == 2);
        EXPECT(!c->why && !strcmp(c->wait_reason, "none"));
        EXPECT(!w->ok && !w->counted && w->yielded_day == 3 && w->last == 0);
        EXPECT(c->took == 0.6123 && w->took == 0);
        EXPECT(w->why && !strcmp(w->why, "cannot connect: Connection refused"));
        EXPECT(w->waiting_since == 1764800000 && w->last_try == 1764803300 &&
               !strcmp(w->wait_reason, "failed"));
        const struct sink_health_entry *pg = status_file_find_sink(back, "pushgateway");
        const struct sink_health_entry *tf = status_file_find_sink(back, "textfile");
        CHECK(pg && tf && !status_file_find_sink(back, "journal"));
        EXPECT(tf->last_ok == 1764803590.5 && tf->last_error == 0 && !tf->error);
        EXPECT(pg->last_error == 1764803590.25 && pg->error &&
               !strcmp(pg->error, sinks[1].error));
        status_file_free(back);
}

static void test_refusals(const char *dir)
{
        struct status_file *sf = NULL;
        char *err = NULL, missing[256];
        snprintf(missing, sizeof(missing), "%s/none", dir);
        EXPECT(status_file_read(missing, &sf, &err) == -ENOENT);
        EXPECT(err && strstr(err, "cannot read '") && strstr(err, "No such file"));
        free(err);
        err = NULL;
        put(dir, "benchwatch-baseline 3\n");
        EXPECT(status_file_read(dir, &sf, &err) == -EBADMSG);
        EXPECT(err && strstr(err, "is not a status file"));
        free(err);
        err = NULL;
        put(dir, "benchwatch-status 1\ndaemon 1 2 3\nprobe cpu cpu 600 0 0 1 1 0 0");
        EXPECT(status_file_read(dir, &sf, NULL) == -EBADMSG); /* torn */
        put(dir, "benchwatch-status 1\nwhy cpu before its probe line\n");
        EXPECT(status_file_read(dir, &sf, NULL) == -EBADMSG);
        put(dir, "benchwatch-status 1\ndaemon 1e300 2 3\n");
        EXPECT(status_file_read(dir, &sf, NULL) == -EBADMSG); /* no pid */
        put(dir, "benchwatch-status 1\ndaemon 7 2 3\ncolour cpu blue\n"
                 "probe cpu cpu 600 0 0 1 1 0 0\n");
        CHECK(status_file_read(dir, &sf, NULL) == 0); /* a later version's line */
        EXPECT(sf->pid == 7 && sf->n_probes == 1);
        EXPECT(sf->probes[0].took == 0); /* an older daemon's: no run time */
        status_file_free(sf);
}

int main(void)
{
        char dir[] = "/tmp/test_status_file.XXXXXX", path[256];
        CHECK(mkdtemp(dir));
        test_round_trip(dir);
        test_refusals(dir);
        snprintf(path, sizeof(path), "%s/" STATUS_FILE_NAME, dir);
        unlink(path);
        EXPECT(rmdir(dir) == 0);
        if (!test_failures)
                printf("test_status_file: ok\n");
        return test_failures != 0;
}
