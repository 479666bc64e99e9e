// An LD_PRELOAD shim for the PostgreSQL server in benchmarks: every fsync and fdatasync first sleeps
// FSYNC_DELAY_US microseconds (default 1000), as on a network volume. Built and loaded by Benchmarks/postgres-commits.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

static useconds_t delay_us(void) {
    static int loaded = 0;
    static useconds_t delay = 1000;
    if (!loaded) {
        const char *text = getenv("FSYNC_DELAY_US");
        if (text != NULL) delay = (useconds_t)strtoul(text, NULL, 10);
        loaded = 1;
    }
    return delay;
}

int fsync(int fd) {
    static int (*real)(int) = NULL;
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    usleep(delay_us());
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int) = NULL;
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    usleep(delay_us());
    return real(fd);
}
