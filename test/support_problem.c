/* Test helpers: the problem builder and the random cases' seeds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support.h"

clconv_problem support_problem(int dims, size_t nx, size_t ny, size_t nz,
                               int mask, int tile, clconv_strategy s)
{
    clconv_problem p;
    memset(&p, 0, sizeof p);
    p.dims = dims;
    p.size[0] = nx;
    p.size[1] = ny;
    p.size[2] = nz;
    p.mask_width = mask;
    p.tile = tile;
    p.strategy = s;
    return p;
}

/* Any fixed value does; this one spells "mask". */
static uint64_t mask_seed = 0x6d61736bULL;

static uint64_t env_seed(const char *name, uint64_t otherwise)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 10) : otherwise;
}

uint64_t support_seeds(const char *what)
{
    const uint64_t seed = env_seed("CLCONV_SEED", (uint64_t)time(NULL));
    mask_seed = env_seed("CLCONV_MASK_SEED", mask_seed);
    printf("%s: seed %llu, mask seed %llu (repeat with CLCONV_SEED=%llu "
           "CLCONV_MASK_SEED=%llu)\n",
           what, (unsigned long long)seed, (unsigned long long)mask_seed,
           (unsigned long long)seed, (unsigned long long)mask_seed);
    return seed;
}

uint64_t support_mask_seed(void) { return mask_seed; }

clconv_status support_dataset(const clconv_problem *p, uint64_t seed,
                              clconv_dataset **out)
{
    return clconv_dataset_create_seeds(p, seed, mask_seed, out);
}
