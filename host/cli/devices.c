/* `clconv devices`: one line per device, or its fields as JSON or CSV. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

void cli_devices_usage(FILE *f)
{
    fputs("usage: clconv devices [--json [FILE]] [--csv [FILE]]\n"
          "List every OpenCL device of every platform, one line each:\n"
          "its P:D index (for --device), name, type, OpenCL version, compute\n"
          "units, max work-group size, local, constant and global memory.\n"
          "  --json [FILE]   every device as a JSON array (sizes in bytes): on\n"
          "                  stdout instead of the lines (no FILE, or -), or\n"
          "                  written to FILE atomically\n"
          "  --csv [FILE]    the same fields as CSV with a header\n",
          f);
}

/* A size in bytes as KiB, MiB or GiB. */
static void mib(const char *text, char *buf, size_t len)
{
    const double bytes = strtod(text, NULL);
    if (bytes >= 1024.0 * 1024.0 * 1024.0)
        snprintf(buf, len, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    else if (bytes >= 1024.0 * 1024.0)
        snprintf(buf, len, "%.1f MiB", bytes / (1024.0 * 1024.0));
    else
        snprintf(buf, len, "%.0f KiB", bytes / 1024.0);
}

/* The lines: columns of the rows --json and --csv write, as wide as their
 * longest entry (names and versions are never cut). */
static const cli_column columns[] = {
    {"id", "P:D", NULL, NULL},
    {"name", "name", NULL, NULL},
    {"type", "type", NULL, NULL},
    {"opencl_version", "OpenCL", NULL, NULL},
    {"compute_units", "CUs", NULL, NULL},
    {"max_work_group_size", "maxWG", NULL, NULL},
    {"local_mem_bytes", "local", NULL, mib},
    {"constant_mem_bytes", "constant", NULL, mib},
    {"global_mem_bytes", "global", NULL, mib},
};

/* The fields of device i for --json and --csv. */
static void put_fields(cli_rows *t, const void *devices, size_t i)
{
    const clconv_device_info *d = &((const clconv_device_info *)devices)[i];
    char idx[16];
    snprintf(idx, sizeof idx, "%u:%u", d->platform_index, d->device_index);
    cli_row_begin(t);
    cli_put_str(t, "id", idx);
    cli_put_str(t, "name", d->name);
    cli_put_str(t, "vendor", d->vendor);
    cli_put_str(t, "platform", d->platform);
    cli_put_str(t, "type", clconv_device_kind_name(d->kind));
    cli_put_str(t, "opencl_version", d->version);
    cli_put_str(t, "driver", d->driver);
    cli_put_int(t, "compute_units", d->compute_units);
    cli_put_int(t, "clock_mhz", d->clock_mhz);
    cli_put_int(t, "max_work_group_size", (long long)d->max_work_group_size);
    cli_put_int(t, "local_mem_bytes", (long long)d->local_mem_bytes);
    cli_put_int(t, "constant_mem_bytes", (long long)d->constant_mem_bytes);
    cli_put_int(t, "global_mem_bytes", (long long)d->global_mem_bytes);
    cli_put_int(t, "max_alloc_bytes", (long long)d->max_alloc_bytes);
}

int cli_devices_main(int argc, char **argv)
{
    cli_outputs out = {NULL, NULL};
    for (int i = 1; i < argc; ++i) {
        int r = cli_parse_output_option(argc, argv, &i, 0, &out);
        if (r < 0)
            return CLI_EXIT_USAGE;
        if (r == 0) {
            cli_error("devices: unexpected argument '%s' (see clconv devices "
                      "--help)",
                      argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (cli_outputs_check(&out))
        return CLI_EXIT_USAGE;
    if (cli_outputs_writable(&out) != CLI_EXIT_OK)
        return CLI_EXIT_UNSUPPORTED;
    cli_devices devs;
    int code = cli_devices_open(&devs, NULL, 0);
    if (code != CLI_EXIT_OK)
        return code;
    if (cli_emit_table(&out, columns, sizeof columns / sizeof *columns,
                       devs.list.devices, devs.list.count, put_fields))
        code = CLI_EXIT_UNSUPPORTED;
    cli_devices_close(&devs);
    return code;
}
