#include "test_run_width.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *const width_variable = "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH";

// Runs when the test process loads, before main: twice the online processors (at least 2), unless the caller's
// environment already names a width.
__attribute__((constructor)) static void observable_store_set_test_run_width(void) {
    long processors = sysconf(_SC_NPROCESSORS_ONLN);
    long width = processors > 0 ? 2 * processors : 2;
    char text[24];
    snprintf(text, sizeof text, "%ld", width < 2 ? 2 : width);
    setenv(width_variable, text, 0);
}

int observable_store_test_run_width(void) {
    const char *text = getenv(width_variable);
    if (text == NULL) return 0;
    char *end = NULL;
    long width = strtol(text, &end, 10);
    return (end != text && *end == '\0' && width > 0 && width < 100000) ? (int)width : 0;
}
