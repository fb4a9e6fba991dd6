/* `tilegen tpl TEMPLATE [--context FILE] [-I DIR]...`: render one template
 * against a JSON or YAML context to stdout, for template authors and the
 * differential tests. Values are typed the way Python's json.load (*.json,
 * read by tpl_value_from_json) or yaml.safe_load (YAML 1.1, anything else,
 * read with libyaml) would. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "cli.h"
#include "tpl.h"
#include "tpl_cmd.h"

typedef struct CtxLoad {
    tpl_arena *a;           /* values */
    yaml_document_t *doc;   /* parsed document */
    tpl_value **memo;       /* value per node (aliases share), or NULL */
    char *busy;             /* node being built (recursive alias check) */
    const char *file;       /* for messages */
    int depth;              /* nesting */
} CtxLoad;

static int all_match(const char *s, const char *set)
{
    for (; *s; s++)
        if (!strchr(set, *s))
            return 0;
    return 1;
}

/* Strip '_' (YAML 1.1 allows it in numbers) into out; 0 if too long. */
static int unscore(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (; *s; s++)
        if (*s != '_') {
            if (k + 1 >= n)
                return 0;
            out[k++] = *s;
        }
    out[k] = 0;
    return 1;
}

static int is_one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return 1;
    return 0;
}

/* Type a plain scalar per YAML 1.1 (PyYAML's resolver). */
static tpl_value *plain_scalar(CtxLoad *L, const char *s, size_t n)
{
    static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
    static const char *const trues[] = { "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", NULL };
    static const char *const falses[] = { "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", NULL };
    char buf[128];
    if (is_one_of(s, nulls))
        return tpl_null(L->a);
    if (is_one_of(s, trues) || is_one_of(s, falses))
        return tpl_bool(L->a, is_one_of(s, trues));
    const char *p = s + (*s == '+' || *s == '-');
    int neg = *s == '-';
    if (*p && unscore(p, buf, sizeof buf)) {
        char *end;
        int base = 0;
        const char *d = buf;
        if (!strncmp(buf, "0b", 2) && buf[2] && all_match(buf + 2, "01"))
            base = 2, d = buf + 2;
        else if (!strncmp(buf, "0x", 2) && buf[2] && all_match(buf + 2, "0123456789abcdefABCDEF"))
            base = 16, d = buf + 2;
        else if (buf[0] == '0' && buf[1] && all_match(buf, "01234567"))
            base = 8, d = buf + 1;
        else if (all_match(buf, "0123456789") && (buf[0] != '0' || !buf[1]) && p[0] != '_')
            base = 10;
        if (base) {
            unsigned long long v = strtoull(d, &end, base);
            if (!*end && v <= (unsigned long long)INT64_MAX)
                return tpl_int(L->a, neg ? -(long long)v : (long long)v);
        }
        /* float: [0-9][0-9_]*.[0-9_]*([eE][-+][0-9]+)? | .[0-9_]+(...)? | .inf | .nan */
        if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF"))
            return tpl_float(L->a, neg ? -HUGE_VAL : HUGE_VAL);
        if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))
            return tpl_float(L->a, NAN);
        const char *dot = strchr(p, '.');
        /* a leading-dot float takes no sign in PyYAML's resolver */
        if (dot && (dot > p ? p[0] >= '0' && p[0] <= '9' : p == s && dot[1] >= '0' && dot[1] <= '9')) {
            const char *e = strpbrk(p, "eE");
            int ok = 1;
            for (const char *q = p; q < (e ? e : p + strlen(p)); q++)
                ok &= (*q >= '0' && *q <= '9') || *q == '_' || q == dot;
            if (e)
                ok &= e > dot && (e[1] == '+' || e[1] == '-') && e[2] && all_match(e + 2, "0123456789");
            if (ok) {
                double v = strtod(buf, &end);
                if (!*end)
                    return tpl_float(L->a, neg ? -v : v);
            }
        }
    }
    return tpl_string_n(L->a, s, n);
}

static tpl_value *build(CtxLoad *L, int id, const char **why)
{
    yaml_node_t *node = yaml_document_get_node(L->doc, id);
    if (!node) {
        *why = "bad node reference";
        return NULL;
    }
    if (L->memo[id])
        return L->memo[id];
    if (L->busy[id]) {
        *why = "recursive alias";
        return NULL;
    }
    if (++L->depth > 256) {
        *why = "nesting deeper than 256 levels";
        return NULL;
    }
    L->busy[id] = 1;
    tpl_value *v = NULL;
    switch (node->type) {
    case YAML_SCALAR_NODE: {
        const char *s = (const char *)node->data.scalar.value;
        size_t n = node->data.scalar.length;
        if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && strlen(s) == n)
            v = plain_scalar(L, s, n);
        else
            v = tpl_string_n(L->a, s, n);
        break;
    }
    case YAML_SEQUENCE_NODE:
        v = tpl_list(L->a);
        for (yaml_node_item_t *it = node->data.sequence.items.start;
             v && it < node->data.sequence.items.top; it++) {
            tpl_value *item = build(L, *it, why);
            if (!item || tpl_list_append(L->a, v, item))
                v = NULL;
        }
        break;
    case YAML_MAPPING_NODE:
        v = tpl_map(L->a);
        for (yaml_node_pair_t *pr = node->data.mapping.pairs.start;
             v && pr < node->data.mapping.pairs.top; pr++) {
            yaml_node_t *k = yaml_document_get_node(L->doc, pr->key);
            if (!k || k->type != YAML_SCALAR_NODE) {
                *why = "map keys must be scalars";
                v = NULL;
                break;
            }
            tpl_value *val = build(L, pr->value, why);
            if (!val || tpl_map_set_n(L->a, v, (const char *)k->data.scalar.value,
                                      k->data.scalar.length, val))
                v = NULL;
        }
        break;
    default:
        *why = "empty node";
    }
    if (!v && !*why)
        *why = "out of memory";
    L->busy[id] = 0;
    L->depth--;
    return L->memo[id] = v;
}

/* A .json context: the whole file through tpl_value_from_json. */
static tpl_value *load_json(tpl_arena *a, FILE *f, const char *file)
{
    char *text = NULL;
    size_t len = 0, cap = 0, r;
    do {
        if (len == cap) {
            char *t = realloc(text, cap = cap ? 2 * cap : 1 << 16);
            if (!t) {
                free(text);
                cli_error("out of memory");
                return NULL;
            }
            text = t;
        }
        r = fread(text + len, 1, cap - len, f);
        len += r;
    } while (r > 0);
    if (ferror(f)) {
        free(text);
        cli_error("cannot read context '%s'", file);
        return NULL;
    }
    tpl_error err;
    tpl_value *v = tpl_value_from_json(a, text, len, &err);
    free(text);
    if (!v) {
        char msg[2048];
        snprintf(err.file, sizeof err.file, "%s", file);
        tpl_error_format(&err, msg, sizeof msg);
        fputs(msg, stderr);
    } else if (tpl_kind_of(v) != TPL_MAP) {
        fprintf(stderr, "%s: error: the top level must be a mapping\n", file);
        v = NULL;
    }
    return v;
}

tpl_value *tpl_cmd_load_context(tpl_arena *a, const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f) {
        cli_error("cannot open context '%s'", file);
        return NULL;
    }
    const char *dot = strrchr(file, '.');
    if (dot && !strcmp(dot, ".json")) {
        tpl_value *v = load_json(a, f, file);
        fclose(f);
        return v;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    tpl_value *v = NULL;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        cli_error("out of memory");
        return NULL;
    }
    yaml_parser_set_input_file(&parser, f);
    if (!yaml_parser_load(&parser, &doc)) {
        fprintf(stderr, "%s:%zu:%zu: error: %s\n", file, parser.problem_mark.line + 1,
                parser.problem_mark.column + 1, parser.problem ? parser.problem : "bad YAML");
        yaml_parser_delete(&parser);
        fclose(f);
        return NULL;
    }
    size_t nn = (size_t)(doc.nodes.top - doc.nodes.start) + 1;
    CtxLoad L = { a, &doc, calloc(nn, sizeof(tpl_value *)), calloc(nn, 1), file, 0 };
    const char *why = NULL;
    if (!L.memo || !L.busy)
        why = "out of memory";
    else if (!yaml_document_get_root_node(&doc))
        v = tpl_map(a); /* empty file: empty context */
    else
        v = build(&L, 1, &why);
    if (v && tpl_kind_of(v) != TPL_MAP) {
        why = "the top level must be a mapping";
        v = NULL;
    }
    if (!v)
        fprintf(stderr, "%s: error: %s\n", file, why ? why : "cannot load context");
    free(L.memo);
    free(L.busy);
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    fclose(f);
    return v;
}

static const char tpl_usage[] =
    "usage: tilegen tpl TEMPLATE [--context FILE] [-I DIR]...\n"
    "Render TEMPLATE against a context to stdout (for template authors).\n"
    "\n"
    "  -c, --context FILE  the context: JSON (*.json) or YAML (default: empty)\n"
    "  -I DIR              also look for included templates in DIR\n"
    "  -h, --help          this text\n";

int tpl_cmd_main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"context", required_argument, NULL, 'c'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    CliParser cp = {"tpl", argc, argv, "c:I:h", lo, ""};
    const char *tmpl = NULL, *ctxfile = NULL;
    tpl_env *env = tpl_env_new();
    tpl_arena *a = tpl_arena_new();
    int rc = 2;
    char **incs = calloc((size_t)argc + 1, sizeof *incs);
    size_t ninc = 0;
    if (!env || !a || !incs) {
        cli_error("out of memory");
        goto done;
    }
    int ch;
    while ((ch = cli_next(&cp)) != -1) {
        if (ch == 'h') {
            fputs(tpl_usage, stdout);
            rc = 0;
            goto done;
        } else if (ch == 'c') {
            ctxfile = optarg;
        } else if (ch == 'I') {
            incs[ninc++] = optarg;
        } else {
            goto done;
        }
    }
    if ((rc = cli_one_operand("tpl", argc, argv, "template", &tmpl)) != 0)
        goto done;
    rc = 2;
    /* includes resolve against the template's own directory first, then -I */
    char dir[4096];
    const char *slash = strrchr(tmpl, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - tmpl) : 1, slash ? tmpl : ".");
    if (tpl_env_add_path(env, slash == tmpl ? "/" : dir) || tpl_add_host_filters(env)) {
        cli_error("out of memory");
        goto done;
    }
    for (size_t i = 0; i < ninc; i++)
        if (tpl_env_add_path(env, incs[i])) {
            cli_error("out of memory");
            goto done;
        }
    tpl_value *ctx = ctxfile ? tpl_cmd_load_context(a, ctxfile) : tpl_map(a);
    if (!ctx)
        goto done;
    tpl_error err;
    tpl_template *t = tpl_load_file(env, tmpl, &err);
    tpl_buf out;
    tpl_buf_init(&out);
    if (!t || tpl_render(env, t, ctx, &out, &err)) {
        char msg[4096];
        tpl_error_format(&err, msg, sizeof msg);
        fputs(msg, stderr);
        rc = !t && err.line == 0 ? 2 : 1;
    } else if (out.len && fwrite(out.data, 1, out.len, stdout) != out.len) {
        cli_error("cannot write output");
        rc = 2;
    } else {
        rc = fflush(stdout) ? 2 : 0;
    }
    tpl_buf_free(&out);
done:
    free(incs);
    tpl_arena_free(a);
    tpl_env_free(env);
    return rc;
}
