/* Shared by model.c, model_dim.c and model_interior.c (internal, like
 * internal.h). */
#ifndef CLCONV_LIB_MODEL_H
#define CLCONV_LIB_MODEL_H

#include <stddef.h>

#include "clconv_model.h"

/* ---- model_dim.c: one dimension's factors ---- */

/* The mask along one axis: its width, the taps left and right of the
 * output (output i reads i - left .. i + right: clconv_problem_left), and
 * the border mode (constant: taps outside the input are not read; the
 * others read a folded element). */
typedef struct dim_mask {
    long long w, left, right;
    clconv_border border;
} dim_mask;

/* Counts are 64-bit unsigned; every sum and product is checked. */
typedef unsigned long long count_t;

/* The 1D factors of a tile, or their sum over tiles of one dimension. */
typedef struct dim_factors {
    count_t tiles;
    count_t outputs;  /* outputs inside N */
    count_t accesses; /* taps inside N of those outputs */
    count_t in_loads; /* input-tile elements inside N */
    count_t in_width; /* input-tile elements, inside N or not */
    count_t core;     /* taps inside the tile's own (core) elements */
} dim_factors;

/* The tiles of one dimension in order, as runs of equal factors: every
 * tile whose halo is clipped (or that is partial) alone, and the interior
 * tiles, b*t >= left and b*t + t + right <= n, as one run. There are at
 * most about (left + right)/t + 3 clipped tiles, so a walk costs that,
 * whatever n is. */
typedef struct dim_walk {
    long long n, t, tiles, lo, hi, b;
    dim_mask m;
} dim_walk;

typedef struct dim_run {
    size_t first;
    count_t count;
    dim_factors f;
} dim_run;

dim_mask clc_dim_mask_of(const clconv_problem *p, int d);
/* acc += x, acc *= x; -1 on overflow (acc then undefined). */
int clc_count_add(count_t *acc, count_t x);
int clc_count_mul(count_t *acc, count_t x);
/* sum += times * f, field by field; -1 on overflow. */
int clc_dim_add_factors(dim_factors *sum, const dim_factors *f,
                        count_t times);
/* Tile b of a dimension of n elements (tile width t). */
void clc_dim_block_factors(long long n, long long t, const dim_mask *m,
                           long long b, dim_factors *f);
/* An interior tile: no ghost cell, the whole tile inside N. */
void clc_dim_interior_factors(long long t, const dim_mask *m, dim_factors *f);
void clc_dim_walk_start(dim_walk *it, long long n, long long t,
                        const dim_mask *m);
/* The next run of tiles; 0 past the last. */
int clc_dim_walk_next(dim_walk *it, dim_run *run);

/* The counts of an interior tile (no ghost cells); CLCONV_EINVAL for a
 * bad case or counts that overflow 64 bits. */
clconv_status clc_model_interior_counts(const clconv_problem *p,
                                        clconv_model_counts *out);

#endif
