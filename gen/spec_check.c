/* spec_check.c - schema check: the located YAML tree -> a Spec. Checks every
 * key against the schema of SPEC.md §2 and the op table (spec_ops.def): types,
 * required and unknown keys (with "did you mean"), names and their scopes,
 * integer expressions over params. Codes E01x and E02x; keeps going after an
 * error so that one run reports every problem. Semantics are sema.c's job. */
#include "spec.h"
#include "c_names.h"
#include "tg_isa.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { CHECK_MAX_SCOPE = SPEC_MAX_DEPTH }; /* open loops at once */

typedef struct Checker {
    Arena *arena;
    Diag *diag;
    Spec *spec;
    const char *scope_var[CHECK_MAX_SCOPE]; /* loop variables in scope, outermost first */
    int scope_slot[CHECK_MAX_SCOPE];        /* their env[] slots */
    SrcLoc scope_loc[CHECK_MAX_SCOPE];      /* where each was declared */
    int nscope;
    int slot_cap;                           /* allocated entries of spec->slot_loop */
    const char *poison[256];                /* names whose definition had errors: uses stay quiet */
    int npoison;
    int grid_bad;                           /* the grid had errors: program_id() stays quiet */
} Checker;

static void poison(Checker *c, const char *name)
{
    if (c->npoison < (int)(sizeof c->poison / sizeof c->poison[0]))
        c->poison[c->npoison++] = name;
}

static int poisoned(const Checker *c, const char *name)
{
    for (int i = 0; i < c->npoison; i++)
        if (!strcmp(c->poison[i], name))
            return 1;
    return 0;
}

/* ---------------------------------------------------------------- tables */

static const char *const op_names[] = {
#define SPEC_OP(ID, NAME, ENGINE) NAME,
#include "spec_ops.def"
    NULL};
static const SpecEngine op_engines[] = {
#define SPEC_OP(ID, NAME, ENGINE) SPEC_ENGINE_##ENGINE,
#include "spec_ops.def"
};
static const char *const field_names[] = {
#define X(ID, NAME) NAME,
    SPEC_FIELD_NAMES(X)
#undef X
        NULL};
static const char *const alu_names[] = {
#define X(ID, NAME, CLASS) NAME,
    SPEC_ALU_OPS(X)
#undef X
        NULL};
static const char alu_classes[] = {
#define X(ID, NAME, CLASS) CLASS,
    SPEC_ALU_OPS(X)
#undef X
};
static const char *const act_names[] = {
#define X(ID, NAME) NAME,
    SPEC_ACT_FUNCS(X)
#undef X
        NULL};
static const struct {
    SpecOpKind op;      /* owner */
    SpecFieldId field;  /* which field */
    SpecFieldKind kind; /* what it holds */
    int required;       /* must be given */
} op_fields[] = {
#define SPEC_FIELD(OP, FIELD, KIND, REQ) {SPEC_OP_##OP, SPEC_F_##FIELD, SPEC_FK_##KIND, REQ},
#include "spec_ops.def"
};
static const char *const dtype_names[] = {"float32", "tfloat32", "bfloat16", "float16", "float8_e4m3",
                                          "float8_e5m2", "int8", "uint8", "int16", "uint16", "int32",
                                          "uint32", NULL};

const char *spec_op_name(SpecOpKind op) { return op_names[op]; }
SpecEngine spec_op_engine(SpecOpKind op) { return op_engines[op]; }
const char *spec_field_name(SpecFieldId f) { return field_names[f]; }
const char *spec_alu_name(SpecAlu a) { return alu_names[a]; }
char spec_alu_class(SpecAlu a) { return alu_classes[a]; }
const char *spec_act_name(SpecAct a) { return act_names[a]; }

const char *spec_engine_name(SpecEngine e)
{
    static const char *const n[] = {"DMA", "Tensor", "Vector", "Scalar", "GpSimd"};
    return n[e];
}

int spec_op_field(SpecOpKind op, SpecFieldId f, int *required)
{
    for (size_t i = 0; i < sizeof op_fields / sizeof op_fields[0]; i++)
        if (op_fields[i].op == op && op_fields[i].field == f) {
            if (required)
                *required = op_fields[i].required;
            return (int)op_fields[i].kind;
        }
    return -1;
}

int64_t spec_sbuf_usable(tg_target t)
{
    return tg_machine_of(t).sbuf_usable;
}

/* ------------------------------------------------------------- utilities */

static int lookup(const char *const *names, const char *s)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], s))
            return i;
    return -1;
}

static void suggest_note(Checker *c, SrcLoc loc, const char *name, const char *const *cands)
{
    const char *s = diag_suggest(name, cands);
    if (s)
        diag_note(c->diag, loc, "did you mean '%s'?", s);
}

static const char *kind_article(SpecNodeKind k)
{
    return k == SPEC_NODE_MAP ? "a mapping" : k == SPEC_NODE_SEQ ? "a sequence" : "a scalar";
}

/* Is n of kind k? Else E012 naming `what`. */
static int want(Checker *c, const SpecNode *n, SpecNodeKind k, const char *what)
{
    if (n->kind == k)
        return 1;
    diag_error(c->diag, n->loc, "E012", "%s must be %s, not %s", what, kind_article(k), kind_article(n->kind));
    return 0;
}

static int is_ident(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    for (s++; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

static int check_ident(Checker *c, const SpecNode *n, const char *what)
{
    if (n->len == strlen(n->text) && n->len <= TG_ISA_MAX_NAME && is_ident(n->text))
        return 1; /* the binary program's string table holds names of at most TG_ISA_MAX_NAME (63) */
    diag_error(c->diag, n->loc, "E017", "%s '%.40s' is not a valid name (letters, digits and '_', not starting with a digit, at most %d)",
               what, n->text, TG_ISA_MAX_NAME);
    return 0;
}

/* Reject keys not in `allowed` (NULL-terminated), suggesting the closest. */
static void check_keys(Checker *c, const SpecNode *map, const char *const *allowed, const char *where)
{
    for (int i = 0; i < map->n; i++) {
        const SpecNode *k = map->keys[i];
        if (lookup(allowed, k->text) >= 0)
            continue;
        diag_error(c->diag, k->loc, "E010", "unknown key '%.40s' in %s", k->text, where);
        suggest_note(c, k->loc, k->text, allowed);
    }
}

static const SpecNode *require(Checker *c, const SpecNode *map, SrcLoc at, const char *key, const char *where)
{
    const SpecNode *v = spec_map_get(map, key);
    if (!v)
        diag_error(c->diag, at, "E011", "%s needs '%s'", where, key);
    return v;
}

static void report_expr_error(Checker *c, const ExprError *e)
{
    diag_error(c->diag, e->loc, e->code ? e->code : "E009", "%s", e->msg);
}

/* A name that is defined already (param, tensor or tile)? Returns its location. */
static int find_global(const Spec *s, const char *name, SrcLoc *loc)
{
    for (int i = 0; i < s->nparams; i++)
        if (!strcmp(s->params[i].name, name)) {
            *loc = s->params[i].loc;
            return 1;
        }
    for (int i = 0; i < s->ntensors; i++)
        if (!strcmp(s->tensors[i].name, name)) {
            *loc = s->tensors[i].loc;
            return 1;
        }
    for (int i = 0; i < s->ntiles; i++)
        if (!strcmp(s->tiles[i].name, name)) {
            *loc = s->tiles[i].loc;
            return 1;
        }
    return 0;
}

static int check_unique(Checker *c, const char *name, SrcLoc loc)
{
    SrcLoc prev;
    if (find_global(c->spec, name, &prev)) {
        diag_error(c->diag, loc, "E021", "'%s' is already defined", name);
        diag_note(c->diag, prev, "'%s' first defined here", name);
        return 0;
    }
    for (int i = 0; i < c->nscope; i++)
        if (!strcmp(c->scope_var[i], name)) {
            diag_error(c->diag, loc, "E021", "'%s' is already defined", name);
            diag_note(c->diag, c->scope_loc[i], "'%s' first defined here", name);
            return 0;
        }
    return 1;
}

static int is_reserved(const char *name)
{
    static const char *const r[] = {"min", "max", "inf", NULL};
    /* program_id_<a> names the grid's loop variables (expr.h) */
    return lookup(r, name) >= 0 || !strncmp(name, "program_id", 10) || !strncmp(name, "num_programs", 12);
}

/* ------------------------------------------------------------------ grid */

enum { GRID_NONE, GRID_BAD, GRID_COUNT, GRID_PID };

/* Is name the variable of a grid loop (SPEC.md §2.1, expr.h)? */
static int is_grid_var(const char *name) { return !strncmp(name, "program_id_", 11); }

/* program_id(a) / num_programs(a) in e, a NAME: GRID_NONE when e is neither;
 * GRID_BAD after reporting a kernel without a grid (E072) or an axis
 * outside it (E071); GRID_COUNT when e was num_programs, now its count;
 * GRID_PID for program_id, left for the scope lookup (the grid loop). */
static int grid_call(Checker *c, Expr *e)
{
    if (e->ival != EXPR_GRID_PID && e->ival != EXPR_GRID_NPROG)
        return GRID_NONE;
    int pid = e->ival == EXPR_GRID_PID;
    const char *fn = pid ? "program_id" : "num_programs";
    long long axis = strtoll(e->name + strlen(fn) + 1, NULL, 10);
    Spec *s = c->spec;
    if (c->grid_bad)
        return GRID_BAD;
    if (!s->grid_rank) {
        diag_error(c->diag, e->loc, "E072", "%s(%lld) in a kernel without a grid", fn, axis);
        diag_note(c->diag, e->loc, "a top-level 'grid: [G0, ...]' runs the body once per program; %s reads its "
                  "%s", fn, pid ? "index along an axis" : "count along an axis");
        return GRID_BAD;
    }
    if (axis >= s->grid_rank) {
        diag_error(c->diag, e->loc, "E071", "%s(%lld): the grid has %d ax%s (0 to %d)", fn, axis, s->grid_rank,
                   s->grid_rank == 1 ? "is" : "es", s->grid_rank - 1);
        diag_note(c->diag, s->grid_loc, "the grid is declared here");
        return GRID_BAD;
    }
    if (pid)
        return GRID_PID;
    e->kind = EXPR_INT;
    e->ival = s->grid[axis];
    return GRID_COUNT;
}

/* How a loop variable reads in a message: program_id(a) for the grid's. */
static const char *var_text(Checker *c, const char *var)
{
    if (!is_grid_var(var))
        return var;
    char *b = arena_alloc(c->arena, 32);
    if (!b)
        return var;
    snprintf(b, 32, "program_id(%s)", var + 11);
    return b;
}

/* ---------------------------------------------------- names in expressions */

enum { ALLOW_PARAMS = 0, ALLOW_VARS = 1, ALLOW_PF = 2 };

/* Candidate names for "did you mean" in an expression. */
static const char **expr_candidates(Checker *c, int allow)
{
    int n = c->spec->nparams + c->nscope + 3;
    const char **v = arena_alloc(c->arena, (size_t)n * sizeof *v);
    if (!v)
        return NULL;
    int k = 0;
    for (int i = 0; i < c->spec->nparams; i++)
        v[k++] = c->spec->params[i].name;
    if (allow & ALLOW_VARS)
        for (int i = 0; i < c->nscope; i++)
            v[k++] = c->scope_var[i];
    if (allow & ALLOW_PF) {
        v[k++] = "p";
        v[k++] = "f";
    }
    v[k] = NULL;
    return v;
}

/* Resolve every NAME in e to a param value or a variable slot. Returns the
 * number of errors reported. */
static int resolve(Checker *c, Expr *e, int allow, const char *where)
{
    if (!e)
        return 0;
    if (e->kind != EXPR_NAME)
        return resolve(c, e->a, allow, where) + resolve(c, e->b, allow, where);
    int g = grid_call(c, e);
    if (g == GRID_BAD)
        return 1;
    if (g == GRID_COUNT)
        return 0;
    int pf = !strcmp(e->name, "p") || !strcmp(e->name, "f");
    for (int i = c->nscope - 1; i >= 0; i--)
        if (!strcmp(c->scope_var[i], e->name) && is_grid_var(e->name) == (g == GRID_PID)) {
            if ((allow & ALLOW_PF) && pf) {
                diag_error(c->diag, e->loc, "E024",
                           "'%s' is ambiguous in %s: it is both a loop variable and the %s index; rename the loop variable",
                           e->name, where, e->name[0] == 'p' ? "partition" : "free");
                diag_note(c->diag, c->scope_loc[i], "loop variable '%s' declared here", e->name);
                return 1;
            }
            if (!(allow & ALLOW_VARS)) {
                diag_error(c->diag, e->loc, "E024", "loop variable '%s' cannot appear in %s; only params can",
                           var_text(c, e->name), where);
                return 1;
            }
            e->kind = EXPR_VAR;
            e->ival = c->scope_slot[i];
            return 0;
        }
    for (int i = 0; i < c->spec->nparams; i++)
        if (!strcmp(c->spec->params[i].name, e->name)) {
            e->kind = EXPR_INT;
            e->ival = c->spec->params[i].value;
            return 0;
        }
    if ((allow & ALLOW_PF) && pf) {
        e->kind = EXPR_VAR;
        e->ival = e->name[0] == 'p' ? EXPR_VAR_P : EXPR_VAR_F;
        return 0;
    }
    if (poisoned(c, e->name))
        return 1;
    diag_error(c->diag, e->loc, "E020", "undefined name '%s' in %s", e->name, where);
    const char **cands = expr_candidates(c, allow);
    if (cands)
        suggest_note(c, e->loc, e->name, cands);
    return 1;
}

/* An integer-valued node: a YAML scalar holding an integer expression over
 * params. Returns 1 and sets *out on success. */
static int const_int(Checker *c, const SpecNode *n, const char *where, int64_t *out)
{
    if (!want(c, n, SPEC_NODE_SCALAR, where))
        return 0;
    ExprError err;
    Expr *e = expr_parse_int(c->arena, n, n->text, &err);
    if (!e) {
        report_expr_error(c, &err);
        return 0;
    }
    if (resolve(c, e, ALLOW_PARAMS, where))
        return 0;
    if (expr_eval(e, NULL, out, &err)) {
        report_expr_error(c, &err);
        return 0;
    }
    return 1;
}

static int parse_bool(Checker *c, const SpecNode *n, const char *where, int *out)
{
    if (!want(c, n, SPEC_NODE_SCALAR, where))
        return 0;
    if (n->style == SPEC_STYLE_PLAIN && !strcmp(n->text, "true"))
        *out = 1;
    else if (n->style == SPEC_STYLE_PLAIN && !strcmp(n->text, "false"))
        *out = 0;
    else {
        diag_error(c->diag, n->loc, "E013", "%s must be true or false, not '%.40s'", where, n->text);
        return 0;
    }
    return 1;
}

/* A name from a fixed list (dtype, ALU op, ...), E014 with a suggestion. */
static int parse_enum(Checker *c, const SpecNode *n, const char *const *names, const char *what, int *out)
{
    if (!want(c, n, SPEC_NODE_SCALAR, what))
        return 0;
    int i = lookup(names, n->text);
    if (i < 0 && names == alu_names) {
        /* SPEC.md's own example writes `op: max`: accept the short forms */
        if (!strcmp(n->text, "max"))
            i = SPEC_ALU_MAXIMUM;
        else if (!strcmp(n->text, "min"))
            i = SPEC_ALU_MINIMUM;
    }
    if (i < 0) {
        diag_error(c->diag, n->loc, "E014", "unknown %s '%.40s'", what, n->text);
        suggest_note(c, n->loc, n->text, names);
        return 0;
    }
    *out = i;
    return 1;
}

/* ---------------------------------------------------------------- header */

/* The value text of -D NAME=VALUE for `name`, or NULL. */
static const char *define_of(const SpecOptions *opt, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; opt && i < opt->ndefines; i++)
        if (!strncmp(opt->defines[i], name, n) && opt->defines[i][n] == '=')
            return opt->defines[i] + n + 1;
    return NULL;
}

/* params: in order, each an integer expression over the params before it; a
 * -D override replaces the value (later params see it). */
static void check_params(Checker *c, const SpecNode *params, const SpecOptions *opt)
{
    Spec *s = c->spec;
    if (!want(c, params, SPEC_NODE_MAP, "'params'"))
        return;
    s->params = arena_alloc(c->arena, (size_t)(params->n + 1) * sizeof *s->params);
    if (!s->params)
        return;
    for (int i = 0; i < params->n; i++) {
        const SpecNode *k = params->keys[i];
        if (!check_ident(c, k, "param")) {
            poison(c, k->text);
            continue;
        }
        if (is_reserved(k->text)) {
            diag_error(c->diag, k->loc, "E024", "'%s' is reserved and cannot name a param", k->text);
            continue;
        }
        if (!check_unique(c, k->text, k->loc))
            continue;
        int64_t v;
        const char *ov = define_of(opt, k->text);
        if (ov) {
            s->params[s->nparams++] = (SpecParam){k->text, strtoll(ov, NULL, 10), k->loc, 1};
            continue;
        }
        if (!const_int(c, params->items[i], "a param value", &v)) {
            poison(c, k->text);
            continue;
        }
        s->params[s->nparams++] = (SpecParam){k->text, v, k->loc, 0};
    }
}

static void apply_defines(Checker *c, const SpecOptions *opt)
{
    Spec *s = c->spec;
    for (int i = 0; opt && i < opt->ndefines; i++) {
        const char *d = opt->defines[i], *eq = strchr(d, '=');
        if (!eq)
            continue; /* main validates the form */
        char *name = arena_strndup(c->arena, d, (size_t)(eq - d));
        if (!name)
            return;
        int found = 0;
        for (int j = 0; j < s->nparams; j++)
            found |= !strcmp(s->params[j].name, name);
        found |= poisoned(c, name);
        if (!found) {
            diag_error(c->diag, (SrcLoc){s->file, 0, 0}, "E019", "-D %s: the spec has no param '%s'", d, name);
            const char **cands = expr_candidates(c, ALLOW_PARAMS);
            if (cands && diag_suggest(name, cands))
                diag_note(c->diag, (SrcLoc){s->file, 0, 0}, "did you mean '%s'?", diag_suggest(name, cands));
            char list[256];
            size_t n = 0;
            list[0] = '\0';
            for (int j = 0; j < s->nparams && n < sizeof list; j++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", j ? ", " : "", s->params[j].name);
            if (s->nparams)
                diag_note(c->diag, s->params[0].loc, "the spec's params: %s", list);
            else
                diag_note(c->diag, (SrcLoc){s->file, 0, 0}, "the spec has no params: section");
        }
    }
}

static int parse_shape(Checker *c, const SpecNode *n, int64_t *shape, int *rank, const char *what)
{
    if (!want(c, n, SPEC_NODE_SEQ, what))
        return 0;
    if (n->n < 1 || n->n > SPEC_MAX_RANK) {
        diag_error(c->diag, n->loc, "E030", "%s has %d dimensions; rank must be 1 to %d", what, n->n, SPEC_MAX_RANK);
        return 0;
    }
    int ok = 1;
    for (int i = 0; i < n->n; i++) {
        if (!const_int(c, n->items[i], "a shape", &shape[i])) {
            ok = 0;
            continue;
        }
        if (shape[i] < 1 || shape[i] > (int64_t)1 << 32) {
            diag_error(c->diag, n->items[i]->loc, "E035", "dimension %d of %s is %lld; it must be 1 to 2^32", i,
                       what, (long long)shape[i]);
            ok = 0;
        }
    }
    *rank = n->n;
    return ok;
}

/* Replace every param name (and num_programs) in e by its value; the number
 * of names left. */
static int resolve_params(Checker *c, Expr *e)
{
    if (!e)
        return 0;
    if (e->kind != EXPR_NAME)
        return resolve_params(c, e->a) + resolve_params(c, e->b);
    if (e->ival == EXPR_GRID_NPROG) {
        if (grid_call(c, e) == GRID_COUNT)
            return 0;
        poison(c, e->name); /* reported: the ragged-shape check stays quiet */
        e->ival = 0;
        return 1;
    }
    for (int i = 0; i < c->spec->nparams; i++)
        if (!strcmp(c->spec->params[i].name, e->name)) {
            e->kind = EXPR_INT;
            e->ival = c->spec->params[i].value;
            return 0;
        }
    return 1;
}

/* A tile's shape (SPEC.md §2.1): like a tensor's, but a dim may also read
 * loop variables (a ragged tile). Such a dim keeps its expression in
 * t->shape_e, its names bound by sema at the tile's first use; names that no
 * loop of the spec declares are reported by check_ragged_names. */
static int parse_tile_shape(Checker *c, const SpecNode *n, SpecTile *t)
{
    if (!want(c, n, SPEC_NODE_SEQ, "the tile's shape"))
        return 0;
    if (n->n < 1 || n->n > SPEC_MAX_TILE_RANK) {
        diag_error(c->diag, n->loc, "E030", "the tile's shape has %d dimensions; rank must be 1 to %d", n->n,
                   SPEC_MAX_TILE_RANK);
        return 0;
    }
    int ok = 1;
    for (int i = 0; i < n->n; i++) {
        const SpecNode *dn = n->items[i];
        if (!want(c, dn, SPEC_NODE_SCALAR, "a shape")) {
            ok = 0;
            continue;
        }
        ExprError err;
        Expr *e = expr_parse_int(c->arena, dn, dn->text, &err);
        if (!e) {
            report_expr_error(c, &err);
            ok = 0;
            continue;
        }
        if (resolve_params(c, e)) {
            t->shape_e[i] = e;
            t->ragged = 1;
            continue;
        }
        if (expr_eval(e, NULL, &t->shape[i], &err)) {
            report_expr_error(c, &err);
            ok = 0;
            continue;
        }
        if (t->shape[i] < 1 || t->shape[i] > (int64_t)1 << 32) {
            diag_error(c->diag, dn->loc, "E035", "dimension %d of the tile's shape is %lld; it must be 1 to 2^32", i,
                       (long long)t->shape[i]);
            ok = 0;
        }
    }
    t->rank = n->n;
    return ok;
}

/* Is name the variable of some loop of the spec? */
static int is_loop_var(const Spec *s, const char *name)
{
    for (int i = EXPR_VAR_FIRST; i < s->nslots; i++)
        if (s->slot_loop[i] && s->slot_loop[i]->var && !strcmp(s->slot_loop[i]->var, name))
            return 1;
    return 0;
}

static int ragged_names(Checker *c, Expr *e)
{
    if (!e)
        return 0;
    if (e->kind != EXPR_NAME)
        return ragged_names(c, e->a) + ragged_names(c, e->b);
    int g = grid_call(c, e);
    if (g == GRID_BAD)
        return 1;
    if (is_loop_var(c->spec, e->name) && is_grid_var(e->name) == (g == GRID_PID))
        return 0;
    if (poisoned(c, e->name))
        return 1;
    diag_error(c->diag, e->loc, "E020", "undefined name '%s' in a shape", e->name);
    int n = c->spec->nparams + c->spec->nslots + 1, k = 0;
    const char **v = arena_alloc(c->arena, (size_t)n * sizeof *v);
    if (v) {
        for (int i = 0; i < c->spec->nparams; i++)
            v[k++] = c->spec->params[i].name;
        for (int i = EXPR_VAR_FIRST; i < c->spec->nslots; i++)
            if (c->spec->slot_loop[i] && c->spec->slot_loop[i]->var)
                v[k++] = c->spec->slot_loop[i]->var;
        v[k] = NULL;
        suggest_note(c, e->loc, e->name, v);
    }
    return 1;
}

/* After the body: every name left in a ragged tile's shape names a loop. */
static void check_ragged_names(Checker *c)
{
    for (int i = 0; i < c->spec->ntiles; i++) {
        SpecTile *t = &c->spec->tiles[i];
        for (int d = 0; t->declared && t->ragged && d < t->rank; d++)
            if (ragged_names(c, t->shape_e[d]))
                t->bad = 1;
    }
}

static int find_tensor(const Spec *s, const char *name);

/* k.h states each scratch tensor's size as <KERNEL>_SCRATCH_<NAME>_BYTES,
 * NAME upper-cased: two scratch names equal but for case would give one macro. */
static int check_scratch_macro(Checker *c, const SpecNode *k)
{
    const Spec *s = c->spec;
    for (int i = 0; i < s->ntensors; i++) {
        const char *a = s->tensors[i].name, *b = k->text;
        if (!s->tensors[i].is_scratch)
            continue;
        while (*a && *b && toupper((unsigned char)*a) == toupper((unsigned char)*b))
            a++, b++;
        if (*a || *b)
            continue;
        char kn[64] = "", tn[64] = "";
        for (size_t j = 0; s->kernel && s->kernel[j] && j + 1 < sizeof kn; j++)
            kn[j] = (char)toupper((unsigned char)s->kernel[j]);
        for (size_t j = 0; k->text[j] && j + 1 < sizeof tn; j++)
            tn[j] = (char)toupper((unsigned char)k->text[j]);
        diag_error(c->diag, k->loc, "E021", "scratch '%s' and '%s' differ only in case: the header would state both "
                   "sizes as %s_SCRATCH_%s_BYTES", k->text, s->tensors[i].name, kn[0] ? kn : "K", tn);
        diag_note(c->diag, s->tensors[i].loc, "'%s' defined here", s->tensors[i].name);
        return 0;
    }
    return 1;
}

/* inputs:, outputs: or scratch: (section 0, 1, 2) */
static void check_tensors(Checker *c, const SpecNode *sec, int section)
{
    static const char *const keys[] = {"dtype", "shape", NULL};
    static const char *const secnames[] = {"'inputs'", "'outputs'", "'scratch'"};
    Spec *s = c->spec;
    if (!want(c, sec, SPEC_NODE_MAP, secnames[section]))
        return;
    for (int i = 0; i < sec->n; i++) {
        const SpecNode *k = sec->keys[i], *v = sec->items[i];
        if (!check_ident(c, k, "tensor") || !check_unique(c, k->text, k->loc)) {
            poison(c, k->text);
            continue;
        }
        if (section == 2 && !check_scratch_macro(c, k)) {
            poison(c, k->text);
            continue;
        }
        SpecTensor t = {.name = k->text, .is_output = section == 1, .is_scratch = section == 2, .loc = k->loc,
                        .index = s->ntensors, .view_of = -1, .base = s->ntensors};
        if (!want(c, v, SPEC_NODE_MAP, "a tensor")) {
            poison(c, k->text);
            continue;
        }
        check_keys(c, v, keys, "a tensor");
        const SpecNode *dt = require(c, v, k->loc, "dtype", "a tensor");
        const SpecNode *sh = require(c, v, k->loc, "shape", "a tensor");
        int d = 0, ok = dt && sh;
        ok &= dt && parse_enum(c, dt, dtype_names, "dtype", &d);
        ok &= sh && parse_shape(c, sh, t.shape, &t.rank, "the tensor's shape");
        t.dtype = (tg_dtype)d;
        if (ok)
            s->tensors[s->ntensors++] = t;
        else
            poison(c, k->text);
    }
}

int64_t spec_tensor_bytes(const SpecTensor *t)
{
    int64_t n = (int64_t)tg_dtype_size(t->dtype);
    for (int d = 0; d < t->rank; d++)
        n *= t->shape[d]; /* dims <= 2^32, rank <= 5, size <= 4: no overflow for sane shapes; E037 bounds them */
    return n;
}

/* views: NAME: {of: T, shape: [...], dtype?: D} (SPEC.md §2.1): the bytes of
 * tensor T (an input, output, scratch or an earlier view) seen with another
 * row-major shape, or with `dtype` reinterpreted (a bitcast). */
static void check_views(Checker *c, const SpecNode *sec)
{
    static const char *const keys[] = {"of", "shape", "dtype", NULL};
    Spec *s = c->spec;
    if (!want(c, sec, SPEC_NODE_MAP, "'views'"))
        return;
    for (int i = 0; i < sec->n; i++) {
        const SpecNode *k = sec->keys[i], *v = sec->items[i];
        if (!check_ident(c, k, "view") || !check_unique(c, k->text, k->loc)) {
            poison(c, k->text);
            continue;
        }
        SpecTensor t = {.name = k->text, .loc = k->loc, .index = s->ntensors, .view_of = -1};
        if (!want(c, v, SPEC_NODE_MAP, "a view")) {
            poison(c, k->text);
            continue;
        }
        check_keys(c, v, keys, "a view");
        const SpecNode *of = require(c, v, k->loc, "of", "a view");
        const SpecNode *sh = require(c, v, k->loc, "shape", "a view");
        const SpecNode *dt = spec_map_get(v, "dtype");
        int ok = of && sh && want(c, of, SPEC_NODE_SCALAR, "'of'");
        int bi = -1, d = 0;
        if (ok) {
            bi = find_tensor(s, of->text);
            SrcLoc prev;
            if (bi < 0 && find_global(s, of->text, &prev)) {
                diag_error(c->diag, of->loc, "E075", "view '%s' is of '%s', which is not an HBM tensor (an input, "
                           "output, scratch tensor or earlier view)", k->text, of->text);
                diag_note(c->diag, prev, "'%s' declared here", of->text);
                ok = 0;
            } else if (bi < 0 && !poisoned(c, of->text)) {
                diag_error(c->diag, of->loc, "E020", "undefined tensor '%s'", of->text);
                ok = 0;
            } else if (bi < 0) {
                ok = 0;
            }
        }
        ok &= sh && parse_shape(c, sh, t.shape, &t.rank, "the view's shape");
        if (dt)
            ok &= parse_enum(c, dt, dtype_names, "dtype", &d);
        if (!ok) {
            poison(c, k->text);
            continue;
        }
        const SpecTensor *b = &s->tensors[bi];
        t.dtype = dt ? (tg_dtype)d : b->dtype;
        t.is_output = b->is_output;
        t.is_scratch = b->is_scratch;
        t.view_of = bi;
        t.base = b->base;
        int64_t bytes = spec_tensor_bytes(b), es = (int64_t)tg_dtype_size(t.dtype), vb = spec_tensor_bytes(&t);
        if (bytes % es) {
            diag_error(c->diag, dt->loc, "E077", "view '%s' reads '%s' as %s, but its %lld bytes are not a whole "
                       "number of %lld-byte elements", k->text, of->text, tg_dtype_name(t.dtype), (long long)bytes,
                       (long long)es);
            poison(c, k->text);
            continue;
        }
        if (vb != bytes) {
            diag_error(c->diag, sh->loc, "E076", "view '%s' spans %lld bytes, but '%s' has %lld: a view must "
                       "cover exactly the bytes of the tensor it is of", k->text, (long long)vb, of->text,
                       (long long)bytes);
            diag_note(c->diag, b->loc, "'%s' is %s with %lld elements: a %s view of it has %lld elements",
                      of->text, tg_dtype_name(b->dtype), (long long)(bytes / (int64_t)tg_dtype_size(b->dtype)),
                      tg_dtype_name(t.dtype), (long long)(bytes / es));
            poison(c, k->text);
            continue;
        }
        s->tensors[s->ntensors++] = t;
    }
}

static SpecTile *add_tile(Checker *c, const char *name, SrcLoc loc)
{
    Spec *s = c->spec;
    if (s->ntiles == s->tiles_cap) {
        int cap = s->tiles_cap ? s->tiles_cap * 2 : 16;
        SpecTile *t = arena_alloc(c->arena, (size_t)cap * sizeof *t);
        if (!t)
            return NULL;
        if (s->ntiles)
            memcpy(t, s->tiles, (size_t)s->ntiles * sizeof *t);
        s->tiles = t;
        s->tiles_cap = cap;
    }
    SpecTile *t = &s->tiles[s->ntiles++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->loc = loc;
    t->bufs = 1;
    return t;
}

static void check_tiles(Checker *c, const SpecNode *sec)
{
    static const char *const keys[] = {"buffer", "dtype", "shape", "bufs", NULL};
    static const char *const buffers[] = {"sbuf", "psum", NULL};
    if (!want(c, sec, SPEC_NODE_MAP, "'tiles'"))
        return;
    for (int i = 0; i < sec->n; i++) {
        const SpecNode *k = sec->keys[i], *v = sec->items[i];
        if (!check_ident(c, k, "tile") || !check_unique(c, k->text, k->loc)) {
            poison(c, k->text);
            continue;
        }
        SpecTile *t = add_tile(c, k->text, k->loc);
        if (!t)
            return;
        t->declared = 1;
        if (!want(c, v, SPEC_NODE_MAP, "a tile")) {
            t->bad = 1;
            continue;
        }
        check_keys(c, v, keys, "a tile");
        const SpecNode *b = spec_map_get(v, "buffer"), *dt = require(c, v, k->loc, "dtype", "a tile"),
                       *sh = require(c, v, k->loc, "shape", "a tile"), *bufs = spec_map_get(v, "bufs");
        int buf = 0, d = 0, ok = dt && sh;
        if (b)
            ok &= parse_enum(c, b, buffers, "buffer", &buf);
        ok &= dt && parse_enum(c, dt, dtype_names, "dtype", &d);
        ok &= sh && parse_tile_shape(c, sh, t);
        t->buffer = (SpecBuffer)buf;
        t->dtype = (tg_dtype)d;
        if (bufs) {
            int64_t nb;
            if (!const_int(c, bufs, "bufs", &nb)) {
                ok = 0;
            } else if (nb < 1 || nb > 8) {
                diag_error(c->diag, bufs->loc, "E013", "bufs is %lld; it must be 1 to 8", (long long)nb);
                ok = 0;
            } else {
                t->bufs = (int)nb;
            }
        }
        t->bad = !ok;
    }
}

/* ------------------------------------------------------------------ body */

static int find_tensor(const Spec *s, const char *name)
{
    for (int i = 0; i < s->ntensors; i++)
        if (!strcmp(s->tensors[i].name, name))
            return i;
    return -1;
}

static int find_tile(const Spec *s, const char *name)
{
    for (int i = 0; i < s->ntiles; i++)
        if (!strcmp(s->tiles[i].name, name))
            return i;
    return -1;
}

static const char **region_candidates(Checker *c, int tensors, int tiles)
{
    const Spec *s = c->spec;
    const char **v = arena_alloc(c->arena, (size_t)(s->ntensors + s->ntiles + 1) * sizeof *v);
    if (!v)
        return NULL;
    int k = 0;
    for (int i = 0; tensors && i < s->ntensors; i++)
        v[k++] = s->tensors[i].name;
    for (int i = 0; tiles && i < s->ntiles; i++)
        v[k++] = s->tiles[i].name;
    v[k] = NULL;
    return v;
}

static int resolve_ref(Checker *c, SpecFieldKind kind, const char *fname, SpecRef *ref);

/* Parse and resolve a region field of kind `kind`. */
static int parse_ref(Checker *c, const SpecNode *n, SpecFieldKind kind, const char *fname, SpecRef *ref)
{
    if (!want(c, n, SPEC_NODE_SCALAR, fname))
        return 0;
    ExprError err;
    ref->index = -1;
    if (!expr_parse_region(c->arena, n, n->text, &ref->region, &err)) {
        report_expr_error(c, &err);
        return 0;
    }
    return resolve_ref(c, kind, fname, ref);
}

/* Resolve the names of a parsed region ref->region for a field of kind
 * `kind`: its expressions, and the tensor or tile it names (ref->index). */
static int resolve_ref(Checker *c, SpecFieldKind kind, const char *fname, SpecRef *ref)
{
    int errs = 0;
    ref->index = -1;
    for (int i = 0; i < ref->region.nslices; i++) {
        ExprSlice *sl = &ref->region.slice[i];
        errs += resolve(c, sl->start, ALLOW_VARS, "a region") + resolve(c, sl->stop, ALLOW_VARS, "a region") +
                resolve(c, sl->step, ALLOW_VARS, "a region");
    }
    const char *name = ref->region.name;
    SrcLoc loc = ref->region.loc;
    int ti = find_tensor(c->spec, name), li = find_tile(c->spec, name);
    int wants_tensor = kind == SPEC_FK_HBM_IN || kind == SPEC_FK_HBM_OUT;
    int wants_tile = kind == SPEC_FK_TILE_IN || kind == SPEC_FK_TILE_OUT || kind == SPEC_FK_SCALAR_IN ||
                     kind == SPEC_FK_REDUCE;
    int writes = kind == SPEC_FK_TILE_OUT || kind == SPEC_FK_ANY_OUT || kind == SPEC_FK_REDUCE;
    if (ti >= 0) {
        const SpecTensor *t = &c->spec->tensors[ti];
        if (wants_tile) {
            diag_error(c->diag, loc, "E022", "'%s' is an HBM tensor; %s takes a tile (load the tensor into one first)",
                       name, fname);
            diag_note(c->diag, t->loc, "'%s' declared here", name);
            return 0;
        }
        if (writes || kind == SPEC_FK_HBM_OUT) {
            if (!t->is_output && !t->is_scratch) {
                if (t->view_of >= 0)
                    diag_error(c->diag, loc, "E022", "view '%s' is of input '%s', which is read-only; only outputs "
                               "and scratch can be written", name, c->spec->tensors[t->base].name);
                else
                    diag_error(c->diag, loc, "E022", "input tensor '%s' is read-only; only outputs can be written",
                               name);
                diag_note(c->diag, t->loc, "'%s' declared here", name);
                return 0;
            }
        }
        ref->is_tensor = 1;
        ref->index = ti;
    } else if (li >= 0) {
        if (wants_tensor) {
            diag_error(c->diag, loc, "E022", "'%s' is a tile; %s takes an HBM tensor", name, fname);
            diag_note(c->diag, c->spec->tiles[li].loc, "'%s' declared here", name);
            return 0;
        }
        ref->index = li;
    } else if (writes) {
        /* first write of an undeclared tile: sema infers its shape */
        if (!check_unique(c, name, loc))
            return 0;
        SpecTile *t = add_tile(c, name, loc);
        if (!t)
            return 0;
        ref->index = c->spec->ntiles - 1;
    } else if (poisoned(c, name)) {
        return 0;
    } else {
        diag_error(c->diag, loc, "E020", "undefined %s '%s'", wants_tensor ? "tensor" : wants_tile ? "tile" : "name",
                   name);
        const char **cands = region_candidates(c, !wants_tile, !wants_tensor);
        if (cands)
            suggest_note(c, loc, name, cands);
        return 0;
    }
    return errs == 0;
}

/* A number field: an expression over params, loop variables and float
 * literals, evaluated in floating point and rounded once to float32 (SPEC.md
 * §2.1: `1/D` is 1.0/D). A constant one is evaluated here into v->num; one
 * over loop variables is kept in v->numx, and sema evaluates it at every
 * iteration. */
static int parse_number(Checker *c, const SpecNode *n, const char *fname, SpecValue *v)
{
    double *out = &v->num;
    if (!want(c, n, SPEC_NODE_SCALAR, fname))
        return 0;
    ExprError err;
    Expr *e = expr_parse_number(c->arena, n, n->text, &err);
    if (!e) {
        report_expr_error(c, &err);
        return 0;
    }
    if (resolve(c, e, ALLOW_PARAMS | ALLOW_VARS, fname))
        return 0;
    if (!expr_is_const(e)) {
        v->numx = e;
        *out = 0;
        return 1;
    }
    if (expr_eval_float(e, NULL, out, &err)) {
        report_expr_error(c, &err);
        return 0;
    }
    return 1;
}

/* Does a SCALAR_IN scalar name a tile or tensor (rather than a number)? */
static int names_region(Checker *c, const SpecNode *n)
{
    ExprToken t = expr_lex(n->text, 0);
    if (t.kind != EXPR_T_IDENT)
        return 0;
    char name[72];
    if (t.len >= sizeof name)
        return 1;
    memcpy(name, n->text + t.off, t.len);
    name[t.len] = '\0';
    if (find_tile(c->spec, name) >= 0 || find_tensor(c->spec, name) >= 0)
        return 1;
    if (expr_lex(n->text, t.off + t.len).kind == EXPR_T_LPAREN)
        return 0; /* min(...), num_programs(...): a number */
    for (int i = 0; i < c->spec->nparams; i++)
        if (!strcmp(c->spec->params[i].name, name))
            return 0;
    for (int i = 0; i < c->nscope; i++)
        if (!strcmp(c->scope_var[i], name))
            return 0; /* a number over a loop variable */
    return strcmp(name, "inf") != 0; /* an unknown name: report it as a tile */
}

static int parse_field(Checker *c, const SpecNode *n, SpecFieldKind kind, SpecFieldId fid, SpecValue *v)
{
    const char *fname = arena_printf(c->arena, "'%s'", spec_field_name(fid));
    if (!fname)
        return 0;
    v->present = 1;
    v->node = n;
    v->loc = n->loc;
    switch (kind) {
    case SPEC_FK_TILE_OUT:
    case SPEC_FK_TILE_IN:
    case SPEC_FK_HBM_IN:
    case SPEC_FK_HBM_OUT:
    case SPEC_FK_ANY_IN:
    case SPEC_FK_ANY_OUT:
        v->is_ref = 1;
        return parse_ref(c, n, kind, fname, &v->ref);
    case SPEC_FK_SCALAR_IN:
        if (n->kind == SPEC_NODE_SCALAR && names_region(c, n)) {
            v->is_ref = 1;
            return parse_ref(c, n, kind, fname, &v->ref);
        }
        return parse_number(c, n, fname, v);
    case SPEC_FK_NUMBER:
        return parse_number(c, n, fname, v);
    case SPEC_FK_ALU:
        return parse_enum(c, n, alu_names, "ALU op", &v->enum_val);
    case SPEC_FK_ACT:
        return parse_enum(c, n, act_names, "activation function", &v->enum_val);
    case SPEC_FK_DTYPE:
        return parse_enum(c, n, dtype_names, "dtype", &v->enum_val);
    case SPEC_FK_BOOL:
        return parse_bool(c, n, fname, &v->boolean);
    case SPEC_FK_IEXPR: {
        if (!want(c, n, SPEC_NODE_SCALAR, fname))
            return 0;
        ExprError err;
        v->expr = expr_parse_int(c->arena, n, n->text, &err);
        if (!v->expr) {
            report_expr_error(c, &err);
            return 0;
        }
        return resolve(c, v->expr, ALLOW_VARS | ALLOW_PF, "an iota expression") == 0;
    }
    case SPEC_FK_PRED: {
        if (!want(c, n, SPEC_NODE_SCALAR, fname))
            return 0;
        ExprError err;
        if (!expr_parse_pred(c->arena, n, n->text, &v->pred, &err)) {
            report_expr_error(c, &err);
            return 0;
        }
        return resolve(c, v->pred.lhs, ALLOW_VARS | ALLOW_PF, "a predicate") +
                   resolve(c, v->pred.rhs, ALLOW_VARS | ALLOW_PF, "a predicate") ==
               0;
    }
    case SPEC_FK_LABEL:
        if (!want(c, n, SPEC_NODE_SCALAR, fname) || !check_ident(c, n, "print label"))
            return 0;
        v->label = n->text;
        return 1;
    case SPEC_FK_REDUCE: {
        static const char *const keys[] = {"op", "dst", NULL};
        if (!want(c, n, SPEC_NODE_MAP, fname))
            return 0;
        const char *qd = arena_printf(c->arena, "'%s.dst'", spec_field_name(fid));
        if (!qd)
            return 0;
        check_keys(c, n, keys, fname);
        const SpecNode *op = require(c, n, n->loc, "op", fname), *dst = require(c, n, n->loc, "dst", fname);
        int ok = op && dst;
        ok &= op && parse_enum(c, op, alu_names, "ALU op", &v->enum_val);
        ok &= dst && parse_ref(c, dst, SPEC_FK_REDUCE, qd, &v->ref);
        v->is_ref = 1;
        return ok;
    }
    }
    return 0;
}

static SpecStmt **check_body(Checker *c, const SpecNode *seq, int *count);

/* Indirect DMA (SPEC.md §2.1): an index column `ix[:, c]` in the region of
 * field f. Only a load's src and a store's dst, both HBM regions, take one,
 * and one at most; it becomes the op's INDEX field (a tile region read) and
 * the region's ind/ind_dim. 0 after reporting an error (E048). */
static int check_indirect(Checker *c, SpecStmt *s, SpecFieldId f)
{
    SpecValue *v = &s->f[f];
    if (!v->is_ref)
        return 1;
    ExprRegion *rg = &v->ref.region;
    for (int d = 0; d < rg->nslices; d++) {
        ExprSlice *sl = &rg->slice[d];
        if (!sl->ind)
            continue;
        int hbm = (s->op == SPEC_OP_LOAD && f == SPEC_F_SRC) || (s->op == SPEC_OP_STORE && f == SPEC_F_DST);
        if (!hbm || !v->ref.is_tensor) {
            diag_error(c->diag, sl->loc, "E048", "an index column selects rows or elements of the HBM region of a "
                       "load's 'src' or a store's 'dst'; '%s' of %s cannot take one", spec_field_name(f),
                       spec_op_name(s->op));
            return 0;
        }
        if (v->ref.ind) {
            diag_error(c->diag, sl->loc, "E048", "one index of a region may be an index column; '%s' has two",
                       rg->name);
            return 0;
        }
        SpecValue *iv = &s->f[SPEC_F_INDEX];
        iv->present = 1;
        iv->is_ref = 1;
        iv->node = v->node;
        iv->loc = sl->ind->loc;
        iv->ref.region = *sl->ind;
        if (!resolve_ref(c, SPEC_FK_TILE_IN, "an index column", &iv->ref))
            return 0;
        v->ref.ind = &iv->ref;
        v->ref.ind_dim = d;
    }
    return 1;
}

static SpecStmt *check_op(Checker *c, const SpecNode *stmt)
{
    const SpecNode *k = stmt->keys[0], *v = stmt->items[0];
    int op = lookup(op_names, k->text);
    if (op < 0) {
        diag_error(c->diag, k->loc, "E016", "unknown op '%.40s'", k->text);
        suggest_note(c, k->loc, k->text, op_names);
        return NULL;
    }
    SpecStmt *s = arena_alloc(c->arena, sizeof *s);
    if (!s)
        return NULL;
    s->kind = SPEC_STMT_OP;
    s->op = (SpecOpKind)op;
    s->loc = k->loc;
    s->node = stmt;
    if (!want(c, v, SPEC_NODE_MAP, "an op's fields")) {
        s->bad = 1;
        return s;
    }
    /* the op's own field names, for unknown-key suggestions */
    const char *mine[SPEC_F_COUNT + 1];
    int nm = 0;
    for (int f = 0; f < SPEC_F_COUNT; f++)
        if (spec_op_field(s->op, (SpecFieldId)f, NULL) >= 0)
            mine[nm++] = field_names[f];
    mine[nm] = NULL;
    const char *where = arena_printf(c->arena, "'%s'", k->text);
    check_keys(c, v, mine, where ? where : "an op");
    /* fields in table order: writes of new tiles come after reads of old ones */
    for (int pass = 0; pass < 2; pass++)
        for (int f = 0; f < SPEC_F_COUNT; f++) {
            int req, kind = spec_op_field(s->op, (SpecFieldId)f, &req);
            if (kind < 0)
                continue;
            int is_write = kind == SPEC_FK_TILE_OUT || kind == SPEC_FK_ANY_OUT || kind == SPEC_FK_REDUCE ||
                           kind == SPEC_FK_HBM_OUT;
            if (is_write != pass)
                continue;
            const SpecNode *fv = spec_map_get(v, field_names[f]);
            if (!fv) {
                if (req) {
                    diag_error(c->diag, k->loc, "E011", "'%s' needs '%s'", k->text, field_names[f]);
                    s->bad = 1;
                }
                continue;
            }
            if (!parse_field(c, fv, (SpecFieldKind)kind, (SpecFieldId)f, &s->f[f]))
                s->bad = 1;
            else if (!check_indirect(c, s, (SpecFieldId)f))
                s->bad = 1;
        }
    return s;
}

static int add_slot(Checker *c, SpecStmt *loop)
{
    Spec *sp = c->spec;
    if (sp->nslots == c->slot_cap) {
        int cap = c->slot_cap * 2;
        SpecStmt **v = arena_alloc(c->arena, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        memcpy(v, sp->slot_loop, (size_t)sp->nslots * sizeof *v);
        sp->slot_loop = v;
        c->slot_cap = cap;
    }
    sp->slot_loop[sp->nslots] = loop;
    return sp->nslots++;
}

enum { CHECK_MAX_BOUND_ENUM = 1 << 22 }; /* enclosing iterations a loop bound is evaluated at */

/* Least (lo) or greatest value of bound e over the ranges of the enclosing
 * loops it reads (their hulls), in *out; 0 after reporting an error. */
static int bound_extreme(Checker *c, const SpecNode *n, Expr *e, int lo, int64_t *out)
{
    Spec *sp = c->spec;
    unsigned char *used = arena_alloc(c->arena, (size_t)sp->nslots + 1);
    int64_t *env = arena_alloc(c->arena, ((size_t)sp->nslots + 1) * sizeof *env);
    if (!used || !env)
        return 0;
    memset(used, 0, (size_t)sp->nslots + 1);
    expr_vars_used(e, used, sp->nslots);
    int v[CHECK_MAX_SCOPE], nv = 0;
    int64_t count = 1;
    for (int slot = EXPR_VAR_FIRST; slot < sp->nslots; slot++) {
        if (!used[slot])
            continue;
        const SpecStmt *l = sp->slot_loop[slot];
        if (l->bad || l->stop <= l->start)
            return 0; /* reported there */
        v[nv++] = slot;
        env[slot] = l->start;
        count *= (l->stop - l->start + l->step - 1) / l->step;
        if (count > CHECK_MAX_BOUND_ENUM) {
            diag_error(c->diag, n->loc, "E057", "evaluating this loop bound needs more than %d iterations of the "
                       "enclosing loops", CHECK_MAX_BOUND_ENUM);
            return 0;
        }
    }
    int first = 1;
    for (;;) {
        int64_t x;
        ExprError err;
        if (expr_eval(e, env, &x, &err)) {
            report_expr_error(c, &err);
            return 0;
        }
        if (first || (lo ? x < *out : x > *out))
            *out = x;
        first = 0;
        int i = nv - 1;
        for (; i >= 0; i--) {
            const SpecStmt *l = sp->slot_loop[v[i]];
            if (env[v[i]] + l->step < l->stop) {
                env[v[i]] += l->step;
                break;
            }
            env[v[i]] = l->start;
        }
        if (i < 0)
            return 1;
    }
}

/* A loop's start (lo) or stop: an integer expression over params and the
 * variables of the enclosing loops (SPEC.md §2.1). Constant: *v is its value
 * and *e NULL; else *e is kept for per-iteration evaluation and *v is its
 * extreme over the enclosing loops (the loop's hull). 0 after an error. */
static int loop_bound(Checker *c, const SpecNode *n, int lo, int64_t *v, Expr **e)
{
    *e = NULL;
    if (!want(c, n, SPEC_NODE_SCALAR, "a loop range"))
        return 0;
    ExprError err;
    Expr *x = expr_parse_int(c->arena, n, n->text, &err);
    if (!x) {
        report_expr_error(c, &err);
        return 0;
    }
    if (resolve(c, x, ALLOW_VARS, "a loop range"))
        return 0;
    if (expr_is_const(x)) {
        if (expr_eval(x, NULL, v, &err)) {
            report_expr_error(c, &err);
            return 0;
        }
        return 1;
    }
    *e = x;
    return bound_extreme(c, n, x, lo, v);
}

static SpecStmt *check_loop(Checker *c, const SpecNode *stmt)
{
    static const char *const stmt_keys[] = {"for", "body", NULL};
    static const char *const for_keys[] = {"var", "range", "carried", NULL};
    const SpecNode *fk = NULL;
    for (int i = 0; i < stmt->n; i++)
        if (!strcmp(stmt->keys[i]->text, "for"))
            fk = stmt->keys[i];
    check_keys(c, stmt, stmt_keys, "a loop");
    SpecStmt *s = arena_alloc(c->arena, sizeof *s);
    if (!s)
        return NULL;
    s->kind = SPEC_STMT_LOOP;
    s->loc = fk->loc;
    s->node = stmt;
    s->step = 1;
    const SpecNode *f = spec_map_get(stmt, "for"), *body = require(c, stmt, fk->loc, "body", "a loop");
    int ok = 1;
    SrcLoc var_loc = fk->loc;
    if (want(c, f, SPEC_NODE_MAP, "'for'")) {
        check_keys(c, f, for_keys, "'for'");
        const SpecNode *var = require(c, f, f->loc, "var", "'for'"), *range = require(c, f, f->loc, "range", "'for'"),
                       *car = spec_map_get(f, "carried");
        if (var && want(c, var, SPEC_NODE_SCALAR, "'var'") && check_ident(c, var, "loop variable")) {
            var_loc = var->loc;
            if (is_reserved(var->text)) {
                diag_error(c->diag, var->loc, "E024", "'%s' is reserved and cannot name a loop variable", var->text);
                ok = 0;
            } else if (check_unique(c, var->text, var->loc)) {
                s->var = var->text;
            } else {
                ok = 0;
            }
        } else {
            ok = 0;
        }
        if (car && !parse_bool(c, car, "'carried'", &s->carried))
            ok = 0;
        if (range && range->kind == SPEC_NODE_SEQ) {
            int64_t v[3] = {0, 0, 1};
            if (range->n < 2 || range->n > 3) {
                diag_error(c->diag, range->loc, "E053", "a range list is [start, stop] or [start, stop, step]");
                ok = 0;
            } else {
                ok &= loop_bound(c, range->items[0], 1, &v[0], &s->start_e);
                ok &= loop_bound(c, range->items[1], 0, &v[1], &s->stop_e);
                if (range->n == 3)
                    ok &= const_int(c, range->items[2], "a loop step", &v[2]);
            }
            s->start = v[0];
            s->stop = v[1];
            s->step = v[2];
        } else if (range) {
            ok &= loop_bound(c, range, 0, &s->stop, &s->stop_e);
        } else {
            ok = 0;
        }
        if (ok && range) {
            if (s->step < 1) {
                diag_error(c->diag, range->loc, "E053", "loop step is %lld; it must be positive", (long long)s->step);
                ok = 0;
            } else if (s->stop <= s->start) { /* bounds over loop variables: in no iteration */
                diag_error(c->diag, range->loc, "E053", "loop '%s' has no iterations (range %lld to %lld)",
                           s->var ? s->var : "?", (long long)s->start, (long long)s->stop);
                ok = 0;
            }
        }
    } else {
        ok = 0;
    }
    s->bad = !ok;
    if (!s->var)
        s->var = "?";
    s->slot = add_slot(c, s);
    if (s->slot < 0)
        return NULL;
    if (c->nscope < CHECK_MAX_SCOPE) {
        c->scope_var[c->nscope] = s->var;
        c->scope_slot[c->nscope] = s->slot;
        c->scope_loc[c->nscope] = var_loc;
        c->nscope++;
    }
    if (body)
        s->body = check_body(c, body, &s->nbody);
    c->nscope--;
    return s;
}

/* The key node of `key` in map (which has it). */
static const SpecNode *map_key(const SpecNode *map, const char *key)
{
    for (int i = 0; i < map->n; i++)
        if (!strcmp(map->keys[i]->text, key))
            return map->keys[i];
    return map;
}

/* grid := '[' count (',' count){0,2} ']' (SPEC.md §2.1), counts over params. */
static void check_grid(Checker *c, const SpecNode *key, const SpecNode *n)
{
    Spec *s = c->spec;
    c->grid_bad = 1;
    if (!want(c, n, SPEC_NODE_SEQ, "'grid'"))
        return;
    if (n->n < 1 || n->n > SPEC_MAX_GRID) {
        diag_error(c->diag, n->loc, "E070", "the grid has %d axes; it has 1 to %d", n->n, SPEC_MAX_GRID);
        return;
    }
    int ok = 1;
    for (int a = 0; a < n->n; a++) {
        if (!const_int(c, n->items[a], "a grid count", &s->grid[a])) {
            ok = 0;
        } else if (s->grid[a] < 1 || s->grid[a] > INT32_MAX) {
            diag_error(c->diag, n->items[a]->loc, "E070", "grid axis %d has %lld programs; it must be 1 to 2^31 - 1",
                       a, (long long)s->grid[a]);
            ok = 0;
        }
    }
    if (!ok)
        return;
    s->grid_rank = n->n;
    s->grid_loc = key->loc;
    c->grid_bad = 0;
}

/* cores := 1 | 2 (SPEC.md §2.1): axis 0 of the grid over the physical cores
 * of a trn2 logical NeuronCore (NKI's nl.nc(2)): core c runs the programs
 * whose program_id(0) lies in [c*h, min(G0, (c+1)*h)), h = ceil(G0 / 2),
 * every index of the other axes (spec_core_range). */
static void check_cores(Checker *c, const SpecNode *key, const SpecNode *n)
{
    Spec *s = c->spec;
    int64_t v;
    if (!const_int(c, n, "'cores'", &v))
        return;
    if (v != 1 && v != 2) {
        diag_error(c->diag, n->loc, "E073", "cores is %lld; a logical NeuronCore has 1 or 2 physical cores",
                   (long long)v);
        return;
    }
    if (v == 2 && s->target != TG_TRN2) {
        diag_error(c->diag, key->loc, "E074", "cores: 2 needs target trn2: a trn1 NeuronCore is one physical core, "
                   "only a trn2 logical NeuronCore has two");
        return;
    }
    if (v == 2 && !s->grid_rank) {
        if (!c->grid_bad)
            diag_error(c->diag, key->loc, "E074", "cores: 2 spreads the grid's axis 0 over the two physical cores; "
                       "this kernel has no grid to spread");
        if (!c->grid_bad)
            diag_note(c->diag, key->loc, "a top-level 'grid: [G0, ...]' gives each core the programs of half of axis 0");
        return;
    }
    if (v == 2 && s->grid[0] == 1)
        diag_warning(c->diag, key->loc, "W004", "grid axis 0 has one program, so physical core 1 runs nothing "
                     "(cores: 2 spreads axis 0 over the cores)");
    s->cores = (int)v;
    s->cores_loc = key->loc;
}

/* The body of a grid kernel: one independent loop per axis, axis 0
 * outermost, variable program_id_<a> (what program_id(a) binds to), around
 * the statements of `body`. */
static SpecStmt **grid_body(Checker *c, const SpecNode *seq, int *count)
{
    Spec *s = c->spec;
    SpecStmt *outer = NULL, *inner = NULL;
    int scope0 = c->nscope;
    const SpecNode *gn = spec_map_get(s->root, "grid");
    for (int a = 0; a < s->grid_rank; a++) {
        SpecStmt *l = arena_alloc(c->arena, sizeof *l);
        char *name = arena_alloc(c->arena, 24);
        if (!l || !name)
            return NULL;
        snprintf(name, 24, EXPR_GRID_NAME_FMT, "program_id", (long long)a);
        l->kind = SPEC_STMT_LOOP;
        l->loc = gn->items[a]->loc;
        l->node = gn;
        l->var = name;
        l->start = 0;
        l->stop = s->grid[a];
        l->step = 1;
        l->grid = a + 1;
        l->slot = add_slot(c, l);
        if (l->slot < 0)
            return NULL;
        c->scope_var[c->nscope] = l->var;
        c->scope_slot[c->nscope] = l->slot;
        c->scope_loc[c->nscope] = l->loc;
        c->nscope++;
        if (inner) {
            inner->body = arena_alloc(c->arena, sizeof *inner->body);
            if (!inner->body)
                return NULL;
            inner->body[0] = l;
            inner->nbody = 1;
        } else {
            outer = l;
        }
        inner = l;
    }
    inner->body = check_body(c, seq, &inner->nbody);
    c->nscope = scope0;
    SpecStmt **v = arena_alloc(c->arena, sizeof *v);
    if (!v)
        return NULL;
    v[0] = outer;
    *count = 1;
    return v;
}

static SpecStmt **check_body(Checker *c, const SpecNode *seq, int *count)
{
    *count = 0;
    if (!want(c, seq, SPEC_NODE_SEQ, "'body'"))
        return NULL;
    if (seq->n == 0)
        diag_warning(c->diag, seq->loc, "W003", "empty body");
    SpecStmt **v = arena_alloc(c->arena, (size_t)(seq->n + 1) * sizeof *v);
    if (!v)
        return NULL;
    for (int i = 0; i < seq->n; i++) {
        const SpecNode *st = seq->items[i];
        if (st->kind != SPEC_NODE_MAP) {
            diag_error(c->diag, st->loc, "E012",
                       "a statement must be a mapping ('- op: {...}' or '- for: {...}' with 'body:'), not %s",
                       kind_article(st->kind));
            continue;
        }
        SpecStmt *s = NULL;
        if (spec_map_get(st, "for"))
            s = check_loop(c, st);
        else if (st->n != 1)
            diag_error(c->diag, st->n ? st->keys[st->n > 1 ? 1 : 0]->loc : st->loc, "E016",
                       "an op statement has exactly one key, the op name; this one has %d", st->n);
        else
            s = check_op(c, st);
        if (s)
            v[(*count)++] = s;
    }
    return v;
}

/* --------------------------------------------------------------- the spec */

Spec *spec_check(Arena *arena, Diag *diag, const SpecNode *root, const char *file, const SpecOptions *opt)
{
    static const char *const top_keys[] = {"tilegen", "kernel", "doc", "target", "params", "grid", "cores",
                                           "inputs", "outputs", "scratch", "views", "tiles", "body", NULL};
    static const char *const targets[] = {"trn1", "trn2", NULL};
    Checker c = {.arena = arena, .diag = diag};
    Spec *s = arena_alloc(arena, sizeof *s);
    if (!s)
        return NULL;
    c.spec = s;
    s->file = file;
    s->root = root;
    s->nslots = EXPR_VAR_FIRST;
    c.slot_cap = 16;
    s->slot_loop = arena_alloc(arena, (size_t)c.slot_cap * sizeof *s->slot_loop);
    if (!s->slot_loop)
        return NULL;
    if (!want(&c, root, SPEC_NODE_MAP, "a spec"))
        return NULL;
    check_keys(&c, root, top_keys, "the spec");
    SrcLoc top = {file, root->loc.line, root->loc.col};
    const SpecNode *ver = require(&c, root, top, "tilegen", "the spec");
    if (ver && (ver->kind != SPEC_NODE_SCALAR || strcmp(ver->text, "1")))
        diag_error(diag, ver->loc, "E015", "unsupported schema version '%.20s'; this tilegen reads 'tilegen: 1'",
                   ver->kind == SPEC_NODE_SCALAR ? ver->text : "?");
    const SpecNode *k = require(&c, root, top, "kernel", "the spec");
    if (k && want(&c, k, SPEC_NODE_SCALAR, "'kernel'") && check_ident(&c, k, "kernel")) {
        if (cname_kernel_reserved(k->text))
            diag_error(diag, k->loc, "E017",
                       "kernel '%s' cannot name the generated C function: a C keyword, or a name the runtime, the C "
                       "headers or the generated code use (see docs/diagnostics.md)", k->text);
        else
            s->kernel = k->text;
    }
    const SpecNode *doc = spec_map_get(root, "doc");
    if (doc && want(&c, doc, SPEC_NODE_SCALAR, "'doc'"))
        s->doc = doc->text;
    const SpecNode *tg = spec_map_get(root, "target");
    int t = 0;
    if (tg)
        parse_enum(&c, tg, targets, "target", &t);
    if (opt && opt->target)
        t = !strcmp(opt->target, "trn2");
    s->target = (tg_target)t;
    const SpecNode *params = spec_map_get(root, "params");
    if (params)
        check_params(&c, params, opt);
    apply_defines(&c, opt);
    const SpecNode *grid = spec_map_get(root, "grid"), *cores = spec_map_get(root, "cores");
    if (grid)
        check_grid(&c, map_key(root, "grid"), grid);
    s->cores = 1;
    if (cores)
        check_cores(&c, map_key(root, "cores"), cores);
    const SpecNode *in = spec_map_get(root, "inputs"), *out = require(&c, root, top, "outputs", "the spec");
    const SpecNode *scr = spec_map_get(root, "scratch"), *views = spec_map_get(root, "views");
    int ntens = (in && in->kind == SPEC_NODE_MAP ? in->n : 0) + (out && out->kind == SPEC_NODE_MAP ? out->n : 0) +
                (scr && scr->kind == SPEC_NODE_MAP ? scr->n : 0) + (views && views->kind == SPEC_NODE_MAP ? views->n : 0);
    s->tensors = arena_alloc(arena, (size_t)(ntens + 1) * sizeof *s->tensors);
    if (!s->tensors)
        return NULL;
    if (in)
        check_tensors(&c, in, 0);
    s->ninputs = s->ntensors;
    if (out)
        check_tensors(&c, out, 1);
    if (scr)
        check_tensors(&c, scr, 2);
    s->npublic = s->ntensors;
    const SpecNode *tiles = spec_map_get(root, "tiles");
    if (tiles)
        check_tiles(&c, tiles);
    if (views) /* after tiles: a view named like a tile is a clash (E021) either way */
        check_views(&c, views);
    const SpecNode *body = require(&c, root, top, "body", "the spec");
    if (body)
        s->body = s->grid_rank ? grid_body(&c, body, &s->nbody) : check_body(&c, body, &s->nbody);
    check_ragged_names(&c);
    return arena->oom ? NULL : s;
}
