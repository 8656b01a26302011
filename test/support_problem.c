/* Test helpers: the problem builder. */
#include <string.h>

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
