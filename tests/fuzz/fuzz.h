/* fuzz.h — the libFuzzer entry points, declared for -Wmissing-prototypes. */
#ifndef BENCHWATCH_FUZZ_H
#define BENCHWATCH_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
