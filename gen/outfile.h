/* outfile.h - transactional output files for the commands (host only).
 *
 * A set of outputs is staged first: each file's bytes go to a fresh
 * temporary in its destination's directory, created exclusively (O_EXCL,
 * O_NOFOLLOW) under an unguessable name (getrandom), written and fsynced.
 * Only when every file of the set is staged does outfile_commit rename them
 * over their destinations (the catchable termination signals held off
 * meanwhile) and fsync the directories; any error before that removes every
 * temporary and leaves every destination as it was. A signal handler
 * (outfile_install_signals) removes the registered temporaries on SIGINT,
 * SIGTERM, SIGHUP and SIGPIPE, then dies of the signal.
 *
 * A destination that is a symbolic link is replaced, never written through;
 * a device, FIFO or socket (or a path under /dev or /proc) is written
 * directly at commit. Asked to (OUTFILE_KEEP), a destination that already
 * holds exactly the bytes is left alone. A witness (OUTFILE_TOUCH) gets, at
 * commit, the modification time of the oldest file the commit renamed, or
 * when it renamed none, that of the newest input (inputs_mtime; now when
 * unknown): never older than an input, so a make rule whose target it is
 * settles, and no newer than anything written, so make sees the outputs up
 * to date with it. */
#ifndef TILEGEN_OUTFILE_H
#define TILEGEN_OUTFILE_H

#include <stddef.h>
#include <time.h>

typedef struct OutFile {
    char *path;      /* destination */
    char *tmp;       /* staged temporary (NULL: unchanged or direct) */
    char *direct;    /* bytes for a non-regular destination, written at commit */
    size_t len;      /* their length */
    int is_direct;   /* destination is a device, FIFO or socket */
    int unchanged;   /* destination already held the bytes */
    unsigned flags;  /* OUTFILE_* */
} OutFile;

typedef struct OutSet {
    OutFile *f;
    size_t n, cap;
    struct timespec inputs_mtime; /* newest input, taken before reading them (0: unknown) */
    char msg[4400];      /* the error of a failed call */
} OutSet;

void outfile_init(OutSet *s);

/* Take path's modification time into inputs_mtime (call before reading it). */
void outfile_note_input(OutSet *s, const char *path);

enum {
    OUTFILE_KEEP = 1,  /* leave a destination that holds exactly the bytes */
    OUTFILE_TOUCH = 2, /* a witness: its time is set at commit (above) */
};

/* Stage `len` bytes for `path`. 0, or -1 with s->msg ("cannot write 'P':
 * reason"); the set is then to be freed without commit. */
int outfile_stage(OutSet *s, const char *path, const void *data, size_t len);
int outfile_stage_flags(OutSet *s, const char *path, const void *data, size_t len, unsigned flags);

/* Rename every staged file over its destination, write the direct ones,
 * set the witnesses' time, fsync the directories. 0, or
 * -1 with s->msg (temporaries not yet renamed are removed). */
int outfile_commit(OutSet *s);

/* Remove every staged temporary (destinations keep their content) and free
 * the set; safe after commit and on an empty set. */
void outfile_free(OutSet *s);

/* Install the cleanup handler for SIGINT, SIGTERM, SIGHUP and SIGPIPE
 * (signals the process inherited as ignored stay ignored) and ignore
 * SIGXFSZ, so that a file size limit is a write error (EFBIG), not death. */
void outfile_install_signals(void);

/* mkdir -p: dir and its missing parents. 0, or -1 with a message. */
int outfile_mkdirs(const char *dir, char *msg, size_t msgsize);

/* For tests: the source of temporary names' randomness (NULL = getrandom). */
void outfile_set_random(void (*fill)(unsigned char *buf, size_t n));

#endif
