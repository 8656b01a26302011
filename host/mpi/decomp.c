/* The slab decomposition along the slowest axis and each rank's device. */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

void clconv_mpi_block_range(size_t rows, int n, int r, size_t *begin,
                            size_t *end)
{
    if (!begin || !end)
        return;
    /* no ranks, or a rank not among them: an empty block (n 0 divided) */
    if (n <= 0 || r < 0 || r >= n) {
        *begin = *end = 0;
        return;
    }
    const size_t base = rows / (size_t)n, extra = rows % (size_t)n;
    const size_t k = (size_t)r;
    *begin = k * base + (k < extra ? k : extra);
    *end = *begin + base + (k < extra ? 1 : 0);
}

void clm_halo(const clconv_problem *p, size_t *before, size_t *after)
{
    const int axis = p->dims - 1;
    const int left = clconv_problem_left(p, axis);
    *before = (size_t)left;
    *after = (size_t)(clconv_problem_mask_axis(p, axis) - 1 - left);
}

int clm_owner(size_t rows, int n, size_t r)
{
    const size_t base = rows / (size_t)n, extra = rows % (size_t)n;
    if (r < extra * (base + 1))
        return (int)(r / (base + 1));
    return (int)(extra + (r - extra * (base + 1)) / base);
}

void clm_block_of(const clconv_problem *p, int nranks, int q,
                  clconv_mpi_block *b)
{
    memset(b, 0, sizeof *b);
    b->rank = q;
    b->nranks = nranks;
    b->axis = p->dims - 1;
    b->rows = p->size[b->axis];
    b->row = 1;
    for (int d = 0; d < b->axis; ++d)
        b->row *= p->size[d];
    clconv_mpi_block_range(b->rows, nranks, q, &b->begin, &b->end);
    /* Full halos on both sides, past the array's ends too (there they
     * hold what the border mode reads: clconv_mpi_source_row), so a
     * block's outputs never depend on how its local array ends; an empty
     * block holds none. The constant mode's halos end at the array's
     * ends, where the kernel reads cval as it does on one device (rows of
     * cval in memory gave other last bits: 2.4e-7 at values near 2.4). */
    if (b->begin < b->end) {
        clm_halo(p, &b->halo_lo, &b->halo_hi);
        if (p->border == CLCONV_BORDER_CONSTANT) {
            if (b->halo_lo > b->begin)
                b->halo_lo = b->begin;
            if (b->halo_hi > b->rows - b->end)
                b->halo_hi = b->rows - b->end;
        }
    }
}

clconv_status clconv_mpi_decompose(MPI_Comm comm, const clconv_problem *p,
                                   clconv_mpi_block *b)
{
    /* no communication here: a NULL returns on its rank alone, as a
     * problem that fails validation does */
    if (!b)
        return clconv_mpi_fail(CLCONV_EINVAL, "no block given (NULL)");
    memset(b, 0, sizeof *b);
    if (clconv_problem_validate(p) != CLCONV_OK)
        return clm_lib_fail(CLCONV_EINVAL, "the problem");
    int rank = 0, nranks = 1;
    CLM_CHECK(MPI_Comm_rank(comm, &rank));
    CLM_CHECK(MPI_Comm_size(comm, &nranks));
    clm_block_of(p, nranks, rank, b);
    return CLCONV_OK;
}

long long clconv_mpi_source_row(const clconv_problem *p,
                                const clconv_mpi_block *b, size_t local)
{
    if (!p || !b)
        return -1;
    const long long g = (long long)b->begin - (long long)b->halo_lo +
                        (long long)local;
    return clconv_border_index(g, (long long)b->rows, p->border);
}

size_t clconv_mpi_local_rows(const clconv_mpi_block *b)
{
    if (!b)
        return 0;
    return b->halo_lo + (b->end - b->begin) + b->halo_hi;
}

size_t clconv_mpi_local_elements(const clconv_mpi_block *b)
{
    if (!b)
        return 0;
    return clconv_mpi_local_rows(b) * b->row;
}

/* The devices of list of one kind, or of every kind (kind < 0). */
static size_t of_kind(const clconv_device_list *list, int kind, size_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < list->count; ++i)
        if (kind < 0 || (int)list->devices[i].kind == kind)
            idx[n++] = i;
    return n;
}

/* The candidates: the selector's matches, else (no selector, NULL) the
 * GPUs, else the first CPU, else every device. An empty selector is
 * clconv_devices_select's to refuse, as one process refuses it (it once
 * ran on the default devices). */
static clconv_status candidates(const clconv_device_list *list,
                                const char *selector, size_t *idx, size_t *n)
{
    if (selector) {
        if (clconv_devices_select(list, selector, idx, n) != CLCONV_OK)
            return clm_lib_fail(CLCONV_EINVAL, "--device");
        if (*n == 0)
            return clconv_mpi_fail(CLCONV_EINVAL,
                                   "--device '%s' selects no device",
                                   selector);
        return CLCONV_OK;
    }
    if ((*n = of_kind(list, CLCONV_DEVICE_GPU, idx)) > 0)
        return CLCONV_OK;
    if ((*n = of_kind(list, CLCONV_DEVICE_CPU, idx)) > 0) {
        *n = 1;
        return CLCONV_OK;
    }
    if ((*n = of_kind(list, -1, idx)) > 0)
        return CLCONV_OK;
    return clconv_mpi_fail(CLCONV_ENOPLATFORM, "no OpenCL device");
}

clconv_status clconv_mpi_select_device(MPI_Comm comm,
                                       const clconv_device_list *list,
                                       const char *selector, size_t *index)
{
    MPI_Comm node = MPI_COMM_NULL;
    int local = 0, rank = 0;
    clconv_status st = CLCONV_OK;
    CLM_CHECK(MPI_Comm_rank(comm, &rank));
    CLM_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank,
                                  MPI_INFO_NULL, &node));
    CLM_CHECK_GOTO(MPI_Comm_rank(node, &local));
    /* after the split and before the free, which every rank makes */
    if (!list || !index) {
        st = clconv_mpi_fail(CLCONV_EINVAL,
                             "no device list or index given (NULL)");
        goto out;
    }
    size_t *idx = malloc((list->count + 1) * sizeof *idx), n = 0;
    if (!idx) {
        st = clconv_mpi_fail(CLCONV_ENOMEM, "out of memory");
        goto out;
    }
    st = candidates(list, selector, idx, &n);
    if (st == CLCONV_OK)
        *index = idx[(size_t)local % n];
    free(idx);
out:;
    const int freed = MPI_Comm_free(&node);
    if (st == CLCONV_OK)
        st = clconv_mpi_check(freed, "MPI_Comm_free", __FILE__, __LINE__);
    return st;
}
