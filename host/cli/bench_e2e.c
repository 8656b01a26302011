/* `clconv bench --end-to-end`: what users experience, host arrays in and
 * host arrays out. Per device: the transfer ceilings between pageable host
 * memory and the device, then per problem the wall time of whole
 * clconv_convolve_ex calls (verified once against the double reference),
 * against the transfer floor bytes in / host-to-device + bytes out /
 * device-to-host from pageable memory (GPUs; a CPU works on the caller's
 * memory and has none), and the same from pinned memory: the link's own
 * floor, which pinned staging can approach. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The problems of the end-to-end targets: 2D 1920x1080 and 8192x8192 with
 * masks 3, 5 and 9. */
static const clconv_bench_problem e2e_suite[] = {
    {2, {1920, 1080, 1}, 3}, {2, {1920, 1080, 1}, 5}, {2, {1920, 1080, 1}, 9},
    {2, {8192, 8192, 1}, 3}, {2, {8192, 8192, 1}, 5}, {2, {8192, 8192, 1}, 9},
};

typedef struct e2e_row {
    clconv_device_info dev;
    clconv_problem p;
    clconv_transfer xfer;
    clconv_status status;
    char reason[256];
    clconv_verdict verdict;
    clconv_timing t;
    clconv_call_info info;
    double floor_ms; /* transfers alone, pageable; 0 on zero-copy */
    double pinned_floor_ms; /* the same from pinned memory */
    int batch;              /* --batch N (0: one problem) */
} e2e_row;

static void put_row(cli_rows *t, const void *items, size_t i)
{
    const e2e_row *r = (const e2e_row *)items + i;
    cli_row_begin(t);
    cli_put_device(t, "device", &r->dev);
    cli_put_int(t, "dims", r->p.dims);
    cli_put_size(t, "size", &r->p);
    cli_put_int(t, "mask", r->p.mask_width);
    cli_put_str(t, "strategy", clconv_strategy_name(r->p.strategy));
    cli_put_int(t, "tile", r->p.tile);
    cli_put_filter(t, &r->p, r->batch);
    const int ok = r->status == CLCONV_OK && r->verdict.ok;
    cli_put_str(t, "status", r->status != CLCONV_OK ? "error"
                             : ok                  ? "ok"
                                                   : "FAIL");
    if (!ok && r->status != CLCONV_OK)
        cli_put_str(t, "reason", r->reason);
    cli_put_num(t, "max_err", "%.3g", r->verdict.max_err);
    cli_put_num(t, "ms", "%.4f", r->t.median_ms);
    cli_put_num(t, "min_ms", "%.4f", r->t.min_ms);
    cli_put_num(t, "max_ms", "%.4f", r->t.max_ms);
    cli_put_int(t, "reps", r->t.reps);
    cli_put_int(t, "slabs", (long long)r->info.slabs);
    cli_put_int(t, "devices", (long long)r->info.devices);
    cli_put_bool(t, "zero_copy", r->info.zero_copy);
    cli_put_bool(t, "pinned", r->info.pinned);
    cli_put_num(t, "h2d_gbs", "%.3f", r->xfer.h2d_gbs);
    cli_put_num(t, "d2h_gbs", "%.3f", r->xfer.d2h_gbs);
    if (r->floor_ms > 0) {
        cli_put_num(t, "floor_ms", "%.4f", r->floor_ms);
        cli_put_num(t, "ratio_to_floor", "%.3f", r->t.median_ms / r->floor_ms);
    }
    if (r->pinned_floor_ms > 0) {
        cli_put_num(t, "pinned_h2d_gbs", "%.3f", r->xfer.pinned_h2d_gbs);
        cli_put_num(t, "pinned_d2h_gbs", "%.3f", r->xfer.pinned_d2h_gbs);
        cli_put_num(t, "pinned_floor_ms", "%.4f", r->pinned_floor_ms);
    }
}

/* One problem on one device: verified once, then timed. */
static void run_one(const bench_options *o, clconv_session *s,
                    const clconv_dataset *data, e2e_row *r)
{
    const size_t n = clconv_problem_elements(&r->p);
    float *out = malloc(n * sizeof *out);
    r->status = out ? CLCONV_OK : CLCONV_ENOMEM;
    if (out) {
        for (size_t i = 0; i < n; ++i)
            out[i] = -1e30f; /* poison: a skipped element cannot pass */
        r->status = clconv_convolve_ex(s, &r->p, data->in, data->mask, out,
                                       &r->info);
    }
    if (r->status == CLCONV_OK) {
        clconv_verify(&r->p, out, data->ref, data->abs_sum, &r->verdict);
        if (r->verdict.ok)
            r->status = clconv_time_end_to_end(s, &r->p, data->in, data->mask,
                                               out, o->warmup, o->reps, &r->t,
                                               &r->info);
    }
    if (r->status != CLCONV_OK)
        snprintf(r->reason, sizeof r->reason, "%.*s",
                 (int)strcspn(clconv_last_error(), "\n"), clconv_last_error());
    const double bytes = (double)n * sizeof(float);
    if (!r->info.zero_copy && r->xfer.h2d_gbs > 0 && r->xfer.d2h_gbs > 0)
        r->floor_ms = bytes / (r->xfer.h2d_gbs * 1e6) +
                      bytes / (r->xfer.d2h_gbs * 1e6);
    if (!r->info.zero_copy && r->xfer.pinned_h2d_gbs > 0 &&
        r->xfer.pinned_d2h_gbs > 0)
        r->pinned_floor_ms = bytes / (r->xfer.pinned_h2d_gbs * 1e6) +
                             bytes / (r->xfer.pinned_d2h_gbs * 1e6);
    free(out);
}

static void print_row(const e2e_row *r)
{
    char size[64];
    cli_format_size(r->p.size, r->p.dims, size, sizeof size);
    char filter[160];
    cli_filter_describe(&r->p, 0, filter, sizeof filter);
    printf("%-34.34s %-7s W=%-3d%s %-8s %-5s", r->dev.name, size,
           r->p.mask_width, filter, clconv_strategy_name(r->p.strategy),
           r->status != CLCONV_OK ? "error" : r->verdict.ok ? "ok" : "FAIL");
    if (r->status != CLCONV_OK) {
        printf(" %s\n", r->reason);
        return;
    }
    printf(" %9.3f ms  slabs %zu%s", r->t.median_ms, r->info.slabs,
           r->info.zero_copy ? "  zero-copy" : r->info.pinned ? "  pinned" : "");
    if (r->floor_ms > 0)
        printf("  floor %.3f ms (x%.2f; H2D %.1f, D2H %.1f GB/s)", r->floor_ms,
               r->t.median_ms / r->floor_ms, r->xfer.h2d_gbs, r->xfer.d2h_gbs);
    if (r->pinned_floor_ms > 0)
        printf("  pinned floor %.3f ms (H2D %.1f, D2H %.1f GB/s)",
               r->pinned_floor_ms, r->xfer.pinned_h2d_gbs,
               r->xfer.pinned_d2h_gbs);
    printf("\n");
}

/* Every problem on every device; the rows are printed and emitted. */
int bench_end_to_end(const bench_options *o, const cli_devices *devs)
{
    const clconv_bench_problem *probs = e2e_suite;
    size_t np = sizeof e2e_suite / sizeof e2e_suite[0];
    clconv_bench_problem custom = {o->dims, {o->size[0], o->size[1],
                                             o->size[2]}, o->mask};
    if (o->dims) {
        probs = &custom;
        np = 1;
    }
    /* The filter (--mode, --cval, --origin, --convolve, --mask WxH,
     * --axes, --batch) applies to these calls as to the kernel rows (it
     * was parsed and left out: a 5x5 mask ran for --mask 5x3); checked
     * before any device works. */
    for (size_t k = 0; k < np; ++k) {
        clconv_problem shape;
        clconv_bench_shape(&probs[k], &shape);
        if (cli_filter_apply(&o->filter, 0, &shape))
            return CLI_EXIT_USAGE;
        if (clconv_problem_validate(&shape) != CLCONV_OK) {
            cli_error("bench: %s", clconv_last_error());
            return CLI_EXIT_USAGE;
        }
    }
    e2e_row *rows = calloc(np * devs->n, sizeof *rows);
    clconv_transfer *xfer = calloc(devs->n, sizeof *xfer);
    int code = rows && xfer ? CLI_EXIT_OK : CLI_EXIT_UNSUPPORTED;
    for (size_t d = 0; d < devs->n && code == CLI_EXIT_OK; ++d)
        if (clconv_measure_transfer(devs->sessions[d], (size_t)256 << 20,
                                    &xfer[d]) != CLCONV_OK)
            cli_error("%s: transfers not measured: %s", cli_device(devs, d)->name,
                      clconv_last_error());
    size_t nr = 0;
    for (size_t k = 0; k < np && code != CLI_EXIT_UNSUPPORTED; ++k) {
        clconv_problem shape;
        clconv_bench_shape(&probs[k], &shape);
        cli_filter_apply(&o->filter, 0, &shape); /* checked above */
        clconv_dataset *data = NULL;
        if (clconv_dataset_create(&shape, o->seed, &data) != CLCONV_OK) {
            cli_error("bench: %s", clconv_last_error());
            code = CLI_EXIT_UNSUPPORTED;
            break;
        }
        for (size_t d = 0; d < devs->n; ++d) {
            e2e_row *r = &rows[nr++];
            r->dev = *cli_device(devs, d);
            r->xfer = xfer[d];
            r->batch = o->filter.batch;
            r->p = shape;
            clconv_pick_default(&r->dev, &r->p);
            if (o->strategy >= 0) {
                r->p.strategy = (clconv_strategy)o->strategy;
                r->p.tile = clconv_default_tile_for(&r->dev, &r->p);
            }
            clconv_problem_apply_defaults(&r->dev, &r->p);
            run_one(o, devs->sessions[d], data, r);
            if (cli_outputs_text(&o->out))
                print_row(r);
            int c = r->status == CLCONV_OK ? (r->verdict.ok ? 0 : 1)
                                           : cli_exit_code(r->status);
            code = cli_merge_code(code, c);
        }
        clconv_dataset_destroy(data);
    }
    if (rows && cli_emit(&o->out, rows, nr, put_row))
        code = CLI_EXIT_UNSUPPORTED;
    free(rows);
    free(xfer);
    return code;
}
