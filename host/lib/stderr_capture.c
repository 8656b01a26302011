/* What an OpenCL driver writes to stderr itself during a call (PoCL's
 * compiler prints "1 error generated." while clBuildProgram runs), caught
 * so that clconv's own error line comes first and the driver's text
 * follows it inside the error. POSIX file descriptors; best effort: when
 * stderr cannot be redirected, nothing is caught and nothing is lost. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

/* fd 2 is one per process: threads that build at once (a split over
 * devices, Python threads) take turns, or one would restore the other's
 * temporary file as stderr for good. */
static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;

void clc_stderr_capture_begin(clc_stderr_capture *c)
{
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
    }
}

char *clc_stderr_capture_end(clc_stderr_capture *c)
{
    char *text = NULL;
    if (!c->tmp) {
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
