/* The row emitter: rows of named fields, written as JSON or CSV, to stdout
 * or atomically to a file (and as text tables by emit_text.c). Every
 * command's --json and --csv go through here (bench's report through the
 * library's writers, to the same cli_write_output). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clconv_bench.h" /* clconv_json_string, clconv_csv_string */
#include "clconv_io.h"
#include "cli.h"

typedef struct cli_field {
    const char *key; /* a string literal */
    char *text;      /* the string, or the JSON literal of the value */
    int is_string;
} cli_field;

typedef struct cli_row {
    cli_field *fields;
    size_t n, cap;
} cli_row;

struct cli_rows {
    cli_row *rows;
    size_t n, cap;
    int oom;
};

/* ---- building rows -------------------------------------------------------- */

cli_rows *cli_rows_new(void) { return calloc(1, sizeof(cli_rows)); }

void cli_rows_free(cli_rows *t)
{
    for (size_t r = 0; t && r < t->n; ++r) {
        for (size_t k = 0; k < t->rows[r].n; ++k)
            free(t->rows[r].fields[k].text);
        free(t->rows[r].fields);
    }
    if (t)
        free(t->rows);
    free(t);
}

/* Grow *items (of n, cap elements of size bytes) to room for one more. */
static int grow(void **items, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 16;
    void *bigger = realloc(*items, c * size);
    if (!bigger)
        return -1;
    *items = bigger;
    *cap = c;
    return 0;
}

void cli_row_begin(cli_rows *t)
{
    if (t->oom || grow((void **)&t->rows, t->n, &t->cap, sizeof *t->rows)) {
        t->oom = 1;
        return;
    }
    memset(&t->rows[t->n++], 0, sizeof *t->rows);
}

static void put(cli_rows *t, const char *key, int is_string, const char *fmt,
                ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void put(cli_rows *t, const char *key, int is_string, const char *fmt,
                ...)
{
    if (t->oom || t->n == 0)
        return;
    cli_row *r = &t->rows[t->n - 1];
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *text = strdup(buf);
    if (!text || grow((void **)&r->fields, r->n, &r->cap, sizeof *r->fields)) {
        free(text);
        t->oom = 1;
        return;
    }
    r->fields[r->n++] = (cli_field){key, text, is_string};
}

void cli_put_str(cli_rows *t, const char *key, const char *s)
{
    if (s)
        put(t, key, 1, "%s", s);
    else
        put(t, key, 0, "null");
}

void cli_put_int(cli_rows *t, const char *key, long long v)
{
    put(t, key, 0, "%lld", v);
}

void cli_put_uint(cli_rows *t, const char *key, unsigned long long v)
{
    put(t, key, 0, "%llu", v);
}

void cli_put_num(cli_rows *t, const char *key, const char *fmt, double v)
{
    if (isfinite(v))
        put(t, key, 0, fmt, v);
    else
        put(t, key, 0, "null");
}

void cli_put_bool(cli_rows *t, const char *key, int v)
{
    put(t, key, 0, "%s", v ? "true" : "false");
}

void cli_put_null(cli_rows *t, const char *key) { put(t, key, 0, "null"); }

void cli_put_device(cli_rows *t, const char *key,
                    const clconv_device_info *dev)
{
    put(t, key, 1, "%u:%u %s", dev->platform_index, dev->device_index,
        dev->name);
}

void cli_put_size(cli_rows *t, const char *key, const clconv_problem *p)
{
    char size[64];
    cli_format_size(p->size, p->dims, size, sizeof size);
    put(t, key, 1, "%s", size);
}

/* ---- reading rows ---------------------------------------------------------- */

size_t cli_rows_count(const cli_rows *t) { return t->n; }

int cli_rows_oom(const cli_rows *t) { return t->oom; }

static const cli_field *field_of(const cli_row *r, const char *key)
{
    for (size_t k = 0; k < r->n; ++k)
        if (strcmp(r->fields[k].key, key) == 0)
            return &r->fields[k];
    return NULL;
}

const char *cli_rows_get(const cli_rows *t, size_t row, const char *key,
                         int *is_string)
{
    const cli_field *v = row < t->n ? field_of(&t->rows[row], key) : NULL;
    if (!v || (!v->is_string && strcmp(v->text, "null") == 0))
        return NULL;
    if (is_string)
        *is_string = v->is_string;
    return v->text;
}

/* ---- JSON ------------------------------------------------------------------ */

/* The length of key's object prefix ("default" of "default.ms"), 0 if
 * the key is not nested. */
static size_t prefix_len(const char *key)
{
    const char *dot = strchr(key, '.');
    return dot ? (size_t)(dot - key) : 0;
}

static int same_prefix(const cli_field *a, const cli_field *b)
{
    size_t n = prefix_len(a->key);
    return n && n == prefix_len(b->key) && strncmp(a->key, b->key, n) == 0;
}

static void json_value(FILE *f, const cli_field *v)
{
    if (v->is_string)
        clconv_json_string(f, v->text);
    else
        fputs(v->text, f);
}

static void json_row(FILE *f, const cli_row *r)
{
    fputs("  {", f);
    for (size_t k = 0; k < r->n; ++k) {
        const cli_field *v = &r->fields[k];
        const size_t n = prefix_len(v->key);
        const int open = n && !(k > 0 && same_prefix(&r->fields[k - 1], v));
        fputs(k == 0 ? "" : ", ", f);
        if (open)
            fprintf(f, "\"%.*s\": {", (int)n, v->key);
        fprintf(f, "\"%s\": ", n ? v->key + n + 1 : v->key);
        json_value(f, v);
        if (n && !(k + 1 < r->n && same_prefix(v, &r->fields[k + 1])))
            fputc('}', f);
    }
    fputc('}', f);
}

int cli_rows_json(const void *rows, FILE *f)
{
    const cli_rows *t = rows;
    fputs("[\n", f);
    for (size_t r = 0; r < t->n; ++r) {
        json_row(f, &t->rows[r]);
        fputs(r + 1 < t->n ? ",\n" : "\n", f);
    }
    fputs("]\n", f);
    return ferror(f) ? -1 : 0;
}

/* ---- CSV ------------------------------------------------------------------- */

static long key_index(const char **keys, size_t n, const char *key)
{
    for (size_t k = 0; k < n; ++k)
        if (strcmp(keys[k], key) == 0)
            return (long)k;
    return -1;
}

/* Every key of every row, each new one after the key that precedes it in
 * its row (so optional fields sit where the rows put them). NULL when out
 * of memory; the count in *n. */
static const char **header_of(const cli_rows *t, size_t *n)
{
    size_t cap = 1;
    for (size_t r = 0; r < t->n; ++r)
        cap += t->rows[r].n;
    const char **keys = calloc(cap, sizeof *keys);
    *n = 0;
    for (size_t r = 0; keys && r < t->n; ++r) {
        long after = -1;
        for (size_t k = 0; k < t->rows[r].n; ++k) {
            const char *key = t->rows[r].fields[k].key;
            long at = key_index(keys, *n, key);
            if (at < 0) {
                at = after + 1;
                memmove(&keys[at + 1], &keys[at],
                        (*n - (size_t)at) * sizeof *keys);
                keys[at] = key;
                ++*n;
            }
            after = at;
        }
    }
    return keys;
}

int cli_rows_csv(const void *rows, FILE *f)
{
    const cli_rows *t = rows;
    size_t nkeys = 0;
    const char **keys = header_of(t, &nkeys);
    if (!keys)
        return -1;
    for (size_t k = 0; k < nkeys; ++k)
        fprintf(f, "%s%s", k ? "," : "", keys[k]);
    fputc('\n', f);
    for (size_t r = 0; r < t->n; ++r) {
        for (size_t k = 0; k < nkeys; ++k) {
            const cli_field *v = field_of(&t->rows[r], keys[k]);
            fputs(k ? "," : "", f);
            if (v && v->is_string)
                clconv_csv_string(f, v->text);
            else if (v && strcmp(v->text, "null") != 0)
                fputs(v->text, f);
        }
        fputc('\n', f);
    }
    free(keys);
    return ferror(f) ? -1 : 0;
}

/* ---- where the output goes --------------------------------------------------- */

int cli_parse_output_option(int argc, char **argv, int *i, int file_required,
                            cli_outputs *o)
{
    static const char *const names[2] = {"--json", "--csv"};
    for (int k = 0; k < 2; ++k) {
        const char *a = argv[*i], *v = NULL;
        const size_t n = strlen(names[k]);
        if (strncmp(a, names[k], n) != 0 || (a[n] != '\0' && a[n] != '='))
            continue;
        if (a[n] == '=' || file_required) {
            if (cli_opt_value(argc, argv, i, names[k], &v) < 0)
                return -1;
        } else if (*i + 1 < argc && (strcmp(argv[*i + 1], "-") == 0 ||
                                     argv[*i + 1][0] != '-')) {
            v = argv[++*i];
        } else {
            v = "-";
        }
        if (!*v) {
            cli_error("%s: empty file name (use - for stdout)", names[k]);
            return -1;
        }
        *(k ? &o->csv : &o->json) = v;
        return 1;
    }
    return 0;
}

int cli_is_stdout(const char *path)
{
    struct stat a, b;
    return path && (strcmp(path, "-") == 0 ||
                    (stat(path, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 &&
                     a.st_dev == b.st_dev && a.st_ino == b.st_ino));
}

int cli_outputs_check(const cli_outputs *o)
{
    if (!o->json || !o->csv)
        return 0;
    /* /dev/stdout is "-": the two would be mixed in one stream (or, stdout
     * a file, the second rename drop the first report) */
    if (cli_is_stdout(o->json) && cli_is_stdout(o->csv)) {
        cli_error("--json and --csv cannot both go to stdout: give one a "
                  "FILE");
        return -1;
    }
    /* one file would keep the second report only, one FIFO mix them; a
     * device (/dev/null) takes both */
    struct stat st;
    const int device = stat(o->json, &st) == 0 &&
                       (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode));
    if (!device &&
        (strcmp(o->json, o->csv) == 0 || clconv_output_same(o->json, o->csv))) {
        cli_error("--json '%s' and --csv '%s' name the same file: give "
                  "each its own",
                  o->json, o->csv);
        return -1;
    }
    return 0;
}

int cli_outputs_writable(const cli_outputs *o)
{
    const char *files[2] = {o->json, o->csv};
    for (int k = 0; k < 2; ++k)
        if (files[k] && clconv_output_check(files[k]) != CLCONV_OK) {
            cli_error("%s", clconv_last_error());
            return CLI_EXIT_UNSUPPORTED;
        }
    return CLI_EXIT_OK;
}

int cli_outputs_text(const cli_outputs *o)
{
    return !cli_is_stdout(o->json) && !cli_is_stdout(o->csv);
}

int cli_write_output(const char *path,
                     int (*render)(const void *ctx, FILE *f), const void *ctx)
{
    /* Rendered in memory, then through clconv's output files: a regular
     * file is replaced atomically (the old one stays on any error), a
     * FIFO, device or - is written through, write errors are said. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int bad = !f || render(ctx, f);
    if (f && fclose(f))
        bad = 1;
    clconv_status st = bad ? CLCONV_ENOMEM : clconv_file_write(path, buf, len);
    free(buf);
    if (bad)
        cli_error("%s: cannot render the output", path);
    else if (st != CLCONV_OK)
        cli_error("%s", clconv_last_error());
    return st == CLCONV_OK ? 0 : -1;
}

int cli_rows_emit(const cli_rows *t, const cli_outputs *outs)
{
    if (t->oom) {
        cli_error("out of memory");
        return -1;
    }
    int rc = 0;
    if (outs->json && cli_write_output(outs->json, cli_rows_json, t))
        rc = -1;
    if (outs->csv && cli_write_output(outs->csv, cli_rows_csv, t))
        rc = -1;
    return rc;
}

int cli_emit(const cli_outputs *outs, const void *items, size_t n,
             void (*put_row)(cli_rows *t, const void *items, size_t i))
{
    if (!outs->json && !outs->csv)
        return 0;
    return cli_emit_table(outs, NULL, 0, items, n, put_row);
}
