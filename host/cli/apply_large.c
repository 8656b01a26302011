/* `clconv apply` on a .npy it should not hold whole, or over several
 * devices: the input (float32, or a narrow type the device takes as it
 * is: uint8, uint16, int16, float16) is memory-mapped, convolved in
 * chunks of rows
 * of its slowest axis (each with the mask's halo; a chunk's device work is
 * streamed in slabs by the library) and written chunk by chunk through the
 * output module (atomic, as every apply output). Input pages already used
 * are dropped, so the resident memory stays near two chunks whatever the
 * array's size. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"

/* The mapped input and what its header says. */
typedef struct big_input {
    unsigned char *map;
    size_t len;
    const unsigned char *data;
    clconv_dtype dtype; /* the file's */
    size_t isz;         /* bytes an element */
    int dims;
    size_t shape[3]; /* NumPy order */
    clconv_problem p; /* x fastest */
} big_input;

/* The chunk size: $CLCONV_APPLY_CHUNK_BYTES (tests force small chunks),
 * else 256 MiB of input rows. */
static size_t chunk_bytes(void)
{
    const char *e = getenv("CLCONV_APPLY_CHUNK_BYTES");
    uint64_t v;
    if (e && *e && cli_parse_u64("CLCONV_APPLY_CHUNK_BYTES", e, &v) == 0 &&
        v > 0)
        return (size_t)v;
    return (size_t)256 << 20;
}

/* The dtypes the device takes as they are (apply_input.c's elem_of): the
 * others are converted on the host, by the in-memory path. */
static int mappable(clconv_dtype t)
{
    return t == CLCONV_DTYPE_F32 || t == CLCONV_DTYPE_U8 ||
           t == CLCONV_DTYPE_U16 || t == CLCONV_DTYPE_I16 ||
           t == CLCONV_DTYPE_F16;
}

/* Map IN when it is a little-endian .npy regular file of a type the
 * device takes: 1 (mapped), 0 (another kind of input: the in-memory path
 * reads it), -1 (error printed: truncated, unreadable). */
static int map_input(const char *path, big_input *b)
{
    memset(b, 0, sizeof *b);
    if (strcmp(path, "-") == 0)
        return 0; /* standard input: read whole (apply_load_input) */
    struct stat st;
    /* Only a regular file is opened here: opening a FIFO would take the
     * writer's data, and the in-memory path's open would then wait for a
     * writer forever (test/input_streams.sh). */
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size < 16 || !cli_host_little_endian()) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    b->len = (size_t)st.st_size;
    b->map = mmap(NULL, b->len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (b->map == MAP_FAILED) {
        b->map = NULL;
        return 0;
    }
    clconv_npy_info info;
    if (memcmp(b->map, "\x93NUMPY", 6) != 0 ||
        clconv_npy_header_parse(b->map, b->len, &b->dims, b->shape, &info) !=
            CLCONV_OK ||
        !mappable(info.dtype) || info.big_endian ||
        info.data_offset % clconv_dtype_size(info.dtype) != 0) {
        munmap(b->map, b->len);
        b->map = NULL;
        return 0; /* the in-memory path reads (or refuses) it */
    }
    b->dtype = info.dtype;
    b->isz = clconv_dtype_size(info.dtype);
    size_t n = 1;
    for (int d = 0; d < b->dims; ++d)
        n *= b->shape[d];
    if (b->len - info.data_offset != n * b->isz) {
        cli_error("%s: .npy: shape needs %zu bytes of %s data, the file has "
                  "%zu",
                  path, n * b->isz, clconv_dtype_code(info.dtype),
                  b->len - info.data_offset);
        munmap(b->map, b->len);
        b->map = NULL;
        return -1;
    }
    b->data = b->map + info.data_offset;
    b->p.dims = b->dims;
    for (int k = 0; k < 3; ++k)
        b->p.size[k] = k < b->dims ? b->shape[b->dims - 1 - k] : 1;
    b->p.in_dtype = apply_elem_of(info.dtype);
    b->p.out_dtype = CLCONV_ELEM_F32; /* --out-dtype: apply_large_main */
    return 1;
}

int apply_several_devices(const apply_options *o)
{
    return o->device && strchr(o->device, ',') != NULL;
}

int apply_large_wanted(const apply_options *o)
{
    big_input b;
    int r = map_input(o->in, &b);
    if (r <= 0)
        return r;
    munmap(b.map, b.len);
    /* An (H, W, 3|4) array is refused here too (an image or a volume?),
     * before a read of the whole file. */
    if (apply_array_axes(o, b.dims, b.shape))
        return -1;
    for (int d = 0; d < b.dims; ++d)
        if (b.shape[d] == 0)
            return 0; /* nothing to compute: the in-memory path writes it */
    /* In memory, apply holds the input and the output (and with --verify
     * two doubles per element and the input as floats): past half the
     * machine, map. */
    clconv_elem oe;
    if (apply_out_elem(o, b.dtype, &oe))
        return -1;
    const double per = (double)(b.isz + clconv_elem_size(oe)) +
                       (o->verify ? 20.0 : 0.0);
    const double need = per * (double)((b.len - (size_t)(b.data - b.map)) /
                                       b.isz);
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    const double have = pages > 0 && page > 0 ? (double)pages * (double)page
                                              : 0.0;
    return getenv("CLCONV_APPLY_CHUNK_BYTES") || apply_several_devices(o) ||
           (have > 0 && need > have / 2);
}

/* The devices and each one's problem (strategy and knobs its own). */
typedef struct big_run {
    cli_devices devs;
    clconv_problem ps[16];
    size_t n;
    double w[16];
    clconv_mask mask;
    size_t slabs, row, rows, lo, hi;
    size_t isz, osz;      /* bytes an input and an output element */
    unsigned char *out;   /* one chunk of output rows, with its halo rows */
    unsigned char *stage; /* a chunk's input rows past the array's ends */
    double *ref, *mag;    /* --verify: the chunk's reference */
    float *fin;           /* --verify: a narrow chunk's input as floats */
    clconv_verdict worst;
    int verified_ok;
    int weighed; /* w measured (several devices) */
} big_run;

static int open_devices(const apply_options *o, big_input *b, big_run *r)
{
    int code = cli_devices_open(&r->devs, o->device, 1);
    if (code != CLI_EXIT_OK)
        return code;
    /* A selector of one term (none: $CLCONV_DEVICE, else every device)
     * runs on its first match, as in memory; only A,B shares the array. */
    if (!apply_several_devices(o))
        cli_devices_keep_first(&r->devs);
    r->n = r->devs.n < 16 ? r->devs.n : 16;
    for (size_t d = 0; d < r->n; ++d) {
        const clconv_device_info *dev = cli_device(&r->devs, d);
        r->ps[d] = b->p;
        /* the mask's widths, the modes, cval, origins, convolution */
        if (apply_filter_problem(o, &r->mask, &r->ps[d]))
            return CLI_EXIT_USAGE;
        r->ps[d].in_dtype = b->p.in_dtype; /* the file's, not --dtype's */
        r->ps[d].out_dtype = b->p.out_dtype;
        if (clconv_problem_validate(&r->ps[d]) != CLCONV_OK) {
            cli_error("%s: %s", o->in, clconv_last_error());
            return CLI_EXIT_USAGE;
        }
        if (o->strategy >= 0) {
            r->ps[d].strategy = (clconv_strategy)o->strategy;
            r->ps[d].tile = o->tile;
        } else if (cli_auto_config(dev, &r->ps[d], 1)) {
            return CLI_EXIT_USAGE;
        } else if (o->tile) {
            r->ps[d].tile = o->tile;
        }
        clconv_problem_apply_defaults(dev, &r->ps[d]);
        /* The method the whole array would get in memory (--method, or
         * auto): each chunk is a problem of its own size and would choose
         * for that size, and reads only its rows, so the whole input is
         * looked at here where the choice is the FFT (never on NaN or Inf,
         * which a chunk's transform would spread over the chunk). */
        r->ps[d].method = o->method;
        clconv_status st = clconv_method_choose_for_input(
            r->devs.sessions[d], &r->ps[d], r->mask.values, b->data,
            clconv_problem_elements(&b->p), &r->ps[d].method);
        if (st != CLCONV_OK) {
            cli_error("%s: %s", dev->name, clconv_last_error());
            return cli_exit_code(st);
        }
        r->w[d] = 1.0;
    }
    return CLI_EXIT_OK;
}

/* The input rows a chunk of output rows [r0, r1) holds: [*a, *e) of the
 * whole axis, its halo included. The constant mode's end where the
 * array does (the kernel reads cval beyond it, as on the whole array);
 * the other modes' go on past the ends, to the rows the mode reads
 * there (gathered). */
static void chunk_rows(const big_run *r, size_t r0, size_t r1, long long *a,
                       long long *e)
{
    *a = (long long)r0 - (long long)r->lo;
    *e = (long long)(r1 + r->hi);
    if (r->ps[0].border == CLCONV_BORDER_CONSTANT) {
        *a = *a > 0 ? *a : 0;
        *e = *e < (long long)r->rows ? *e : (long long)r->rows;
    }
}

/* The chunk's input rows [a, e): the mapped rows themselves, or, where
 * they reach past the array's ends, each row the border mode reads
 * there copied into r->stage. */
static const void *chunk_input(const big_input *b, const big_run *r,
                               long long a, long long e)
{
    const size_t row_bytes = r->row * r->isz;
    if (a >= 0 && e <= (long long)r->rows)
        return b->data + (size_t)a * row_bytes;
    for (long long g = a; g < e; ++g) {
        const long long src =
            clconv_border_index(g, (long long)r->rows, r->ps[0].border);
        memcpy(r->stage + (size_t)(g - a) * row_bytes,
               b->data + (size_t)src * row_bytes, row_bytes);
    }
    return r->stage;
}

/* Output rows [r0, r1) of the whole problem: the chunk's input rows with
 * their halo as a problem of their own, its rows [r0 - a, r1 - a)
 * computed (on one device, or split over several) and checked; *firstp:
 * r0 - a, where r0's output row lies in r->out. */
static clconv_status chunk(const apply_options *o, const big_input *b,
                           big_run *r, size_t r0, size_t r1, size_t *firstp)
{
    long long a, e;
    chunk_rows(r, r0, r1, &a, &e);
    const size_t first = (size_t)((long long)r0 - a); /* first computed */
    *firstp = first;
    const int axis = b->p.dims - 1;
    const void *in = chunk_input(b, r, a, e);
    clconv_problem q[16];
    for (size_t d = 0; d < r->n; ++d) {
        q[d] = r->ps[d];
        q[d].size[axis] = (size_t)(e - a);
    }
    clconv_call_info info;
    clconv_status st = CLCONV_OK;
    if (r->n > 1 && !r->weighed) { /* relative speeds, on the first chunk */
        st = clconv_measure_weights(r->devs.sessions, r->n, q, in,
                                    r->mask.values, r->w);
        r->weighed = 1;
        if (st != CLCONV_OK)
            return st;
    }
    /* computed as the whole problem's launch computes them (bit for bit
     * one call on the whole array) */
    const clconv_part part = {a, r->rows};
    st = r->n == 1 ? clconv_convolve_part(r->devs.sessions[0], &q[0], &part,
                                          in, r->mask.values, r->out, first,
                                          first + (r1 - r0), &info)
                   : clconv_convolve_split_part(r->devs.sessions, r->n, q,
                                                &part, r->w, in,
                                                r->mask.values, r->out, &info);
    if (st != CLCONV_OK)
        return st;
    r->slabs += info.slabs;
    if (!o->verify)
        return st;
    const float *fin = apply_input_floats(&q[0], in, r->fin,
                                          clconv_problem_elements(&q[0]));
    st = clconv_reference(&q[0], fin, r->mask.values, r->ref, r->mag);
    if (st != CLCONV_OK)
        return st;
    /* Only the rows this chunk owns were computed. */
    clconv_problem own = q[0];
    own.size[axis] = r1 - r0;
    const size_t skip = first * r->row;
    /* The bound of the method each device ran on this chunk, the loosest
     * where they differ (the direct method's gave the FFT a false FAIL). */
    clconv_method m[16];
    for (size_t d = 0; d < r->n; ++d)
        m[d] = q[d].method;
    double scale, floor;
    cli_verify_bound_of(&q[0], m, r->n, fin, r->mask.values, &scale,
                        &floor);
    clconv_verdict v;
    clconv_verify_typed(&own, r->out + skip * r->osz, r->ref + skip,
                        r->mag + skip, scale, floor, &v);
    if (!v.ok)
        r->verified_ok = 0;
    if (!v.ok || v.max_err > r->worst.max_err)
        r->worst = v;
    return CLCONV_OK;
}

/* Every chunk into out: header first, then the rows in order. */
static clconv_status run_chunks(const apply_options *o, big_input *b,
                                big_run *r, clconv_output *out)
{
    unsigned char head[CLCONV_NPY_HEADER_MAX];
    size_t hlen;
    clconv_status st = clconv_npy_header_typed(
        b->dims, b->shape, clconv_dtype_of_elem(r->ps[0].out_dtype), head,
        sizeof head, &hlen);
    if (st == CLCONV_OK)
        st = clconv_output_write(out, head, hlen);
    /* Chunks of chunk_bytes() of input rows. */
    size_t step = chunk_bytes() / (r->row * r->isz);
    step = step ? step : 1;
    const size_t cap = (step + r->lo + r->hi) * r->row;
    r->out = malloc(cap * r->osz);
    const int gathers = r->ps[0].border != CLCONV_BORDER_CONSTANT;
    const int narrow = r->ps[0].in_dtype != CLCONV_ELEM_F32;
    r->stage = gathers ? malloc(cap * r->isz) : NULL;
    if (o->verify) {
        r->ref = malloc(cap * sizeof *r->ref);
        r->mag = malloc(cap * sizeof *r->mag);
        r->fin = narrow ? malloc(cap * sizeof *r->fin) : NULL;
    }
    if (!r->out || (o->verify && (!r->ref || !r->mag || (narrow && !r->fin))) ||
        (gathers && !r->stage))
        return st == CLCONV_OK ? CLCONV_ENOMEM : st;
    const long page = sysconf(_SC_PAGE_SIZE);
    for (size_t r0 = 0; st == CLCONV_OK && r0 < r->rows; r0 += step) {
        const size_t r1 = r0 + step < r->rows ? r0 + step : r->rows;
        size_t first = 0;
        st = chunk(o, b, r, r0, r1, &first);
        /* An FFT auto chose that the device refuses: the direct path for
         * this chunk and the rest. */
        int fell_back = 0;
        for (size_t d = 0; d < r->n; ++d)
            if (apply_fft_falls_back(o, &r->ps[d], st)) {
                r->ps[d].method = CLCONV_METHOD_DIRECT;
                fell_back = 1;
            }
        if (fell_back)
            st = chunk(o, b, r, r0, r1, &first);
        if (st == CLCONV_OK)
            st = clconv_output_write(out, r->out + first * r->row * r->osz,
                                     (r1 - r0) * r->row * r->osz);
        /* Input rows no later chunk reads leave the resident set. */
        const size_t keep = r1 > r->lo ? r1 - r->lo : 0;
        const size_t done =
            (size_t)(b->data + keep * r->row * r->isz - b->map);
        const size_t drop = done - done % (size_t)page;
        if (page > 0 && drop > 0)
            madvise(b->map, drop, MADV_DONTNEED);
    }
    return st;
}

static void summary(const apply_options *o, const big_input *b,
                    const big_run *r)
{
    FILE *f = o->summary_stderr ? stderr : stdout;
    char size[64];
    cli_format_size(b->p.size, b->p.dims, size, sizeof size);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    char shape[48];
    cli_mask_shape(r->mask.dims, r->mask.size, shape, sizeof shape);
    char filter[160];
    cli_filter_describe(&r->ps[0], 1, filter, sizeof filter);
    fprintf(f, "apply: %s %dD %s, mask %s (%s)%s, ", o->in, b->p.dims, size,
            o->mask, shape, filter);
    if (r->ps[0].method == CLCONV_METHOD_DIRECT)
        fprintf(f, "%s T=%d", clconv_strategy_name(r->ps[0].strategy),
                r->ps[0].tile);
    else
        fprintf(f, "method %s", clconv_method_name(r->ps[0].method));
    fprintf(f, ", %zu slab(s) on %zu device(s):", r->slabs, r->n);
    for (size_t d = 0; d < r->n; ++d) {
        const clconv_device_info *dev = cli_device(&r->devs, d);
        fprintf(f, "%s %u:%u %s", d ? "," : "", dev->platform_index,
                dev->device_index, dev->name);
    }
    fprintf(f, "; memory-mapped, peak resident %.0f MiB",
            (double)ru.ru_maxrss / 1024.0);
    if (o->verify)
        fprintf(f, ", %s max_err %.3g", r->verified_ok ? "verified" : "FAILED",
                r->worst.max_err);
    fprintf(f, "\n");
}

int apply_large_main(const apply_options *o)
{
    big_input b;
    big_run r;
    memset(&r, 0, sizeof r);
    r.verified_ok = 1;
    if (map_input(o->in, &b) != 1)
        return CLI_EXIT_USAGE;
    clconv_output *out = NULL;
    int code = CLI_EXIT_OK;
    if (apply_out_elem(o, b.dtype, &b.p.out_dtype)) {
        code = CLI_EXIT_USAGE;
        goto out;
    }
    r.isz = clconv_elem_size(b.p.in_dtype);
    r.osz = clconv_elem_size(b.p.out_dtype);
    clconv_status st = clconv_mask_load(o->mask, b.dims, &r.mask);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        code = CLI_EXIT_USAGE;
        goto out;
    }
    if ((code = open_devices(o, &b, &r)) != CLI_EXIT_OK)
        goto out;
    r.rows = b.p.size[b.p.dims - 1];
    r.row = clconv_problem_elements(&b.p) / r.rows;
    /* The halo along the slowest axis: the mask's width there, placed by
     * the origin and convolution. */
    const int axis = b.p.dims - 1;
    r.lo = (size_t)clconv_problem_left(&r.ps[0], axis);
    r.hi = (size_t)(clconv_problem_mask_axis(&r.ps[0], axis) - 1) - r.lo;
    st = clconv_output_open(o->out, &out);
    if (st == CLCONV_OK)
        st = run_chunks(o, &b, &r, out);
    if (st == CLCONV_OK && !r.verified_ok) {
        summary(o, &b, &r);
        cli_error("verification failed: worst element got %.9g expected "
                  "%.9g; nothing written", r.worst.worst_got,
                  r.worst.worst_expected);
        code = CLI_EXIT_VERIFY;
        goto out;
    }
    if (st == CLCONV_OK) {
        st = clconv_output_commit(out);
        out = NULL;
    }
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        code = cli_exit_code(st);
        goto out;
    }
    summary(o, &b, &r);
out:
    clconv_output_abort(out);
    free(r.out);
    free(r.stage);
    free(r.fin);
    free(r.ref);
    free(r.mag);
    clconv_mask_free(&r.mask);
    cli_devices_close(&r.devs);
    if (b.map)
        munmap(b.map, b.len);
    return code;
}
