/* The session's cache of plans for host-to-host calls: a few plans keyed
 * by the whole problem (and, for a baked mask, by the mask), reused across
 * calls so a repeated call pays neither a build nor buffer allocation.
 * Least recently used goes first. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CLC_PLAN_CACHE_SIZE 6

typedef struct entry {
    clconv_problem key;
    float *mask; /* the mask the plan holds (baked) or last uploaded */
    size_t m;
    clconv_plan *plan;
    unsigned long used;
} entry;

struct clc_plan_cache {
    entry e[CLC_PLAN_CACHE_SIZE];
    unsigned long clock;
};

clc_plan_cache *clc_plan_cache_new(void)
{
    return calloc(1, sizeof(clc_plan_cache));
}

static void drop(entry *e)
{
    clconv_plan_destroy(e->plan);
    free(e->mask);
    memset(e, 0, sizeof *e);
}

void clc_plan_cache_free(clc_plan_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < CLC_PLAN_CACHE_SIZE; ++i)
        drop(&c->e[i]);
    free(c);
}

/* Problems compare as bytes, copied from zeroed keys: equal bytes are
 * equal problems; differing padding only costs a miss. */
static void key_of(const clconv_problem *p, clconv_problem *k)
{
    memset(k, 0, sizeof *k);
    memcpy(k, p, sizeof *k);
}

clconv_status clc_plan_cache_get(clconv_session *s, const clconv_problem *p,
                                 const float *mask, clconv_plan **out)
{
    clc_plan_cache *c = s->plans;
    clconv_problem k;
    key_of(p, &k);
    const size_t m = clconv_problem_mask_elements(p);
    entry *victim = &c->e[0];
    for (int i = 0; i < CLC_PLAN_CACHE_SIZE; ++i) {
        entry *e = &c->e[i];
        if (e->plan && memcmp(&e->key, &k, sizeof k) == 0 && e->m == m) {
            if (memcmp(e->mask, mask, m * sizeof *mask) != 0) {
                /* A baked plan refuses another mask: then build anew. */
                if (clconv_plan_set_mask(e->plan, mask) != CLCONV_OK) {
                    drop(e);
                    victim = e;
                    break;
                }
                memcpy(e->mask, mask, m * sizeof *mask);
            }
            e->used = ++c->clock;
            *out = e->plan;
            return CLCONV_OK;
        }
        if (!e->plan || (victim->plan && e->used < victim->used))
            victim = e;
    }
    drop(victim);
    victim->mask = malloc(m * sizeof *mask);
    if (!victim->mask)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    clconv_status st = clconv_plan_create_with_mask(s, p, mask, &victim->plan);
    if (st != CLCONV_OK) {
        drop(victim);
        return st;
    }
    memcpy(victim->mask, mask, m * sizeof *mask);
    victim->m = m;
    victim->key = k;
    victim->used = ++c->clock;
    *out = victim->plan;
    return CLCONV_OK;
}
