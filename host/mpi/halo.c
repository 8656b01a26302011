/* What a block's local rows hold: its own rows, and beyond them the rows
 * its outputs reach, which past the array's ends are the rows the border
 * mode reads (wrap: the far end; reflect, mirror, nearest: rows by the
 * edge) or cval. Grouped into runs, so that a halo is read from a file
 * or sent by its owner in as few pieces as its sources allow. */
#include "mpi_internal.h"

size_t clm_local_row(const clconv_mpi_block *b, size_t g)
{
    return b->halo_lo + (g - b->begin);
}

void clm_fill_cval(float *at, size_t n, size_t row, double cval)
{
    for (size_t i = 0; i < n * row; ++i)
        at[i] = (float)cval;
}

size_t clm_runs(const clconv_problem *p, const clconv_mpi_block *b,
                size_t l0, size_t l1, int by_owner, clm_run *runs,
                size_t cap)
{
    size_t n = 0;
    clm_run cur = {0, 0, -1, -1};
    for (size_t l = l0; l < l1; ++l) {
        const long long src = clconv_mpi_source_row(p, b, l);
        const int owner =
            src < 0 ? -1
            : by_owner ? clm_owner(b->rows, b->nranks, (size_t)src)
                       : 0;
        const int joins =
            cur.n > 0 && owner == cur.owner &&
            (src < 0 ? cur.src < 0
                     : cur.src >= 0 && src == cur.src + (long long)cur.n);
        if (joins) {
            ++cur.n;
            continue;
        }
        if (cur.n > 0 && n++ < cap && runs)
            runs[n - 1] = cur;
        cur = (clm_run){l, 1, src, owner};
    }
    if (cur.n > 0 && n++ < cap && runs)
        runs[n - 1] = cur;
    return n;
}
