/* This thread's last error message and the names of statuses. */
#include <stdio.h>

#include "internal.h"

static _Thread_local char last_error[16384] = "no error";

const char *clconv_last_error(void) { return last_error; }

clconv_status clc_fail(clconv_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return st;
}

const char *clconv_status_name(clconv_status st)
{
    switch (st) {
    case CLCONV_OK: return "ok";
    case CLCONV_EINVAL: return "invalid argument";
    case CLCONV_EUNSUPPORTED: return "unsupported";
    case CLCONV_EOPENCL: return "OpenCL error";
    case CLCONV_EBUILD: return "kernel build failed";
    case CLCONV_ENOPLATFORM: return "no OpenCL platform";
    case CLCONV_ENOKERNELS: return "kernel sources not found";
    case CLCONV_ENOMEM: return "out of memory";
    case CLCONV_EIO: return "I/O error";
    case CLCONV_EINTERNAL: return "internal error";
    }
    return "unknown status";
}
