/* Failure injection for test_failures (test/inject.c): the program is
 * linked with -Wl,--wrap for the host allocators and the OpenCL calls the
 * library makes (the Makefile's INJECT_WRAP), so every such call of the
 * library's objects passes through here. */
#ifndef CLCONV_TEST_INJECT_H
#define CLCONV_TEST_INJECT_H

typedef enum inject_kind {
    INJECT_OFF = 0,
    INJECT_HOST,  /* malloc, calloc, realloc, strdup, strndup: NULL */
    INJECT_OPENCL /* an OpenCL call: an error code its specification lists */
} inject_kind;

/* From now on, the n-th call (from 1) of that kind fails, once. */
void inject_arm(inject_kind kind, long n);
/* Stop failing and counting. */
void inject_off(void);
/* The name of the call that was failed since inject_arm ("malloc",
 * "clCreateBuffer"), or NULL when fewer than n calls were made. */
const char *inject_fired(void);

#endif
