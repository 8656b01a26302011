/* `clconv devices`: one line per device. */
#include <stdio.h>

#include "cli.h"

static void usage(FILE *f)
{
    fputs("usage: clconv devices [--help]\n"
          "List every OpenCL device of every platform, one line each:\n"
          "its P:D index (for --device), name, type, OpenCL version, compute\n"
          "units, max work-group size, local, constant and global memory.\n",
          f);
}

static void mib(char *buf, size_t len, uint64_t bytes)
{
    if (bytes >= (1ULL << 30))
        snprintf(buf, len, "%.1f GiB", (double)bytes / (1ULL << 30));
    else if (bytes >= (1ULL << 20))
        snprintf(buf, len, "%.1f MiB", (double)bytes / (1ULL << 20));
    else
        snprintf(buf, len, "%.0f KiB", (double)bytes / 1024.0);
}

int cli_devices_main(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (argc > 1) {
        cli_error("devices: unexpected argument '%s' (see clconv devices "
                  "--help)",
                  argv[1]);
        return CLI_EXIT_USAGE;
    }
    clconv_device_list list;
    clconv_status st = clconv_devices_discover(&list);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return cli_exit_code(st);
    }
    printf("%-5s %-44s %-4s %-22s %4s %6s %10s %10s %10s\n", "P:D", "name",
           "type", "OpenCL", "CUs", "maxWG", "local", "constant", "global");
    for (size_t i = 0; i < list.count; ++i) {
        const clconv_device_info *d = &list.devices[i];
        char idx[16], l[32], c[32], g[32];
        snprintf(idx, sizeof idx, "%u:%u", d->platform_index, d->device_index);
        mib(l, sizeof l, d->local_mem_bytes);
        mib(c, sizeof c, d->constant_mem_bytes);
        mib(g, sizeof g, d->global_mem_bytes);
        printf("%-5s %-44.44s %-4s %-22.22s %4u %6zu %10s %10s %10s\n", idx,
               d->name, clconv_device_kind_name(d->kind), d->version,
               d->compute_units, d->max_work_group_size, l, c, g);
    }
    clconv_devices_free(&list);
    return CLI_EXIT_OK;
}
