/* The slab decomposition along the slowest axis and each rank's device. */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

void clconv_mpi_block_range(size_t rows, int n, int r, size_t *begin,
                            size_t *end)
{
    const size_t base = rows / (size_t)n, extra = rows % (size_t)n;
    const size_t k = (size_t)r;
    *begin = k * base + (k < extra ? k : extra);
    *end = *begin + base + (k < extra ? 1 : 0);
}

void clm_reach(const clconv_problem *p, size_t rows, size_t begin,
               size_t end, size_t *lo, size_t *hi)
{
    const size_t before = (size_t)(p->mask_width / 2);
    const size_t after = (size_t)(p->mask_width - 1) - before;
    if (begin >= end) { /* an empty block reaches nothing */
        *lo = *hi = begin;
        return;
    }
    *lo = begin > before ? begin - before : 0;
    *hi = rows - end > after ? end + after : rows;
}

clconv_status clconv_mpi_decompose(MPI_Comm comm, const clconv_problem *p,
                                   clconv_mpi_block *b)
{
    memset(b, 0, sizeof *b);
    if (clconv_problem_validate(p) != CLCONV_OK)
        return clm_lib_fail(CLCONV_EINVAL, "the problem");
    CLM_CHECK(MPI_Comm_rank(comm, &b->rank));
    CLM_CHECK(MPI_Comm_size(comm, &b->nranks));
    b->axis = p->dims - 1;
    b->rows = p->size[b->axis];
    b->row = 1;
    for (int d = 0; d < b->axis; ++d)
        b->row *= p->size[d];
    clconv_mpi_block_range(b->rows, b->nranks, b->rank, &b->begin, &b->end);
    size_t lo, hi;
    clm_reach(p, b->rows, b->begin, b->end, &lo, &hi);
    b->halo_lo = b->begin - lo;
    b->halo_hi = hi - b->end;
    return CLCONV_OK;
}

size_t clconv_mpi_local_rows(const clconv_mpi_block *b)
{
    return b->halo_lo + (b->end - b->begin) + b->halo_hi;
}

size_t clconv_mpi_local_elements(const clconv_mpi_block *b)
{
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

/* The candidates: the selector's matches, else the GPUs, else the first
 * CPU, else every device. */
static clconv_status candidates(const clconv_device_list *list,
                                const char *selector, size_t *idx, size_t *n)
{
    if (selector && *selector) {
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
    size_t *idx = malloc((list->count + 1) * sizeof *idx), n = 0;
    if (!idx) {
        st = clconv_mpi_fail(CLCONV_ENOMEM, "out of memory");
        goto out;
    }
    st = candidates(list, selector, idx, &n);
    if (st == CLCONV_OK)
        *index = idx[(size_t)local % n];
    free(idx);
out:
    MPI_Comm_free(&node);
    return st;
}
