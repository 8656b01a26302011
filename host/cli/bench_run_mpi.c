/* One case of `clconv bench --mpi`: the problem's slabs on every rank,
 * halos exchanged while the interior is computed, timed after warm-up;
 * the same problem (strong) or one rank's share (weak) on rank 0 alone
 * for the efficiency; and optionally the end-to-end time through .npy
 * files (read block and halo, compute, write, commit). The output is
 * checked against the one-rank output through an order-independent hash
 * of its rows (the input rows are seeded by their global index, so every
 * decomposition sees the same data). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_mpi.h"

typedef struct arrays {
    clconv_mpi_block b;
    float *in, *out;
} arrays;

static void arrays_free(arrays *a)
{
    free(a->in);
    free(a->out);
    a->in = a->out = NULL;
}

/* The block of p on comm, its rows filled from their global seeds. */
static clconv_status arrays_make(MPI_Comm comm, const clconv_problem *p,
                                 uint64_t seed, arrays *a)
{
    clconv_status st = clconv_mpi_decompose(comm, p, &a->b);
    if (st != CLCONV_OK)
        return st;
    const size_t n = clconv_mpi_local_elements(&a->b);
    a->in = calloc(n ? n : 1, sizeof(float));
    a->out = calloc(n ? n : 1, sizeof(float));
    if (!a->in || !a->out)
        return clconv_mpi_fail(CLCONV_ENOMEM, "out of memory for 2 x %zu "
                               "floats", n);
    const clconv_mpi_block *b = &a->b;
    const long long first = (long long)b->begin, last = (long long)b->end;
#pragma omp parallel for schedule(static)
    for (long long r = first; r < last; ++r)
        clconv_fill_random(a->in + (b->halo_lo + (size_t)(r - first)) * b->row,
                           b->row, seed + (uint64_t)r);
    return CLCONV_OK;
}

/* Sum over the block's rows of FNV-1a(row) x (2 r + 1): any split of the
 * same output gives the same sum. */
static unsigned long long hash_rows(const arrays *a)
{
    const clconv_mpi_block *b = &a->b;
    const long long first = (long long)b->begin, last = (long long)b->end;
    unsigned long long sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (long long r = first; r < last; ++r) {
        const unsigned char *p = (const unsigned char *)(
            a->out + (b->halo_lo + (size_t)(r - first)) * b->row);
        unsigned long long h = 1469598103934665603ull;
        for (size_t k = 0; k < b->row * sizeof(float); ++k)
            h = (h ^ p[k]) * 1099511628211ull;
        sum += h * (2 * (unsigned long long)r + 1);
    }
    return sum;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* warmup + reps calls on comm, each agreed; *job_s the median over reps
 * of the slowest rank's time, *t this rank's times in that rep. */
static clconv_status time_convolve(MPI_Comm comm, clconv_session *s,
                                   const clconv_problem *p, arrays *a,
                                   const float *mask, int warmup, int reps,
                                   double *job_s, clconv_mpi_times *t)
{
    double *job = calloc((size_t)reps, sizeof *job);
    clconv_mpi_times *ts = calloc((size_t)reps, sizeof *ts);
    clconv_status st = job && ts ? CLCONV_OK
                                 : clconv_mpi_fail(CLCONV_ENOMEM, "no memory");
    for (int i = 0; st == CLCONV_OK && i < warmup + reps; ++i) {
        clconv_mpi_times ti;
        CLI_MPI_CHECK(comm, MPI_Barrier(comm));
        st = clconv_mpi_convolve(comm, s, p, &a->b, a->in, mask, a->out, &ti);
        cli_mpi_end_if_broken(comm, NULL);
        double mine = ti.total_s, worst = 0;
        if ((st = clconv_mpi_agree(comm, st)) != CLCONV_OK)
            break;
        CLI_MPI_CHECK(comm, MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE,
                                          MPI_MAX, comm));
        if (i >= warmup) {
            job[i - warmup] = worst;
            ts[i - warmup] = ti;
        }
    }
    if (st == CLCONV_OK) {
        double *sorted = malloc((size_t)reps * sizeof *sorted);
        if (!sorted)
            st = clconv_mpi_fail(CLCONV_ENOMEM, "no memory");
        else {
            memcpy(sorted, job, (size_t)reps * sizeof *sorted);
            qsort(sorted, (size_t)reps, sizeof *sorted, by_value);
            *job_s = sorted[reps / 2];
            for (int i = 0; i < reps; ++i)
                if (job[i] == *job_s)
                    *t = ts[i];
            free(sorted);
        }
    }
    free(job);
    free(ts);
    return st;
}

/* A barrier the ranks wait at without spinning, so that rank 0 alone has
 * the cores (oversubscribed CPUs). */
static void idle_barrier(MPI_Comm comm)
{
    MPI_Request r;
    int done = 0;
    CLI_MPI_CHECK(comm, MPI_Ibarrier(comm, &r));
    while (!done) {
        CLI_MPI_CHECK(comm, MPI_Test(&r, &done, MPI_STATUS_IGNORE));
        if (!done)
            usleep(1000);
    }
}

/* Rank 0 alone on p1: *t1_s and the output's hash, agreed on comm. */
static clconv_status baseline(MPI_Comm comm, const bench_mpi_options *o,
                              clconv_session *s, const clconv_problem *p1,
                              const float *mask, double *t1_s,
                              unsigned long long *hash)
{
    int rank;
    CLI_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
    clconv_status st = CLCONV_OK;
    double v[2] = {0, 0};
    if (rank == 0) {
        arrays a = {0};
        clconv_mpi_times t;
        st = arrays_make(MPI_COMM_SELF, p1, o->seed, &a);
        if (st == CLCONV_OK)
            st = time_convolve(MPI_COMM_SELF, s, p1, &a, mask, o->warmup,
                               o->reps, &v[0], &t);
        *hash = st == CLCONV_OK ? hash_rows(&a) : 0;
        arrays_free(&a);
    }
    idle_barrier(comm);
    if ((st = clconv_mpi_agree(comm, st)) != CLCONV_OK)
        return st;
    CLI_MPI_CHECK(comm, MPI_Bcast(v, 1, MPI_DOUBLE, 0, comm));
    CLI_MPI_CHECK(comm, MPI_Bcast(hash, 1, MPI_UNSIGNED_LONG_LONG, 0, comm));
    *t1_s = v[0];
    return CLCONV_OK;
}

/* Write a's input rows as a .npy at path (collective). */
static clconv_status write_npy(MPI_Comm comm, const char *path,
                               const clconv_problem *p, const arrays *a,
                               const float *local)
{
    const size_t shape[3] = {p->size[2], p->size[1], p->size[0]};
    const clconv_mpi_block *b = &a->b;
    clconv_mpi_npy_out w;
    clconv_status st = clconv_mpi_npy_create(comm, path, 3, shape,
                                             CLCONV_ELEM_F32, &w);
    if (st != CLCONV_OK)
        return st;
    st = clconv_mpi_npy_write_rows(&w, b->row, b->begin, b->end - b->begin,
                                   local + b->halo_lo * b->row);
    return clconv_mpi_npy_commit(comm, &w, st);
}

/* End to end: open IN, read block and halo, compute, write OUT (timed
 * per rank; *e2e_s the slowest rank's). */
static clconv_status end_to_end(MPI_Comm comm, clconv_session *s,
                                const clconv_problem *p, arrays *a,
                                const float *mask, const char *in,
                                const char *out, bench_mpi_rank *r,
                                double *e2e_s)
{
    clconv_mpi_npy_in f;
    const clconv_mpi_block *b = &a->b;
    CLI_MPI_CHECK(comm, MPI_Barrier(comm));
    double t0 = MPI_Wtime();
    clconv_status st = clconv_mpi_npy_open(comm, in, &f);
    if (st != CLCONV_OK)
        return st;
    st = clconv_mpi_npy_read_block(&f, p, b, a->in);
    clconv_mpi_npy_close(&f);
    double t1 = MPI_Wtime();
    if (st == CLCONV_OK)
        st = clconv_mpi_convolve_local(s, p, b, a->in, mask, a->out, NULL);
    if ((st = clconv_mpi_agree(comm, st)) != CLCONV_OK)
        return st;
    double t2 = MPI_Wtime();
    st = write_npy(comm, out, p, a, a->out);
    double t3 = MPI_Wtime(), mine = t3 - t0;
    r->io_read_ms = (t1 - t0) * 1e3;
    r->io_write_ms = (t3 - t2) * 1e3;
    r->io_total_ms = mine * 1e3;
    CLI_MPI_CHECK(comm,
                  MPI_Allreduce(&mine, e2e_s, 1, MPI_DOUBLE, MPI_MAX, comm));
    return st;
}

/* --io DIR: write the input, then time end_to_end; remove both files. */
static clconv_status io_case(MPI_Comm comm, const bench_mpi_options *o,
                             clconv_session *s, const clconv_problem *p,
                             arrays *a, const float *mask, bench_mpi_rank *r,
                             double *e2e_s)
{
    char in[4096], out[4096];
    snprintf(in, sizeof in, "%s/clconv-bench-mpi-in.npy", o->io_dir);
    snprintf(out, sizeof out, "%s/clconv-bench-mpi-out.npy", o->io_dir);
    clconv_status st = write_npy(comm, in, p, a, a->in);
    if (st == CLCONV_OK)
        st = end_to_end(comm, s, p, a, mask, in, out, r, e2e_s);
    int rank;
    CLI_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
    if (rank == 0) {
        unlink(in);
        unlink(out);
    }
    return st;
}

static void rank_row(const clconv_mpi_block *b, const clconv_mpi_times *t,
                     const clconv_device_info *dev, bench_mpi_rank *r)
{
    memset(r, 0, sizeof *r);
    r->rows = (double)(b->end - b->begin);
    r->halo_rows = (double)t->halo_rows;
    r->interior_ms = t->interior_s * 1e3;
    r->border_ms = t->border_s * 1e3;
    r->post_ms = t->post_s * 1e3;
    r->wait_ms = t->wait_s * 1e3;
    r->total_ms = t->total_s * 1e3;
    snprintf(r->device, sizeof r->device, "%u:%u %.160s", dev->platform_index,
             dev->device_index, dev->name);
}

/* The N-rank run: timing, hash, I/O, every rank's row gathered. */
static clconv_status on_all(MPI_Comm comm, const bench_mpi_options *o,
                            cli_mpi_device *dev, const float *mask,
                            bench_mpi_case *c, unsigned long long *hash)
{
    arrays a = {0};
    clconv_mpi_times t;
    bench_mpi_rank r;
    double job = 0, e2e = 0;
    clconv_status st = clconv_mpi_agree(comm, arrays_make(comm, &c->p,
                                                          o->seed, &a));
    if (st == CLCONV_OK)
        st = time_convolve(comm, dev->session, &c->p, &a, mask, o->warmup,
                           o->reps, &job, &t);
    if (st == CLCONV_OK) {
        unsigned long long mine = hash_rows(&a);
        CLI_MPI_CHECK(comm, MPI_Allreduce(&mine, hash, 1,
                                          MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                                          comm));
        rank_row(&a.b, &t, cli_mpi_device_info(dev), &r);
        c->job_ms = job * 1e3;
    }
    if (st == CLCONV_OK && o->io_dir) {
        st = io_case(comm, o, dev->session, &c->p, &a, mask, &r, &e2e);
        c->end_to_end_ms = e2e * 1e3;
    }
    arrays_free(&a);
    if (st != CLCONV_OK)
        return st;
    if (a.b.rank == 0 && !(c->rank = calloc((size_t)c->ranks, sizeof r))) {
        cli_error("out of memory for %d ranks' rows", c->ranks);
        MPI_Abort(comm, CLI_EXIT_UNSUPPORTED); /* the others gather */
    }
    CLI_MPI_CHECK(comm, MPI_Gather(&r, (int)sizeof r, MPI_BYTE, c->rank,
                                   (int)sizeof r, MPI_BYTE, 0, comm));
    return CLCONV_OK;
}

int bench_mpi_measure(MPI_Comm comm, const bench_mpi_options *o,
                      cli_mpi_device *dev, bench_mpi_case *c)
{
    CLI_MPI_CHECK(comm, MPI_Comm_size(comm, &c->ranks));
    c->identical = -1;
    c->rank = NULL;
    const size_t nm = clconv_problem_mask_elements(&c->p);
    float *mask = malloc(nm * sizeof *mask);
    clconv_status st = mask ? cli_mpi_choose(cli_mpi_device_info(dev),
                                             o->strategy, o->tile, &c->p)
                            : clconv_mpi_fail(CLCONV_ENOMEM, "no memory");
    int code = cli_mpi_step(comm, st, 0);
    unsigned long long h1 = 0, hn = 0;
    double t1 = 0;
    if (code == CLI_EXIT_OK) {
        clconv_fill_random(mask, nm, o->seed ^ 0x9e3779b97f4a7c15ull);
        clconv_problem p1 = c->p;
        if (c->weak)
            p1.size[2] /= (size_t)c->ranks;
        if (o->baseline && c->ranks > 1)
            st = baseline(comm, o, dev->session, &p1, mask, &t1, &h1);
        if (st == CLCONV_OK)
            st = on_all(comm, o, dev, mask, c, &hn);
        code = cli_mpi_step(comm, st, 0);
    }
    if (code == CLI_EXIT_OK) {
        if (c->ranks == 1)
            t1 = c->job_ms / 1e3;
        else if (!c->weak && t1 > 0)
            c->identical = hn == h1;
        c->t1_ms = t1 * 1e3;
        c->efficiency = t1 <= 0 ? 0
                        : c->weak ? t1 * 1e3 / c->job_ms
                                  : t1 * 1e3 / (c->ranks * c->job_ms);
    }
    free(mask);
    return code;
}
