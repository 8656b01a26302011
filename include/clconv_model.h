/* clconv model: the tiling analysis of the reference notes, computed for
 * any case. Pure arithmetic: no OpenCL, no allocation, no printing.
 *
 * The counting follows the notes (002_*.txt, "Tiled Convolution
 * Analysis"):
 *   - accesses: the reads of N that an untiled kernel issues for a tile's
 *     outputs, one per mask element whose input lies inside N (ghost cells
 *     are not read, so boundary tiles have fewer: 37 instead of 40);
 *   - global loads: the loads of N the strategy really issues (the input
 *     tile's elements inside N for output_tile and input_tile; the core and
 *     the halo reads for cached_halo; every access for naive);
 *   - reduction: accesses / global loads.
 * Every count is separable per dimension, so a boundary tile of a 2D or
 * 3D grid is the product of its 1D factors (the notes' 2D exercise:
 * 77 x 77 accesses over 18 x 18 loads). */
#ifndef CLCONV_MODEL_H
#define CLCONV_MODEL_H

#include <stddef.h>

#include "clconv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bandwidth reduction of an interior tile in the notes' counting (input
 * tiles hold the output tile plus the halo):
 *   (TILE * MASK)^dims / (TILE + MASK - 1)^dims
 * the global accesses of an untiled kernel over the loads of one tile. */
double clconv_model_interior_reduction(int dims, int tile, int mask_width);

/* The model covers the notes' four strategies (naive, output_tile,
 * input_tile, cached_halo); 0 for any other (its functions then return
 * CLCONV_EUNSUPPORTED). */
int clconv_model_has_strategy(clconv_strategy s);

/* The counts of one tile (or of a sum of tiles): 64-bit unsigned; a
 * problem whose counts overflow them is refused (CLCONV_EINVAL). */
typedef struct clconv_model_counts {
    unsigned long long tiles;      /* work-groups counted */
    unsigned long long outputs;    /* outputs computed (inside P) */
    unsigned long long accesses;   /* reads of N an untiled kernel would
                                      issue */
    unsigned long long tile_loads; /* loads of N into the local tile */
    unsigned long long halo_loads; /* cached_halo: halo reads of N from
                                      global */
    unsigned long long global_loads; /* every load of N issued: tile + halo
                                        (naive: accesses) */
    unsigned long long ghost_cells;  /* input-tile elements outside N: set
                                        to 0, not loaded (output_tile,
                                        input_tile) */
    unsigned long long local_reads;  /* reads of the local tile while
                                        computing */
    double reduction;                /* accesses / global_loads */
} clconv_model_counts;

/* An interior tile: counts, work-group shape and warps. */
typedef struct clconv_model_interior {
    clconv_model_counts counts;
    long long group_size;      /* work-items per work-group */
    long long computing_items; /* work-items that compute an output */
    long long local_bytes;     /* __local memory of the tile (4 B floats) */
    long long max_loads_per_item; /* most tile loads one work-item issues */
    int warp_width;
    long long warps;           /* ceil(group_size / warp_width) */
    long long active_warps;    /* warps with a work-item that computes */
    long long idle_warps;      /* warps in which no work-item computes */
    long long divergent_warps; /* active warps with idle work-items */
    long long active_items_per_warp_max; /* most computing items of a warp */
} clconv_model_interior;

/* Work-items are numbered x fastest (then y, then z) and cut into warps of
 * warp_width consecutive ones, as on NVIDIA hardware. p->size is unused.
 * CLCONV_EINVAL for dims outside 1..3, an even mask, tile < 1 or
 * warp_width < 1. */
clconv_status clconv_model_interior_of(const clconv_problem *p, int warp_width,
                                       clconv_model_interior *out);

/* The number of tiles (work-groups) per dimension of p's grid; unused
 * dimensions get 1 (all of them for p NULL). */
void clconv_model_grid(const clconv_problem *p, size_t tiles[3]);

/* One tile of p's grid: block[d] is its index per dimension (unused
 * dimensions 0). CLCONV_EINVAL if the block is outside the grid. */
clconv_status clconv_model_block(const clconv_problem *p, const size_t block[3],
                                 clconv_model_counts *out);

/* The whole problem: the sums over every tile of the grid, in closed form
 * (the interior tiles of a dimension as one class, the tiles whose halo is
 * clipped one by one), so any size answers at once. Sizes 1..2^40 per
 * dimension, masks up to 2^20 wide; CLCONV_EINVAL when a count overflows
 * 64 bits. */
clconv_status clconv_model_problem(const clconv_problem *p,
                                   clconv_model_counts *out);

/* Tiles of the grid that have the same counts, grouped: one kind per
 * distinct combination of per-dimension positions (first tiles, interior,
 * last tiles). kinds[k].first is the lowest block index of that kind,
 * kinds[k].counts.tiles how many tiles it has. More than cap kinds is
 * CLCONV_EUNSUPPORTED (*nkinds still gets the number needed). */
typedef struct clconv_model_kind {
    size_t first[3];
    clconv_model_counts counts; /* of one tile; counts.tiles = multiplicity */
} clconv_model_kind;

clconv_status clconv_model_tile_kinds(const clconv_problem *p,
                                      clconv_model_kind *kinds, size_t cap,
                                      size_t *nkinds);

/* ---- counted loads: the instrumented kernels -------------------------- */

/* What an instrumented kernel counted in its last execute. */
typedef struct clconv_load_counts {
    long long global_loads; /* loads of N from global memory */
    long long local_reads;  /* reads of the local tile */
} clconv_load_counts;

/* Like clconv_plan_create_with_mask (mask may be NULL: set it later), with
 * the kernel built with -D CLCONV_COUNT_LOADS: each execute counts its
 * global loads of N and its local-tile reads in 32-bit counters. Such a
 * plan is for checking the model, not for timing. */
clconv_status clconv_plan_create_counting(clconv_session *s,
                                          const clconv_problem *p,
                                          const float *mask,
                                          clconv_plan **out);
/* The counts of the plan's last execute; CLCONV_EINVAL for a plan not made
 * by clconv_plan_create_counting. */
clconv_status clconv_plan_counters(clconv_plan *plan, clconv_load_counts *out);

/* ---- bytes per FLOP and percent of peak (the notes' last tables) ------- */

/* An untiled convolution reads 4 B of N per mask element and does 2 FLOP
 * with it (one multiply, one add): 2 B/FLOP. A reduction R divides that. */
#define CLCONV_MODEL_BYTES_PER_ACCESS 4.0
#define CLCONV_MODEL_FLOPS_PER_ACCESS 2.0

typedef struct clconv_model_roof {
    double bytes_per_flop;   /* 2 / reduction */
    double bandwidth_gflops; /* bandwidth / bytes_per_flop */
    double percent_of_peak;  /* 100 * bandwidth_gflops / peak, uncapped */
    double reachable_percent; /* min(100, percent_of_peak) */
} clconv_model_roof;

/* With reduction 1 this is the untiled kernel (the notes' 7.50 % of a
 * 1000 GFLOP/s, 150 GB/s GPU). */
void clconv_model_roof_of(double reduction, double peak_gflops,
                          double bandwidth_gbs, clconv_model_roof *out);

/* The reuse an untiled kernel needs to reach the peak: 100 / its percent
 * of peak (the notes' 13.3x and 52.1x). */
double clconv_model_reuse_needed(double peak_gflops, double bandwidth_gbs);

#ifdef __cplusplus
}
#endif

#endif /* CLCONV_MODEL_H */
