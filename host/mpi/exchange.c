/* clconv_mpi_convolve: post the halo receives and sends, compute the rows
 * that need no halo while the halos travel, wait, compute the rest. Every
 * pair of ranks whose block and reach overlap exchange one message, so a
 * halo wider than a neighbour's block comes from several ranks. */
#include <limits.h>
#include <stdlib.h>

#include "mpi_internal.h"

/* Messages travel as whole rows: one MPI datatype of `row` floats. */
typedef struct exchange {
    MPI_Datatype rowtype;
    MPI_Request *req;
    int nreq;
    size_t received; /* rows */
} exchange;

/* Post one receive or send of rows [r0, r1) (global) of the local array
 * whose row 0 is global row `first`. */
static clconv_status post_rows(MPI_Comm comm, exchange *x, float *local,
                               size_t row, size_t first, size_t r0, size_t r1,
                               int peer, int send)
{
    if (r0 >= r1)
        return CLCONV_OK;
    if (r1 - r0 > INT_MAX)
        return clconv_mpi_fail(CLCONV_EUNSUPPORTED,
                               "%zu halo rows in one message (MPI counts are "
                               "int)",
                               r1 - r0);
    float *at = local + (r0 - first) * row;
    MPI_Request *r = &x->req[x->nreq++];
    if (send)
        CLM_CHECK(MPI_Isend(at, (int)(r1 - r0), x->rowtype, peer, 19, comm, r));
    else
        CLM_CHECK(MPI_Irecv(at, (int)(r1 - r0), x->rowtype, peer, 19, comm, r));
    if (!send)
        x->received += r1 - r0;
    return CLCONV_OK;
}

static size_t max_sz(size_t a, size_t b) { return a > b ? a : b; }
static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

/* Receive from each rank the rows of its block this block reaches; send
 * each rank the rows of this block it reaches. */
static clconv_status post_all(MPI_Comm comm, const clconv_problem *p,
                              const clconv_mpi_block *b, float *in,
                              exchange *x)
{
    const size_t first = b->begin - b->halo_lo;
    const size_t last = b->end + b->halo_hi;
    clconv_status st = CLCONV_OK;
    for (int q = 0; q < b->nranks && st == CLCONV_OK; ++q) {
        if (q == b->rank)
            continue;
        size_t qb, qe, ql, qh;
        clconv_mpi_block_range(b->rows, b->nranks, q, &qb, &qe);
        clm_reach(p, b->rows, qb, qe, &ql, &qh);
        st = post_rows(comm, x, in, b->row, first, max_sz(first, qb),
                       min_sz(last, qe), q, 0);
        if (st == CLCONV_OK)
            st = post_rows(comm, x, in, b->row, first, max_sz(ql, b->begin),
                           min_sz(qh, b->end), q, 1);
    }
    return st;
}

/* Output rows [r0, r1) of the local problem. */
static clconv_status rows_of(clconv_session *s, const clconv_problem *local,
                             const float *in, const float *mask, float *out,
                             size_t r0, size_t r1, double *seconds)
{
    if (r0 >= r1)
        return CLCONV_OK;
    double t0 = clm_now();
    clconv_status st = clconv_convolve_rows(s, local, in, mask, out, r0, r1,
                                            NULL);
    *seconds += clm_now() - t0;
    return st == CLCONV_OK
               ? CLCONV_OK
               : clm_lib_fail(st, clconv_session_device(s)->name);
}

/* The local rows that need no halo: [*ib, *ie) within the block's rows
 * [own0, own1) (rows next to a global edge need none on that side). */
static void interior(const clconv_problem *p, const clconv_mpi_block *b,
                     size_t *ib, size_t *ie)
{
    const size_t before = (size_t)(p->mask_width / 2);
    const size_t after = (size_t)(p->mask_width - 1) - before;
    const size_t own0 = b->halo_lo, own1 = own0 + (b->end - b->begin);
    *ib = b->halo_lo ? min_sz(own0 + before, own1) : own0;
    *ie = b->halo_hi ? (own1 >= *ib + after ? own1 - after : *ib) : own1;
}

static clconv_status overlap(MPI_Comm comm, clconv_session *s,
                             const clconv_problem *p, const clconv_mpi_block *b,
                             float *in, const float *mask, float *out,
                             exchange *x, clconv_mpi_times *t)
{
    clconv_problem local = *p;
    local.size[b->axis] = clconv_mpi_local_rows(b);
    const size_t own0 = b->halo_lo, own1 = own0 + (b->end - b->begin);
    size_t ib, ie;
    interior(p, b, &ib, &ie);
    double t0 = clm_now();
    clconv_status st = post_all(comm, p, b, in, x);
    t->post_s = clm_now() - t0;
    if (st != CLCONV_OK) /* peers would wait for these messages */
        return st;
    clconv_status computed = rows_of(s, &local, in, mask, out, ib, ie,
                                     &t->interior_s);
    t0 = clm_now();
    int err = MPI_Waitall(x->nreq, x->req, MPI_STATUSES_IGNORE);
    t->wait_s = clm_now() - t0;
    if (err != MPI_SUCCESS)
        return clm_mpi_fail("MPI_Waitall", err, __FILE__, __LINE__);
    if (computed != CLCONV_OK)
        return computed;
    st = rows_of(s, &local, in, mask, out, own0, ib, &t->border_s);
    if (st == CLCONV_OK)
        st = rows_of(s, &local, in, mask, out, ie, own1, &t->border_s);
    return st;
}

clconv_status clconv_mpi_convolve(MPI_Comm comm, clconv_session *s,
                                  const clconv_problem *p,
                                  const clconv_mpi_block *b, float *in,
                                  const float *mask, float *out,
                                  clconv_mpi_times *times)
{
    clconv_mpi_times dummy;
    clconv_mpi_times *t = times ? times : &dummy;
    *t = (clconv_mpi_times){0};
    double t0 = clm_now();
    if (!s || !p || !b || !in || !mask || !out)
        return clconv_mpi_fail(CLCONV_EINVAL,
                               "no session, problem, block or array");
    if (b->row > INT_MAX)
        return clconv_mpi_fail(CLCONV_EUNSUPPORTED,
                               "rows of %zu elements are more than one MPI "
                               "datatype holds",
                               b->row);
    exchange x = {MPI_DATATYPE_NULL, NULL, 0, 0};
    clconv_status st = CLCONV_OK;
    x.req = malloc(2 * (size_t)b->nranks * sizeof *x.req);
    if (!x.req)
        return clconv_mpi_fail(CLCONV_ENOMEM, "out of memory");
    CLM_CHECK_GOTO(MPI_Type_contiguous((int)b->row, MPI_FLOAT, &x.rowtype));
    CLM_CHECK_GOTO(MPI_Type_commit(&x.rowtype));
    st = overlap(comm, s, p, b, in, mask, out, &x, t);
    t->halo_rows = x.received;
out:
    if (x.rowtype != MPI_DATATYPE_NULL)
        MPI_Type_free(&x.rowtype);
    free(x.req);
    t->total_s = clm_now() - t0;
    return st;
}

clconv_status clconv_mpi_convolve_local(clconv_session *s,
                                        const clconv_problem *p,
                                        const clconv_mpi_block *b,
                                        const float *in, const float *mask,
                                        float *out, clconv_mpi_times *times)
{
    clconv_mpi_times dummy;
    clconv_mpi_times *t = times ? times : &dummy;
    *t = (clconv_mpi_times){0};
    if (!s || !p || !b || !in || !mask || !out)
        return clconv_mpi_fail(CLCONV_EINVAL,
                               "no session, problem, block or array");
    clconv_problem local = *p;
    local.size[b->axis] = clconv_mpi_local_rows(b);
    const size_t own0 = b->halo_lo, own1 = own0 + (b->end - b->begin);
    clconv_status st = rows_of(s, &local, in, mask, out, own0, own1,
                               &t->interior_s);
    t->total_s = t->interior_s;
    return st;
}
