/* test_context.c — what a figure was measured on: items kept sorted and
 * replaced by name, a run's context is the host's plus its device's
 * (benchwatch_disk_info, prefixed disk_), the difference between two is
 * said in people's words (the host's items first, "(none)" for an item
 * one side lacks, NULL when nothing differs or either is unknown), this
 * host's items are read, and the host's info result carries them. */
#include <errno.h>
#include <sys/utsname.h>

#include "test.h"
#include "detect/context.h"

static void test_items(void)
{
        struct context c = { 0 }, d = { 0 };
        CHECK(context_set(&c, "kernel_release", "6.1.0-13-amd64") == 0);
        CHECK(context_set(&c, "cpu_model", "Xeon") == 0);
        CHECK(context_set(&c, "microcode", "0x2b") == 0);
        CHECK(context_set(&c, "cpu_model", "EPYC") == 0); /* replaced */
        EXPECT(c.n == 3 && !strcmp(c.items[0].name, "cpu_model") &&
               !strcmp(c.items[1].name, "kernel_release") &&
               !strcmp(c.items[2].name, "microcode"));
        EXPECT(!strcmp(context_get(&c, "cpu_model"), "EPYC") && !context_get(&c, "bios"));
        CHECK(context_copy(&d, &c) == 0);
        EXPECT(context_equal(&c, &d));
        CHECK(context_set(&d, "microcode", "0x2c") == 0);
        EXPECT(!context_equal(&c, &d));
        char *diff = context_diff(&c, &d);
        EXPECT(diff && !strcmp(diff, "microcode 0x2b \u2192 0x2c"));
        free(diff);
        EXPECT(context_diff(&c, &c) == NULL);
        struct context empty = { 0 };
        EXPECT(context_diff(&empty, &c) == NULL && context_diff(&c, &empty) == NULL);
        context_clear(&c);
        context_clear(&d);
        EXPECT(c.n == 0 && !c.items);
}

static struct result *disk_run(const char *device, const char *firmware)
{
        struct result *r = result_new("root", "disk");
        const char *lv[] = { "device", device, "firmware", firmware, "model", "QEMU HARDDISK",
                             NULL };
        CHECK(r && result_add(r, "benchwatch_disk_info", "", METRIC_GAUGE, lv, 1, NULL) == 0);
        return r;
}

static void test_runs(void)
{
        struct context host = { 0 }, before = { 0 }, after = { 0 };
        CHECK(context_set(&host, "kernel_release", "6.1.0-13-amd64") == 0);
        CHECK(context_set(&host, "bios_version", "1.16") == 0);
        struct result *a = disk_run("vda", "1.2"), *b = disk_run("vda", "1.4");
        CHECK(context_of_run(&host, a, &before) == 0);
        EXPECT(before.n == 5 && !strcmp(context_get(&before, "disk_device"), "vda") &&
               !strcmp(context_get(&before, "disk_firmware"), "1.2") &&
               !strcmp(context_get(&before, "kernel_release"), "6.1.0-13-amd64"));
        CHECK(context_set(&host, "kernel_release", "6.1.0-18-amd64") == 0);
        CHECK(context_of_run(&host, b, &after) == 0);
        char *diff = context_diff(&before, &after);
        EXPECT(diff && !strcmp(diff, "kernel 6.1.0-13-amd64 \u2192 6.1.0-18-amd64; "
                                     "vda firmware 1.2 \u2192 1.4"));
        free(diff);
        /* an item one side lacks */
        CHECK(context_set(&after, "microcode", "0x2c") == 0);
        diff = context_diff(&before, &after);
        EXPECT(diff && strstr(diff, "; microcode (none) \u2192 0x2c;"));
        free(diff);
        /* a run without a device: the host's items alone */
        struct result *cpu = result_new("cpu", "cpu");
        CHECK(cpu && context_of_run(&host, cpu, &after) == 0 && after.n == 2);
        result_free(cpu);
        result_free(a);
        result_free(b);
        context_clear(&host);
        context_clear(&before);
        context_clear(&after);
}

static void test_this_host(void)
{
        struct context c = { 0 };
        struct utsname u;
        CHECK(context_read_this_host(&c) == 0 && uname(&u) == 0);
        EXPECT(c.n == 6);
        EXPECT(context_get(&c, "kernel_release") &&
               !strcmp(context_get(&c, "kernel_release"), u.release));
        const char *items[] = { "bios_version", "cpu_model", "microcode", "os_version_id",
                                "product_name", NULL };
        for (size_t i = 0; items[i]; i++)
                EXPECT(context_get(&c, items[i]) != NULL); /* empty when unknown */
        struct result *info = context_info_result(&c);
        CHECK(info);
        EXPECT(!strcmp(info->probe, "") && info->success && info->started > 0);
        const char *match[] = { "kernel_release", u.release, NULL };
        const struct sample *s = result_find_sample(info, "benchwatch_host_info", match);
        EXPECT(s && s->value == 1 && s->n_labels == 6);
        const char *version[] = { "version", PACKAGE_VERSION, NULL };
        EXPECT(result_find_sample(info, "benchwatch_build_info", version) != NULL);
        result_free(info);
        context_clear(&c);
}

int main(void)
{
        test_items();
        test_runs();
        test_this_host();
        if (!test_failures)
                printf("test_context: ok\n");
        return test_failures != 0;
}
