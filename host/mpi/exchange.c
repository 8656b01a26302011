/* clconv_mpi_convolve: fill the halo rows a block holds itself (cval, or
 * its own rows where the border mode folds back into it), plan the
 * receives of the others and the sends of its rows that others' halos
 * hold and agree that every rank could (nothing posted yet, so a rank
 * that cannot take part leaves no peer waiting), post them, compute the rows that need no received halo while the halos
 * travel, wait, compute the rest. A message is a run of rows of one owner
 * whose sources rise by one (halo.c): an inner halo is one message per
 * owner, so a halo wider than a neighbour's block comes from several
 * ranks; wrap's come from the far end's ranks, and reflected rows one
 * by one. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

/* One message: n rows at local row `at` of the local array, from or to
 * peer. */
typedef struct message {
    size_t at, n;
    int peer;
} message;

/* The exchange, planned before anything is posted: every message this
 * rank receives and sends, and room for their requests. Messages travel
 * as whole rows: one MPI datatype of `row` floats. */
typedef struct exchange {
    MPI_Datatype rowtype;
    message *msg; /* the receives [0, nrecv), then the sends */
    size_t nmsg, nrecv, cap;
    MPI_Request *req;
    int nreq;
    size_t received; /* rows */
    int recv_lo, recv_hi; /* halo rows before/after the block come from
                             other ranks */
} exchange;

/* Plan one receive or send of n rows at local row `at`. */
static clconv_status plan_message(exchange *x, size_t at, size_t n, int peer)
{
    if (n > INT_MAX)
        return clconv_mpi_fail(CLCONV_EUNSUPPORTED,
                               "%zu halo rows in one message (MPI counts are "
                               "int)",
                               n);
    if (x->nmsg == (size_t)INT_MAX)
        return clconv_mpi_fail(CLCONV_EUNSUPPORTED,
                               "more halo messages than MPI_Waitall counts "
                               "(int)");
    if (x->nmsg == x->cap) {
        const size_t cap = x->cap ? 2 * x->cap : 16;
        message *m = realloc(x->msg, cap * sizeof *m);
        if (!m)
            return clconv_mpi_fail(CLCONV_ENOMEM, "out of memory");
        x->msg = m;
        x->cap = cap;
    }
    x->msg[x->nmsg++] = (message){at, n, peer};
    return CLCONV_OK;
}

/* The runs of q's halo rows (before, then after its block), by owner:
 * *n of them in a malloc'd array (NULL with *n 0 when there are none). */
static clconv_status halo_runs_of(const clconv_problem *p,
                                  const clconv_mpi_block *q, clm_run **runs,
                                  size_t *n)
{
    const size_t own1 = q->halo_lo + (q->end - q->begin);
    const size_t lo = clm_runs(p, q, 0, q->halo_lo, 1, NULL, 0);
    const size_t hi = clm_runs(p, q, own1, own1 + q->halo_hi, 1, NULL, 0);
    *runs = NULL;
    *n = lo + hi;
    if (*n == 0)
        return CLCONV_OK;
    if (!(*runs = malloc(*n * sizeof **runs)))
        return clconv_mpi_fail(CLCONV_ENOMEM, "out of memory");
    clm_runs(p, q, 0, q->halo_lo, 1, *runs, lo);
    clm_runs(p, q, own1, own1 + q->halo_hi, 1, *runs + lo, hi);
    return CLCONV_OK;
}

/* This block's halo rows: cval and rows of its own filled here, the
 * others' receives planned. */
static clconv_status fill_and_plan_receives(const clconv_problem *p,
                                            const clconv_mpi_block *b,
                                            float *in, exchange *x)
{
    clm_run *runs = NULL;
    size_t n = 0;
    clconv_status st = halo_runs_of(p, b, &runs, &n);
    for (size_t k = 0; k < n && st == CLCONV_OK; ++k) {
        const clm_run *r = &runs[k];
        float *at = in + r->local * b->row;
        if (r->owner < 0) {
            clm_fill_cval(at, r->n, b->row, p->cval);
        } else if (r->owner == b->rank) {
            memcpy(at, in + clm_local_row(b, (size_t)r->src) * b->row,
                   r->n * b->row * sizeof *at);
        } else {
            st = plan_message(x, r->local, r->n, r->owner);
            *(r->local < b->halo_lo ? &x->recv_lo : &x->recv_hi) = 1;
            x->received += r->n;
        }
    }
    x->nrecv = x->nmsg;
    free(runs);
    return st;
}

/* The sends: each other rank's rows of this block its halos hold, in the
 * order it posts their receives (MPI keeps one pair's messages in
 * order). */
static clconv_status plan_sends(const clconv_problem *p,
                                const clconv_mpi_block *b, exchange *x)
{
    clconv_status st = CLCONV_OK;
    for (int q = 0; q < b->nranks && st == CLCONV_OK; ++q) {
        if (q == b->rank)
            continue;
        clconv_mpi_block qb;
        clm_block_of(p, b->nranks, q, &qb);
        clm_run *runs = NULL;
        size_t n = 0;
        st = halo_runs_of(p, &qb, &runs, &n);
        for (size_t k = 0; k < n && st == CLCONV_OK; ++k)
            if (runs[k].owner == b->rank)
                st = plan_message(x,
                                  clm_local_row(b, (size_t)runs[k].src),
                                  runs[k].n, q);
        free(runs);
    }
    return st;
}

/* Everything that can fail on one rank alone, before anything is posted
 * (a rank that failed after its peers posted would leave them waiting
 * for its messages): the arguments, the messages, their requests and
 * their datatype. */
static clconv_status plan(const clconv_session *s, const clconv_problem *p,
                          const clconv_mpi_block *b, float *in,
                          const float *mask, const float *out, exchange *x)
{
    if (!s || !p || !b || !in || !mask || !out)
        return clconv_mpi_fail(CLCONV_EINVAL,
                               "no session, problem, block or array given "
                               "(NULL)");
    if (b->row > INT_MAX)
        return clconv_mpi_fail(CLCONV_EUNSUPPORTED,
                               "rows of %zu elements are more than one MPI "
                               "datatype holds",
                               b->row);
    clconv_status st = fill_and_plan_receives(p, b, in, x);
    if (st == CLCONV_OK)
        st = plan_sends(p, b, x);
    if (st == CLCONV_OK && x->nmsg &&
        !(x->req = malloc(x->nmsg * sizeof *x->req)))
        st = clconv_mpi_fail(CLCONV_ENOMEM, "out of memory");
    if (st != CLCONV_OK)
        return st;
    CLM_CHECK(MPI_Type_contiguous((int)b->row, MPI_FLOAT, &x->rowtype));
    CLM_CHECK(MPI_Type_commit(&x->rowtype));
    return CLCONV_OK;
}

/* Post the planned receives, then the sends. A failed MPI call leaves
 * the exchange broken (peers wait for this rank's messages): CLCONV_EIO,
 * the call named. */
static clconv_status post(MPI_Comm comm, float *in, size_t row, exchange *x)
{
    for (size_t k = 0; k < x->nmsg; ++k) {
        const message *m = &x->msg[k];
        float *at = in + m->at * row;
        MPI_Request *r = &x->req[x->nreq];
        if (k < x->nrecv)
            CLM_CHECK(MPI_Irecv(at, (int)m->n, x->rowtype, m->peer, 19, comm,
                                r));
        else
            CLM_CHECK(MPI_Isend(at, (int)m->n, x->rowtype, m->peer, 19, comm,
                                r));
        ++x->nreq;
    }
    return CLCONV_OK;
}

/* Output rows [r0, r1) of the local problem, computed as one launch over
 * the global problem computes them (clconv_convolve_part). */
static clconv_status rows_of(clconv_session *s, const clconv_problem *local,
                             const clconv_mpi_block *b, const float *in,
                             const float *mask, float *out, size_t r0,
                             size_t r1, double *seconds)
{
    if (r0 >= r1)
        return CLCONV_OK;
    const clconv_part part = {(long long)b->begin - (long long)b->halo_lo,
                              b->rows};
    double t0 = clm_now();
    clconv_status st = clconv_convolve_part(s, local, &part, in, mask, out,
                                            r0, r1, NULL);
    *seconds += clm_now() - t0;
    return st == CLCONV_OK
               ? CLCONV_OK
               : clm_lib_fail(st, clconv_session_device(s)->name);
}

/* The local rows that need no received halo row: [*ib, *ie) within the
 * block's rows [own0, own1). */
static void interior(const clconv_problem *p, const clconv_mpi_block *b,
                     const exchange *x, size_t *ib, size_t *ie)
{
    size_t before, after;
    clm_halo(p, &before, &after);
    const size_t own0 = b->halo_lo, own1 = own0 + (b->end - b->begin);
    *ib = x->recv_lo ? min_sz(own0 + before, own1) : own0;
    *ie = x->recv_hi ? (own1 >= *ib + after ? own1 - after : *ib) : own1;
}

static clconv_status overlap(MPI_Comm comm, clconv_session *s,
                             const clconv_problem *p, const clconv_mpi_block *b,
                             float *in, const float *mask, float *out,
                             exchange *x, clconv_mpi_times *t)
{
    clconv_problem local = *p;
    local.size[b->axis] = clconv_mpi_local_rows(b);
    const size_t own0 = b->halo_lo, own1 = own0 + (b->end - b->begin);
    double t0 = clm_now();
    clconv_status st = post(comm, in, b->row, x);
    t->post_s = clm_now() - t0;
    if (st != CLCONV_OK) /* peers wait for the messages not posted */
        return st;
    size_t ib, ie;
    interior(p, b, x, &ib, &ie);
    clconv_status computed = rows_of(s, &local, b, in, mask, out, ib, ie,
                                     &t->interior_s);
    t0 = clm_now();
    int err = MPI_Waitall(x->nreq, x->req, MPI_STATUSES_IGNORE);
    t->wait_s = clm_now() - t0;
    if (err != MPI_SUCCESS)
        return clm_mpi_fail("MPI_Waitall", err, __FILE__, __LINE__);
    if (computed != CLCONV_OK)
        return computed;
    st = rows_of(s, &local, b, in, mask, out, own0, ib, &t->border_s);
    if (st == CLCONV_OK)
        st = rows_of(s, &local, b, in, mask, out, ie, own1, &t->border_s);
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
    exchange x;
    memset(&x, 0, sizeof x);
    x.rowtype = MPI_DATATYPE_NULL;
    /* agreed: a rank that cannot take part fails on every rank, nothing
     * posted */
    clconv_status st = clconv_mpi_agree(comm,
                                        plan(s, p, b, in, mask, out, &x));
    if (st == CLCONV_OK) {
        st = overlap(comm, s, p, b, in, mask, out, &x, t);
        t->halo_rows = x.received;
    }
    if (x.rowtype != MPI_DATATYPE_NULL) {
        const int freed = MPI_Type_free(&x.rowtype);
        if (st == CLCONV_OK)
            st = clconv_mpi_check(freed, "MPI_Type_free", __FILE__, __LINE__);
    }
    free(x.msg);
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
    clconv_status st = rows_of(s, &local, b, in, mask, out, own0, own1,
                               &t->interior_s);
    t->total_s = t->interior_s;
    return st;
}
