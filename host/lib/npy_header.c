/* The header dict of a .npy file, {'descr': '<f4', 'fortran_order':
 * False, 'shape': (3, 4), }: a strict reader of exactly that Python
 * literal (npy.c reads the rest of the file). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_io.h"
#include "internal.h"

/* ---- the header dict ---------------------------------------------------- */

typedef struct cursor {
    const char *s;
    size_t n, i;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t' ||
                           c->s[c->i] == '\n' || c->s[c->i] == '\r'))
        ++c->i;
}

static int peek(const cursor *c) { return c->i < c->n ? (unsigned char)c->s[c->i] : -1; }

static clconv_status expect(cursor *c, char ch, const char *what)
{
    skip_ws(c);
    if (peek(c) != (unsigned char)ch)
        return clc_fail(CLCONV_EINVAL,
                        ".npy header: expected '%c' %s at byte %zu of the dict",
                        ch, what, c->i);
    ++c->i;
    return CLCONV_OK;
}

/* A Python string literal without escapes, into buf. */
static clconv_status parse_string(cursor *c, char *buf, size_t cap)
{
    skip_ws(c);
    int q = peek(c);
    if (q != '\'' && q != '"')
        return clc_fail(CLCONV_EINVAL,
                        ".npy header: expected a quoted string at byte %zu of "
                        "the dict",
                        c->i);
    ++c->i;
    size_t k = 0;
    for (;;) {
        int ch = peek(c);
        if (ch < 0 || ch == '\n')
            return clc_fail(CLCONV_EINVAL, ".npy header: unterminated string");
        ++c->i;
        if (ch == q)
            break;
        if (ch == '\\' || ch < 0x20 || ch > 0x7e)
            return clc_fail(CLCONV_EINVAL,
                            ".npy header: unexpected character 0x%02x in a "
                            "string",
                            (unsigned)ch);
        if (k + 1 >= cap)
            return clc_fail(CLCONV_EINVAL, ".npy header: string too long");
        buf[k++] = (char)ch;
    }
    buf[k] = '\0';
    return CLCONV_OK;
}

static int take_word(cursor *c, const char *w)
{
    size_t n = strlen(w);
    if (c->n - c->i < n || memcmp(c->s + c->i, w, n) != 0)
        return 0;
    /* Not a prefix of a longer identifier. */
    if (c->i + n < c->n) {
        char next = c->s[c->i + n];
        if ((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') ||
            (next >= '0' && next <= '9') || next == '_')
            return 0;
    }
    c->i += n;
    return 1;
}

static clconv_status parse_bool(cursor *c, int *out)
{
    skip_ws(c);
    if (take_word(c, "True"))
        *out = 1;
    else if (take_word(c, "False"))
        *out = 0;
    else
        return clc_fail(CLCONV_EINVAL,
                        ".npy header: fortran_order must be True or False");
    return CLCONV_OK;
}

/* A tuple of non-negative integers, as Python spells it: (), (3,), (3, 4),
 * (3, 4,). Python 2's long suffix (3L) is accepted. */
static clconv_status parse_shape(cursor *c, size_t shape[CLCONV_NPY_MAX_DIMS],
                                 int *dims)
{
    clconv_status st = expect(c, '(', "to open the shape tuple");
    if (st != CLCONV_OK)
        return st;
    int n = 0, trailing_comma = 0;
    for (;;) {
        skip_ws(c);
        if (peek(c) == ')') {
            ++c->i;
            break;
        }
        int ch = peek(c);
        if (ch < '0' || ch > '9')
            return clc_fail(CLCONV_EINVAL,
                            ".npy header: shape must be a tuple of integers");
        size_t v = 0;
        while ((ch = peek(c)) >= '0' && ch <= '9') {
            if (v > (SIZE_MAX - 9) / 10)
                return clc_fail(CLCONV_EINVAL,
                                ".npy header: shape extent overflows");
            v = v * 10 + (size_t)(ch - '0');
            ++c->i;
        }
        if (peek(c) == 'L')
            ++c->i;
        if (n == CLCONV_NPY_MAX_DIMS)
            return clc_fail(CLCONV_EINVAL,
                            ".npy: more than %d dimensions (NumPy's limit)",
                            CLCONV_NPY_MAX_DIMS);
        shape[n++] = v;
        skip_ws(c);
        trailing_comma = 0;
        if (peek(c) == ',') {
            ++c->i;
            trailing_comma = 1;
            continue;
        }
        if (peek(c) == ')') {
            ++c->i;
            break;
        }
        return clc_fail(CLCONV_EINVAL,
                        ".npy header: expected ',' or ')' in the shape");
    }
    if (n == 1 && !trailing_comma)
        return clc_fail(CLCONV_EINVAL,
                        ".npy header: shape (%zu) is not a tuple (a 1-tuple "
                        "is written (%zu,))",
                        shape[0], shape[0]);
    *dims = n;
    return CLCONV_OK;
}

int clc_host_big_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 0;
}

/* descr names no dtype of the table; the codes listed from the table,
 * so the message says what is read. */
static clconv_status unsupported(const char *descr)
{
    char codes[CLCONV_DTYPE_COUNT * 4 + 1] = "";
    for (int k = 0; k < CLCONV_DTYPE_COUNT; ++k)
        snprintf(codes + strlen(codes), sizeof codes - strlen(codes), "%s%s",
                 k ? ", " : "", clconv_dtype_code((clconv_dtype)k));
    return clc_fail(CLCONV_EINVAL,
                    ".npy: unsupported dtype '%s' (clconv reads %s; '<' or "
                    "'>', or '|' for one byte)",
                    descr, codes);
}

static clconv_status parse_descr(const char *d, clconv_dtype *t, int *big)
{
    size_t n = strlen(d);
    if (n != 3)
        goto bad;
    for (int k = 0; k < CLCONV_DTYPE_COUNT; ++k) {
        if (strcmp(d + 1, clconv_dtype_code((clconv_dtype)k)) != 0)
            continue;
        char order = d[0];
        if (order == '|' && clconv_dtype_size((clconv_dtype)k) != 1)
            return clc_fail(CLCONV_EINVAL,
                            ".npy: dtype '%s' has no byte order ('<' or '>')",
                            d);
        if (order == '<' || order == '|')
            *big = 0;
        else if (order == '>')
            *big = 1;
        else if (order == '=')
            *big = clc_host_big_endian();
        else
            goto bad;
        *t = (clconv_dtype)k;
        return CLCONV_OK;
    }
bad:
    return unsupported(d);
}


clconv_status clc_npy_parse_dict(const char *s, size_t n, clc_npy_header *h)
{
    cursor c = {s, n, 0};
    int seen_descr = 0, seen_order = 0, seen_shape = 0;
    clconv_status st = expect(&c, '{', "to open the header dict");
    if (st != CLCONV_OK)
        return st;
    for (;;) {
        skip_ws(&c);
        if (peek(&c) == '}') {
            ++c.i;
            break;
        }
        char key[32];
        if ((st = parse_string(&c, key, sizeof key)) != CLCONV_OK)
            return st;
        if ((st = expect(&c, ':', "after a key")) != CLCONV_OK)
            return st;
        int *seen;
        if (strcmp(key, "descr") == 0) {
            seen = &seen_descr;
            skip_ws(&c);
            if (peek(&c) == '[')
                return clc_fail(CLCONV_EINVAL,
                                ".npy: structured dtypes are not supported");
            char d[32];
            if ((st = parse_string(&c, d, sizeof d)) != CLCONV_OK ||
                (st = parse_descr(d, &h->dtype, &h->big)) != CLCONV_OK)
                return st;
        } else if (strcmp(key, "fortran_order") == 0) {
            seen = &seen_order;
            if ((st = parse_bool(&c, &h->fortran)) != CLCONV_OK)
                return st;
        } else if (strcmp(key, "shape") == 0) {
            seen = &seen_shape;
            if ((st = parse_shape(&c, h->shape, &h->dims)) != CLCONV_OK)
                return st;
        } else {
            return clc_fail(CLCONV_EINVAL, ".npy header: unexpected key '%s'",
                            key);
        }
        if (*seen)
            return clc_fail(CLCONV_EINVAL, ".npy header: key '%s' twice", key);
        *seen = 1;
        skip_ws(&c);
        if (peek(&c) == ',') {
            ++c.i;
            continue;
        }
        if ((st = expect(&c, '}', "or ',' after a value")) != CLCONV_OK)
            return st;
        break;
    }
    skip_ws(&c);
    if (c.i != c.n)
        return clc_fail(CLCONV_EINVAL,
                        ".npy header: unexpected bytes after the dict");
    if (!seen_descr || !seen_order || !seen_shape)
        return clc_fail(CLCONV_EINVAL, ".npy header: missing key '%s'",
                        !seen_descr ? "descr"
                        : !seen_order ? "fortran_order"
                                      : "shape");
    return CLCONV_OK;
}

