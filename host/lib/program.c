/* Build options, loading .cl sources, building, the in-process cache. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_io.h"
#include "internal.h"

typedef struct clc_program_entry {
    char *stem;
    char *options;
    cl_program program;
    struct clc_program_entry *next;
} clc_program_entry;

struct clc_program_cache {
    clc_program_entry *head;
};

clc_program_cache *clc_program_cache_new(void)
{
    return calloc(1, sizeof(clc_program_cache));
}

void clc_program_cache_free(clc_program_cache *cache)
{
    if (!cache)
        return;
    clc_program_entry *e = cache->head;
    while (e) {
        clc_program_entry *next = e->next;
        clReleaseProgram(e->program);
        free(e->stem);
        free(e->options);
        free(e);
        e = next;
    }
    free(cache);
}

/* One mask value as an OpenCL C float literal that reads back exactly
 * (9 significant digits round-trip a float), or a constant expression for
 * a non-finite value (the NAN and INFINITY macros are not constant
 * expressions in every compiler's headers). */
static int mask_literal(float v, char *buf, size_t len)
{
    if (isnan(v))
        return snprintf(buf, len, "(0.0f/0.0f)");
    if (isinf(v))
        return snprintf(buf, len, v < 0 ? "(-1.0f/0.0f)" : "(1.0f/0.0f)");
    return snprintf(buf, len, "%.9ef", (double)v);
}

/* The mask's widths and origins, the border mode and cval: -D MASK_WIDTH
 * for a centred cube (the notes' kernels, today's options), per-axis
 * defines otherwise; then TILE_WIDTH. Returns the length written. */
size_t clc_filter_defines(const clconv_problem *p, char *buf, size_t len)
{
    static const char axis[] = "XYZ";
    static const char *const modes[CLCONV_BORDER_COUNT] = {
        "CONSTANT", "NEAREST", "REFLECT", "MIRROR", "WRAP"};
    size_t n = 0;
    if (clc_mask_is_cubic(p))
        n += (size_t)snprintf(buf + n, len - n, "-D MASK_WIDTH=%d",
                              clconv_problem_mask_axis(p, 0));
    else
        for (int d = 0; d < p->dims; ++d)
            n += (size_t)snprintf(buf + n, len - n, "%s-D MASK_%c=%d",
                                  d ? " " : "", axis[d],
                                  clconv_problem_mask_axis(p, d));
    n += (size_t)snprintf(buf + n, len - n, " -D TILE_WIDTH=%d", p->tile);
    for (int d = 0; d < p->dims; ++d) {
        /* The kernels' origin: the correlation's (mirrored for a flip). */
        const int o = clconv_problem_left(p, d) -
                      clconv_problem_mask_axis(p, d) / 2;
        if (o)
            n += (size_t)snprintf(buf + n, len - n, " -D ORIGIN_%c=%d",
                                  axis[d], o);
    }
    if (p->border != CLCONV_BORDER_CONSTANT)
        n += (size_t)snprintf(buf + n, len - n,
                              " -D CLCONV_MODE=CLCONV_MODE_%s",
                              modes[p->border]);
    else if ((float)p->cval != 0.0f) {
        n += (size_t)snprintf(buf + n, len - n, " -D CLCONV_CVAL=");
        n += (size_t)mask_literal((float)p->cval, buf + n, len - n);
    }
    if (p->strategy == CLCONV_VECTOR && p->dims >= 2 && !clc_mask_is_cubic(p))
        n += (size_t)snprintf(buf + n, len - n, " -D VEC_MARCH=%d",
                              clconv_problem_mask_axis(p, p->dims - 1));
    return n;
}

char *clc_build_options(const clc_config *c, int count_loads,
                        const float *mask)
{
    const clconv_problem *p = &c->p;
    const int baked = mask && p->mask_mode == CLCONV_MASK_BAKED;
    const size_t m = baked ? clconv_problem_mask_elements(p) : 0;
    const size_t len = 512 + m * 24; /* a literal is at most 17 */
    char *buf = malloc(len);
    if (!buf) {
        clc_fail(CLCONV_ENOMEM, "out of memory");
        return NULL;
    }
    size_t n = clc_config_defines(c, buf, len);
    if (count_loads)
        n += (size_t)snprintf(buf + n, len - n, " -D CLCONV_COUNT_LOADS");
    const clc_variant *v = clc_variant_get(p->strategy);
    /* The plan passes the same extents as the kernel's arguments
     * (plan.c's set_args reads c->p.size too). */
    if (baked && p->dims == 3 && v && v->extents_baked_3d &&
        clconv_problem_mask_max(p) >= v->extents_baked_3d)
        n += (size_t)snprintf(buf + n, len - n,
                              " -D CLC_NX=%zu -D CLC_NY=%zu -D CLC_NZ=%zu",
                              p->size[0], p->size[1], p->size[2]);
    if (baked) {
        n += (size_t)snprintf(buf + n, len - n,
                              " -D CLCONV_MASK_COUNT=%zu -D CLCONV_MASK_VALUES=",
                              m);
        clc_format_floats(buf + n, len - n, mask, m);
    }
    return buf;
}

size_t clc_format_floats(char *buf, size_t len, const float *v, size_t m)
{
    size_t n = 0;
    for (size_t i = 0; i < m; ++i) {
        if (i)
            buf[n++] = ',';
        n += (size_t)mask_literal(v[i], buf + n, len - n);
    }
    buf[n] = '\0';
    return n;
}

/* Read a kernel source (NUL-terminated); NULL and the last error set on
 * failure. */
/* A kernel source's text, or NULL and *st: CLCONV_ENOMEM when the host
 * is out of memory, CLCONV_ENOKERNELS naming the file otherwise. */
static char *read_file(const char *path, clconv_status *st)
{
    unsigned char *buf = NULL;
    size_t n = 0;
    *st = clconv_file_read(path, (size_t)64 << 20, &buf, &n);
    if (*st == CLCONV_ENOMEM)
        return NULL;
    if (*st != CLCONV_OK) {
        *st = clc_fail(CLCONV_ENOKERNELS, "cannot read kernel source %s",
                       path);
        return NULL;
    }
    return (char *)buf;
}

/* The text of a part a program leaves out: "" (malloc'd, as read_file's),
 * or NULL and *st CLCONV_ENOMEM. */
static char *no_source(clconv_status *st)
{
    char *empty = strdup("");
    if (!empty)
        *st = clc_fail(CLCONV_ENOMEM, "out of memory");
    return empty;
}

/* The build log of the program on the device (malloc'd, never NULL on
 * success of the query). */
static char *build_log(cl_program prog, cl_device_id dev)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL,
                              &size) != CL_SUCCESS)
        return NULL;
    char *log = malloc(size + 1);
    if (!log)
        return NULL;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, size, log,
                              NULL) != CL_SUCCESS) {
        free(log);
        return NULL;
    }
    log[size] = '\0';
    return log;
}

/* "<-cl-std> <options>" then $CLCONV_BUILD_OPTIONS (malloc'd). */
static char *with_std(const clconv_session *s, const char *options)
{
    const size_t len = strlen(s->cl_std) + strlen(options) + 2;
    char *both = malloc(len);
    if (!both)
        return NULL;
    snprintf(both, len, "%s%s%s", s->cl_std, *s->cl_std && *options ? " " : "",
             options);
    char *opts = clc_effective_options(both);
    free(both);
    return opts;
}

/* Text printed to stderr while a build succeeded: a compiler's summary
 * of its warnings ("5 warnings generated.", PoCL's clang; the warnings
 * themselves are in the build log) is dropped, so a good call prints
 * nothing; anything else (another thread's output meanwhile: stderr is
 * one per process) passes through. */
static void pass_through(const char *printed)
{
    for (const char *line = printed; *line;) {
        const char *end = strchr(line, '\n');
        const size_t len = end ? (size_t)(end - line + 1) : strlen(line);
        unsigned n = 0;
        char tail[16] = "";
        const int summary =
            sscanf(line, "%u warning%15[^\n]", &n, tail) == 2 &&
            (!strncmp(tail, "s generated.", 12) ||
             !strncmp(tail, " generated.", 11));
        if (!summary)
            fwrite(line, 1, len, stderr);
        line += len;
    }
}

/* A failed build: clconv's own line first (what, which file, which
 * device), then the driver's log and what it printed itself, then the
 * full options. */
static clconv_status build_failed(const clconv_session *s, cl_program prog,
                                  cl_int err, const char *path,
                                  const char *opts, const char *printed)
{
    char *log = build_log(prog, s->device);
    clconv_status st = clc_fail(
        CLCONV_EBUILD,
        "building kernel %s failed on %s: clBuildProgram: %s\n"
        "--- build log ---\n%s%s--- end of build log ---\n"
        "options: %s",
        path, s->dev.name, clconv_cl_error_name(err), log ? log : "(no log)\n",
        printed ? printed : "", opts);
    free(log);
    return st;
}

/* $CLCONV_BUILD_LOG (set, not "0"): the driver's log of a good build
 * on stderr, with the file and the options (NVIDIA's registers and
 * spills with -cl-nv-verbose in $CLCONV_BUILD_OPTIONS; builds the
 * binary cache answers have no log: add CLCONV_NO_CACHE=1). */
static void log_good_build(const clconv_session *s, cl_program prog,
                           const char *path, const char *opts)
{
    const char *v = getenv("CLCONV_BUILD_LOG");
    if (!v || !*v || strcmp(v, "0") == 0)
        return;
    char *log = build_log(prog, s->device);
    fprintf(stderr, "clconv: built %s on %s, options: %s\n%s%s", path,
            s->dev.name, opts, log ? log : "(no log)",
            log && *log && log[strlen(log) - 1] != '\n' ? "\n" : "");
    free(log);
}

static clconv_status build(clconv_session *s, const char *stem,
                           const char *options, int with_common,
                           cl_program *out)
{
    clconv_status st = CLCONV_OK;
    const char *dir = NULL;
    char *types = NULL, *common = NULL, *body = NULL, *opts = NULL,
         *printed = NULL;
    clc_stderr_capture cap;
    cl_program prog = NULL;
    char path_types[4096], path_common[4096], path_body[4096], line[4200];
    cl_int err;

    st = clconv_kernel_dir(&dir);
    if (st != CLCONV_OK)
        return st;
    snprintf(path_types, sizeof path_types, "%s/dtype.clh", dir);
    snprintf(path_common, sizeof path_common, "%s/common.clh", dir);
    snprintf(path_body, sizeof path_body, "%s/%s.cl", dir, stem);
    types = with_common ? read_file(path_types, &st) : no_source(&st);
    common = !types                         ? NULL
             : with_common == CLC_SRC_COMMON ? read_file(path_common, &st)
                                             : no_source(&st);
    body = common ? read_file(path_body, &st) : NULL;
    if (!body)
        goto out;
    /* The #line directive makes the build log's line numbers point into
     * the variant's own file. */
    snprintf(line, sizeof line, "\n#line 1 \"%s.cl\"\n", stem);
    const char *parts[4] = {types, common, line, body};
    /* The session's -cl-std comes first, $CLCONV_BUILD_OPTIONS last; the
     * disk cache (program_cache.c) is tried first and filled after a
     * build from source. */
    opts = with_std(s, options);
    if (!opts) {
        st = clc_fail(CLCONV_ENOMEM, "out of memory");
        goto out;
    }
    clc_program_disk_load(s, parts, 4, opts, &prog);
    if (prog) {
        *out = prog;
        prog = NULL;
        goto out;
    }
    CLC_CREATE_GOTO(
        prog, clCreateProgramWithSource(s->context, 4, parts, NULL, &err));
    clc_stderr_capture_begin(&cap);
    err = clBuildProgram(prog, 1, &s->device, opts, NULL, NULL);
    printed = clc_stderr_capture_end(&cap);
    if (err != CL_SUCCESS) {
        st = build_failed(s, prog, err, path_body, opts, printed);
        goto out;
    }
    if (printed) /* what else was printed meanwhile passes through */
        pass_through(printed);
    log_good_build(s, prog, path_body, opts);
    clc_program_disk_store(s, parts, 4, opts, prog);
    *out = prog;
    prog = NULL;
out:
    if (prog)
        clReleaseProgram(prog);
    free(opts);
    free(printed);
    free(body);
    free(common);
    free(types);
    return st;
}

clconv_status clc_program_get(clconv_session *s, const char *stem,
                              const char *options, int with_common,
                              cl_program *out)
{
    for (clc_program_entry *e = s->programs->head; e; e = e->next)
        if (strcmp(e->stem, stem) == 0 && strcmp(e->options, options) == 0) {
            *out = e->program;
            return CLCONV_OK;
        }
    clc_program_entry *e = calloc(1, sizeof *e);
    if (!e)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    e->stem = strdup(stem);
    e->options = strdup(options);
    if (!e->stem || !e->options) {
        free(e->stem);
        free(e->options);
        free(e);
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    }
    clconv_status st = build(s, stem, options, with_common, &e->program);
    if (st != CLCONV_OK) {
        free(e->stem);
        free(e->options);
        free(e);
        return st;
    }
    e->next = s->programs->head;
    s->programs->head = e;
    *out = e->program;
    return CLCONV_OK;
}
