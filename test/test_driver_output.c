/* What an OpenCL driver prints itself while clconv builds a kernel
 * (stderr_capture.c): caught and handed back at the end of the call, and,
 * when the driver ends the process in the middle of it (LLVM's
 * report_fatal_error prints "LLVM ERROR: ..." and calls exit(1): PoCL
 * whose cache folder is full), shown on the real stderr after clconv's
 * line instead of lost with the temporary file. Each case in a child
 * process whose stderr is a pipe; no device needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "clconv.h"
#include "../host/lib/internal.h"

/* Run body in a child whose stderr is a pipe; its exit status in
 * *status, what it wrote to stderr (malloc'd) returned. */
static char *child_stderr(void (*body)(void), int *status)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        close(fds[1]);
        body();
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0, cap = 4096;
    char *text = malloc(cap);
    assert_non_null(text);
    ssize_t got;
    while ((got = read(fds[0], text + n, cap - 1 - n)) > 0) {
        n += (size_t)got;
        if (n + 1 == cap) {
            char *more = realloc(text, cap *= 2);
            assert_non_null(more);
            text = more;
        }
    }
    close(fds[0]);
    text[n] = '\0';
    assert_int_equal(waitpid(pid, status, 0), pid);
    return text;
}

/* A call that prints and returns: the text is the capture's, nothing on
 * stderr but what comes after. */
static void prints_then_returns(void)
{
    clc_stderr_capture c;
    clc_stderr_capture_begin(&c);
    fputs("3 warnings generated.\n", stderr);
    char *text = clc_stderr_capture_end(&c);
    fprintf(stderr, "after: %s", text ? text : "(nothing)\n");
    free(text);
}

/* A driver that prints its fatal error and ends the process meanwhile. */
static void prints_then_exits(void)
{
    clc_stderr_capture c;
    clc_stderr_capture_begin(&c);
    fputs("LLVM ERROR: IO failure on output stream: No space left on "
          "device\n",
          stderr);
    exit(1);
}

static void what_a_call_prints_is_handed_back_at_its_end(void **state)
{
    (void)state;
    int status = 0;
    char *err = child_stderr(prints_then_returns, &status);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_string_equal(err, "after: 3 warnings generated.\n");
    free(err);
}

/* It ended without a word on stderr (the text went with the temporary
 * file). */
static void a_driver_that_ends_the_process_is_still_heard(void **state)
{
    (void)state;
    int status = 0;
    char *err = child_stderr(prints_then_exits, &status);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    const char *line = strstr(err, "clconv: the process ended while the "
                                   "OpenCL driver was building a kernel");
    const char *driver = strstr(err, "LLVM ERROR: IO failure");
    if (!line || !driver)
        print_error("stderr was: '%s'\n", err);
    assert_non_null(line);
    assert_non_null(driver);
    assert_true(line < driver);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(what_a_call_prints_is_handed_back_at_its_end),
        cmocka_unit_test(a_driver_that_ends_the_process_is_still_heard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
