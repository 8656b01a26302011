/* The public face of the instrumented plans (clconv_model.h): `clconv
 * model --device` and test/test_counted_loads.c count a kernel's loads
 * through these, never through the library's internals. */
#include "clconv_model.h"
#include "internal.h"

clconv_status clconv_plan_create_counting(clconv_session *s,
                                          const clconv_problem *p,
                                          const float *mask,
                                          clconv_plan **out)
{
    return clc_plan_create(s, p, mask, 1, out);
}

clconv_status clconv_plan_counters(clconv_plan *plan, clconv_load_counts *out)
{
    if (!plan || !out)
        return clc_fail(CLCONV_EINVAL,
                        "no plan or nowhere to put the counts (NULL)");
    long long c[2] = {0, 0};
    clconv_status st = clc_plan_counters(plan, c);
    out->global_loads = c[0];
    out->local_reads = c[1];
    return st;
}
