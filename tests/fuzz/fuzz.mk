# fuzz.mk — builds the libFuzzer targets with clang, beside (not inside) the
# automake build: the fuzzers need every object compiled with
# -fsanitize=fuzzer-no-link,address,undefined, which the normal build must
# not be, and CC may be gcc.  Called by tests/fuzz/fuzz.sh:
#   make -f tests/fuzz/fuzz.mk S=<srcdir> B=<builddir> O=<outdir>
# B must be a configured and built tree (config.h, daemon/proto/*.pb-c.*).
S ?= .
B ?= .
O ?= $(B)/tests/fuzz/build
CLANG ?= clang

PKGS = libsystemd inih libprotobuf-c libcurl
SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
CFLAGS = -g -O1 $(SAN) -fsanitize=fuzzer-no-link -Wall -Wno-unused-parameter \
	-Werror=implicit-function-declaration
CPPFLAGS = -include $(B)/config.h -I$(S)/daemon -I$(B)/daemon -I$(S)/plugins \
	-DPLUGINDIR=\"/nonexistent\" -DSYSCONFDIR=\"/etc\" \
	-DLOCALSTATEDIR=\"/var\" $(shell pkg-config --cflags $(PKGS))
LIBS = $(shell pkg-config --libs $(PKGS)) -lsnappy -lm -ldl -pthread

# Every library module of the core, not the command line's (an archive
# member is only linked when a target needs it, so the list may be
# generous, and it survives new modules).
PG = daemon/sink/sink_pushgateway.c daemon/sink/httpc.c
NOT_CORE = daemon/cmd/%.c daemon/core/scheduler.c daemon/detect/tracker.c \
	daemon/core/busy.c daemon/core/runwatch.c $(PG)
CORE = $(filter-out $(NOT_CORE), \
	$(patsubst $(S)/%,%,$(wildcard $(S)/daemon/*/*.c)))
PROTO = daemon/proto/run.pb-c.c daemon/proto/metrics.pb-c.c \
	daemon/proto/remote.pb-c.c
TARGETS = fuzz_config fuzz_param fuzz_codec fuzz_http fuzz_pushgateway fuzz_series_file \
	fuzz_sysparse fuzz_kmsg fuzz_nvme_health fuzz_evidence_store fuzz_baseline \
	fuzz_history fuzz_status

core_objs = $(CORE:%.c=$(O)/%.o) $(PROTO:%.c=$(O)/%.o)

all: $(TARGETS:%=$(O)/%)

$(O)/%.o: $(S)/%.c
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<
$(O)/daemon/proto/%.o: $(B)/daemon/proto/%.c
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# Everything but the pushgateway sink and httpc, which fuzz_pushgateway
# compiles in itself (#include) to reach their static answer handling.
$(O)/libcore-nopg.a: $(core_objs)
	rm -f $@ && ar rcs $@ $^
$(O)/libcore.a: $(core_objs) $(PG:%.c=$(O)/%.o)
	rm -f $@ && ar rcs $@ $^

$(O)/fuzz_http: $(O)/tests/fuzz/fuzz_http.o $(O)/plugins/http/http_parse.o \
		$(O)/libcore.a
	$(CLANG) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)
$(O)/fuzz_pushgateway: $(O)/tests/fuzz/fuzz_pushgateway.o $(O)/libcore-nopg.a
	$(CLANG) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)
# the status file is the daemon's and `status`'s, in cmd/: its module alone
$(O)/fuzz_status: $(O)/tests/fuzz/fuzz_status.o $(O)/daemon/cmd/status_file.o \
		$(O)/libcore.a
	$(CLANG) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)
$(O)/fuzz_%: $(O)/tests/fuzz/fuzz_%.o $(O)/libcore.a
	$(CLANG) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

# A header change rebuilds everything (cheap enough, and always right).
HEADERS = $(wildcard $(S)/daemon/*/*.h $(S)/plugins/*/*.h \
	$(S)/tests/fuzz/*.h) $(B)/config.h
$(core_objs) $(PG:%.c=$(O)/%.o) $(O)/plugins/http/http_parse.o \
	$(O)/daemon/cmd/status_file.o $(TARGETS:%=$(O)/tests/fuzz/%.o): $(HEADERS)
$(O)/tests/fuzz/fuzz_pushgateway.o: $(addprefix $(S)/,$(PG))

.PHONY: all
.SECONDARY:
