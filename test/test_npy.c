/* The .npy reader and writer: every dtype in every version and byte order
 * read back exactly, the writer's output read back, and malformed files
 * (each kind of damage, and every truncation) refused with a line. The
 * files here are built by this test's own small writer, byte by byte. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clconv_io.h"

/* Values every dtype can hold exactly, as doubles, and their float32. */
static const double sample_values[] = {0, 1, 2, 3, 5, 7, 11, 100, 127, 42};
static const double signed_values[] = {-128, -1, 0, 1, 127, -100, 5, -7, 3, 0};

typedef struct dtype_case {
    const char *code;
    int size;
    int is_float, is_signed;
    double extreme; /* a value near the type's range */
    int is_bool;    /* holds 0 and 1 alone */
} dtype_case;

/* int64's and uint64's extremes: -2^63 and 2^64 - 2^40, whole in
 * float32 (24 significant bits) and in double. */
static const dtype_case dtype_cases[] = {
    {"f4", 4, 1, 1, -3.0e38, 0},   {"f8", 8, 1, 1, -1.25e-3, 0},
    {"i1", 1, 0, 1, -128, 0},      {"i2", 2, 0, 1, -32768, 0},
    {"i4", 4, 0, 1, -2147483648.0, 0}, {"u1", 1, 0, 0, 255, 0},
    {"u2", 2, 0, 0, 65535, 0},     {"u4", 4, 0, 0, 4294967295.0, 0},
    {"f2", 2, 1, 1, -65504, 0},
    {"i8", 8, 0, 1, -9223372036854775808.0, 0},
    {"u8", 8, 0, 0, 18446742974197923840.0, 0},
    {"b1", 1, 0, 0, 1, 1},
};

/* v as the dtype holds it: a bool's True for anything but 0. */
static double held(const dtype_case *t, double v)
{
    return t->is_bool ? v != 0 : v;
}

/* binary16 bits of v, a normal number or 0 that it holds exactly. */
static uint16_t half_bits(double v)
{
    uint16_t sign = v < 0 ? 0x8000 : 0;
    v = fabs(v);
    if (v == 0)
        return sign;
    int e;
    double m = frexp(v, &e); /* v = m 2^e, m in [0.5, 1) */
    return (uint16_t)(sign | (unsigned)(e - 1 + 15) << 10 |
                      (unsigned)((m * 2 - 1) * 1024));
}

typedef struct buf {
    unsigned char *b;
    size_t n, cap;
} buf;

static void put(buf *o, const void *p, size_t n)
{
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2 + 64;
        o->b = realloc(o->b, o->cap);
        assert_non_null(o->b);
    }
    memcpy(o->b + o->n, p, n);
    o->n += n;
}

/* Bytes of v as the dtype, in the given order. */
static void put_value(buf *o, const dtype_case *t, double v, int big)
{
    unsigned char raw[8];
    uint64_t u = 0;
    if (t->is_float && t->size == 2) {
        u = half_bits(v);
    } else if (t->is_float && t->size == 4) {
        float f = (float)v;
        uint32_t w;
        memcpy(&w, &f, 4);
        u = w;
    } else if (t->is_float) {
        memcpy(&u, &v, 8);
    } else if (t->is_signed) {
        u = (uint64_t)(int64_t)v;
    } else {
        u = (uint64_t)v;
    }
    for (int k = 0; k < t->size; ++k) {
        unsigned char byte = (unsigned char)(u >> (8 * k));
        raw[big ? t->size - 1 - k : k] = byte;
    }
    put(o, raw, (size_t)t->size);
}

/* A .npy of the given version with a literal dict (padded as NumPy does). */
static void put_header(buf *o, int major, const char *dict)
{
    size_t pre = major == 1 ? 10 : 12;
    size_t hlen = strlen(dict) + 1;
    hlen += (64 - (pre + hlen) % 64) % 64;
    unsigned char m[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)major, 0};
    for (size_t k = 0; k < (major == 1 ? 2u : 4u); ++k)
        m[8 + k] = (unsigned char)(hlen >> (8 * k));
    put(o, m, pre);
    put(o, dict, strlen(dict));
    for (size_t k = strlen(dict) + 1; k < hlen; ++k)
        put(o, " ", 1);
    put(o, "\n", 1);
}

/* The n native elements at raw (dtype t, host order) equal value[]'s
 * float32s; what names the file in a failure. */
static void assert_native_values(const void *raw, size_t n, clconv_dtype t,
                                 const double *value, const char *what)
{
    float *conv = malloc(n * sizeof *conv);
    assert_non_null(conv);
    const clconv_npy_info host = clconv_npy_host_info(t);
    assert_int_equal(clconv_npy_convert(raw, n, &host, conv), CLCONV_OK);
    for (size_t c = 0; c < n; ++c)
        if (conv[c] != (float)value[c])
            fail_msg("%s element %zu: got %g expected %g", what, c, conv[c],
                     value[c]);
    free(conv);
}

static void every_dtype_version_and_byte_order_reads_back_exactly(void **state)
{
    (void)state;
    int cases = 0;
    for (size_t t = 0; t < sizeof dtype_cases / sizeof dtype_cases[0]; ++t)
        for (int major = 1; major <= 3; ++major)
            for (int big = 0; big <= 1; ++big)
                for (int dims = 1; dims <= 3; ++dims) {
                    const dtype_case *dt = &dtype_cases[t];
                    if (dt->size == 1 && big)
                        continue; /* one order only: '|' */
                    static const size_t shapes[3][3] = {
                        {10, 1, 1}, {2, 5, 1}, {1, 2, 5}};
                    const size_t *sh = shapes[dims - 1];
                    char shape[64], dict[160];
                    if (dims == 1)
                        snprintf(shape, sizeof shape, "(%zu,)", sh[0]);
                    else if (dims == 2)
                        snprintf(shape, sizeof shape, "(%zu, %zu)", sh[0], sh[1]);
                    else
                        snprintf(shape, sizeof shape, "(%zu, %zu, %zu)", sh[0],
                                 sh[1], sh[2]);
                    char order = dt->size == 1 ? '|' : big ? '>' : '<';
                    snprintf(dict, sizeof dict,
                             "{'descr': '%c%s', 'fortran_order': False, "
                             "'shape': %s, }",
                             order, dt->code, shape);
                    buf o = {NULL, 0, 0};
                    put_header(&o, major, dict);
                    double expect[10];
                    for (int i = 0; i < 10; ++i) {
                        expect[i] = held(dt, dt->is_signed ? signed_values[i]
                                                           : sample_values[i]);
                        if (i == 9)
                            expect[i] = dt->extreme;
                        put_value(&o, dt, expect[i], big);
                    }
                    clconv_array a;
                    clconv_npy_info info;
                    clconv_status st = clconv_npy_parse(o.b, o.n, &a, &info);
                    if (st != CLCONV_OK)
                        fail_msg("%s: %s", dict, clconv_last_error());
                    assert_int_equal(a.dims, dims);
                    for (int d = 0; d < dims; ++d)
                        assert_int_equal(a.shape[d], sh[d]);
                    assert_int_equal(info.major, major);
                    assert_int_equal(info.big_endian, big);
                    assert_string_equal(clconv_dtype_code(info.dtype), dt->code);
                    for (int i = 0; i < 10; ++i)
                        if (a.data[i] != (float)expect[i])
                            fail_msg("%s element %d: got %.9g expected %.9g",
                                     dict, i, a.data[i], (float)expect[i]);
                    clconv_array_free(&a);
                    free(o.b);
                    ++cases;
                }
    /* 3 versions x 3 dims x (3 one-byte dtypes + 9 others x 2 orders). */
    assert_int_equal(cases, 3 * 3 * (3 + 9 * 2));
}

/* A Fortran-order file (first axis fastest) reads back in C order through
 * both parsers, for every dtype, 2 and 3 dimensions (odd extents) and
 * both byte orders; the header-only parser, whose callers read rows in
 * place, refuses it with its reason. */
static void fortran_order_reads_back_in_c_order(void **state)
{
    (void)state;
    static const size_t shapes[2][3] = {{3, 5, 1}, {2, 3, 5}};
    for (size_t t = 0; t < sizeof dtype_cases / sizeof dtype_cases[0]; ++t)
        for (int big = 0; big <= 1; ++big)
            for (int dims = 2; dims <= 3; ++dims) {
                const dtype_case *dt = &dtype_cases[t];
                if (dt->size == 1 && big)
                    continue;
                const size_t *sh = shapes[dims - 2];
                char dict[160];
                snprintf(dict, sizeof dict,
                         "{'descr': '%c%s', 'fortran_order': True, 'shape': "
                         "(%zu, %zu%s%.0zu), }",
                         dt->size == 1 ? '|' : big ? '>' : '<', dt->code,
                         sh[0], sh[1], dims == 3 ? ", " : "",
                         dims == 3 ? sh[2] : (size_t)0);
                /* element (i, j, k) holds the value of its C index c, at
                 * Fortran offset i + s0 (j + s1 k) */
                const size_t n = sh[0] * sh[1] * sh[2];
                double value[30];
                size_t at[30];
                for (size_t i = 0, c = 0; i < sh[0]; ++i)
                    for (size_t j = 0; j < sh[1]; ++j)
                        for (size_t k = 0; k < sh[2]; ++k, ++c) {
                            value[c] = held(dt, (double)(c % 10) *
                                                    (dt->is_signed && c % 3
                                                         ? -1
                                                         : 1));
                            at[i + sh[0] * (j + sh[1] * k)] = c;
                        }
                buf o = {NULL, 0, 0};
                put_header(&o, 1, dict);
                for (size_t f = 0; f < n; ++f)
                    put_value(&o, dt, value[at[f]], big);
                clconv_array a;
                clconv_npy_info info;
                if (clconv_npy_parse(o.b, o.n, &a, &info) != CLCONV_OK)
                    fail_msg("%s: %s", dict, clconv_last_error());
                assert_int_equal(info.fortran_order, 1);
                assert_int_equal(a.dims, dims);
                for (int d = 0; d < dims; ++d)
                    assert_int_equal(a.shape[d], sh[d]);
                for (size_t c = 0; c < n; ++c)
                    if (a.data[c] != (float)value[c])
                        fail_msg("%s element %zu: got %g expected %g", dict, c,
                                 a.data[c], value[c]);
                clconv_array_free(&a);
                /* the native reader: the same order, the file's type */
                int nd = 0;
                size_t nsh[3];
                void *raw = NULL;
                if (clconv_npy_parse_native(o.b, o.n, &nd, nsh, &info, &raw) !=
                    CLCONV_OK)
                    fail_msg("%s (native): %s", dict, clconv_last_error());
                assert_native_values(raw, n, info.dtype, value, dict);
                free(raw);
                int hdims;
                size_t hsh[3];
                assert_int_equal(
                    clconv_npy_header_parse(o.b, o.n, &hdims, hsh, &info),
                    CLCONV_EINVAL);
                assert_non_null(strstr(clconv_last_error(), "Fortran"));
                free(o.b);
            }
}

/* The typed writer's .npy of nd/sh elements of t at data, read again by
 * clconv_npy_parse_nd: its elements (malloc'ed), once the rank, shape,
 * dtype and C order have come back (what names the case). */
static void *written_and_read_back(int nd, const size_t *sh, clconv_dtype t,
                                   const void *data, const char *what)
{
    unsigned char *enc = NULL;
    size_t len = 0;
    if (clconv_npy_encode_typed(nd, sh, t, data, &enc, &len) != CLCONV_OK)
        fail_msg("%s (write): %s", what, clconv_last_error());
    void *again = NULL;
    int nd2 = 0;
    size_t sh2[CLCONV_NPY_MAX_DIMS];
    clconv_npy_info info;
    if (clconv_npy_parse_nd(enc, len, &nd2, sh2, &info, &again) != CLCONV_OK)
        fail_msg("%s (read back): %s", what, clconv_last_error());
    assert_int_equal(nd2, nd);
    assert_memory_equal(sh2, sh, (size_t)nd * sizeof sh[0]);
    assert_int_equal(info.dtype, t);
    assert_int_equal(info.fortran_order, 0);
    free(enc);
    return again;
}

/* Arrays of any rank (clconv apply's slices): ranks 1 to 7 and NumPy's
 * 64, every dtype, both byte orders, C and Fortran order, read in C order
 * by clconv_npy_parse_nd; the typed writer's N-D output reads back to the
 * same bytes; 65 axes and the 3-axis readers' limit refused by name. */
static void arrays_of_any_rank_read_and_write_back(void **state)
{
    (void)state;
    static const size_t cycle[] = {2, 3, 1, 2, 1, 1, 2};
    static const int ranks[] = {1, 2, 4, 5, 7, 64};
    for (size_t r = 0; r < sizeof ranks / sizeof ranks[0]; ++r)
        for (size_t t = 0; t < sizeof dtype_cases / sizeof dtype_cases[0]; ++t)
            for (int variant = 0; variant < 4; ++variant) {
                const int nd = ranks[r], big = variant & 1,
                          fortran = variant >> 1 & 1;
                const dtype_case *dt = &dtype_cases[t];
                if (dt->size == 1 && big)
                    continue;
                size_t sh[CLCONV_NPY_MAX_DIMS], n = 1;
                char dict[2048], tuple[1800];
                size_t k = 0;
                tuple[k++] = '(';
                for (int d = 0; d < nd; ++d) {
                    sh[d] = nd == 64 ? (d == 5 || d == 60 ? 2 : 1)
                                     : cycle[(d + t) % 7];
                    n *= sh[d];
                    k += (size_t)snprintf(tuple + k, sizeof tuple - k, "%zu, ",
                                          sh[d]);
                }
                snprintf(tuple + k, sizeof tuple - k, ")");
                snprintf(dict, sizeof dict,
                         "{'descr': '%c%s', 'fortran_order': %s, 'shape': "
                         "%s, }",
                         dt->size == 1 ? '|' : big ? '>' : '<', dt->code,
                         fortran ? "True" : "False", tuple);
                /* element of C index c holds value(c); in Fortran order it
                 * lies at the offset of its index with axis 0 fastest */
                double *value = malloc(n * sizeof *value);
                size_t *at = malloc(n * sizeof *at);
                assert_non_null(value);
                assert_non_null(at);
                for (size_t c = 0; c < n; ++c) {
                    value[c] = held(dt, (double)(c % 10) *
                                            (dt->is_signed && c % 3 ? -1 : 1));
                    size_t rest = c, f = 0, step = 1, idx[CLCONV_NPY_MAX_DIMS];
                    for (int d = nd - 1; d >= 0; --d) {
                        idx[d] = rest % sh[d];
                        rest /= sh[d];
                    }
                    for (int d = 0; d < nd; ++d) {
                        f += idx[d] * step;
                        step *= sh[d];
                    }
                    at[fortran ? f : c] = c;
                }
                buf o = {NULL, 0, 0};
                put_header(&o, 1, dict);
                for (size_t f = 0; f < n; ++f)
                    put_value(&o, dt, value[at[f]], big);
                int got_nd = 0;
                size_t got_sh[CLCONV_NPY_MAX_DIMS];
                clconv_npy_info info;
                void *raw = NULL;
                if (clconv_npy_parse_nd(o.b, o.n, &got_nd, got_sh, &info,
                                        &raw) != CLCONV_OK)
                    fail_msg("%s: %s", dict, clconv_last_error());
                assert_int_equal(got_nd, nd);
                assert_int_equal(info.fortran_order, fortran && nd > 1);
                for (int d = 0; d < nd; ++d)
                    assert_int_equal(got_sh[d], sh[d]);
                assert_native_values(raw, n, info.dtype, value, dict);
                /* written back (C order, little-endian) and read again */
                void *again = written_and_read_back(nd, sh, info.dtype, raw,
                                                    dict);
                assert_memory_equal(again, raw, n * (size_t)dt->size);
                /* the 3-axis readers say why they refuse it */
                clconv_array a;
                if (nd > 3) {
                    assert_int_equal(clconv_npy_parse(o.b, o.n, &a, NULL),
                                     CLCONV_EINVAL);
                    assert_non_null(strstr(clconv_last_error(),
                                           "more than 3 dimensions"));
                    /* the header reader gives the rank, for the
                     * caller's own message (clconv-mpi's) */
                    int hd_dims = -1;
                    size_t hd_shape[3];
                    clconv_npy_info hd_info;
                    assert_int_equal(clconv_npy_header_parse(o.b, o.n, &hd_dims,
                                                             hd_shape, &hd_info),
                                     CLCONV_EINVAL);
                    assert_int_equal(hd_dims, nd);
                }
                free(again);
                free(raw);
                free(value);
                free(at);
                free(o.b);
            }
    /* 65 axes: past NumPy's limit */
    char dict[512];
    size_t k = (size_t)snprintf(dict, sizeof dict,
                                "{'descr': '<f4', 'fortran_order': False, "
                                "'shape': (");
    for (int d = 0; d < 65; ++d)
        k += (size_t)snprintf(dict + k, sizeof dict - k, "1, ");
    snprintf(dict + k, sizeof dict - k, "), }");
    buf o = {NULL, 0, 0};
    put_header(&o, 1, dict);
    put(&o, "\0\0\0\0", 4);
    int nd = 0;
    size_t sh[CLCONV_NPY_MAX_DIMS];
    clconv_npy_info info;
    void *raw = NULL;
    assert_int_equal(clconv_npy_parse_nd(o.b, o.n, &nd, sh, &info, &raw),
                     CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "more than 64"));
    assert_null(raw);
    unsigned char *enc = NULL;
    size_t len = 0;
    assert_int_equal(clconv_npy_encode_typed(65, sh, CLCONV_DTYPE_F32, &nd,
                                             &enc, &len),
                     CLCONV_EINVAL);
    free(o.b);
}

/* NumPy's empty arrays (an axis of length 0, in C or Fortran order, with
 * huge extents beside it) read whole through clconv_npy_parse_nd and
 * write back as the header alone; the stream reader's declared size is
 * that header; the readers that need elements (a clconv_array, a mapped
 * header) still refuse them by name. */
static void empty_arrays_read_whole_and_write_back(void **state)
{
    (void)state;
    static const char *const shapes[] = {"(0,)", "(0, 5)", "(4, 0, 3)",
                                         "(2, 3, 0, 5)",
                                         "(0, 4294967296, 4294967296)"};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
        for (int fortran = 0; fortran < 2; ++fortran) {
            char dict[160];
            snprintf(dict, sizeof dict,
                     "{'descr': '>f8', 'fortran_order': %s, 'shape': %s, }",
                     fortran ? "True" : "False", shapes[k]);
            buf o = {NULL, 0, 0};
            put_header(&o, 1, dict);
            size_t total = 0;
            assert_int_equal(clconv_npy_declared_size(o.b, o.n, &total),
                             CLCONV_OK);
            assert_int_equal(total, o.n);
            int nd = 0;
            size_t sh[CLCONV_NPY_MAX_DIMS];
            clconv_npy_info info;
            void *raw = NULL;
            if (clconv_npy_parse_nd(o.b, o.n, &nd, sh, &info, &raw) !=
                CLCONV_OK)
                fail_msg("%s: %s", dict, clconv_last_error());
            assert_non_null(raw);
            assert_int_equal(info.dtype, CLCONV_DTYPE_F64);
            /* NULL: an empty array's data is never read */
            void *again = written_and_read_back(nd, sh, info.dtype, NULL, dict);
            clconv_array a;
            assert_int_equal(clconv_npy_parse(o.b, o.n, &a, NULL),
                             CLCONV_EINVAL);
            int hd_dims = -1;
            size_t hd_shape[3];
            clconv_status st =
                clconv_npy_header_parse(o.b, o.n, &hd_dims, hd_shape, &info);
            assert_int_equal(st, CLCONV_EINVAL);
            if (nd <= 3 && !(fortran && nd > 1))
                assert_non_null(strstr(clconv_last_error(), "empty array"));
            free(again);
            free(raw);
            free(o.b);
        }
}

static void writer_output_reads_back_with_64_byte_aligned_data(void **state)
{
    (void)state;
    for (int dims = 1; dims <= 3; ++dims) {
        size_t shape[3] = {3, 4, 5};
        clconv_array a, b;
        assert_int_equal(clconv_array_alloc(&a, dims, shape), CLCONV_OK);
        size_t n = clconv_array_elements(&a);
        for (size_t i = 0; i < n; ++i)
            a.data[i] = (float)i * -0.37f + 1e-30f * (float)(i % 3);
        unsigned char *bytes;
        size_t len;
        assert_int_equal(clconv_npy_encode(&a, &bytes, &len), CLCONV_OK);
        clconv_npy_info info;
        assert_int_equal(clconv_npy_parse(bytes, len, &b, &info), CLCONV_OK);
        assert_int_equal(info.data_offset % 64, 0);
        assert_int_equal(info.big_endian, 0);
        assert_int_equal(info.dtype, CLCONV_DTYPE_F32);
        assert_int_equal(b.dims, dims);
        assert_memory_equal(b.shape, a.shape, sizeof a.shape);
        assert_memory_equal(b.data, a.data, n * sizeof(float));
        /* The header is the dict NumPy itself writes. */
        static const char dict[] = "{'descr': '<f4', 'fortran_order': False";
        assert_true(len > 10 + sizeof dict);
        assert_memory_equal(bytes + 10, dict, sizeof dict - 1);
        free(bytes);
        clconv_array_free(&a);
        clconv_array_free(&b);
    }
}

/* The typed writer's file reads back through the native reader with the
 * same elements and dtype, for every dtype; a big-endian file of a narrow
 * type reads back in the host's order (NumPy's dict as it writes it). */
static void typed_writer_and_native_reader_keep_each_dtype(void **state)
{
    (void)state;
    static const clconv_dtype types[] = {
        CLCONV_DTYPE_U8, CLCONV_DTYPE_U16, CLCONV_DTYPE_I16,
        CLCONV_DTYPE_F16, CLCONV_DTYPE_F32, CLCONV_DTYPE_F64,
        CLCONV_DTYPE_I64, CLCONV_DTYPE_U64, CLCONV_DTYPE_BOOL};
    const size_t shape[3] = {3, 4, 5};
    unsigned char data[60 * 8];
    for (size_t i = 0; i < sizeof data; ++i)
        data[i] = (unsigned char)(i * 37 + 11);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
        for (int dims = 1; dims <= 3; ++dims) {
            const size_t isz = clconv_dtype_size(types[t]);
            size_t n = 1;
            for (int d = 0; d < dims; ++d)
                n *= shape[d];
            unsigned char *bytes;
            size_t len;
            assert_int_equal(clconv_npy_encode_typed(dims, shape, types[t],
                                                     data, &bytes, &len),
                             CLCONV_OK);
            char dict[64];
            snprintf(dict, sizeof dict, "{'descr': '%c%s'",
                     isz == 1 ? '|' : '<', clconv_dtype_code(types[t]));
            assert_memory_equal(bytes + 10, dict, strlen(dict));
            int dims2;
            size_t shape2[3];
            clconv_npy_info info;
            void *back;
            assert_int_equal(clconv_npy_parse_native(bytes, len, &dims2,
                                                     shape2, &info, &back),
                             CLCONV_OK);
            assert_int_equal(dims2, dims);
            assert_int_equal(info.dtype, types[t]);
            assert_int_equal(info.data_offset % 64, 0);
            assert_memory_equal(back, data, n * isz);
            free(back);
            free(bytes);
        }
    /* A big-endian u2 and f2 file: 0x0102 and 0x3c00 (1.0) in the host's
     * order. */
    static const char *codes[] = {"u2", "f2"};
    static const uint16_t values[] = {0x0102, 0x3c00};
    for (int k = 0; k < 2; ++k) {
        buf o = {NULL, 0, 0};
        char dict[96];
        snprintf(dict, sizeof dict,
                 "{'descr': '>%s', 'fortran_order': False, 'shape': (2,), }",
                 codes[k]);
        put_header(&o, 1, dict);
        const unsigned char raw[4] = {
            (unsigned char)(values[k] >> 8), (unsigned char)values[k],
            (unsigned char)(values[k] >> 8), (unsigned char)values[k]};
        put(&o, raw, 4);
        int dims;
        size_t sh[3];
        clconv_npy_info info;
        void *back;
        assert_int_equal(clconv_npy_parse_native(o.b, o.n, &dims, sh, &info,
                                                 &back),
                         CLCONV_OK);
        assert_int_equal(info.big_endian, 1);
        assert_int_equal(((uint16_t *)back)[0], values[k]);
        assert_int_equal(((uint16_t *)back)[1], values[k]);
        free(back);
        free(o.b);
    }
}

/* clconv computes in float32: a finite float64 beyond its range is
 * refused (it once became inf silently); inf and values that round into
 * range read as they are. */
static void float64_beyond_float32_range_is_refused(void **state)
{
    (void)state;
    static const dtype_case f8 = {"f8", 8, 1, 1, 0, 0};
    const double beyond[] = {1e300, -1e300, 3.5e38};
    for (size_t k = 0; k < 3; ++k) {
        buf o = {NULL, 0, 0};
        put_header(&o, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }");
        put_value(&o, &f8, 1.0, 0);
        put_value(&o, &f8, beyond[k], 0);
        clconv_array a;
        assert_int_equal(clconv_npy_parse(o.b, o.n, &a, NULL), CLCONV_EINVAL);
        assert_non_null(strstr(clconv_last_error(), "element 1"));
        assert_non_null(strstr(clconv_last_error(), "beyond float32"));
        assert_null(a.data);
        free(o.b);
    }
    buf o = {NULL, 0, 0};
    put_header(&o, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }");
    put_value(&o, &f8, INFINITY, 0);
    put_value(&o, &f8, -INFINITY, 0);
    put_value(&o, &f8, 3.0e38, 0);
    clconv_array a;
    assert_int_equal(clconv_npy_parse(o.b, o.n, &a, NULL), CLCONV_OK);
    assert_true(isinf(a.data[0]) && a.data[0] > 0);
    assert_true(isinf(a.data[1]) && a.data[1] < 0);
    assert_true(a.data[2] == 3.0e38f);
    clconv_array_free(&a);
    free(o.b);
}

/* int64 and uint64 beyond 2^24 round to the nearest float32 (ties to
 * even), as NumPy's astype(float32) gives them (1.24: 2^24 + 1 is
 * 16777216, 2^24 + 3 is 16777220, 2^63 - 1 is 2^63, 2^64 - 1 is 2^64),
 * in both byte orders, through the float and the native reader; a bool
 * byte is 1 for anything but 0, as NumPy reads it. */
static void wide_integers_round_as_numpy_and_bools_read_0_or_1(void **state)
{
    (void)state;
    static const struct {
        const char *code;
        uint64_t bits;
        float want;
    } cases[] = {
        {"i8", (1u << 24) + 1, 16777216.0f},
        {"i8", (1u << 24) + 3, 16777220.0f},
        {"i8", (uint64_t)-((1 << 24) + 3), -16777220.0f},
        {"i8", ((uint64_t)1 << 53) + 1, 9007199254740992.0f},
        {"i8", INT64_MAX, 9223372036854775808.0f},
        {"i8", (uint64_t)INT64_MIN, -9223372036854775808.0f},
        {"i8", (uint64_t)-1, -1.0f},
        {"u8", (1u << 24) + 1, 16777216.0f},
        {"u8", UINT64_MAX, 18446744073709551616.0f},
        {"u8", (uint64_t)INT64_MAX + 1, 9223372036854775808.0f},
        {"b1", 0, 0.0f},
        {"b1", 1, 1.0f},
        {"b1", 2, 1.0f},
        {"b1", 255, 1.0f},
    };
    const size_t n = sizeof cases / sizeof cases[0];
    for (size_t k = 0; k < n; ++k)
        for (int big = 0; big <= 1; ++big) {
            const int size = cases[k].code[0] == 'b' ? 1 : 8;
            if (size == 1 && big)
                continue;
            char dict[96];
            snprintf(dict, sizeof dict,
                     "{'descr': '%c%s', 'fortran_order': False, 'shape': "
                     "(1,), }",
                     size == 1 ? '|' : big ? '>' : '<', cases[k].code);
            buf o = {NULL, 0, 0};
            put_header(&o, 1, dict);
            unsigned char raw[8];
            for (int b = 0; b < size; ++b)
                raw[big ? size - 1 - b : b] =
                    (unsigned char)(cases[k].bits >> (8 * b));
            put(&o, raw, (size_t)size);
            clconv_array a;
            if (clconv_npy_parse(o.b, o.n, &a, NULL) != CLCONV_OK)
                fail_msg("%s: %s", dict, clconv_last_error());
            if (a.data[0] != cases[k].want)
                fail_msg("%s bits 0x%llx: got %.9g expected %.9g", dict,
                         (unsigned long long)cases[k].bits, a.data[0],
                         cases[k].want);
            clconv_array_free(&a);
            int nd;
            size_t sh[3];
            clconv_npy_info info;
            void *native = NULL;
            assert_int_equal(clconv_npy_parse_native(o.b, o.n, &nd, sh, &info,
                                                     &native),
                             CLCONV_OK);
            const double want = cases[k].want;
            assert_native_values(native, 1, info.dtype, &want, dict);
            free(native);
            free(o.b);
        }
}

/* ---- malformed files ---------------------------------------------------- */

typedef struct bad_case {
    const char *what;
    int major;
    const char *dict;     /* NULL: raw bytes below */
    size_t data_bytes;    /* bytes of data after the header */
    const char *expect;   /* in the error line */
} bad_case;

static const bad_case bad_cases[] = {
    {"unknown dtype", 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16, "unsupported dtype"},
    {"unknown dtype, what is read listed", 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16, "reads f4, f8, i1, i2, i4, u1, u2, u4, f2, i8, u8, b1;"},
    {"multi-byte with no order", 1, "{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", 8, "no byte order"},
    {"structured dtype", 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8, "structured"},
    {"4 dimensions", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 2), }", 8, "more than 3"},
    {"scalar", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4, "0-dimensional"},
    {"zero extent", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", 0, "empty"},
    {"not a tuple", 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", 8, "not a tuple"},
    {"short data", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 8, "needs 12 bytes"},
    {"long data", 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 16, "needs 12 bytes"},
    {"overflowing shape", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }", 8, "overflows"},
    {"huge extent", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", 8, "overflows"},
    {"missing key", 1, "{'descr': '<f4', 'shape': (2,), }", 8, "missing key 'fortran_order'"},
    {"unknown key", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8, "unexpected key"},
    {"duplicate key", 1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8, "twice"},
    {"bad bool", 1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", 8, "True or False"},
    {"no closing brace", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ", 8, "expected a quoted string"},
    {"junk after dict", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", 8, "after the dict"},
    {"unterminated string", 1, "{'descr: '<f4', 'fortran_order': False, 'shape': (2,)}", 8, "expected ':'"},
    {"not a dict", 1, "['descr', '<f4']", 8, "expected '{'"},
    {"negative extent", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", 8, "tuple of integers"},
};

static void malformed_headers_are_refused_with_their_reason(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; ++k) {
        const bad_case *c = &bad_cases[k];
        buf o = {NULL, 0, 0};
        put_header(&o, c->major, c->dict);
        for (size_t i = 0; i < c->data_bytes; ++i)
            put(&o, "\0", 1);
        clconv_array a;
        clconv_status st = clconv_npy_parse(o.b, o.n, &a, NULL);
        if (st != CLCONV_EINVAL || !strstr(clconv_last_error(), c->expect))
            fail_msg("%s: status %d, error '%s', expected '%s'", c->what,
                     (int)st, clconv_last_error(), c->expect);
        assert_null(a.data);
        assert_null(strchr(clconv_last_error(), '\n'));
        free(o.b);
    }
}

static void damaged_preambles_are_refused(void **state)
{
    (void)state;
    buf o = {NULL, 0, 0};
    put_header(&o, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }");
    put(&o, "\0\0\0\0", 4);
    clconv_array a;
    assert_int_equal(clconv_npy_parse(o.b, o.n, &a, NULL), CLCONV_OK);
    clconv_array_free(&a);
    struct {
        size_t at;
        unsigned char byte;
        const char *expect;
    } damage[] = {
        {0, 0x94, "magic"},        {3, 'X', "magic"},
        {6, 4, "version 4.0"},     {7, 1, "version 1.1"},
        {8, 0xff, "runs past"},    {9, 0x7f, "runs past"},
        {70, '\0', "NUL"},         {o.n - 5, ' ', "newline"},
    };
    for (size_t k = 0; k < sizeof damage / sizeof damage[0]; ++k) {
        unsigned char *copy = malloc(o.n);
        memcpy(copy, o.b, o.n);
        copy[damage[k].at] = damage[k].byte;
        clconv_status st = clconv_npy_parse(copy, o.n, &a, NULL);
        if (st != CLCONV_EINVAL || !strstr(clconv_last_error(), damage[k].expect))
            fail_msg("byte %zu = 0x%02x: status %d, '%s'", damage[k].at,
                     damage[k].byte, (int)st, clconv_last_error());
        free(copy);
    }
    free(o.b);
}

static void every_truncation_of_a_valid_file_is_refused(void **state)
{
    (void)state;
    buf o = {NULL, 0, 0};
    put_header(&o, 2, "{'descr': '>i2', 'fortran_order': False, 'shape': (2, 3), }");
    static const dtype_case i2 = {"i2", 2, 0, 1, 0, 0};
    for (int i = 0; i < 6; ++i)
        put_value(&o, &i2, i - 3, 1);
    for (size_t n = 0; n < o.n; ++n) {
        clconv_array a;
        /* A copy of exactly n bytes, so reading past it is caught by ASan. */
        unsigned char *copy = malloc(n ? n : 1);
        memcpy(copy, o.b, n);
        assert_int_equal(clconv_npy_parse(copy, n, &a, NULL), CLCONV_EINVAL);
        /* A file cut inside its magic or preamble is a truncated .npy,
         * not some other kind of file (nothing at all is not a .npy). */
        const char *want = n == 0 ? "no \\x93NUMPY" : n < 10 ? "truncated" : "";
        if (!strstr(clconv_last_error(), want))
            fail_msg("%zu bytes: '%s', expected '%s'", n, clconv_last_error(),
                     want);
        free(copy);
    }
    free(o.b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_dtype_version_and_byte_order_reads_back_exactly),
        cmocka_unit_test(fortran_order_reads_back_in_c_order),
        cmocka_unit_test(arrays_of_any_rank_read_and_write_back),
        cmocka_unit_test(empty_arrays_read_whole_and_write_back),
        cmocka_unit_test(writer_output_reads_back_with_64_byte_aligned_data),
        cmocka_unit_test(typed_writer_and_native_reader_keep_each_dtype),
        cmocka_unit_test(float64_beyond_float32_range_is_refused),
        cmocka_unit_test(wide_integers_round_as_numpy_and_bools_read_0_or_1),
        cmocka_unit_test(malformed_headers_are_refused_with_their_reason),
        cmocka_unit_test(damaged_preambles_are_refused),
        cmocka_unit_test(every_truncation_of_a_valid_file_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
