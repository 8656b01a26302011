/* `clconv COMMAND ...`: the table of commands and the dispatcher. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const cli_command commands[] = {
    {"devices", "list every OpenCL device with its limits", cli_devices_main,
     cli_devices_usage},
    {"run", "verify and time tiling variants on devices", cli_run_main,
     cli_run_usage},
    {"bench", "ceilings, standard problems, side-by-side report", cli_bench_main,
     cli_bench_usage},
    {"model", "the notes' tiling analysis for any case", cli_model_main,
     cli_model_usage},
    {"apply", "convolve a .npy array or a PNG/PGM/PPM image", cli_apply_main,
     cli_apply_usage},
    {"tune", "search the best variant per device, store it for auto", cli_tune_main,
     cli_tune_usage},
};
static const size_t ncommands = sizeof commands / sizeof commands[0];

static void usage(FILE *f)
{
    fprintf(f, "clconv %s: tiled convolution in OpenCL C on any device\n"
               "usage: clconv COMMAND [options]   (clconv COMMAND --help,\n"
               "                                   or clconv help COMMAND)\n"
               "       clconv --version\n",
            CLCONV_VERSION_STRING);
    for (size_t i = 0; i < ncommands; ++i)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fputs("exit codes: 0 ok, 1 verification failed, 2 usage error,\n"
          "            3 unsupported on the device or OpenCL error\n",
          f);
}

/* The command named name, or NULL (said on stderr). */
static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < ncommands; ++i)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    cli_error("unknown command '%s' (see clconv --help)", name);
    return NULL;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const int help = strcmp(argv[1], "help") == 0;
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        (help && argc == 2)) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("clconv %s\n", CLCONV_VERSION_STRING);
        return CLI_EXIT_OK;
    }
    /* clconv help COMMAND: clconv COMMAND --help (it printed clconv's
     * own usage, whatever COMMAND was) */
    const cli_command *c = find_command(argv[1 + help]);
    if (!c)
        return CLI_EXIT_USAGE;
    if (help && argc > 3) {
        cli_error("help: one command (got '%s' after '%s')", argv[3],
                  argv[2]);
        return CLI_EXIT_USAGE;
    }
    if (help || cli_wants_help(argc - 1, argv + 1)) {
        c->usage(stdout);
        cli_stdout_note();
        return CLI_EXIT_OK;
    }
    return c->main(argc - 1, argv + 1);
}

/* The errno of the first failed write on stdout that cli_stdout_note saw
 * (0: none seen). */
static int stdout_errno;

void cli_stdout_note(void)
{
    if (!stdout_errno && ferror(stdout))
        stdout_errno = errno;
}

int cli_flush_stdout(int code)
{
    /* What stdio still holds goes out now, and a write that failed at any
     * point (stdout /dev/full, a full disk, closed) is said, as coreutils
     * say it: the text a command printed is its output too (it was exit 0
     * with the table, summary or help lost). A write that failed before
     * (output beyond stdio's buffer) left nothing to flush, so its reason
     * is the one noted then. */
    errno = 0;
    const int flushed = fflush(stdout) == 0;
    const int e = errno ? errno : stdout_errno;
    if (!flushed || ferror(stdout)) {
        cli_error("write error on standard output%s%s", e ? ": " : "",
                  e ? strerror(e) : "");
        if (code == CLI_EXIT_OK)
            code = CLI_EXIT_UNSUPPORTED;
    }
    return code;
}

int cli_std_fds_open(void)
{
    /* A descriptor of 0..2 that is closed would be the next file opened:
     * `apply img.pgm - --float f.npy >&-` wrote OUT '-' into F's
     * temporary file on descriptor 1 (exit 0, a PGM inside the .npy).
     * Opened the wrong way round, as gnulib's stdopen does, a read of
     * stdin or a write of stdout and stderr still fails (EBADF) as on the
     * closed descriptor. */
    for (int fd = 0; fd <= 2; ++fd) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        const int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (got != fd) { /* the lowest free descriptor is fd */
            if (got >= 0)
                close(got);
            return -1;
        }
    }
    return 0;
}

int cli_main(int argc, char **argv)
{
    return cli_flush_stdout(dispatch(argc, argv));
}
