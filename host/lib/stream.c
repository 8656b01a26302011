/* Host arrays in, host arrays out (clconv_convolve_ex): what goes where.
 * On CPU devices the kernel works on the caller's memory
 * (CL_MEM_USE_HOST_PTR, no copies); the FFT, and GPUs without pinned
 * staging, launch once on a cached plan; everything else, and any problem
 * larger than the device can hold or one launch can index, runs in slabs
 * along the slowest axis, each with its halo, through slab_pipe.c's
 * pipeline. A slab's kernel sees exactly the input rows the whole
 * problem's kernel would, so the result is the single-shot result. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_cl.h"
#include "internal.h"
#include "stream.h"

/* Rows of input the mask reaches before and after an output row (its
 * width and origin along the slowest axis). */
static void halo_of(const clconv_problem *p, size_t *lo, size_t *hi)
{
    const int axis = p->dims - 1;
    *lo = (size_t)clconv_problem_left(p, axis);
    *hi = (size_t)(clconv_problem_mask_axis(p, axis) - 1) - *lo;
}

/* Can a slab's kernel fold the slowest axis' ends itself? It folds
 * indices past the data's ends within the slab: right for the constant
 * and nearest modes, and for reflect and mirror when a slab holds the
 * mask's reach; wrap reads the far end of the axis, which another slab
 * holds. Where it cannot, the slabs at the ends gather their halo rows
 * (clc_job's gather_edges, slab_pipe.c). */
int clc_slabs_fold(const clc_job *j, size_t rows_per_slab)
{
    if (j->p.border == CLCONV_BORDER_CONSTANT ||
        j->p.border == CLCONV_BORDER_NEAREST)
        return 1;
    if (j->p.border == CLCONV_BORDER_WRAP)
        return 0;
    return rows_per_slab > j->lo + j->hi;
}

/* whole: the call reads all of in, so the method may look at it too
 * (clconv_method_choose_for_input); a call on some rows reads only those
 * within their reach (an out-of-core caller's mapped file), and does not
 * scan the rest. */
static clconv_status job_init(clc_job *j, clconv_session *s,
                              const clconv_problem *p,
                              const clconv_part *part, const void *in,
                              const float *mask, void *out, int whole)
{
    memset(j, 0, sizeof *j);
    j->s = s;
    j->p = *p;
    /* The zero value (only dims, size and mask set) asks for the device's
     * default variant; any tile or knob set means exactly that variant. */
    if (p->strategy == CLCONV_NAIVE && p->tile == 0 && p->coarsen == 0 &&
        p->group_y == 0)
        clconv_pick_default(&s->dev, &j->p);
    for (int d = p->dims; d < 3; ++d)
        j->p.size[d] = 1;
    j->axis = p->dims - 1;
    j->origin = part ? part->first_row : 0;
    j->split = 1;
    /* The method of the whole problem, chosen once: a slab left on auto
     * could choose another (its size differs) and differ in the last bit;
     * a part's is its whole problem's. No FFT on input holding NaN or Inf
     * (clconv_method_choose_for_input). */
    clconv_problem w = j->p;
    if (part)
        w.size[j->axis] = part->whole_rows;
    clconv_status st = clconv_method_choose_for_input(
        s, &w, mask, whole && !part ? in : NULL, clconv_problem_elements(&w),
        &j->p.method);
    j->in = in;
    j->mask = mask;
    j->out = out;
    j->isz = clconv_elem_size(p->in_dtype);
    j->osz = clconv_elem_size(p->out_dtype);
    j->rows = j->p.size[j->axis];
    j->row = 1;
    for (int d = 0; d < j->axis; ++d)
        j->row *= j->p.size[d];
    halo_of(p, &j->lo, &j->hi);
    j->host_ptr = s->zero_copy;
    j->staged = !s->zero_copy && s->pinned;
    return st;
}

/* The whole problem on a CPU device, on the caller's memory. */
static clconv_status whole_in_place(clc_job *j, clconv_plan *plan)
{
    clconv_session *s = j->s;
    const size_t n = clconv_problem_elements(&j->p);
    const size_t bytes = n * j->isz;
    cl_int err;
    cl_event done = NULL;
    void *mapped = NULL;
    clconv_status st = CLCONV_OK;
    cl_mem in = clCreateBuffer(s->context, CL_MEM_READ_ONLY |
                               CL_MEM_USE_HOST_PTR, bytes, (void *)j->in, &err);
    if (err != CL_SUCCESS)
        return clc_cl_fail("clCreateBuffer(CL_MEM_USE_HOST_PTR)", err,
                           __FILE__, __LINE__);
    cl_mem out = clCreateBuffer(s->context, CL_MEM_WRITE_ONLY |
                                CL_MEM_USE_HOST_PTR, n * j->osz, j->out,
                                &err);
    if (err != CL_SUCCESS) {
        st = clc_cl_fail("clCreateBuffer(CL_MEM_USE_HOST_PTR)", err,
                         __FILE__, __LINE__);
        goto out;
    }
    clconv_buffer bi = {.mem = in}, bo = {.mem = out};
    st = clconv_plan_enqueue(plan, &bi, &bo, 0, NULL, &done);
    if (st != CLCONV_OK)
        goto out;
    /* A blocking map makes the result visible in the caller's memory;
     * the unmap (a read map writes nothing back) need not be waited for:
     * the buffers are deleted once it has run. */
    mapped = clEnqueueMapBuffer(s->queue, out, CL_TRUE, CL_MAP_READ, 0,
                                n * j->osz, 1, &done, NULL, &err);
    CLC_CHECK_CALL_GOTO("clEnqueueMapBuffer", err);
    CLC_CHECK_GOTO(clEnqueueUnmapMemObject(s->queue, out, mapped, 0, NULL,
                                           NULL));
    CLC_CHECK_GOTO(clFlush(s->queue));
out:
    if (st != CLCONV_OK)
        clc_session_finish(s);
    if (done)
        clReleaseEvent(done);
    if (out)
        clReleaseMemObject(out);
    clReleaseMemObject(in);
    return st;
}

/* The rows of a slab of `out` output rows with its halo, the slab's
 * problem; a wrap mode's period padded as any mode's (a slab at an end
 * may be shorter, and a shorter period that is no transform size pads to
 * more). */
static clconv_problem slab_problem(const clc_job *j, size_t out)
{
    clconv_problem q = j->p;
    q.size[j->axis] = out + j->lo + j->hi + j->split - 1;
    if (q.border == CLCONV_BORDER_WRAP)
        q.border = CLCONV_BORDER_CONSTANT;
    return q;
}

/* The FFT transforms each slab: at most *rows output rows a slab whose
 * padded array and spectrum fit the allocation (clc_fft_fits_alloc; they
 * grow with the rows), balanced again over span rows. */
static clconv_status fft_slab_rows(const clc_job *j, size_t span, size_t *rows)
{
    /* one slab of the whole axis is the whole problem */
    if (j->p.method != CLCONV_METHOD_FFT ||
        (span == j->rows && *rows >= span && clc_fft_fits_alloc(j->s, &j->p)))
        return CLCONV_OK;
    clconv_problem q = slab_problem(j, 1);
    if (!clc_fft_fits_alloc(j->s, &q))
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "method fft: one slab of 1 row with its %zu halo rows "
                        "needs a padded array of %llu bytes; clconv may "
                        "allocate %llu bytes at once on this device",
                        j->lo + j->hi,
                        (unsigned long long)clc_fft_array_bytes(&q),
                        (unsigned long long)j->s->alloc_limit);
    size_t good = 1, bad = *rows + 1; /* fits good rows, not bad */
    while (bad - good > 1) {
        const size_t mid = good + (bad - good) / 2;
        q = slab_problem(j, mid);
        if (clc_fft_fits_alloc(j->s, &q))
            good = mid;
        else
            bad = mid;
    }
    const size_t n = (span + good - 1) / good;
    *rows = (span + n - 1) / n;
    return CLCONV_OK;
}

/* Output rows per slab: the most whose input (with halo, and the split
 * - 1 rows a slab may start early: clc_job) fits the allocation limit,
 * with four such buffers within 60% of the device, and whose elements one
 * launch can index (int). Where the early rows would not fit, slabs start
 * anywhere (split 1: the last bits then depend on where). */
static clconv_status slab_rows(clc_job *j, size_t span, size_t nslabs_min,
                               size_t *rows)
{
    const uint64_t row_bytes =
        (uint64_t)j->row * (j->isz > j->osz ? j->isz : j->osz);
    uint64_t cap = j->s->alloc_limit;
    const uint64_t share = j->s->dev.global_mem_bytes / 10 * 6 / 4;
    if (share < cap)
        cap = share;
    /* Input rows per slab (output rows and halo): within the allocation
     * and within one launch's int index, whichever is fewer. */
    const uint64_t by_bytes = cap / row_bytes;
    const uint64_t by_index = (uint64_t)INT_MAX / j->row;
    const uint64_t limit = by_bytes < by_index ? by_bytes : by_index;
    if (limit <= j->lo + j->hi + j->split - 1)
        j->split = 1;
    const uint64_t halo = j->lo + j->hi + j->split - 1;
    if (limit <= halo)
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "one slab of 1 row with its %llu halo rows needs %llu "
                        "bytes and %llu elements; clconv may allocate %llu "
                        "bytes at once on this device and one launch indexes "
                        "%d elements",
                        (unsigned long long)halo,
                        (unsigned long long)((halo + 1) * row_bytes),
                        (unsigned long long)((halo + 1) * j->row),
                        (unsigned long long)cap, INT_MAX);
    const size_t most = (size_t)(limit - halo);
    size_t n = (span + most - 1) / most;
    if (n < nslabs_min)
        n = nslabs_min < span ? nslabs_min : span;
    *rows = (span + n - 1) / n; /* balanced */
    return fft_slab_rows(j, span, rows);
}

/* The whole problem's kernel for every slab where it splits sums at
 * rows counted from its launch's first (clc_config_split_rows): its
 * settings (a slab's own size could choose others: the 3D coarse kernel
 * takes fewer planes per work-item in small problems), and the rows each
 * slab's launch is to start at a multiple of into the whole. */
static void whole_kernel(clc_job *j, const clconv_part *part)
{
    j->split = 1;
    if (j->p.method != CLCONV_METHOD_DIRECT)
        return;
    clconv_problem w = j->p;
    if (part)
        w.size[j->axis] = part->whole_rows;
    clc_config c;
    clc_config_resolve_batched(&j->s->dev, &j->s->overrides, &w, &c);
    const size_t split = clc_config_split_rows(&c);
    if (split > 1) {
        clc_config_settings_to(&c, &j->p);
        j->split = split;
    }
}

clconv_status clc_stream_rows(clconv_session *s, const clconv_problem *p,
                              const clconv_part *part, const void *in,
                              const float *mask, void *out, size_t begin,
                              size_t end, size_t nslabs_min, size_t *nslabs)
{
    clc_job j;
    clconv_status st =
        job_init(&j, s, p, part, in, mask, out,
                 begin == 0 && p->dims >= 1 && end >= p->size[p->dims - 1]);
    size_t rows = 1;
    if (nslabs)
        *nslabs = 0;
    if (st != CLCONV_OK)
        return st;
    if (begin >= end || end > j.rows)
        return clc_fail(CLCONV_EINVAL, "rows %zu to %zu of %zu", begin, end,
                        j.rows);
    st = slab_rows(&j, end - begin, nslabs_min, &rows);
    /* The FFT's last bits depend on the extent it transforms: rows in
     * parts, chosen automatically, take a path that gives the same bits
     * in any partition. */
    const int in_parts =
        part || begin > 0 || end < j.rows || rows < end - begin;
    if (p->method == CLCONV_METHOD_AUTO && j.p.method == CLCONV_METHOD_FFT &&
        in_parts)
        j.p.method = CLCONV_METHOD_DIRECT;
    if (st != CLCONV_OK)
        return st;
    whole_kernel(&j, part);
    if (j.split > 1 && (st = slab_rows(&j, end - begin, nslabs_min,
                                       &rows)) != CLCONV_OK)
        return st;
    /* Rows whose reach stays inside the array read no border on that axis,
     * so every slab of them holds all it reads, whatever the mode (a
     * domain decomposition's block with its halos); rows in parts that
     * reach a border the slabs cannot fold gather it. */
    const int inside = begin >= j.lo && end + j.hi <= j.rows;
    j.ends_in_parts = in_parts && !inside;
    j.gather_edges = j.ends_in_parts && !clc_slabs_fold(&j, rows);
    return clc_pipe_rows(&j, begin, end, rows, nslabs);
}

/* Slabs wanted for overlap alone on a GPU: none under 64 MiB of input, then
 * one per 64 MiB, at most 8. */
static size_t overlap_slabs(const clconv_session *s, uint64_t bytes)
{
    if (s->dev.kind == CLCONV_DEVICE_CPU)
        return 1;
    uint64_t n = bytes >> 26;
    return n < 2 ? 1 : n > 8 ? 8 : (size_t)n;
}

int clconv_session_needs_slabs(const clconv_session *s,
                               const clconv_problem *p)
{
    if (!s || !p)
        return 0;
    const size_t elements = clconv_problem_elements(p);
    const uint64_t bytes = (uint64_t)elements * clconv_elem_size(p->in_dtype);
    /* The output in its own type: a uint8 input's float32 output is four
     * times its size (slab_rows counts the larger too). */
    const uint64_t obytes =
        (uint64_t)elements * clconv_elem_size(p->out_dtype);
    return bytes > s->alloc_limit || obytes > s->alloc_limit ||
           bytes + obytes > s->dev.global_mem_bytes / 10 * 8 ||
           elements > (size_t)INT_MAX ||
           (p->method == CLCONV_METHOD_FFT && !clc_fft_fits_alloc(s, p));
}

clconv_status clconv_convolve_ex(clconv_session *s, const clconv_problem *p,
                                 const float *in, const float *mask,
                                 float *out, clconv_call_info *info)
{
    clconv_status st = clconv_problem_validate(p);
    if (st != CLCONV_OK)
        return st;
    if (p->in_dtype != CLCONV_ELEM_F32 || p->out_dtype != CLCONV_ELEM_F32)
        return clc_fail(CLCONV_EINVAL,
                        "clconv_convolve takes float32 data, the problem's "
                        "are %s to %s: use clconv_convolve_typed",
                        clconv_elem_name(p->in_dtype),
                        clconv_elem_name(p->out_dtype));
    return clconv_convolve_typed(s, p, in, mask, out, info);
}

/* Do [a, a + na) and [b, b + nb) share a byte? */
static int overlap(const void *a, size_t na, const void *b, size_t nb)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + nb && y < x + na;
}

const void *clc_unaliased(const void *in, size_t in_bytes, const void *out,
                          size_t out_bytes, void **copy)
{
    *copy = NULL;
    if (!overlap(in, in_bytes, out, out_bytes))
        return in;
    *copy = malloc(in_bytes ? in_bytes : 1);
    if (*copy)
        memcpy(*copy, in, in_bytes);
    return *copy;
}

/* An output over the input (in place): the kernels read the input as it
 * was, from a copy (*copy, freed by the caller) that j now reads. */
static clconv_status unalias(clc_job *j, void **copy)
{
    const size_t n = clconv_problem_elements(&j->p);
    j->in = clc_unaliased(j->in, n * j->isz, j->out, n * j->osz, copy);
    return j->in ? CLCONV_OK
                 : clc_fail(CLCONV_ENOMEM, "out of memory (a copy of the "
                            "input, which the output overlaps)");
}

static clconv_status convolve_typed(clconv_session *s,
                                    const clconv_problem *p, const void *in,
                                    const float *mask, void *out,
                                    clconv_call_info *info)
{
    clconv_call_info dummy;
    if (!info)
        info = &dummy;
    *info = (clconv_call_info){.slabs = 1, .devices = 1};
    clconv_status st = clconv_problem_validate(p);
    if (st != CLCONV_OK)
        return st;
    if (!s || !in || !mask || !out)
        return clc_fail(CLCONV_EINVAL, "no session, input, mask or output");
    if (clc_f16_on_host(s, p))
        return clc_convolve_via_f32(s, p, in, mask, out, info);
    clc_job j;
    void *copy = NULL;
    if ((st = job_init(&j, s, p, NULL, in, mask, out, 1)) != CLCONV_OK)
        return st;
    const int fits = !clconv_session_needs_slabs(s, &j.p);
    size_t want =
        overlap_slabs(s, (uint64_t)clconv_problem_elements(&j.p) * j.isz);
    /* Overlap is an optimisation: one launch instead where the slabs
     * would gather their ends' halos on the host, and for the FFT, which
     * transforms the whole at once. */
    if (!clc_slabs_fold(&j, j.rows / (want ? want : 1)) ||
        j.p.method == CLCONV_METHOD_FFT)
        want = 1;
    /* One launch on the plan's own buffers: zero-copy calls, the FFT, and
     * pageable transfers; pinned staging streams even one slab. */
    if (fits && want == 1 && (!j.staged || j.p.method == CLCONV_METHOD_FFT)) {
        clconv_plan *plan;
        st = clc_plan_cache_get(s, &j.p, mask, &plan);
        /* An FFT chosen automatically that cannot run on this device
         * (VkFFT's plan refused, host/lib/fft.c): the direct path, as a
         * plan on auto does. */
        if (st == CLCONV_EUNSUPPORTED && p->method == CLCONV_METHOD_AUTO &&
            j.p.method == CLCONV_METHOD_FFT) {
            j.p.method = CLCONV_METHOD_DIRECT;
            st = clc_plan_cache_get(s, &j.p, mask, &plan);
        }
        if (st != CLCONV_OK)
            return st;
        if (j.host_ptr) {
            info->zero_copy = 1;
            if ((st = unalias(&j, &copy)) == CLCONV_OK)
                st = whole_in_place(&j, plan);
            free(copy);
            return st;
        }
        /* The input is uploaded whole before the output is written. */
        st = clconv_plan_set_input_typed(plan, in);
        if (st == CLCONV_OK)
            st = clconv_plan_execute(plan, NULL);
        if (st == CLCONV_OK)
            st = clconv_plan_get_output_typed(plan, out);
        return st;
    }
    info->zero_copy = j.host_ptr;
    info->pinned = j.staged;
    /* Slabs that cannot be cut are refused before any copy. */
    size_t rows;
    if ((st = slab_rows(&j, j.rows, want, &rows)) == CLCONV_OK &&
        (st = unalias(&j, &copy)) == CLCONV_OK)
        st = clc_stream_rows(s, &j.p, NULL, j.in, mask, out, 0, j.rows, want,
                             &info->slabs);
    free(copy);
    return st;
}

/* Threads that share the session take turns (its plan cache, staging and
 * slab buffers). */
clconv_status clconv_convolve_typed(clconv_session *s, const clconv_problem *p,
                                    const void *in, const float *mask,
                                    void *out, clconv_call_info *info)
{
    clc_session_lock(s);
    clconv_status st = convolve_typed(s, p, in, mask, out, info);
    clc_session_unlock(s);
    return st;
}

clconv_status clconv_convolve_rows(clconv_session *s, const clconv_problem *p,
                                   const float *in, const float *mask,
                                   float *out, size_t begin, size_t end,
                                   clconv_call_info *info)
{
    if (p && (p->in_dtype != CLCONV_ELEM_F32 ||
              p->out_dtype != CLCONV_ELEM_F32))
        return clc_fail(CLCONV_EINVAL,
                        "clconv_convolve_rows takes float32 data, the "
                        "problem's are %s to %s: use clconv_convolve_part",
                        clconv_elem_name(p->in_dtype),
                        clconv_elem_name(p->out_dtype));
    return clconv_convolve_part(s, p, NULL, in, mask, out, begin, end, info);
}

clconv_status clc_part_check(const clconv_problem *p, const clconv_part *part)
{
    if (!part)
        return CLCONV_OK;
    const long long rows = (long long)p->size[p->dims - 1];
    if (part->whole_rows == 0 || part->whole_rows > (size_t)LLONG_MAX ||
        part->first_row >= (long long)part->whole_rows ||
        part->first_row <= -rows)
        return clc_fail(CLCONV_EINVAL,
                        "a part of %lld rows from row %lld of a whole of "
                        "%zu: it holds none of the whole's rows",
                        rows, part->first_row, part->whole_rows);
    return CLCONV_OK;
}

static clconv_status convolve_part(clconv_session *s,
                                   const clconv_problem *p,
                                   const clconv_part *part, const void *in,
                                   const float *mask, void *out,
                                   size_t begin, size_t end,
                                   clconv_call_info *info)
{
    if (!s)
        return clc_fail(CLCONV_EINVAL, "no session given (NULL)");
    if (info)
        *info = (clconv_call_info){.devices = 1, .zero_copy = s->zero_copy};
    clconv_status st = clconv_problem_validate(p);
    if (st == CLCONV_OK)
        st = clc_part_check(p, part);
    if (st != CLCONV_OK)
        return st;
    if (!in || !mask || !out)
        return clc_fail(CLCONV_EINVAL, "no input, mask or output");
    /* Other calls' rows would read this call's outputs as their input. */
    const size_t n = clconv_problem_elements(p);
    if (overlap(in, n * clconv_elem_size(p->in_dtype), out,
                n * clconv_elem_size(p->out_dtype)))
        return clc_fail(CLCONV_EINVAL,
                        "the output overlaps the input: clconv_convolve_rows "
                        "needs them apart (clconv_convolve takes them in "
                        "place)");
    if (clc_f16_on_host(s, p)) {
        clc_f32_view v;
        if ((st = clc_f32_view_open(p, in, out, &v)) != CLCONV_OK)
            return st;
        st = clconv_convolve_part(s, &v.q, part, v.in, mask, v.out, begin,
                                  end, info);
        const size_t row = n / p->size[p->dims - 1];
        clc_f32_view_close(&v, p, out, begin * row,
                           end > begin ? (end - begin) * row : 0, st);
        return st;
    }
    return clc_stream_rows(s, p, part, in, mask, out, begin, end, 1,
                           info ? &info->slabs : NULL);
}

clconv_status clconv_convolve_part(clconv_session *s, const clconv_problem *p,
                                   const clconv_part *part, const void *in,
                                   const float *mask, void *out,
                                   size_t begin, size_t end,
                                   clconv_call_info *info)
{
    clc_session_lock(s);
    clconv_status st =
        convolve_part(s, p, part, in, mask, out, begin, end, info);
    clc_session_unlock(s);
    return st;
}

clconv_status clconv_convolve(clconv_session *s, const clconv_problem *p,
                              const float *in, const float *mask, float *out)
{
    return clconv_convolve_ex(s, p, in, mask, out, NULL);
}
