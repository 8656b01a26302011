/* libclconv_mpi given NULL (clconv_mpi.h's rule): each local call returns
 * CLCONV_EINVAL, 0 or -1, or does nothing; a collective call given NULL
 * (or an unknown element type) on one rank only fails on every rank, or
 * on that rank alone where it exchanges nothing after, and no rank waits
 * for another. Run under mpirun by test/mpi.sh (2 ranks; the collective
 * cases skip on one). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "clconv_mpi.h"

static int rank, nranks;
/* A folder every rank sees (rank 0 makes it) and a small .npy in it. */
static char dir[256], in_path[300];

static clconv_problem problem_2d(void)
{
    clconv_problem p;
    memset(&p, 0, sizeof p);
    p.dims = 2;
    p.size[0] = 5;
    p.size[1] = 4;
    p.size[2] = 1;
    p.mask_width = 3;
    return p;
}

static void assert_einval(clconv_status st, const char *what)
{
    if (st != CLCONV_EINVAL || !strstr(clconv_mpi_last_error(), "NULL"))
        fail_msg("%s: status %d, '%s' (expected CLCONV_EINVAL naming the "
                 "NULL)",
                 what, (int)st, clconv_mpi_last_error());
}

static void local_calls_given_null_return_safe_values(void **state)
{
    (void)state;
    const clconv_problem p = problem_2d();
    clconv_mpi_block b;
    assert_int_equal(clconv_mpi_decompose(MPI_COMM_WORLD, &p, &b), CLCONV_OK);
    assert_int_equal(clconv_mpi_local_rows(NULL), 0);
    assert_int_equal(clconv_mpi_local_elements(NULL), 0);
    assert_int_equal(clconv_mpi_source_row(NULL, &b, 0), -1);
    assert_int_equal(clconv_mpi_source_row(&p, NULL, 0), -1);
    size_t begin = 77, end = 77;
    clconv_mpi_block_range(10, 2, 1, NULL, &end);
    clconv_mpi_block_range(10, 2, 1, &begin, NULL);
    assert_int_equal(begin, 77);
    assert_int_equal(end, 77);
    /* no ranks (it divided by 0), a rank past them or before */
    const int bad[][2] = {{0, 0}, {-2, 0}, {2, 2}, {2, -1}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k) {
        begin = end = 77;
        clconv_mpi_block_range(10, bad[k][0], bad[k][1], &begin, &end);
        assert_int_equal(begin, 0);
        assert_int_equal(end, 0);
    }
    assert_int_equal(clconv_mpi_fail(CLCONV_EIO, NULL), CLCONV_EIO);
    assert_non_null(strstr(clconv_mpi_last_error(), "NULL"));
    /* decompose exchanges nothing: the rank given NULL says so */
    assert_einval(clconv_mpi_decompose(MPI_COMM_WORLD, &p, NULL),
                  "decompose, no block");
    assert_einval(clconv_mpi_decompose(MPI_COMM_WORLD, NULL, &b),
                  "decompose, no problem");

    float buf[64] = {0}, mask[9] = {0};
    clconv_mpi_npy_in f;
    memset(&f, 0, sizeof f);
    f.fd = -1;
    assert_einval(clconv_mpi_npy_read_rows(NULL, 5, 0, 1, buf),
                  "read_rows, no file");
    assert_einval(clconv_mpi_npy_read_rows(&f, 5, 0, 1, NULL),
                  "read_rows, no destination");
    assert_einval(clconv_mpi_npy_read_block(NULL, &p, &b, buf),
                  "read_block, no file");
    assert_einval(clconv_mpi_npy_read_block(&f, NULL, &b, buf),
                  "read_block, no problem");
    assert_einval(clconv_mpi_npy_read_block(&f, &p, NULL, buf),
                  "read_block, no block");
    assert_einval(clconv_mpi_npy_read_block(&f, &p, &b, NULL),
                  "read_block, no destination");
    clconv_mpi_npy_out o;
    memset(&o, 0, sizeof o);
    o.fd = -1;
    o.temp_handle = -1;
    assert_einval(clconv_mpi_npy_write_rows(NULL, 5, 0, 1, buf),
                  "write_rows, no file");
    assert_einval(clconv_mpi_npy_write_rows(&o, 5, 0, 1, NULL),
                  "write_rows, no source");
    assert_int_equal(clconv_mpi_convolve_local(NULL, &p, &b, buf, mask, buf,
                                               NULL),
                     CLCONV_EINVAL);
    clconv_mpi_npy_close(NULL);
    clconv_mpi_npy_discard(NULL);
}

/* Every rank's status and message after a collective call given a bad
 * argument on rank 1 alone: CLCONV_EINVAL naming rank 1 and the reason
 * (NULL unless said). */
static void assert_agreed_on_rank_1_why(clconv_status st, const char *what,
                                        const char *why)
{
    if (st != CLCONV_EINVAL ||
        !strstr(clconv_mpi_last_error(), "rank 1 ") ||
        !strstr(clconv_mpi_last_error(), why))
        fail_msg("%s, rank %d: status %d, '%s' (expected CLCONV_EINVAL "
                 "from rank 1, '%s')",
                 what, rank, (int)st, clconv_mpi_last_error(), why);
}

static void assert_agreed_on_rank_1(clconv_status st, const char *what)
{
    assert_agreed_on_rank_1_why(st, what, "NULL");
}

/* Rank 0: the folder holds the input alone (no output, no temporary). */
static void assert_nothing_written(const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        return;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            strcmp(e->d_name, "in.npy"))
            fail_msg("%s: %s/%s was left", what, dir, e->d_name);
    closedir(d);
}

static void collective_calls_given_null_on_one_rank_fail_on_every_rank(
    void **state)
{
    (void)state;
    if (nranks < 2)
        skip();
    const int one = rank == 1;
    char out_path[300];
    snprintf(out_path, sizeof out_path, "%s/out.npy", dir);
    const size_t shape[3] = {4, 5, 1};

    clconv_mpi_npy_in f;
    assert_agreed_on_rank_1(
        clconv_mpi_npy_open(MPI_COMM_WORLD, one ? NULL : in_path, &f),
        "npy_open, no path");
    assert_agreed_on_rank_1(
        clconv_mpi_npy_open(MPI_COMM_WORLD, in_path, one ? NULL : &f),
        "npy_open, no file");
    assert_int_equal(clconv_mpi_npy_open(MPI_COMM_WORLD, in_path, &f),
                     CLCONV_OK);
    clconv_mpi_npy_close(&f);

    clconv_mpi_npy_out o;
    assert_agreed_on_rank_1(
        clconv_mpi_npy_create(MPI_COMM_WORLD, one ? NULL : out_path, 2,
                              shape, CLCONV_ELEM_F32, &o),
        "npy_create, no path");
    assert_agreed_on_rank_1(
        clconv_mpi_npy_create(MPI_COMM_WORLD, out_path, 2, one ? NULL : shape,
                              CLCONV_ELEM_F32, &o),
        "npy_create, no shape");
    assert_agreed_on_rank_1(
        clconv_mpi_npy_create(MPI_COMM_WORLD, out_path, 2, shape,
                              CLCONV_ELEM_F32, one ? NULL : &o),
        "npy_create, no file");
    /* an element type only rank 1 does not know: agreed too (that rank
     * returned at once, and the others waited for it) */
    assert_agreed_on_rank_1_why(
        clconv_mpi_npy_create(MPI_COMM_WORLD, out_path, 2, shape,
                              one ? CLCONV_ELEM_COUNT : CLCONV_ELEM_F32, &o),
        "npy_create, unknown element type", "unknown element type");
    assert_nothing_written("npy_create given NULL on rank 1");
    /* made on every rank, committed with NULL on rank 1: nothing renamed;
     * rank 1's own temporary handle is its to discard */
    assert_int_equal(clconv_mpi_npy_create(MPI_COMM_WORLD, out_path, 2, shape,
                                           CLCONV_ELEM_F32, &o),
                     CLCONV_OK);
    assert_agreed_on_rank_1(
        clconv_mpi_npy_commit(MPI_COMM_WORLD, one ? NULL : &o, CLCONV_OK),
        "npy_commit, no file");
    if (one)
        clconv_mpi_npy_discard(&o);
    assert_nothing_written("npy_commit given NULL on rank 1");

    /* select_device: every rank splits the communicator; the rank given
     * NULL alone fails (no device on the others' empty list) */
    clconv_device_list none = {NULL, 0};
    size_t index = 0;
    clconv_status st = clconv_mpi_select_device(MPI_COMM_WORLD,
                                                one ? NULL : &none, NULL,
                                                &index);
    if (one)
        assert_einval(st, "select_device, no list");
    else
        assert_int_equal(st, CLCONV_ENOPLATFORM);
    st = clconv_mpi_select_device(MPI_COMM_WORLD, &none, NULL,
                                  one ? NULL : &index);
    if (one)
        assert_einval(st, "select_device, no index");
    else
        assert_int_equal(st, CLCONV_ENOPLATFORM);
}

/* clconv_mpi_convolve and clconv_mpi_same_mask given NULL on rank 1
 * alone: agreed, every rank returns rank 1's CLCONV_EINVAL and nothing
 * is posted (rank 0 once posted its halos and waited for rank 1's
 * forever); a mask that differs on rank 1 alone is rank 1's failure
 * too; the next exchange then runs. */
static void exchange_given_null_on_one_rank_fails_on_every_rank(void **state)
{
    (void)state;
    if (nranks < 2)
        skip();
    const int one = rank == 1;
    clconv_device_list list = {NULL, 0};
    clconv_session *s = NULL;
    int bad = clconv_devices_discover(&list) != CLCONV_OK ||
              list.count == 0 ||
              clconv_session_create(&list.devices[0], &s) != CLCONV_OK;
    int any = bad;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        clconv_session_destroy(s);
        clconv_devices_free(&list);
        skip();
    }
    clconv_problem p = problem_2d();
    p.tile = clconv_default_tile_for(&list.devices[0], &p);
    clconv_mpi_block b;
    assert_int_equal(clconv_mpi_decompose(MPI_COMM_WORLD, &p, &b), CLCONV_OK);
    float in[64] = {0}, out[64] = {0}, mask[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
    assert_true(clconv_mpi_local_elements(&b) <= 64);
    assert_agreed_on_rank_1(clconv_mpi_convolve(MPI_COMM_WORLD, s, &p, &b,
                                                 one ? NULL : in, mask, out,
                                                 NULL),
                            "convolve, no input");
    assert_agreed_on_rank_1(clconv_mpi_convolve(MPI_COMM_WORLD,
                                                one ? NULL : s, &p, &b, in,
                                                mask, out, NULL),
                            "convolve, no session");
    assert_agreed_on_rank_1(clconv_mpi_convolve(MPI_COMM_WORLD, s, &p,
                                                one ? NULL : &b, in, mask,
                                                out, NULL),
                            "convolve, no block");
    /* every rank's exchange after those: one process's identity */
    for (size_t i = 0; i < 64; ++i)
        in[i] = (float)i;
    assert_int_equal(clconv_mpi_convolve(MPI_COMM_WORLD, s, &p, &b, in, mask,
                                         out, NULL),
                     CLCONV_OK);
    for (size_t i = b.halo_lo * b.row; i < (b.halo_lo + b.end - b.begin) * b.row;
         ++i)
        assert_true(out[i] == in[i]);

    clconv_mask m;
    assert_int_equal(clconv_mask_load("box:3", 2, &m), CLCONV_OK);
    assert_agreed_on_rank_1(
        clconv_mpi_same_mask(MPI_COMM_WORLD, one ? NULL : &m, "box:3"),
        "same_mask, no mask");
    assert_int_equal(clconv_mpi_same_mask(MPI_COMM_WORLD, &m, "box:3"),
                     CLCONV_OK);
    if (one)
        m.values[4] = 0.5f;
    assert_agreed_on_rank_1_why(
        clconv_mpi_same_mask(MPI_COMM_WORLD, &m, "box:3"),
        "same_mask, another mask on rank 1", "another mask than rank 0");
    clconv_mask_free(&m);
    clconv_session_destroy(s);
    clconv_devices_free(&list);
}

/* Rank 0 makes the folder and the input; every rank learns its name. */
static int make_input(void)
{
    int ok = 1;
    if (rank == 0) {
        snprintf(dir, sizeof dir, "%s/clconv-mpi-null-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        ok = mkdtemp(dir) != NULL;
        size_t shape[3] = {4, 5, 1};
        clconv_array a;
        unsigned char *bytes = NULL;
        size_t len = 0;
        snprintf(in_path, sizeof in_path, "%s/in.npy", dir);
        ok = ok && clconv_array_alloc(&a, 2, shape) == CLCONV_OK;
        if (ok) {
            for (size_t i = 0; i < 20; ++i)
                a.data[i] = (float)i;
            ok = clconv_npy_encode(&a, &bytes, &len) == CLCONV_OK &&
                 clconv_file_write(in_path, bytes, len) == CLCONV_OK;
            free(bytes);
            clconv_array_free(&a);
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(in_path, (int)sizeof in_path, MPI_CHAR, 0, MPI_COMM_WORLD);
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    /* one report: rank 0's (the others' failures still reach stderr) */
    if (rank != 0 && !freopen("/dev/null", "w", stdout))
        return 1;
    if (make_input() != 0) {
        fprintf(stderr, "mpi_null_args: cannot write the input in %s\n",
                dir);
        MPI_Finalize();
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(local_calls_given_null_return_safe_values),
        cmocka_unit_test(
            collective_calls_given_null_on_one_rank_fail_on_every_rank),
        cmocka_unit_test(exchange_given_null_on_one_rank_fails_on_every_rank),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(in_path);
        rmdir(dir);
    }
    MPI_Finalize();
    return failed ? 1 : 0;
}
