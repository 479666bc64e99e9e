#ifndef FUZZER_DRIVER_H
#define FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for a program with a main of its own (LLVM 11 and later): it reads libFuzzer's
/// flags from argc/argv and calls `callback` with each input. Only fuzzing builds of store-fuzz link
/// libFuzzer (`Tools/fuzz`) and call it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
