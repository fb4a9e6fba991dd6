/* ctemplate lexer (re2c): splits a template into text and tag tokens, applying
 * Jinja's whitespace rules on the way (trim_blocks, lstrip_blocks, `-`/`+`
 * markers, raw blocks, comments). Tag contents become expression tokens.
 * Plain `{` and `}` in text pass through untouched. */
#include <stdlib.h>
#include <string.h>

#include "tpl_int.h"

typedef struct Lx {
    tpl_arena *a;       /* token storage */
    const char *name;   /* template name (errors) */
    const char *src;    /* source */
    size_t len;         /* its length */
    const char *lim;    /* src + len (the NUL sentinel) */
    TplTokens *toks;    /* output */
    tpl_error *err;     /* error out */
    const char *lpos;   /* position whose line/col are cached */
    int lline, lcol;    /* cached line/col of lpos */
    int line_starting;  /* last tag ended with a newline (or start of file) */
    int depth;          /* () [] {} nesting inside the current tag */
} Lx;

/* Line/column (1-based, columns in characters) of p; p never goes backwards
 * by more than the cache, so we rescan from the start if it does. */
static void loc(Lx *lx, const char *p, int *line, int *col)
{
    if (p < lx->lpos) {
        lx->lpos = lx->src;
        lx->lline = lx->lcol = 1;
    }
    for (const char *q = lx->lpos; q < p; q++) {
        if (*q == '\n') {
            lx->lline++;
            lx->lcol = 1;
        } else if (((unsigned char)*q & 0xc0) != 0x80) {
            lx->lcol++;
        }
    }
    lx->lpos = p;
    *line = lx->lline;
    *col = lx->lcol;
}

static int fail(Lx *lx, const char *p, const char *msg, const char *arg)
{
    int line, col;
    loc(lx, p, &line, &col);
    tpl_error_set(lx->err, lx->name, lx->src, lx->len, line, col, msg, arg);
    return -1;
}

static TplToken *push(Lx *lx, TplTok k, const char *p, const char *s, size_t n)
{
    TplTokens *t = lx->toks;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        TplToken *nt = tpl_realloc(lx->a, t->t, t->cap * sizeof *nt, nc * sizeof *nt);
        if (!nt) {
            fail(lx, p, "%s", "out of memory");
            return NULL;
        }
        t->t = nt;
        t->cap = nc;
    }
    TplToken *tk = &t->t[t->n++];
    memset(tk, 0, sizeof *tk);
    tk->kind = k;
    loc(lx, p, &tk->line, &tk->col);
    tk->s = s;
    tk->n = n;
    return tk;
}

/* Skip Python whitespace from p. */
static const char *skip_space(Lx *lx, const char *p)
{
    size_t w;
    while (p < lx->lim && (w = tpl_space_at(p, (size_t)(lx->lim - p))) > 0)
        p += w;
    return p;
}

/* Emit the text before a tag, stripped per the tag's marker (`-` strips all
 * whitespace; otherwise lstrip_blocks strips an indentation-only line prefix
 * before block and comment tags). */
static int emit_text(Lx *lx, const char *p, const char *end, char marker, int is_block)
{
    size_t n = (size_t)(end - p);
    if (marker == '-') {
        n -= tpl_space_before(p, n);
    } else if (marker != '+' && is_block) {
        size_t l = n;
        while (l > 0 && p[l - 1] != '\n')
            l--;
        if ((l > 0 || lx->line_starting) && l < n) {
            size_t q = l;
            size_t w;
            while (q < n && (w = tpl_space_at(p + q, n - q)) > 0)
                q += w;
            if (q == n)
                n = l;
        }
    }
    if (n && !push(lx, TK_TEXT, p, p, n))
        return -1;
    return 0;
}

/* Match the end of a block-like tag at p: "+%}", "-%}\s*", "%}\n?" (close = '%'
 * or '#'). Returns the position after it, or NULL. */
static const char *block_end(Lx *lx, const char *p, char close)
{
    size_t left = (size_t)(lx->lim - p);
    if (left >= 3 && p[0] == '+' && p[1] == close && p[2] == '}')
        return p + 3;
    if (left >= 3 && p[0] == '-' && p[1] == close && p[2] == '}')
        return skip_space(lx, p + 3);
    if (left >= 2 && p[0] == close && p[1] == '}')
        return p + 2 + (left >= 3 && p[2] == '\n');
    return NULL;
}

/* `{%[-+]?\s*raw\s*(-%}\s*|%})` at p (just after the "{%")? Returns the end. */
static const char *raw_begin(Lx *lx, const char *p)
{
    if (p < lx->lim && (*p == '-' || *p == '+'))
        p++;
    p = skip_space(lx, p);
    if ((size_t)(lx->lim - p) < 3 || memcmp(p, "raw", 3))
        return NULL;
    p = skip_space(lx, p + 3);
    size_t left = (size_t)(lx->lim - p);
    if (left >= 3 && !memcmp(p, "-%}", 3))
        return skip_space(lx, p + 3);
    if (left >= 2 && !memcmp(p, "%}", 2))
        return p + 2;
    return NULL;
}

/* Find `{%[-+]?\s*endraw\s*(end)` from p; sets *tag to its start, *mark to the
 * marker char, returns the position after it or NULL. */
static const char *raw_end(Lx *lx, const char *p, const char **tag, char *mark)
{
    for (; p + 1 < lx->lim; p++) {
        if (p[0] != '{' || p[1] != '%')
            continue;
        const char *q = p + 2;
        char m = 0;
        if (q < lx->lim && (*q == '-' || *q == '+'))
            m = *q++;
        q = skip_space(lx, q);
        if ((size_t)(lx->lim - q) < 6 || memcmp(q, "endraw", 6))
            continue;
        const char *e = block_end(lx, skip_space(lx, q + 6), '%');
        if (e) {
            *tag = p;
            *mark = m;
            return e;
        }
    }
    return NULL;
}

static int decode_string(Lx *lx, const char *p, const char *s, size_t n, TplToken *tk)
{
    char *out = tpl_alloc(lx->a, n + 1);
    if (!out)
        return fail(lx, p, "%s", "out of memory");
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\' || i + 1 >= n) {
            out[o++] = s[i];
            continue;
        }
        char c = s[++i];
        unsigned long cp = 0;
        int hexlen = 0;
        switch (c) {
        case 'n': out[o++] = '\n'; break;
        case 't': out[o++] = '\t'; break;
        case 'r': out[o++] = '\r'; break;
        case 'a': out[o++] = '\a'; break;
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'v': out[o++] = '\v'; break;
        case '\\': out[o++] = '\\'; break;
        case '\'': out[o++] = '\''; break;
        case '"': out[o++] = '"'; break;
        case '\n': break;
        case 'x': hexlen = 2; break;
        case 'u': hexlen = 4; break;
        case 'U': hexlen = 8; break;
        default:
            if (c >= '0' && c <= '7') {
                int k = 0;
                while (k < 3 && i < n && s[i] >= '0' && s[i] <= '7')
                    cp = cp * 8 + (unsigned long)(s[i++] - '0'), k++;
                i--;
                hexlen = -1;
            } else {
                out[o++] = '\\';
                out[o++] = c;
            }
        }
        if (hexlen > 0) {
            for (int k = 0; k < hexlen; k++) {
                char h = ++i < n ? s[i] : 0;
                int d = h >= '0' && h <= '9' ? h - '0'
                      : h >= 'a' && h <= 'f' ? h - 'a' + 10
                      : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (d < 0)
                    return fail(lx, p, "%s", "truncated \\x, \\u or \\U escape in string");
                cp = cp * 16 + (unsigned long)d;
            }
        }
        if (hexlen) {
            if (cp > 0x10ffff)
                return fail(lx, p, "%s", "illegal Unicode character in string");
            if (cp < 0x80) {
                out[o++] = (char)cp;
            } else if (cp < 0x800) {
                out[o++] = (char)(0xc0 | (cp >> 6));
                out[o++] = (char)(0x80 | (cp & 0x3f));
            } else if (cp < 0x10000) {
                out[o++] = (char)(0xe0 | (cp >> 12));
                out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
                out[o++] = (char)(0x80 | (cp & 0x3f));
            } else {
                out[o++] = (char)(0xf0 | (cp >> 18));
                out[o++] = (char)(0x80 | ((cp >> 12) & 0x3f));
                out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
                out[o++] = (char)(0x80 | (cp & 0x3f));
            }
        }
    }
    out[o] = 0;
    tk->s = out;
    tk->n = o;
    return 0;
}

static int number(Lx *lx, const char *p, const char *e, int is_float)
{
    char buf[128];
    size_t k = 0;
    for (const char *q = p; q < e && k + 1 < sizeof buf; q++)
        if (*q != '_')
            buf[k++] = *q;
    buf[k] = 0;
    TplToken *tk = push(lx, is_float ? TK_FLOAT : TK_INT, p, NULL, 0);
    if (!tk)
        return -1;
    if (is_float) {
        tk->f = strtod(buf, NULL);
        return 0;
    }
    int base = 10;
    const char *d = buf;
    if (buf[0] == '0' && buf[1]) {
        char b = (char)(buf[1] | 0x20);
        base = b == 'x' ? 16 : b == 'o' ? 8 : b == 'b' ? 2 : 10;
        d = buf + 2;
    }
    uint64_t v = 0;
    for (; *d; d++) {
        int dv = *d <= '9' ? *d - '0' : (*d | 0x20) - 'a' + 10;
        if (v > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base || v * (uint64_t)base + (uint64_t)dv > INT64_MAX)
            return fail(lx, p, "%s", "integer literal too large");
        v = v * (uint64_t)base + (uint64_t)dv;
    }
    tk->i = (int64_t)v;
    return 0;
}

/* Lex the inside of a {{ }} or {% %} tag starting at p; returns the position
 * after the closing delimiter (and its whitespace handling), or NULL. */
static const char *lex_tag(Lx *lx, const char *p, const char *open, int is_block)
{
    const char *YYCURSOR = p, *YYMARKER = p, *YYLIMIT = lx->lim;
    lx->depth = 0;
    for (;;) {
        const char *t = YYCURSOR;
        TplTok k = TK_EOF;
    /*!re2c
        re2c:define:YYCTYPE = "unsigned char";
        re2c:yyfill:enable = 0;
        re2c:eof = 0;

        dig = [0-9];
        digs = (dig+ "_")* dig+;
        name = [a-zA-Z_][a-zA-Z0-9_]*;
        ws = [ \t\n\r\v\f]+;

        $ {
            fail(lx, open, "unclosed tag: expected '%s'", is_block ? "%}" : "}}");
            return NULL;
        }
        ws { continue; }
        [-+]? "%}" {
            if (!is_block || lx->depth) {
                if (*t == '-' || *t == '+') { YYCURSOR = t + 1; k = *t == '-' ? TK_SUB : TK_ADD; goto op; }
                YYCURSOR = t + 1; k = TK_MOD; goto op;
            }
            if (!push(lx, TK_BLOCK_END, t, NULL, 0)) return NULL;
            return block_end(lx, t, '%');
        }
        "-"? "}}" {
            if (is_block || lx->depth) {
                if (*t == '-') { YYCURSOR = t + 1; k = TK_SUB; goto op; }
                YYCURSOR = t + 1; k = TK_RBRACE; goto op;
            }
            if (!push(lx, TK_VAR_END, t, NULL, 0)) return NULL;
            return *t == '-' ? skip_space(lx, YYCURSOR) : YYCURSOR;
        }
        digs (("." digs)? [eE] [+-]? digs | "." digs) {
            if (number(lx, t, YYCURSOR, 1)) return NULL;
            continue;
        }
        "0" [bB] ("_"? [01])+ | "0" [oO] ("_"? [0-7])+ | "0" [xX] ("_"? [0-9a-fA-F])+
        | [1-9] ("_"? dig)* | "0" ("_"? "0")* {
            if (number(lx, t, YYCURSOR, 0)) return NULL;
            continue;
        }
        name {
            char *s = tpl_strndup(lx->a, t, (size_t)(YYCURSOR - t));
            if (!s || !push(lx, TK_NAME, t, s, (size_t)(YYCURSOR - t))) return NULL;
            continue;
        }
        ['] ([^'\\] | [\\][^])* ['] | ["] ([^"\\] | [\\][^])* ["] {
            TplToken *tk = push(lx, TK_STRING, t, NULL, 0);
            if (!tk || decode_string(lx, t, t + 1, (size_t)(YYCURSOR - t - 2), tk)) return NULL;
            continue;
        }
        ['"] { fail(lx, t, "%s", "unterminated string"); return NULL; }
        "//" { k = TK_FLOORDIV; goto op; }
        "**" { k = TK_POW; goto op; }
        "==" { k = TK_EQ; goto op; }
        "!=" { k = TK_NE; goto op; }
        "<=" { k = TK_LE; goto op; }
        ">=" { k = TK_GE; goto op; }
        "+" { k = TK_ADD; goto op; }
        "-" { k = TK_SUB; goto op; }
        "*" { k = TK_MUL; goto op; }
        "/" { k = TK_DIV; goto op; }
        "%" { k = TK_MOD; goto op; }
        "~" { k = TK_TILDE; goto op; }
        "<" { k = TK_LT; goto op; }
        ">" { k = TK_GT; goto op; }
        "=" { k = TK_ASSIGN; goto op; }
        "." { k = TK_DOT; goto op; }
        "," { k = TK_COMMA; goto op; }
        ":" { k = TK_COLON; goto op; }
        "|" { k = TK_PIPE; goto op; }
        ";" { k = TK_SEMICOLON; goto op; }
        "(" { k = TK_LPAREN; lx->depth++; goto op; }
        "[" { k = TK_LBRACKET; lx->depth++; goto op; }
        "{" { k = TK_LBRACE; lx->depth++; goto op; }
        ")" { k = TK_RPAREN; goto close; }
        "]" { k = TK_RBRACKET; goto close; }
        "}" { k = TK_RBRACE; goto close; }
        * {
            const char *e = t + 1;
            while (e < lx->lim && ((unsigned char)*e & 0xc0) == 0x80) e++;
            char c[8] = { 0 };
            memcpy(c, t, (size_t)(e - t) < 7 ? (size_t)(e - t) : 7);
            fail(lx, t, "unexpected char '%s'", c);
            return NULL;
        }
    */
    close:
        if (lx->depth == 0) {
            fail(lx, t, "unexpected '%s'", tpl_tok_name(k));
            return NULL;
        }
        lx->depth--;
    op:
        if (!push(lx, k, t, NULL, 0))
            return NULL;
    }
}

/* Next "{{", "{%" or "{#" at or after p, or lim. */
static const char *next_tag(Lx *lx, const char *p)
{
    const char *YYCURSOR = p, *YYLIMIT = lx->lim;
    for (;;) {
        const char *t = YYCURSOR;
    /*!re2c
        re2c:define:YYCTYPE = "unsigned char";
        re2c:yyfill:enable = 0;
        re2c:eof = 0;

        $ { return lx->lim; }
        "{" [{%#] { return t; }
        [^{\x00]+ | "{" | [\x00] { continue; }
    */
    }
}

int tpl_lex(tpl_arena *a, const char *name, const char *src, size_t len,
            TplTokens *toks, tpl_error *err)
{
    Lx lx = { a, name, src, len, src + len, toks, err, src, 1, 1, 1, 0 };
    const char *p = src;
    while (p < lx.lim) {
        const char *t = next_tag(&lx, p);
        if (t == lx.lim) {
            if (!push(&lx, TK_TEXT, p, p, (size_t)(t - p)))
                return -1;
            break;
        }
        char kind = t[1];
        char marker = t + 2 < lx.lim && (t[2] == '-' || t[2] == '+') ? t[2] : 0;
        const char *raw = kind == '%' ? raw_begin(&lx, t + 2) : NULL;
        if (emit_text(&lx, p, t, marker, kind != '{'))
            return -1;
        const char *q = t + 2 + (marker != 0);
        if (raw) {
            const char *tag;
            char m;
            const char *e = raw_end(&lx, raw, &tag, &m);
            if (!e)
                return fail(&lx, t, "%s", "missing end of raw directive");
            lx.line_starting = raw[-1] == '\n';
            if (emit_text(&lx, raw, tag, m, 1))
                return -1;
            p = e;
        } else if (kind == '#') {
            const char *e = NULL;
            for (const char *c = q; c + 1 < lx.lim && !e; c++)
                if ((c[0] == '-' || c[0] == '+') && c[1] == '#' && c + 2 < lx.lim && c[2] == '}')
                    e = block_end(&lx, c, '#');
                else if (c[0] == '#' && c[1] == '}')
                    e = block_end(&lx, c, '#');
            if (!e)
                return fail(&lx, t, "%s", "unclosed comment: expected '#}'");
            p = e;
        } else {
            if (!push(&lx, kind == '%' ? TK_BLOCK_BEGIN : TK_VAR_BEGIN, t, NULL, 0))
                return -1;
            p = lex_tag(&lx, q, t, kind == '%');
            if (!p)
                return -1;
        }
        lx.line_starting = p[-1] == '\n';
    }
    return push(&lx, TK_EOF, lx.lim, NULL, 0) ? 0 : -1;
}

const char *tpl_tok_name(TplTok k)
{
    static const char *const names[] = {
        "end of template", "text", "{{", "}}", "{%", "%}",
        "name", "integer", "float", "string",
        "+", "-", "*", "/", "//", "%", "**", "~",
        "==", "!=", "<", "<=", ">", ">=", "=",
        ".", ",", ":", "|", "(", ")", "[", "]", "{", "}", ";"
    };
    return names[k];
}
