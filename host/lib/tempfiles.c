/* The temporary files this process is writing, so that SIGINT, SIGTERM,
 * SIGHUP or SIGPIPE (a FIFO or pipe output whose reader went away while
 * another output's temporary file was open), SIGQUIT, SIGALRM (timeout
 * -s ALRM), SIGXFSZ (a write past `ulimit -f`), SIGXCPU (past `ulimit
 * -t`, a batch system's CPU limit), SIGUSR1 or SIGUSR2 (mpirun forwards
 * them to its ranks, Slurm's --signal sends one before a time limit;
 * their default action kills, and clconv has no use for them) removes
 * them before the process dies, as GNU sort's and gnulib's clean-temp
 * do. The handler is installed for a signal only while its disposition
 * is the default one (a program that handles or ignores it keeps its
 * choice), and does only what is async-signal-safe: unlink(2) each
 * registered path, restore the default action and raise the signal
 * again. It is installed before OpenCL is first touched (device
 * discovery), because an OpenCL compiler may install its own: LLVM's
 * (inside PoCL) takes these signals to remove its own files (SIGUSR2
 * too), then restores the handler it found and raises again, so ours
 * then runs too; installed after it, ours would never be (a SIGINT during
 * apply's write left its temporary file behind). (LLVM's handler does not
 * raise SIGQUIT, SIGXFSZ or SIGXCPU again, and takes SIGUSR1 as a request
 * for information: under PoCL the process goes on, a write past `ulimit
 * -f` failing with EFBIG, exit 3; where no compiler took them, ours
 * removes the files and the process dies of the signal.) */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define SLOTS 16
#define PATH_CAP 4096

static char paths[SLOTS][PATH_CAP];
static atomic_int used[SLOTS];
static atomic_flag installed = ATOMIC_FLAG_INIT;
static const int signals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGPIPE,
                              SIGQUIT, SIGALRM, SIGXFSZ, SIGXCPU,
                              SIGUSR1, SIGUSR2};

static void on_signal(int sig)
{
    for (int i = 0; i < SLOTS; ++i)
        if (atomic_load(&used[i]) == 2)
            unlink(paths[i]);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* delivered, with the default action, once we return */
}

void clc_temp_install(void)
{
    if (atomic_flag_test_and_set(&installed))
        return;
    for (size_t k = 0; k < sizeof signals / sizeof signals[0]; ++k) {
        struct sigaction old, sa;
        if (sigaction(signals[k], NULL, &old) != 0 ||
            (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigfillset(&sa.sa_mask);
        sigaction(signals[k], &sa, NULL);
    }
}

void clc_temp_name(char *templ)
{
    static const char chars[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static atomic_ulong counter;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    unsigned long long x = (unsigned long long)t.tv_nsec ^
                           (unsigned long long)t.tv_sec << 30 ^
                           (unsigned long long)getpid() << 16 ^
                           atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15ull;
    char *p = templ + strlen(templ) - 6;
    for (int k = 0; k < 6; ++k) {
        x ^= x >> 33; /* a splitmix-like scramble per character */
        x *= 0xff51afd7ed558ccdull;
        x ^= x >> 29;
        p[k] = chars[x % (sizeof chars - 1)];
    }
}

int clc_temp_create(char *templ, int *slot)
{
    for (int tries = 0; tries < 64; ++tries) {
        clc_temp_name(templ);
        /* Registered before it exists: a signal from here on removes it
         * (a signal may reach any of the process's threads, so blocking
         * it in this one would not close the gap). */
        *slot = clc_temp_register(templ);
        int fd = open(templ, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0)
            return fd;
        const int e = errno;
        clc_temp_unregister(*slot);
        *slot = -1;
        errno = e;
        if (e != EEXIST)
            return -1;
    }
    return -1;
}

int clc_temp_register(const char *path)
{
    size_t n = strlen(path);
    if (n >= PATH_CAP)
        return -1;
    clc_temp_install();
    for (int i = 0; i < SLOTS; ++i) {
        int free_slot = 0;
        /* 0 free, 1 being filled, 2 registered. */
        if (atomic_compare_exchange_strong(&used[i], &free_slot, 1)) {
            memcpy(paths[i], path, n + 1);
            atomic_store(&used[i], 2);
            return i;
        }
    }
    return -1;
}

void clc_temp_unregister(int slot)
{
    if (slot >= 0 && slot < SLOTS)
        atomic_store(&used[slot], 0);
}

int clconv_temp_create(char *templ, int *handle)
{
    size_t n = templ ? strlen(templ) : 0;
    if (!handle) {
        errno = EINVAL;
        return -1;
    }
    if (n < 6 || strcmp(templ + n - 6, "XXXXXX") != 0) {
        *handle = -1;
        errno = EINVAL;
        return -1;
    }
    return clc_temp_create(templ, handle);
}

void clconv_temp_name(char *templ)
{
    const size_t n = templ ? strlen(templ) : 0;
    if (n >= 6 && strcmp(templ + n - 6, "XXXXXX") == 0)
        clc_temp_name(templ);
}

int clconv_temp_watch(const char *path)
{
    return path ? clc_temp_register(path) : -1;
}

void clconv_temp_release(int handle) { clc_temp_unregister(handle); }
