/* Output files (clconv_io.h): a regular file is replaced atomically and
 * keeps its mode, a symlink's target is replaced and the link kept, a
 * dangling link gets its target, a FIFO and /dev/null are written through
 * and stay what they are, /dev/full reports "No space left on device",
 * two outputs are committed both or neither, an abort or SIGTERM leaves no
 * temporary file, and a name of NAME_MAX bytes works. In a temporary
 * folder; no device needed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "clconv_io.h"
#include "support.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/clconv-test-output-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    support_remove_tree(dir);
    return 0;
}

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The file's text (at most 255 bytes). */
static const char *text_of(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "r");
    if (!f)
        return "(missing)";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* How many ".clconv-" temporaries the folder holds. */
static int temporaries(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        n += strncmp(e->d_name, ".clconv-", 8) == 0;
    closedir(d);
    return n;
}

static void write_text(const char *path, const char *text)
{
    assert_int_equal(clconv_file_write(path, text, strlen(text)), CLCONV_OK);
}

static void regular_file_is_replaced_and_keeps_its_mode(void **state)
{
    (void)state;
    char p[512];
    path_of(p, sizeof p, "plain.txt");
    put(p, "old");
    assert_int_equal(chmod(p, 0640), 0);
    write_text(p, "new");
    assert_string_equal(text_of(p), "new");
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);
    assert_int_equal(temporaries(), 0);
}

static void symlink_target_is_replaced_and_the_link_kept(void **state)
{
    (void)state;
    char target[512], link[512], dangling[512], made[512];
    path_of(target, sizeof target, "target.txt");
    path_of(link, sizeof link, "link.txt");
    put(target, "old");
    assert_int_equal(symlink("target.txt", link), 0);
    write_text(link, "via link");
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_string_equal(text_of(target), "via link");
    /* A dangling link: its target is created. */
    path_of(dangling, sizeof dangling, "dangling.txt");
    path_of(made, sizeof made, "made.txt");
    assert_int_equal(symlink("made.txt", dangling), 0);
    write_text(dangling, "created");
    assert_int_equal(lstat(dangling, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_string_equal(text_of(made), "created");
}

static void fifo_is_written_through_and_stays_a_fifo(void **state)
{
    (void)state;
    char p[512];
    path_of(p, sizeof p, "pipe");
    assert_int_equal(mkfifo(p, 0600), 0);
    pid_t reader = fork();
    assert_true(reader >= 0);
    if (reader == 0) {
        /* Exit 0 when the FIFO delivered exactly "streamed". */
        char buf[64];
        int fd = open(p, O_RDONLY);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
        _exit(n == 8 && memcmp(buf, "streamed", 8) == 0 ? 0 : 1);
    }
    clconv_output *o = NULL;
    assert_int_equal(clconv_output_open(p, &o), CLCONV_OK);
    assert_true(clconv_output_is_stream(o));
    assert_int_equal(clconv_output_write(o, "streamed", 8), CLCONV_OK);
    assert_int_equal(clconv_output_commit(o), CLCONV_OK);
    int status = 0;
    assert_int_equal(waitpid(reader, &status, 0), reader);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct stat sb;
    assert_int_equal(lstat(p, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
}

static void devices_are_written_through_and_full_is_reported(void **state)
{
    (void)state;
    write_text("/dev/null", "gone");
    struct stat sb;
    assert_int_equal(stat("/dev/null", &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));
    if (access("/dev/full", W_OK) != 0)
        return;
    assert_int_equal(clconv_file_write("/dev/full", "x", 1), CLCONV_EIO);
    assert_non_null(strstr(clconv_last_error(), "No space left on device"));
    assert_int_equal(stat("/dev/full", &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));
}

/* A socket on standard output (a service's, under systemd) is written
 * through by /dev/stdout and /dev/fd/1: open(2) cannot reach a socket
 * (ENXIO, exit 3 after the work). A socket bound in a folder, which no
 * descriptor of ours holds, is refused before any work. */
static void sockets_on_stdout_are_written_through(void **state)
{
    (void)state;
    static const char *const names[] = {"/dev/stdout", "/dev/fd/1", "-"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
        int sv[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
            close(sv[0]);
            if (dup2(sv[1], STDOUT_FILENO) < 0)
                _exit(2);
            close(sv[1]);
            _exit(clconv_output_check(names[k]) == CLCONV_OK &&
                          clconv_file_write(names[k], "sock", 4) == CLCONV_OK
                      ? 0
                      : 1);
        }
        close(sv[1]);
        char got[8] = "";
        ssize_t n = 0, r;
        while (n < 7 && (r = read(sv[0], got + n, (size_t)(7 - n))) > 0)
            n += r;
        close(sv[0]);
        int status = 0;
        assert_int_equal(waitpid(child, &status, 0), child);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
            strcmp(got, "sock") != 0)
            fail_msg("%s on a socket: status %d, got '%s'", names[k], status,
                     got);
    }
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    char sp[512];
    path_of(sp, sizeof sp, "bound.sock");
    assert_true(strlen(sp) < sizeof a.sun_path);
    memcpy(a.sun_path, sp, strlen(sp) + 1);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(s >= 0);
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(clconv_output_check(a.sun_path), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "it is a socket"));
    close(s);
    unlink(a.sun_path);
}

static void unwritable_paths_are_refused_before_any_work(void **state)
{
    (void)state;
    char p[512];
    path_of(p, sizeof p, "no-such-folder/out.txt");
    assert_int_equal(clconv_output_check(p), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "does not exist"));
    assert_int_equal(clconv_output_check(dir), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "folder"));
    clconv_output *o = NULL;
    assert_int_equal(clconv_output_open(dir, &o), CLCONV_EINVAL);
    assert_null(o);
    assert_int_equal(clconv_output_check("-"), CLCONV_OK);
}

/* Two outputs: the second's target turns into a folder after both were
 * opened, so its rename fails; the first must be put back. */
static void two_outputs_commit_both_or_neither(void **state)
{
    (void)state;
    char a[512], b[512], c[512];
    path_of(a, sizeof a, "first.txt");
    path_of(b, sizeof b, "second.txt");
    path_of(c, sizeof c, "second.txt/inside");
    put(a, "old first");
    clconv_output *o[2] = {NULL, NULL};
    assert_int_equal(clconv_output_open(a, &o[0]), CLCONV_OK);
    assert_int_equal(clconv_output_open(b, &o[1]), CLCONV_OK);
    assert_int_equal(clconv_output_write(o[0], "new first", 9), CLCONV_OK);
    assert_int_equal(clconv_output_write(o[1], "new second", 10), CLCONV_OK);
    assert_int_equal(mkdir(b, 0755), 0);
    put(c, "keeps the folder non-empty");
    assert_int_equal(clconv_output_commit_all(o, 2), CLCONV_EIO);
    assert_string_equal(text_of(a), "old first");
    assert_int_equal(temporaries(), 0);
    /* A first output that did not exist before is removed again. */
    assert_int_equal(unlink(a), 0);
    assert_int_equal(clconv_output_open(a, &o[0]), CLCONV_OK);
    assert_int_equal(clconv_output_open(b, &o[1]), CLCONV_EINVAL);
    clconv_output_abort(o[0]);
    assert_int_equal(access(a, F_OK), -1);
    assert_int_equal(temporaries(), 0);
    /* And both succeed together. */
    support_remove_tree(b);
    assert_int_equal(clconv_output_open(a, &o[0]), CLCONV_OK);
    assert_int_equal(clconv_output_open(b, &o[1]), CLCONV_OK);
    assert_int_equal(clconv_output_printf(o[0], "%d", 1), CLCONV_OK);
    assert_int_equal(clconv_output_printf(o[1], "%d", 2), CLCONV_OK);
    assert_int_equal(clconv_output_commit_all(o, 2), CLCONV_OK);
    assert_string_equal(text_of(a), "1");
    assert_string_equal(text_of(b), "2");
    assert_int_equal(temporaries(), 0);
}

static void a_name_of_name_max_bytes_works(void **state)
{
    (void)state;
    char name[256], p[512];
    memset(name, 'n', 255);
    name[255] = '\0';
    path_of(p, sizeof p, name);
    write_text(p, "long");
    assert_string_equal(text_of(p), "long");
    assert_int_equal(unlink(p), 0);
}

/* A child writes half a file, then gets sig (SIGXFSZ: by writing past a
 * file size limit of 4 KiB): it dies of sig, and neither its temporary
 * file nor a changed target is left. */
static void signal_during_a_write_leaves_no_trace(int sig)
{
    char p[512];
    path_of(p, sizeof p, "interrupted.txt");
    put(p, "old");
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        clconv_output *o = NULL;
        if (clconv_output_open(p, &o) != CLCONV_OK ||
            clconv_output_write(o, "half", 4) != CLCONV_OK)
            _exit(2);
        static char big[1 << 16];
        const struct rlimit lim = {4096, 4096};
        if (sig != SIGXFSZ)
            raise(sig);
        else if (setrlimit(RLIMIT_FSIZE, &lim) == 0 &&
                 clconv_output_write(o, big, sizeof big) == CLCONV_OK)
            clconv_output_commit(o); /* flushes what it holds */
        _exit(3); /* not reached */
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), sig);
    assert_int_equal(temporaries(), 0);
    assert_string_equal(text_of(p), "old");
}

static void sigterm_during_a_write_removes_the_temporary_file(void **state)
{
    (void)state;
    signal_during_a_write_leaves_no_trace(SIGTERM);
}

static void sigint_during_a_write_removes_the_temporary_file(void **state)
{
    (void)state;
    signal_during_a_write_leaves_no_trace(SIGINT);
}

/* A write past RLIMIT_FSIZE (`ulimit -f`) raises SIGXFSZ, whose default
 * action kills the process: its temporary file goes with it, as with the
 * signals above (it was left behind; the same for SIGXCPU and SIGALRM). */
static void a_write_past_the_file_size_limit_leaves_no_trace(void **state)
{
    (void)state;
    signal_during_a_write_leaves_no_trace(SIGXFSZ);
    signal_during_a_write_leaves_no_trace(SIGXCPU);
    signal_during_a_write_leaves_no_trace(SIGALRM);
}

/* SIGUSR1 and SIGUSR2 kill by default: mpirun forwards them to its ranks,
 * Slurm's --signal sends one before a job's time limit. The temporary
 * file was left behind. */
static void sigusr1_and_sigusr2_during_a_write_leave_no_trace(void **state)
{
    (void)state;
    signal_during_a_write_leaves_no_trace(SIGUSR1);
    signal_during_a_write_leaves_no_trace(SIGUSR2);
}

/* clconv_temp_create (for callers that write in place, as clconv-mpi):
 * a template without XXXXXX is refused; the file it creates goes with a
 * SIGHUP, and after clconv_temp_release a signal leaves it alone. */
static void temp_files_of_callers_go_with_a_signal_until_released(void **state)
{
    (void)state;
    char bad[512], t[512];
    int handle = 7;
    path_of(bad, sizeof bad, "no-template");
    assert_int_equal(clconv_temp_create(bad, &handle), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(handle, -1);
    for (int release = 0; release <= 1; ++release) {
        path_of(t, sizeof t, ".clconv-XXXXXX");
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
            int fd = clconv_temp_create(t, &handle);
            if (fd < 0 || write(fd, "rows", 4) != 4)
                _exit(2);
            if (release)
                clconv_temp_release(handle);
            raise(SIGHUP);
            _exit(3);
        }
        int status = 0;
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), SIGHUP);
        assert_int_equal(temporaries(), release);
        if (release) { /* the caller's to rename or remove */
            DIR *d = opendir(dir);
            struct dirent *e;
            while (d && (e = readdir(d)))
                if (strncmp(e->d_name, ".clconv-", 8) == 0) {
                    path_of(t, sizeof t, e->d_name);
                    assert_string_equal(text_of(t), "rows");
                    assert_int_equal(unlink(t), 0);
                }
            if (d)
                closedir(d);
        }
    }
}

int main(void)
{
    /* The signal tests need the default dispositions a terminal gives: a
     * shell starts background jobs with SIGINT ignored, and clconv leaves
     * an ignored signal ignored (so would the child, and never die). */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    signal(SIGXCPU, SIG_DFL);
    signal(SIGALRM, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
    signal(SIGUSR2, SIG_DFL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(regular_file_is_replaced_and_keeps_its_mode),
        cmocka_unit_test(symlink_target_is_replaced_and_the_link_kept),
        cmocka_unit_test(fifo_is_written_through_and_stays_a_fifo),
        cmocka_unit_test(devices_are_written_through_and_full_is_reported),
        cmocka_unit_test(sockets_on_stdout_are_written_through),
        cmocka_unit_test(unwritable_paths_are_refused_before_any_work),
        cmocka_unit_test(two_outputs_commit_both_or_neither),
        cmocka_unit_test(a_name_of_name_max_bytes_works),
        cmocka_unit_test(sigterm_during_a_write_removes_the_temporary_file),
        cmocka_unit_test(sigint_during_a_write_removes_the_temporary_file),
        cmocka_unit_test(a_write_past_the_file_size_limit_leaves_no_trace),
        cmocka_unit_test(sigusr1_and_sigusr2_during_a_write_leave_no_trace),
        cmocka_unit_test(
            temp_files_of_callers_go_with_a_signal_until_released),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
