/* test_outfile.c - transactional output sets (gen/outfile.h): a planted
 * link or file at the temporary's name is neither followed nor clobbered,
 * a set is written whole or not at all, a destination link is replaced (its
 * target untouched), OUTFILE_KEEP leaves equal files alone, a witness gets
 * the time of the oldest file renamed or else the newest input's, and
 * mkdir -p. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "outfile.h"

static char dir[4096];

/* A scratch directory per test, removed afterwards. */
static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_outfile.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    outfile_set_random(NULL);
    return system(cmd);
}

static void path_of(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", dir, name);
}

static void put(const char *name, const char *text)
{
    char p[4200];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int holds(const char *name, const char *text)
{
    char p[4200], buf[256] = "";
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "rb");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return !strcmp(buf, text);
}

/* Entries in dir besides `keep` names (NULL-terminated). */
static int extra_entries(const char *const *keep)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
    FILE *p = popen(cmd, "r");
    char line[512];
    int extra = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        int known = 0;
        for (const char *const *k = keep; *k; k++)
            known |= !strcmp(*k, line);
        extra += !known;
    }
    pclose(p);
    return extra;
}

/* The "random" bytes the test chooses: first all 0x11, then 0x22. */
static int calls;
static void fixed_random(unsigned char *buf, size_t n)
{
    memset(buf, calls++ == 0 ? 0x11 : 0x22, n);
}

static void planted_link_at_temp_name_not_followed(void **state)
{
    (void)state;
    calls = 0;
    outfile_set_random(fixed_random);
    put("victim", "precious");
    char victim[4200], link[4200], out[4200];
    path_of(victim, sizeof victim, "victim");
    path_of(link, sizeof link, ".k.c.111111111111111111.tmp"); /* the name of the first try */
    path_of(out, sizeof out, "k.c");
    assert_int_equal(symlink(victim, link), 0);
    OutSet s;
    outfile_init(&s);
    assert_int_equal(outfile_stage(&s, out, "new", 3), 0);
    assert_int_equal(outfile_commit(&s), 0);
    outfile_free(&s);
    assert_true(holds("victim", "precious"));
    assert_true(holds("k.c", "new"));
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode)); /* left as it was */
    assert_int_equal(calls, 2);       /* a second name was drawn */
}

static void set_whole_or_nothing(void **state)
{
    (void)state;
    put("a", "old a");
    char a[4200], b[4200];
    path_of(a, sizeof a, "a");
    path_of(b, sizeof b, "no/such/dir/b");
    OutSet s;
    outfile_init(&s);
    assert_int_equal(outfile_stage(&s, a, "new a", 5), 0);
    assert_int_equal(outfile_stage(&s, b, "new b", 5), -1);
    assert_non_null(strstr(s.msg, "no/such/dir/b"));
    outfile_free(&s); /* no commit: the temporary of a goes */
    assert_true(holds("a", "old a"));
    const char *const keep[] = {"a", NULL};
    assert_int_equal(extra_entries(keep), 0);
}

static void same_destination_twice_refused(void **state)
{
    (void)state;
    char a[4200];
    path_of(a, sizeof a, "a");
    OutSet s;
    outfile_init(&s);
    assert_int_equal(outfile_stage(&s, a, "1", 1), 0);
    assert_int_equal(outfile_stage(&s, a, "2", 1), -1);
    assert_non_null(strstr(s.msg, "twice"));
    outfile_free(&s);
    const char *const keep[] = {NULL};
    assert_int_equal(extra_entries(keep), 0);
}

static void destination_link_replaced(void **state)
{
    (void)state;
    put("victim", "precious");
    char victim[4200], out[4200];
    path_of(victim, sizeof victim, "victim");
    path_of(out, sizeof out, "out");
    assert_int_equal(symlink(victim, out), 0);
    OutSet s;
    outfile_init(&s);
    assert_int_equal(outfile_stage(&s, out, "new", 3), 0);
    assert_int_equal(outfile_commit(&s), 0);
    outfile_free(&s);
    struct stat st;
    assert_int_equal(lstat(out, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_true(holds("out", "new"));
    assert_true(holds("victim", "precious"));
}

static void keep_leaves_equal_file_and_witness_time(void **state)
{
    (void)state;
    put("same", "x");
    char same[4200], changed[4200], stamp[4200];
    path_of(same, sizeof same, "same");
    path_of(changed, sizeof changed, "changed");
    path_of(stamp, sizeof stamp, "stamp");
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
    assert_int_equal(utimensat(AT_FDCWD, same, old, 0), 0);
    struct stat st0;
    assert_int_equal(stat(same, &st0), 0);
    OutSet s;
    outfile_init(&s);
    assert_int_equal(outfile_stage_flags(&s, same, "x", 1, OUTFILE_KEEP), 0);
    assert_int_equal(outfile_stage_flags(&s, changed, "y", 1, OUTFILE_KEEP), 0);
    assert_int_equal(outfile_stage_flags(&s, stamp, "w", 1, OUTFILE_KEEP | OUTFILE_TOUCH), 0);
    assert_int_equal(outfile_commit(&s), 0);
    outfile_free(&s);
    struct stat a, b, w;
    assert_int_equal(stat(same, &a), 0);
    assert_int_equal(stat(changed, &b), 0);
    assert_int_equal(stat(stamp, &w), 0);
    assert_int_equal(a.st_ino, st0.st_ino); /* not replaced */
    assert_int_equal(a.st_mtim.tv_sec, 1000000000);
    assert_int_equal(w.st_mtim.tv_sec, b.st_mtim.tv_sec); /* the witness: the renamed file's time */
    assert_int_equal(w.st_mtim.tv_nsec, b.st_mtim.tv_nsec);
}

/* Nothing renamed: the witness takes the newest input's time. */
static void witness_without_renames_takes_inputs_time(void **state)
{
    (void)state;
    put("in1", "a");
    put("in2", "b");
    put("w", "w");
    char in1[4200], in2[4200], w[4200];
    path_of(in1, sizeof in1, "in1");
    path_of(in2, sizeof in2, "in2");
    path_of(w, sizeof w, "w");
    struct timespec t1[2] = {{1000000000, 5}, {1000000000, 5}}, t2[2] = {{1000000100, 7}, {1000000100, 7}};
    assert_int_equal(utimensat(AT_FDCWD, in1, t1, 0), 0);
    assert_int_equal(utimensat(AT_FDCWD, in2, t2, 0), 0);
    OutSet s;
    outfile_init(&s);
    outfile_note_input(&s, in2);
    outfile_note_input(&s, in1);
    assert_int_equal(outfile_stage_flags(&s, w, "w", 1, OUTFILE_KEEP | OUTFILE_TOUCH), 0);
    assert_int_equal(outfile_commit(&s), 0);
    outfile_free(&s);
    struct stat st;
    assert_int_equal(stat(w, &st), 0);
    assert_int_equal(st.st_mtim.tv_sec, 1000000100);
    assert_int_equal(st.st_mtim.tv_nsec, 7);
}

static void mkdirs_nested(void **state)
{
    (void)state;
    char d[4200], msg[4400];
    path_of(d, sizeof d, "x/y/z/");
    assert_int_equal(outfile_mkdirs(d, msg, sizeof msg), 0);
    assert_int_equal(outfile_mkdirs(d, msg, sizeof msg), 0);
    struct stat st;
    assert_int_equal(stat(d, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    put("file", "f");
    path_of(d, sizeof d, "file/sub");
    assert_int_equal(outfile_mkdirs(d, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "file"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(planted_link_at_temp_name_not_followed, setup, teardown),
        cmocka_unit_test_setup_teardown(set_whole_or_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(same_destination_twice_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(destination_link_replaced, setup, teardown),
        cmocka_unit_test_setup_teardown(keep_leaves_equal_file_and_witness_time, setup, teardown),
        cmocka_unit_test_setup_teardown(witness_without_renames_takes_inputs_time, setup, teardown),
        cmocka_unit_test_setup_teardown(mkdirs_nested, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
