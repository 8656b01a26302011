/* Output paths as coreutils treats them: where a path leads (symlinks
 * followed, special files written through), whether a file can be made
 * in its folder, and the mode a replacement keeps; the rules are in
 * clconv_io.h, "output files". Opening, writing and committing are
 * output.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clconv_io.h"
#include "internal.h"

/* dir of path ("." when it has no slash); malloc'd. */
char *clc_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* Follow symlinks: *target is the first path that is not a link (malloc'd);
 * *exists says whether it exists, *sb is its lstat. */
clconv_status clc_output_resolve(const char *path, char **target,
                                 int *exists, struct stat *sb)
{
    /* What the path leads to, as open(2) follows it, when that is neither
     * a regular file nor a folder: written through by that path. Reading
     * the links would not get there: /dev/stdout leads to /proc/self/fd/1,
     * whose link text is "pipe:[N]" or "socket:[N]", no path at all. */
    if (stat(path, sb) == 0 && !S_ISREG(sb->st_mode) &&
        !S_ISDIR(sb->st_mode)) {
        *target = strdup(path);
        *exists = 1;
        return *target ? CLCONV_OK : clc_fail(CLCONV_ENOMEM, "out of memory");
    }
    char *cur = strdup(path);
    for (int hops = 0; cur && hops < 40; ++hops) {
        if (lstat(cur, sb) != 0) {
            int e = errno;
            if (e == ENOENT) {
                *target = cur;
                *exists = 0;
                return CLCONV_OK;
            }
            free(cur);
            return clc_fail(CLCONV_EINVAL, "cannot write '%s': %s", path,
                            strerror(e));
        }
        if (!S_ISLNK(sb->st_mode)) {
            *target = cur;
            *exists = 1;
            return CLCONV_OK;
        }
        char link[4096];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            free(cur);
            return clc_fail(CLCONV_EINVAL, "cannot read the link '%s': %s",
                            path, strerror(errno));
        }
        link[n] = '\0';
        char *next = NULL;
        if (link[0] == '/') {
            next = strdup(link);
        } else {
            char *dir = clc_dir_of(cur);
            size_t len = dir ? strlen(dir) + 1 + (size_t)n + 1 : 0;
            next = dir ? malloc(len) : NULL;
            if (next)
                snprintf(next, len, "%s/%s", dir, link);
            free(dir);
        }
        free(cur);
        cur = next;
    }
    if (!cur)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    free(cur);
    return clc_fail(CLCONV_EINVAL, "cannot write '%s': too many levels of "
                                   "symbolic links", path);
}

/* Is path the file standard output is open on ("-" is)? */
static int is_stdout(const char *path)
{
    struct stat a, b;
    return strcmp(path, "-") == 0 ||
           (stat(path, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 &&
            a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

int clconv_output_same(const char *a, const char *b)
{
    if (clconv_file_same(a, b))
        return 1;
    if (!a || !b)
        return 0;
    /* "-" and a path to stdout's file (a link to /dev/stdout): one
     * stream would get both, or the path's rename would drop what "-"
     * wrote into the file stdout is redirected to. */
    if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return is_stdout(a) && is_stdout(b);
    char *ta = NULL, *tb = NULL, *da = NULL, *db = NULL;
    int ea = 1, eb = 1, same = 0;
    struct stat sa, sb;
    if (clc_output_resolve(a, &ta, &ea, &sa) == CLCONV_OK &&
        clc_output_resolve(b, &tb, &eb, &sb) == CLCONV_OK && !ea && !eb &&
        (da = clc_dir_of(ta)) && (db = clc_dir_of(tb)) &&
        stat(da, &sa) == 0 && stat(db, &sb) == 0) {
        /* Two files still to be made: the same name in the same folder. */
        const char *na = strrchr(ta, '/'), *nb = strrchr(tb, '/');
        same = sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino &&
               strcmp(na ? na + 1 : ta, nb ? nb + 1 : tb) == 0;
    }
    free(ta);
    free(tb);
    free(da);
    free(db);
    return same;
}

/* Can a file be created in target's folder? CLCONV_EINVAL with the reason
 * if not. */
clconv_status clc_output_check_folder(const char *shown,
                                      const char *target)
{
    char *dir = clc_dir_of(target);
    if (!dir)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    struct stat sb;
    clconv_status st = CLCONV_OK;
    if (stat(dir, &sb) != 0)
        st = clc_fail(CLCONV_EINVAL, "cannot write '%s': its folder '%s' %s",
                      shown, dir,
                      errno == ENOENT ? "does not exist" : strerror(errno));
    else if (!S_ISDIR(sb.st_mode))
        st = clc_fail(CLCONV_EINVAL, "cannot write '%s': '%s' is not a folder",
                      shown, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        st = clc_fail(CLCONV_EINVAL, "cannot write '%s': its folder '%s' is "
                                     "not writable (%s)",
                      shown, dir, strerror(errno));
    free(dir);
    return st;
}

int clc_socket_fd(const char *path, const struct stat *sb)
{
    /* Standard input, output and error, or N of /dev/fd/N and
     * /proc/self/fd/N. */
    int fds[4] = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO, -1};
    static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/"};
    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; ++k) {
        const size_t n = strlen(dirs[k]);
        char *end = NULL;
        if (strncmp(path, dirs[k], n) == 0 && path[n] >= '0' &&
            path[n] <= '9') {
            const long fd = strtol(path + n, &end, 10);
            if (*end == '\0' && fd <= 65535)
                fds[3] = (int)fd;
        }
    }
    for (int k = 0; k < 4; ++k) {
        struct stat fs;
        if (fds[k] >= 0 && fstat(fds[k], &fs) == 0 &&
            fs.st_dev == sb->st_dev && fs.st_ino == sb->st_ino)
            return fds[k];
    }
    return -1;
}

clconv_status clconv_output_check(const char *path)
{
    if (!path || !*path)
        return clc_fail(CLCONV_EINVAL, "an empty output path");
    if (strcmp(path, "-") == 0)
        return CLCONV_OK;
    char *target = NULL;
    int exists = 0;
    struct stat sb;
    clconv_status st = clc_output_resolve(path, &target, &exists, &sb);
    if (st != CLCONV_OK)
        return st;
    if (exists && S_ISDIR(sb.st_mode))
        st = clc_fail(CLCONV_EINVAL, "cannot write '%s': it is a folder",
                      path);
    else if (exists && S_ISSOCK(sb.st_mode))
        st = clc_socket_fd(path, &sb) >= 0
                 ? CLCONV_OK
                 : clc_fail(CLCONV_EINVAL,
                            "cannot write '%s': it is a socket, and not "
                            "this process's standard input, output or "
                            "error",
                            path);
    else if (exists && !S_ISREG(sb.st_mode))
        st = access(target, W_OK) == 0
                 ? CLCONV_OK
                 : clc_fail(CLCONV_EINVAL, "cannot write '%s': %s", path,
                            strerror(errno));
    else
        st = clc_output_check_folder(path, target);
    free(target);
    return st;
}

/* The mode of a file replacing old (NULL: none): old's, or 0666 less the
 * umask. */
mode_t clc_output_replacing_mode(const struct stat *old)
{
    if (old)
        return old->st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

clconv_status clconv_output_target(const char *path, char **target,
                                   unsigned *mode, int *stream)
{
    if (!target || !stream)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the target (NULL)");
    *target = NULL;
    *stream = 0;
    if (!path || !*path)
        return clc_fail(CLCONV_EINVAL, "an empty output path");
    if (strcmp(path, "-") == 0) {
        *stream = 1;
        *target = strdup(path);
        return *target ? CLCONV_OK : clc_fail(CLCONV_ENOMEM, "out of memory");
    }
    int exists = 0;
    struct stat sb;
    clconv_status st = clc_output_resolve(path, target, &exists, &sb);
    if (st != CLCONV_OK)
        return st;
    if (exists && S_ISDIR(sb.st_mode)) {
        free(*target);
        *target = NULL;
        return clc_fail(CLCONV_EINVAL, "cannot write '%s': it is a folder",
                        path);
    }
    *stream = exists && !S_ISREG(sb.st_mode);
    if (mode)
        *mode = (unsigned)clc_output_replacing_mode(exists ? &sb : NULL);
    return CLCONV_OK;
}
