#ifndef OBSERVABLE_STORE_TEST_RUN_WIDTH_H
#define OBSERVABLE_STORE_TEST_RUN_WIDTH_H

// How many test cases Swift Testing runs at once in this test process. Swift Testing reads the width from the
// environment variable SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH when the process starts, before any Swift code
// of the tests runs; test_run_width.c sets it from a C constructor (unless the environment already sets it), so that
// a plain `swift test` runs a bounded number of tests at once. See Tests/TestScheduling/ThreadPerTestTrait.swift.

#ifdef __cplusplus
extern "C" {
#endif

/// The width in effect: the environment variable's value (the one set at start, or the caller's own), or 0 when it
/// is not a positive number.
int observable_store_test_run_width(void);

#ifdef __cplusplus
}
#endif

#endif
