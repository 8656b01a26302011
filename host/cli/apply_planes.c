/* `clconv apply`'s planes through the device: each plane of the data
 * through the plan (or, beyond one plan, the host-to-host call in slabs),
 * checked against the double reference under --verify. */
#include <stdlib.h>
#include <string.h>

#include "apply.h"

/* One plane through the plan (kernel ms), or, where the plan is NULL
 * (the problem is beyond one allocation), through the host-to-host call
 * in slabs (wall ms). */
static clconv_status convolve_plane(clconv_session *s, clconv_plan *plan,
                                    const clconv_problem *p, const float *mask,
                                    const void *in, void *out, double *ms,
                                    size_t *slabs)
{
    if (!plan) {
        clconv_call_info info;
        const double t0 = clconv_now_s();
        clconv_status st = clconv_convolve_typed(s, p, in, mask, out, &info);
        *ms = 1e3 * (clconv_now_s() - t0);
        *slabs += info.slabs;
        return st;
    }
    clconv_status st = clconv_plan_set_input_typed(plan, in);
    if (st == CLCONV_OK)
        st = clconv_plan_poison_output(plan);
    if (st == CLCONV_OK)
        st = clconv_plan_execute(plan, ms);
    if (st == CLCONV_OK)
        st = clconv_plan_get_output_typed(plan, out);
    return st;
}

const float *apply_input_floats(const clconv_problem *p, const void *in,
                                float *buf, size_t n)
{
    if (p->in_dtype == CLCONV_ELEM_F32)
        return in;
    const clconv_npy_info host = clconv_npy_host_info(
        clconv_dtype_of_elem(p->in_dtype));
    clconv_npy_convert(in, n, &host, buf); /* narrow types: never refused */
    return buf;
}

clconv_status apply_convolve_planes(clconv_session *s, clconv_plan *plan,
                                    const clconv_problem *p,
                                    const clconv_mask *m, apply_data *d,
                                    int verify, apply_result *r)
{
    size_t n = clconv_problem_elements(p);
    /* A buffer for the plane only where planes are not pieces of the
     * data. */
    const void *view = apply_plane_view(d, 0);
    void *in = view ? NULL : malloc(n * clconv_elem_size(p->in_dtype));
    void *out = malloc(n * clconv_elem_size(p->out_dtype));
    double *ref = verify ? malloc(n * sizeof *ref) : NULL;
    double *mag = verify ? malloc(n * sizeof *mag) : NULL;
    float *inf = verify && p->in_dtype != CLCONV_ELEM_F32
                     ? malloc(n * sizeof *inf)
                     : NULL;
    clconv_status st = CLCONV_OK;
    memset(r, 0, sizeof *r);
    r->verified_ok = 1;
    r->method = plan ? clconv_plan_method(plan)
                     : clconv_method_choose(s, p, m->values);
    if ((!view && !in) || !out || (verify && (!ref || !mag)) ||
        (verify && p->in_dtype != CLCONV_ELEM_F32 && !inf)) {
        st = CLCONV_ENOMEM;
        cli_error("out of memory for %zu elements", n);
        goto out;
    }
    if (plan)
        st = clconv_plan_set_mask(plan, m->values);
    for (int k = 0; st == CLCONV_OK && k < d->planes; ++k) {
        double ms = 0;
        /* A plane in one piece is read where it lies (out is a buffer
         * of its own, so the slabs of a host-to-host call never read what
         * they wrote); channels are gathered into in. */
        const void *x = view ? apply_plane_view(d, k) : NULL;
        if (!x) {
            apply_plane_get(d, k, in, n);
            x = in;
        }
        /* The plan's output read back where it goes in the output
         * array (one copy of the whole less): the input is uploaded
         * before, so an output over it is safe, but under --verify the
         * reference reads the input after, so only a separate array. */
        void *y = out;
        if (plan && view) {
            int err;
            void *o = apply_plane_out_view(d, k, &err);
            if (err) {
                st = CLCONV_ENOMEM;
                goto out;
            }
            if (o && (o != x || !verify))
                y = o;
        }
        st = convolve_plane(s, plan, p, m->values, x, y, &ms, &r->slabs);
        if (st != CLCONV_OK)
            break;
        r->ms += ms;
        if (verify) {
            const float *xf = apply_input_floats(p, x, inf, n);
            st = clconv_reference(p, xf, m->values, ref, mag);
            if (st != CLCONV_OK)
                break;
            clconv_verdict v;
            double scale, floor;
            clconv_verify_bound(p, r->method, xf, m->values, &scale, &floor);
            clconv_verify_typed(p, y, ref, mag, scale, floor, &v);
            if (!v.ok)
                r->verified_ok = 0;
            r->nonfinite += v.nonfinite;
            r->overflowed += v.overflowed;
            if (k == 0 || v.max_err > r->worst.max_err)
                r->worst = v;
        }
        if (apply_plane_put(d, k, y, n)) {
            st = CLCONV_ENOMEM;
            goto out;
        }
    }
    if (st != CLCONV_OK)
        cli_error("%s", clconv_last_error());
out:
    free(in);
    free(out);
    free(ref);
    free(mag);
    free(inf);
    return st;
}

