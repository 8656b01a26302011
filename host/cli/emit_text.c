/* The row emitter's text tables: the rows of a command (the same rows its
 * --json and --csv write) as aligned columns, each column described once
 * by the command (cli_column). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The text of row r's cell in column c: "-" when the row has no such
 * field or it is null. *right: a number (right-aligned). */
static void cell_of(const cli_rows *t, size_t r, const cli_column *c,
                    char *buf, size_t len, int *right)
{
    int is_string = 0;
    const char *v = cli_rows_get(t, r, c->key, &is_string);
    *right = 0;
    if (!v) {
        snprintf(buf, len, "-");
        return;
    }
    *right = !is_string && strcmp(v, "true") != 0 && strcmp(v, "false") != 0;
    if (c->show)
        c->show(v, buf, len);
    else if (c->fmt && !is_string)
        snprintf(buf, len, c->fmt, strtod(v, NULL));
    else
        snprintf(buf, len, "%s", v);
}

/* Each column as wide as its title and its widest cell; right-aligned
 * when it holds numbers. */
static void measure(const cli_rows *t, const cli_column *cols, size_t ncols,
                    int *width, int *right)
{
    char cell[512];
    for (size_t c = 0; c < ncols; ++c) {
        width[c] = (int)strlen(cols[c].title);
        right[c] = 0;
        for (size_t r = 0; r < cli_rows_count(t); ++r) {
            int num = 0;
            cell_of(t, r, &cols[c], cell, sizeof cell, &num);
            const int w = (int)strlen(cell);
            width[c] = w > width[c] ? w : width[c];
            right[c] |= num;
        }
    }
}

/* One line: cells separated by two spaces, the last one not padded. */
static void line(FILE *f, const char *const *cells, const int *width,
                 const int *right, size_t ncols)
{
    for (size_t c = 0; c < ncols; ++c) {
        const int last = c + 1 == ncols;
        fputs(c ? "  " : "", f);
        if (right[c])
            fprintf(f, "%*s", width[c], cells[c]);
        else
            fprintf(f, "%-*s", last ? 0 : width[c], cells[c]);
    }
    fputc('\n', f);
}

int cli_rows_text(const cli_rows *t, const cli_column *cols, size_t ncols,
                  FILE *f)
{
    int *width = calloc(ncols + 1, sizeof *width);
    int *right = calloc(ncols + 1, sizeof *right);
    const char **cells = calloc(ncols + 1, sizeof *cells);
    char *buf = malloc((ncols + 1) * 512);
    int rc = -1;
    if (!width || !right || !cells || !buf || cli_rows_oom(t))
        goto out;
    measure(t, cols, ncols, width, right);
    for (size_t c = 0; c < ncols; ++c)
        cells[c] = cols[c].title;
    line(f, cells, width, right, ncols);
    cli_stdout_note();
    for (size_t r = 0; r < cli_rows_count(t); ++r) {
        for (size_t c = 0; c < ncols; ++c) {
            int num = 0;
            cell_of(t, r, &cols[c], buf + c * 512, 512, &num);
            cells[c] = buf + c * 512;
        }
        line(f, cells, width, right, ncols);
        cli_stdout_note();
    }
    rc = ferror(f) ? -1 : 0;
out:
    if (rc && !ferror(f))
        cli_error("out of memory");
    free(buf);
    free(cells);
    free(right);
    free(width);
    return rc;
}

int cli_emit_table(const cli_outputs *outs, const cli_column *cols,
                   size_t ncols, const void *items, size_t n,
                   void (*put_row)(cli_rows *t, const void *items, size_t i))
{
    const int text = ncols && cli_outputs_text(outs);
    cli_rows *t = cli_rows_new();
    if (!t) {
        cli_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; ++i)
        put_row(t, items, i);
    int rc = text && !cli_rows_oom(t) ? cli_rows_text(t, cols, ncols, stdout)
                                          : 0;
    if (cli_rows_emit(t, outs))
        rc = -1;
    cli_rows_free(t);
    return rc;
}
