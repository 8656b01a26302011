/* What an OpenCL driver writes to stderr itself during a call (PoCL's
 * compiler prints "1 error generated." while clBuildProgram runs), caught
 * so that clconv's own error line comes first and the driver's text
 * follows it inside the error. POSIX file descriptors; best effort: when
 * stderr cannot be redirected, nothing is caught and nothing is lost. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

/* fd 2 is one per process: threads that build at once (a split over
 * devices, Python threads) take turns, or one would restore the other's
 * temporary file as stderr for good. */
static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;

/* The capture under way, for on_exit_during_capture. */
static clc_stderr_capture *_Atomic active;
static pthread_once_t at_exit_once = PTHREAD_ONCE_INIT;

/* A driver may end the process in the middle of a call: LLVM's
 * report_fatal_error prints "LLVM ERROR: ..." and calls exit(1) (PoCL
 * when its cache folder is full). What it printed was in the temporary
 * file, and the process ended without a word. At exit, stderr is put
 * back and the text follows clconv's line. */
static void on_exit_during_capture(void)
{
    clc_stderr_capture *c = atomic_exchange(&active, NULL);
    if (!c)
        return;
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    fputs("clconv: the process ended while the OpenCL driver was building "
          "a kernel; the driver printed:\n",
          stderr);
    char buf[4096];
    size_t n;
    if (fseek(c->tmp, 0, SEEK_SET) == 0)
        while ((n = fread(buf, 1, sizeof buf, c->tmp)) > 0)
            fwrite(buf, 1, n, stderr);
    fflush(stderr);
}

static void install_at_exit(void) { atexit(on_exit_during_capture); }

void clc_stderr_capture_begin(clc_stderr_capture *c)
{
    pthread_once(&at_exit_once, install_at_exit);
    pthread_mutex_lock(&capture_lock);
    c->saved = -1;
    c->tmp = tmpfile();
    if (!c->tmp)
        return;
    fflush(stderr);
    c->saved = dup(STDERR_FILENO);
    if (c->saved < 0 || dup2(fileno(c->tmp), STDERR_FILENO) < 0) {
        if (c->saved >= 0)
            close(c->saved);
        c->saved = -1;
        fclose(c->tmp);
        c->tmp = NULL;
        return;
    }
    atomic_store(&active, c);
}

char *clc_stderr_capture_end(clc_stderr_capture *c)
{
    char *text = NULL;
    if (!c->tmp) {
        pthread_mutex_unlock(&capture_lock);
        return NULL;
    }
    if (atomic_exchange(&active, NULL) != c) {
        /* the process is exiting and has put stderr back already */
        pthread_mutex_unlock(&capture_lock);
        return NULL;
    }
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
    long n = ftell(c->tmp);
    if (n > 0 && fseek(c->tmp, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) != NULL) {
        size_t got = fread(text, 1, (size_t)n, c->tmp);
        text[got] = '\0';
    }
    fclose(c->tmp);
    c->tmp = NULL;
    pthread_mutex_unlock(&capture_lock);
    return text;
}
