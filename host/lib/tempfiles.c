/* The temporary files this process is writing, so that SIGINT, SIGTERM or
 * SIGHUP removes them before the process dies. The handler is installed
 * for a signal only while its disposition is the default one (a program
 * that handles or ignores it keeps its choice), and does only what is
 * async-signal-safe: unlink(2) each registered path, restore the default
 * action and raise the signal again. */
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define SLOTS 16
#define PATH_CAP 4096

static char paths[SLOTS][PATH_CAP];
static atomic_int used[SLOTS];
static atomic_flag installed = ATOMIC_FLAG_INIT;
static const int signals[] = {SIGINT, SIGTERM, SIGHUP};

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

static void install(void)
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

int clc_temp_register(const char *path)
{
    size_t n = strlen(path);
    if (n >= PATH_CAP)
        return -1;
    install();
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
