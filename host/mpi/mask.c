/* The mask every rank loaded, agreed: each rank's digest of its dims,
 * extents and values against rank 0's. */
#include <stdint.h>

#include "mpi_internal.h"

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *b = bytes;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t digest(const clconv_mask *m)
{
    const int shape[4] = {m->dims, m->size[0], m->size[1], m->size[2]};
    uint64_t h = fnv(1469598103934665603ull, shape, sizeof shape);
    size_t n = 1;
    for (int d = 0; d < m->dims && d < 3; ++d)
        n *= m->size[d] > 0 ? (size_t)m->size[d] : 0;
    return m->values ? fnv(h, m->values, n * sizeof *m->values) : h;
}

clconv_status clconv_mpi_same_mask(MPI_Comm comm, const clconv_mask *m,
                                   const char *spec)
{
    clconv_status st = m ? CLCONV_OK
                         : clconv_mpi_fail(CLCONV_EINVAL,
                                           "no mask given (NULL)");
    /* a rank without a mask takes part with a digest of nothing */
    unsigned long long first = m ? digest(m) : 0;
    const unsigned long long mine = first;
    CLM_CHECK(MPI_Bcast(&first, 1, MPI_UNSIGNED_LONG_LONG, 0, comm));
    if (st == CLCONV_OK && mine != first)
        st = clconv_mpi_fail(CLCONV_EINVAL,
                             "--mask %s: this rank read another mask than "
                             "rank 0 (its shape or values differ between "
                             "the ranks' hosts or folders): every rank must "
                             "read the same mask",
                             spec ? spec : "(no spec)");
    return clconv_mpi_agree(comm, st);
}
