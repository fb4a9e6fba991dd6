/* outfile.c - staged, exclusive, fsynced, renamed output files with a
 * signal-time cleanup of the temporaries (outfile.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/random.h>
#endif

#include "outfile.h"

/* ---- the registry of live temporaries (read by the signal handler) ------- */

static char **volatile reg;           /* temporaries' paths */
static volatile sig_atomic_t nreg;    /* entries in use */
static size_t reg_cap;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
enum { NCLEANUP = sizeof cleanup_signals / sizeof cleanup_signals[0] };

static void hold_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < NCLEANUP; i++)
        sigaddset(&set, cleanup_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

static void release_signals(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

/* Async-signal-safe: unlink and re-raise with the default action. */
static void on_signal(int sig)
{
    char **r = reg;
    for (sig_atomic_t i = 0; r && i < nreg; i++)
        if (r[i])
            unlink(r[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void outfile_install_signals(void)
{
    for (int i = 0; i < NCLEANUP; i++) {
        struct sigaction old, sa;
        if (sigaction(cleanup_signals[i], NULL, &old) || old.sa_handler == SIG_IGN)
            continue; /* nohup and friends: stays ignored */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (int j = 0; j < NCLEANUP; j++)
            sigaddset(&sa.sa_mask, cleanup_signals[j]);
        sigaction(cleanup_signals[i], &sa, NULL);
    }
#ifdef SIGXFSZ
    signal(SIGXFSZ, SIG_IGN);
#endif
}

/* Add / remove a temporary; called with the signals held. */
static int reg_add(char *path)
{
    if ((size_t)nreg == reg_cap) {
        size_t cap = reg_cap ? reg_cap * 2 : 16;
        char **r = malloc(cap * sizeof *r); /* never realloc under a reader */
        if (!r)
            return -1;
        if (reg)
            memcpy(r, reg, (size_t)nreg * sizeof *r);
        char **old = reg;
        reg = r;
        reg_cap = cap;
        free(old);
    }
    reg[nreg] = path;
    nreg = nreg + 1;
    return 0;
}

static void reg_remove(const char *path)
{
    for (sig_atomic_t i = 0; i < nreg; i++)
        if (reg[i] == path) {
            reg[i] = reg[nreg - 1];
            nreg = nreg - 1;
            return;
        }
}

/* ---- temporaries ------------------------------------------------------------ */

static void (*random_fill)(unsigned char *, size_t);

void outfile_set_random(void (*fill)(unsigned char *buf, size_t n))
{
    random_fill = fill;
}

static void fill_random(unsigned char *buf, size_t n)
{
    if (random_fill) {
        random_fill(buf, n);
        return;
    }
    size_t got = 0;
#if defined(__linux__)
    while (got < n) {
        ssize_t r = getrandom(buf + got, n - got, 0);
        if (r <= 0 && errno != EINTR)
            break;
        if (r > 0)
            got += (size_t)r;
    }
#endif
    if (got < n) { /* no getrandom: the kernel's pool through the device */
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        while (fd >= 0 && got < n) {
            ssize_t r = read(fd, buf + got, n - got);
            if (r <= 0 && errno != EINTR)
                break;
            if (r > 0)
                got += (size_t)r;
        }
        if (fd >= 0)
            close(fd);
    }
    if (got < n) { /* last resort; O_EXCL still keeps the open safe */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32) ^
                               (unsigned long long)(size_t)buf;
        for (size_t i = got; i < n; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            buf[i] = (unsigned char)(x >> 56);
        }
    }
}

static int set_error(OutSet *s, const char *path, const char *what, int err)
{
    snprintf(s->msg, sizeof s->msg, "cannot write '%s': %s%s", path, what, err ? strerror(err) : "");
    return -1;
}

/* Write all of data to fd. 0 or -1 (errno). */
static int write_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

/* The directory part of path ("." when none) into buf. */
static int dir_of(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    int n = !slash ? snprintf(buf, size, ".") : slash == path ? snprintf(buf, size, "/")
                                                             : snprintf(buf, size, "%.*s", (int)(slash - path), path);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Create, fill and fsync a fresh temporary for f->path; f->tmp names it
 * (registered for the signal handler). 0, or -1 with s->msg. */
static int stage_temp(OutSet *s, OutFile *f, const void *data, size_t len)
{
    const char *slash = strrchr(f->path, '/');
    const char *base = slash ? slash + 1 : f->path;
    size_t dirlen = slash ? (size_t)(slash - f->path) + 1 : 0;
    size_t cap = dirlen + 200 + 32;
    char *tmp = malloc(cap);
    if (!tmp)
        return set_error(s, f->path, "out of memory", 0);
    int fd = -1, err = 0;
    for (int attempt = 0; attempt < 64; attempt++) {
        unsigned char rnd[9];
        fill_random(rnd, sizeof rnd);
        char hex[19];
        for (size_t i = 0; i < sizeof rnd; i++)
            snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
        /* .BASE.RANDOM.tmp next to the destination (BASE cut to fit NAME_MAX) */
        snprintf(tmp, cap, "%.*s.%.200s.%s.tmp", (int)dirlen, f->path, base, hex);
        sigset_t old;
        hold_signals(&old);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        err = errno;
        if (fd >= 0 && reg_add(tmp)) {
            close(fd);
            unlink(tmp);
            fd = -1;
            err = ENOMEM;
        }
        release_signals(&old);
        if (fd >= 0 || err != EEXIST)
            break;
    }
    if (fd < 0) {
        free(tmp);
        return set_error(s, f->path, "", err);
    }
    f->tmp = tmp;
    int bad = write_all(fd, data, len);
    if (bad)
        err = errno;
    if (!bad && fsync(fd) && errno != EINVAL) /* EINVAL: a file system without fsync */
        bad = 1, err = errno;
    if (close(fd) && !bad)
        bad = 1, err = errno;
    return bad ? set_error(s, f->path, "", err) : 0;
}

/* 1 if the regular file at path holds exactly data[0..len). */
static int same_content(const char *path, const struct stat *st, const void *data, size_t len)
{
    if ((size_t)st->st_size != len || (off_t)len != st->st_size)
        return 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    const char *d = data;
    char buf[65536];
    size_t off = 0;
    int same = 1;
    while (same) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            same = r == 0 && off == len;
            break;
        }
        same = off + (size_t)r <= len && !memcmp(buf, d + off, (size_t)r);
        off += (size_t)r;
    }
    close(fd);
    return same;
}

void outfile_init(OutSet *s)
{
    memset(s, 0, sizeof *s);
}

void outfile_note_input(OutSet *s, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && (st.st_mtim.tv_sec > s->inputs_mtime.tv_sec ||
                                 (st.st_mtim.tv_sec == s->inputs_mtime.tv_sec &&
                                  st.st_mtim.tv_nsec > s->inputs_mtime.tv_nsec)))
        s->inputs_mtime = st.st_mtim;
}

int outfile_stage(OutSet *s, const char *path, const void *data, size_t len)
{
    return outfile_stage_flags(s, path, data, len, 0);
}

int outfile_stage_flags(OutSet *s, const char *path, const void *data, size_t len, unsigned flags)
{
    if (!*path)
        return set_error(s, path, "empty file name", 0);
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->f[i].path, path))
            return set_error(s, path, "named twice as an output", 0);
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        OutFile *nf = realloc(s->f, cap * sizeof *nf);
        if (!nf)
            return set_error(s, path, "out of memory", 0);
        s->f = nf;
        s->cap = cap;
    }
    OutFile *f = &s->f[s->n];
    memset(f, 0, sizeof *f);
    f->flags = flags;
    if (!(f->path = malloc(strlen(path) + 1)))
        return set_error(s, path, "out of memory", 0);
    strcpy(f->path, path);
    s->n++;
    struct stat lst, st;
    int exists = lstat(path, &lst) == 0;
    if (exists && S_ISDIR(lst.st_mode))
        return set_error(s, path, "is a directory", 0);
    int special = !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6);
    if (exists && !S_ISREG(lst.st_mode) && !S_ISLNK(lst.st_mode))
        special = 1; /* a FIFO, device or socket */
    if (exists && S_ISLNK(lst.st_mode) && stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        special = 1; /* a link to one (e.g. /dev/null by another name) */
    if (special && (exists || !strncmp(path, "/dev/", 5))) {
        f->is_direct = 1;
        f->len = len;
        if (!(f->direct = malloc(len ? len : 1)))
            return set_error(s, path, "out of memory", 0);
        memcpy(f->direct, data, len);
        return 0;
    }
    if ((flags & OUTFILE_KEEP) && exists && S_ISREG(lst.st_mode) && same_content(path, &lst, data, len)) {
        f->unchanged = 1;
        return 0;
    }
    return stage_temp(s, f, data, len);
}

/* Drop f's temporary from the registry and free its name (the file itself
 * renamed or unlinked by the caller). */
static void forget_temp(OutFile *f)
{
    sigset_t old;
    hold_signals(&old);
    reg_remove(f->tmp);
    release_signals(&old);
    free(f->tmp);
    f->tmp = NULL;
}

static int write_direct(OutSet *s, const OutFile *f)
{
    int fd = open(f->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return set_error(s, f->path, "", errno);
    int bad = write_all(fd, f->direct, f->len);
    int err = errno;
    if (close(fd) && !bad)
        bad = 1, err = errno;
    return bad ? set_error(s, f->path, "", err) : 0;
}

/* fsync the directory of path unless it is `last` (the one synced before). */
static void sync_dir(const char *path, char *last, size_t size)
{
    char dir[4096];
    if (dir_of(path, dir, sizeof dir) || !strcmp(dir, last))
        return;
    snprintf(last, size, "%s", dir);
    int fd = open(dir, O_RDONLY | O_CLOEXEC
#ifdef O_DIRECTORY
                           | O_DIRECTORY
#endif
    );
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int outfile_commit(OutSet *s)
{
    int rc = 0;
    sigset_t old;
    hold_signals(&old); /* the set lands whole: a signal now waits until it has */
    for (size_t i = 0; i < s->n; i++) {
        OutFile *f = &s->f[i];
        if (f->tmp) {
            if (!rc && rename(f->tmp, f->path))
                rc = set_error(s, f->path, "", errno);
            if (rc)
                unlink(f->tmp);
            reg_remove(f->tmp);
            free(f->tmp);
            f->tmp = NULL;
        }
    }
    for (size_t i = 0; !rc && i < s->n; i++)
        if (s->f[i].is_direct)
            rc = write_direct(s, &s->f[i]);
    struct timespec t[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}}; /* the witnesses' access, modification */
    for (size_t i = 0; i < s->n; i++) {
        struct stat st;
        const OutFile *f = &s->f[i];
        if (!(f->flags & OUTFILE_TOUCH) && !f->is_direct && !f->unchanged && !lstat(f->path, &st) &&
            (t[1].tv_nsec == UTIME_NOW || st.st_mtim.tv_sec < t[1].tv_sec ||
             (st.st_mtim.tv_sec == t[1].tv_sec && st.st_mtim.tv_nsec < t[1].tv_nsec)))
            t[1] = st.st_mtim;
    }
    if (t[1].tv_nsec == UTIME_NOW && (s->inputs_mtime.tv_sec || s->inputs_mtime.tv_nsec))
        t[1] = s->inputs_mtime;
    for (size_t i = 0; !rc && i < s->n; i++)
        if ((s->f[i].flags & OUTFILE_TOUCH) && utimensat(AT_FDCWD, s->f[i].path, t, AT_SYMLINK_NOFOLLOW))
            rc = set_error(s, s->f[i].path, "cannot set its time: ", errno);
    char last[4096] = "";
    for (size_t i = 0; i < s->n; i++)
        if (!s->f[i].is_direct && !s->f[i].unchanged)
            sync_dir(s->f[i].path, last, sizeof last);
    release_signals(&old);
    return rc;
}

void outfile_free(OutSet *s)
{
    for (size_t i = 0; i < s->n; i++) {
        OutFile *f = &s->f[i];
        if (f->tmp) {
            unlink(f->tmp);
            forget_temp(f);
        }
        free(f->path);
        free(f->direct);
    }
    free(s->f);
    memset(s, 0, sizeof *s);
}

int outfile_mkdirs(const char *dir, char *msg, size_t msgsize)
{
    char buf[4096];
    if ((size_t)snprintf(buf, sizeof buf, "%s", dir) >= sizeof buf) {
        snprintf(msg, msgsize, "cannot create directory '%s': name too long", dir);
        return -1;
    }
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p)
            continue;
        char c = *p;
        *p = '\0';
        struct stat st;
        if (mkdir(buf, 0777) && errno != EEXIST) {
            snprintf(msg, msgsize, "cannot create directory '%s': %s", buf, strerror(errno));
            return -1;
        }
        if (stat(buf, &st)) {
            snprintf(msg, msgsize, "cannot create directory '%s': %s", buf, strerror(errno));
            return -1;
        }
        if (!S_ISDIR(st.st_mode)) {
            snprintf(msg, msgsize, "cannot create directory '%s': a file of that name exists", buf);
            return -1;
        }
        if (!(*p = c))
            return 0;
    }
}
