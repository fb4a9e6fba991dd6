/* tg_prog.c - the ISA table rows (from tg_isa.def) and the binary program
 * decoder/validator of tg_prog.h: every field of every record is checked
 * before anyone executes or prints a program, so a truncated, corrupted or
 * hostile buffer yields TG_EPROGRAM and never an out-of-bounds read.
 * Freestanding C99, no heap. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_prog.h"

#include "tg_alu.h"
#include "tg_math.h"
#include "tg_ops.h"
#include "tg_runtime.h"

const tg_isa_info tg_isa_table[TG_OP_COUNT] = {
#define TG_ISA_ROW(ID, mn, eng, rreq, ropt, ireq, iopt) {mn, TG_ENG_##eng, rreq, ropt, ireq, iopt},
    TG_ISA_OPS(TG_ISA_ROW, TG_ISA_R, TG_ISA_I)
#undef TG_ISA_ROW
};

const char *const tg_isa_role_key[TG_ROLE_COUNT] = {
#define TG_ISA_ROLE_KEY(ID, key) #key,
    TG_ISA_ROLES(TG_ISA_ROLE_KEY)
#undef TG_ISA_ROLE_KEY
};

const char *const tg_isa_imm_key[TG_IMM_COUNT] = {
#define TG_ISA_IMM_KEY(ID, key, kind) #key,
    TG_ISA_IMMS(TG_ISA_IMM_KEY)
#undef TG_ISA_IMM_KEY
};

const tg_isa_imm_kind tg_isa_imm_kinds[TG_IMM_COUNT] = {
#define TG_ISA_IMM_KIND(ID, key, kind) TG_IMMK_##kind,
    TG_ISA_IMMS(TG_ISA_IMM_KIND)
#undef TG_ISA_IMM_KIND
};

const char *const tg_isa_engine_prefix[TG_ENG_COUNT] = {
#define TG_ISA_ENG_PFX(ID, pfx) #pfx,
    TG_ISA_ENGINES(TG_ISA_ENG_PFX)
#undef TG_ISA_ENG_PFX
};

uint32_t tg_fnv1a32(const uint8_t *data, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= data[i];
        h *= 16777619u;
    }
    return h;
}

uint32_t tg_prog_checksum(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++) {
        if (i >= 12 && i < 16)
            continue; /* the checksum field itself */
        h ^= data[i];
        h *= 16777619u;
    }
    return h;
}

/* ---- expressions ---------------------------------------------------------- */

/* Check the expression at pool offset `off`: well-formed postfix, ends with
 * END, stack within limits; registers < nregs; p/f only when allow_pf. */
/* What an expression may hold besides constants, registers and operators. */
enum { XF_PF = 1,    /* p and f (iota, affine_select) */
       XF_FLOAT = 2 /* float constants: evaluated in floating point (FEXPR) */ };

static int check_expr(const tg_prog *p, uint32_t off, uint32_t nregs, int flags)
{
    const uint8_t *x = p->data + p->expr_off;
    uint32_t n = p->expr_size, depth = 0;
    if (off < n && n - off > TG_ISA_MAX_EXPR_BYTES)
        n = off + TG_ISA_MAX_EXPR_BYTES; /* longer expressions are malformed */
    while (off < n) {
        uint8_t op = x[off++];
        switch (op) {
        case TG_X_END:
            return depth == 1 ? 0 : TG_EPROGRAM;
        case TG_X_CONST:
            if (n - off < 8)
                return TG_EPROGRAM;
            off += 8;
            depth++;
            break;
        case TG_X_REG:
            if (off >= n || x[off] >= nregs)
                return TG_EPROGRAM;
            off++;
            depth++;
            break;
        case TG_X_FCONST:
            if (!(flags & XF_FLOAT) || n - off < 8)
                return TG_EPROGRAM;
            off += 8;
            depth++;
            break;
        case TG_X_P:
        case TG_X_F:
            if (!(flags & XF_PF))
                return TG_EPROGRAM;
            depth++;
            break;
        case TG_X_NEG:
            if (depth < 1)
                return TG_EPROGRAM;
            break;
        default:
            if (op >= TG_X_COUNT || depth < 2)
                return TG_EPROGRAM;
            depth--;
            break;
        }
        if (depth > TG_ISA_MAX_EXPR_STACK)
            return TG_EPROGRAM;
    }
    return TG_EPROGRAM;
}

static int add_ovf(int64_t a, int64_t b, int64_t *r)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return 1;
    *r = a + b;
    return 0;
}

static int mul_ovf(int64_t a, int64_t b, int64_t *r)
{
    if (a == 0 || b == 0) {
        *r = 0;
        return 0;
    }
    if ((a == -1 && b == INT64_MIN) || (b == -1 && a == INT64_MIN))
        return 1;
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a) : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b))
        return 1;
    *r = a * b;
    return 0;
}

int tg_prog_eval(const tg_prog *p, uint32_t expr, const int64_t *regs, int64_t pidx, int64_t fidx, int64_t *out)
{
    const uint8_t *x = p->data + p->expr_off;
    int64_t st[TG_ISA_MAX_EXPR_STACK];
    int sp = 0;
    uint32_t off = expr;
    for (;;) { /* validated by tg_prog_decode: no bounds surprises */
        uint8_t op = x[off++];
        int64_t a, b, r = 0;
        if (op == TG_X_END) {
            *out = st[0];
            return 0;
        }
        switch (op) {
        case TG_X_CONST:
            st[sp++] = (int64_t)tg_rd_le64(x + off);
            off += 8;
            continue;
        case TG_X_REG:
            st[sp++] = regs[x[off++]];
            continue;
        case TG_X_P:
            st[sp++] = pidx;
            continue;
        case TG_X_F:
            st[sp++] = fidx;
            continue;
        case TG_X_FCONST:
            return TG_EPROGRAM; /* FEXPR only (the decoder keeps it there) */
        case TG_X_NEG:
            if (st[sp - 1] == INT64_MIN)
                return TG_EPROGRAM;
            st[sp - 1] = -st[sp - 1];
            continue;
        default:
            break;
        }
        b = st[--sp];
        a = st[sp - 1];
        switch (op) {
        case TG_X_ADD:
            if (add_ovf(a, b, &r))
                return TG_EPROGRAM;
            break;
        case TG_X_SUB:
            if (b == INT64_MIN || add_ovf(a, -b, &r))
                return TG_EPROGRAM;
            break;
        case TG_X_MUL:
            if (mul_ovf(a, b, &r))
                return TG_EPROGRAM;
            break;
        case TG_X_DIV:
        case TG_X_MOD: {
            if (b == 0 || (a == INT64_MIN && b == -1))
                return TG_EPROGRAM;
            int64_t q = a / b, m = a % b;
            if (m != 0 && ((m < 0) != (b < 0))) {
                q--;
                m += b;
            }
            r = op == TG_X_DIV ? q : m;
            break;
        }
        case TG_X_MIN: r = a < b ? a : b; break;
        default: r = a > b ? a : b; break; /* TG_X_MAX */
        }
        st[sp - 1] = r;
    }
}

/* Double of an integer as C converts it (exact up to 2^53; check refuses
 * larger loop values in number fields). */
static double to_d(int64_t v) { return (double)v; }

int tg_prog_feval(const tg_prog *p, uint32_t expr, const int64_t *regs, double *out)
{
    const uint8_t *x = p->data + p->expr_off;
    double st[TG_ISA_MAX_EXPR_STACK];
    int sp = 0;
    uint32_t off = expr;
    for (;;) { /* validated by tg_prog_decode (FEXPR: no p, f) */
        uint8_t op = x[off++];
        double a, b, r;
        switch (op) {
        case TG_X_END:
            *out = st[0];
            return 0;
        case TG_X_CONST:
        case TG_X_FCONST: {
            uint64_t u = tg_rd_le64(x + off);
            off += 8;
            if (op == TG_X_CONST) {
                st[sp++] = to_d((int64_t)u);
            } else {
                tg_math_f64u v;
                v.u = u;
                st[sp++] = v.d;
            }
            continue;
        }
        case TG_X_REG:
            st[sp++] = to_d(regs[x[off++]]);
            continue;
        case TG_X_NEG:
            st[sp - 1] = -st[sp - 1];
            continue;
        case TG_X_P:
        case TG_X_F:
            return TG_EPROGRAM;
        default:
            break;
        }
        b = st[--sp];
        a = st[sp - 1];
        switch (op) {
        case TG_X_ADD: r = a + b; break;
        case TG_X_SUB: r = a - b; break;
        case TG_X_MUL: r = a * b; break;
        case TG_X_DIV:
            if (b == 0)
                return TG_EPROGRAM; /* check refuses it at every iteration */
            r = a / b;
            break;
        case TG_X_MOD: r = tg_math_mod_floor_d(a, b); break;
        case TG_X_MIN: r = tg_math_min_d(a, b); break;
        default: r = tg_math_max_d(a, b); break; /* TG_X_MAX */
        }
        st[sp - 1] = r;
    }
}

int tg_prog_number(const tg_prog *p, const tg_prog_inst *in, tg_isa_imm key, const int64_t *regs, float dflt,
                   float *out)
{
    uint64_t v;
    if (tg_prog_find_imm(p, in, key, &v)) {
        tg_math_f64u d;
        d.u = v;
        *out = (float)d.d;
        return 0;
    }
    tg_isa_imm twin = tg_isa_fexpr_twin(key);
    if (twin != key && tg_prog_find_imm(p, in, twin, &v)) {
        double d;
        int rc = tg_prog_feval(p, (uint32_t)v, regs, &d);
        *out = (float)d;
        return rc;
    }
    *out = dflt;
    return 0;
}

/* ---- strings -------------------------------------------------------------- */

const char *tg_prog_str(const tg_prog *p, uint32_t off) { return (const char *)p->data + p->str_off + off; }

/* 1 if off names an identifier [A-Za-z_][A-Za-z0-9_]* in the string table. */
static int check_ident(const tg_prog *p, uint32_t off)
{
    if (off >= p->str_size)
        return 0;
    const uint8_t *s = p->data + p->str_off + off;
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return 0;
    for (int n = 0; *s; s++, n++)
        if (n >= TG_ISA_MAX_NAME ||
            !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

/* 1 if the names of the first n records (u32 name at offset 0, `size` bytes
 * apart, from table offset `off`) differ from the name of record n. */
static int unique_name(const tg_prog *p, uint32_t off, uint32_t size, uint32_t n)
{
    const uint8_t *base = p->data + off;
    const char *name = tg_prog_str(p, tg_rd_le32(base + (size_t)n * size));
    for (uint32_t i = 0; i < n; i++) {
        const char *o = tg_prog_str(p, tg_rd_le32(base + (size_t)i * size));
        uint32_t k = 0;
        while (name[k] && name[k] == o[k])
            k++;
        if (name[k] == o[k])
            return 0;
    }
    return 1;
}

/* 1 if off names printable ASCII text without quotes or backslashes. */
static int check_text(const tg_prog *p, uint32_t off)
{
    if (off >= p->str_size)
        return 0;
    for (const uint8_t *s = p->data + p->str_off + off; *s; s++)
        if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
            return 0;
    return 1;
}

/* ---- records -------------------------------------------------------------- */

void tg_prog_get_tensor(const tg_prog *p, uint32_t i, tg_prog_tensor *t)
{
    const uint8_t *r = p->data + p->tensors_off + (size_t)i * TG_ISA_TENSOR_BYTES;
    t->name = tg_prog_str(p, tg_rd_le32(r));
    t->dtype = (tg_dtype)r[4];
    t->kind = (tg_isa_tensor_kind)r[5];
    t->base = t->kind == TG_TENSOR_VIEW ? r[7] : i;
    t->rank = r[6];
    for (int d = 0; d < TG_ISA_MAX_TENSOR_RANK; d++)
        t->shape[d] = tg_rd_le32(r + 8 + 4 * d);
    /* a view writes as its base (decoded: base < npublic, itself no view) */
    uint32_t k = t->kind == TG_TENSOR_VIEW && t->base < p->ntensors
                     ? p->data[p->tensors_off + (size_t)t->base * TG_ISA_TENSOR_BYTES + 5]
                     : (uint32_t)t->kind;
    t->is_output = k == TG_TENSOR_OUTPUT ? 1 : k == TG_TENSOR_SCRATCH ? 2 : 0;
}

void tg_prog_get_tile(const tg_prog *p, uint32_t i, tg_prog_tile *t)
{
    const uint8_t *r = p->data + p->tiles_off + (size_t)i * TG_ISA_TILE_BYTES;
    t->name = tg_prog_str(p, tg_rd_le32(r));
    t->space = (tg_isa_space)r[4];
    t->dtype = (tg_dtype)r[5];
    t->bufs = r[6];
    t->rank = r[7];
    t->base = tg_rd_le32(r + 8);
    t->slot = tg_rd_le32(r + 12);
    t->pstart = tg_rd_le32(r + 16);
    t->pcount = tg_rd_le32(r + 20);
    for (int d = 0; d < TG_ISA_MAX_RANK; d++)
        t->shape[d] = tg_rd_le32(r + 24 + 4 * d);
}

void tg_prog_get_inst(const tg_prog *p, uint32_t i, tg_prog_inst *in)
{
    const uint8_t *r = p->data + p->insts_off + (size_t)i * TG_ISA_INST_BYTES;
    in->op = (tg_isa_op)r[0];
    in->engine = (tg_isa_engine)r[1];
    in->nops = r[2];
    in->nimms = r[3];
    in->first_op = tg_rd_le32(r + 4);
    in->first_imm = tg_rd_le32(r + 8);
    in->line = tg_rd_le32(r + 12);
    in->queue = 0;
    for (uint32_t k = 0; in->engine == TG_ENG_DMA && in->first_imm <= p->nimms && k < in->nimms &&
                         k < p->nimms - in->first_imm;
         k++) {
        const uint8_t *m = p->data + p->imms_off + (size_t)(in->first_imm + k) * TG_ISA_IMM_BYTES;
        if (m[0] == TG_IMM_QUEUE) {
            uint64_t q = tg_rd_le64(m + 4);
            in->queue = q < TG_DMA_QUEUES ? (uint32_t)q : TG_DMA_QUEUES; /* out of range: rejected by decode */
        }
    }
}

void tg_prog_get_operand(const tg_prog *p, uint32_t i, tg_prog_operand *o)
{
    const uint8_t *r = p->data + p->ops_off + (size_t)i * TG_ISA_OPERAND_BYTES;
    o->role = (tg_isa_role)r[0];
    o->space = (tg_isa_space)r[1];
    o->dtype = (tg_dtype)r[2];
    o->nfree = r[3];
    o->index = tg_rd_le16(r + 4);
    o->pstep = (int32_t)tg_rd_le32(r + 8);
    o->buf = tg_rd_le32(r + 12);
    o->pstart = tg_rd_le32(r + 16);
    o->pcount = tg_rd_le32(r + 20);
    o->offset = tg_rd_le32(r + 24);
    for (int k = 0; k < TG_ISA_MAX_FREE; k++) {
        o->step[k] = (int32_t)tg_rd_le32(r + 28 + 8 * k);
        o->num[k] = tg_rd_le32(r + 32 + 8 * k);
    }
}

void tg_prog_get_imm(const tg_prog *p, uint32_t i, tg_prog_imm *m)
{
    const uint8_t *r = p->data + p->imms_off + (size_t)i * TG_ISA_IMM_BYTES;
    m->key = (tg_isa_imm)r[0];
    m->value = tg_rd_le64(r + 4);
}

int tg_prog_find_imm(const tg_prog *p, const tg_prog_inst *in, tg_isa_imm key, uint64_t *value)
{
    for (uint32_t k = 0; k < in->nimms; k++) {
        tg_prog_imm m;
        tg_prog_get_imm(p, in->first_imm + k, &m);
        if (m.key == key) {
            *value = m.value;
            return 1;
        }
    }
    return 0;
}

int tg_prog_find_operand(const tg_prog *p, const tg_prog_inst *in, tg_isa_role role, tg_prog_operand *out)
{
    for (uint32_t k = 0; k < in->nops; k++) {
        tg_prog_get_operand(p, in->first_op + k, out);
        if (out->role == role)
            return 1;
    }
    return 0;
}

uint32_t tg_prog_loop_match(const tg_prog *p, uint32_t pc)
{
    tg_prog_inst in;
    tg_prog_get_inst(p, pc, &in);
    int fwd = in.op == TG_OP_LOOP;
    uint32_t depth = 0;
    for (uint32_t i = pc;; i = fwd ? i + 1 : i - 1) { /* nesting validated */
        tg_prog_get_inst(p, i, &in);
        if (in.op == TG_OP_LOOP || in.op == TG_OP_ENDLOOP) {
            int opens = (in.op == TG_OP_LOOP) == fwd;
            depth = opens ? depth + 1 : depth - 1;
            if (depth == 0)
                return i;
        }
    }
}

/* ---- validation ----------------------------------------------------------- */

/* A shape of rank lo..hi (of hi entries) whose dims after the first span at
 * most TG_ISA_MAX_STRIDE elements (the int32 steps), and whose elements of
 * `esize` bytes take at most TG_ISA_MAX_TENSOR_BYTES. */
static int check_shape(const uint32_t *shape, uint32_t rank, uint32_t lo, uint32_t hi, uint32_t esize)
{
    uint64_t inner = 1;
    if (rank < lo || rank > hi)
        return 0;
    for (uint32_t d = 0; d < hi; d++) {
        if (d < rank ? shape[d] == 0 : shape[d] != 0)
            return 0;
        if (d > 0 && d < rank && (inner *= shape[d]) > TG_ISA_MAX_STRIDE)
            return 0;
    }
    return inner * shape[0] <= TG_ISA_MAX_TENSOR_BYTES / esize; /* < 2^31 * 2^32: no overflow */
}

static int check_tables(const tg_prog *p)
{
    uint32_t sbuf = p->target == TG_TRN2 ? TG_TRN2_SBUF_PARTITION_BYTES : TG_TRN1_SBUF_PARTITION_BYTES;
    for (uint32_t i = 0; i < p->ntensors; i++) {
        const uint8_t *r = p->data + p->tensors_off + (size_t)i * TG_ISA_TENSOR_BYTES;
        tg_prog_tensor t, b;
        if (!check_ident(p, tg_rd_le32(r)) || !unique_name(p, p->tensors_off, TG_ISA_TENSOR_BYTES, i) ||
            r[5] >= TG_TENSOR_KIND_COUNT || (r[5] == TG_TENSOR_VIEW) != (i >= p->npublic) ||
            (r[5] == TG_TENSOR_VIEW ? r[7] >= p->npublic : r[7] != 0))
            return 0; /* public tensors first, then views of public tensors */
        tg_prog_get_tensor(p, i, &t);
        if ((unsigned)t.dtype >= TG_DTYPE_COUNT ||
            !check_shape(t.shape, t.rank, 1, TG_ISA_MAX_TENSOR_RANK, (uint32_t)tg_dtype_size(t.dtype)))
            return 0;
        if (t.kind == TG_TENSOR_VIEW) { /* exactly its base's bytes (both checked below 2^40) */
            tg_prog_get_tensor(p, t.base, &b);
            uint64_t x = tg_dtype_size(t.dtype), y = tg_dtype_size(b.dtype);
            for (uint32_t d = 0; d < t.rank; d++)
                x *= t.shape[d];
            for (uint32_t d = 0; d < b.rank; d++)
                y *= b.shape[d];
            if (x != y)
                return 0;
        }
    }
    for (uint32_t i = 0; i < p->ntiles; i++) {
        const uint8_t *r = p->data + p->tiles_off + (size_t)i * TG_ISA_TILE_BYTES;
        tg_prog_tile t;
        if (!check_ident(p, tg_rd_le32(r)) || !unique_name(p, p->tiles_off, TG_ISA_TILE_BYTES, i))
            return 0;
        tg_prog_get_tile(p, i, &t);
        if ((t.space != TG_SPACE_SBUF && t.space != TG_SPACE_PSUM) || (unsigned)t.dtype >= TG_DTYPE_COUNT ||
            t.bufs < 1 || !check_shape(t.shape, t.rank, 2, TG_ISA_MAX_RANK, (uint32_t)tg_dtype_size(t.dtype)) ||
            t.pcount < 1 ||
            t.pstart > TG_PARTITIONS || t.pcount > TG_PARTITIONS - t.pstart || t.shape[0] > t.pcount)
            return 0;
        uint64_t bytes = tg_dtype_size(t.dtype);
        for (uint32_t d = 1; d < t.rank; d++)
            bytes *= t.shape[d];
        uint64_t cap = t.space == TG_SPACE_SBUF ? sbuf : TG_PSUM_PARTITION_BYTES;
        if (bytes > t.slot || (uint64_t)t.base + (uint64_t)t.slot * t.bufs > cap)
            return 0;
        if (!tg_prog_aligned(&t, tg_dtype_size(t.dtype)))
            return 0; /* every copy starts on an element of the tile's dtype */
    }
    return 1;
}

int tg_prog_aligned(const tg_prog_tile *t, uint32_t esize)
{
    return esize > 0 && t->base % esize == 0 && (t->bufs <= 1 || t->slot % esize == 0);
}

int tg_prog_const(const tg_prog *p, uint32_t off, int64_t *v)
{
    const uint8_t *x = p->data + p->expr_off;
    if (!(off < p->expr_size && p->expr_size - off >= 10 && x[off] == TG_X_CONST && x[off + 9] == TG_X_END))
        return 0;
    *v = (int64_t)tg_rd_le64(x + off + 1);
    return 1;
}

/* 1 if the pool holds exactly the constant 0 at off (HBM pstart and buf). */
static int is_zero(const tg_prog *p, uint32_t off)
{
    int64_t v;
    return tg_prog_const(p, off, &v) && v == 0;
}

/* Operand record i of an instruction at loop depth `depth`. */
static int check_operand(const tg_prog *p, uint32_t i, uint32_t depth, uint32_t *roles)
{
    const uint8_t *r = p->data + p->ops_off + (size_t)i * TG_ISA_OPERAND_BYTES;
    tg_prog_operand o;
    tg_prog_get_operand(p, i, &o);
    if ((unsigned)o.role >= TG_ROLE_COUNT || (*roles >> o.role & 1u) || (unsigned)o.space >= TG_SPACE_COUNT ||
        (unsigned)o.dtype >= TG_DTYPE_COUNT || o.nfree < 1 || o.nfree > TG_ISA_MAX_FREE || r[6] || r[7])
        return 0;
    *roles |= 1u << o.role;
    if (o.space == TG_SPACE_HBM) {
        tg_prog_tensor t;
        if (o.index >= p->ntensors || !is_zero(p, o.buf) || !is_zero(p, o.pstart))
            return 0;
        tg_prog_get_tensor(p, o.index, &t);
        if (t.dtype != o.dtype)
            return 0;
    } else {
        tg_prog_tile t;
        if (o.index >= p->ntiles)
            return 0;
        tg_prog_get_tile(p, o.index, &t);
        if (t.space != o.space || o.pstep != 1 || !tg_prog_aligned(&t, tg_dtype_size(o.dtype)))
            return 0;
    }
    if (check_expr(p, o.buf, depth, 0) || check_expr(p, o.pstart, depth, 0) ||
        check_expr(p, o.pcount, depth, 0) || check_expr(p, o.offset, depth, 0))
        return 0;
    int64_t off;
    if (tg_prog_const(p, o.offset, &off) && off % (int64_t)tg_dtype_size(o.dtype) != 0)
        return 0; /* a constant byte offset on an element boundary (others: at run time) */
    for (uint32_t k = 0; k < TG_ISA_MAX_FREE; k++) {
        if (k < o.nfree ? check_expr(p, o.num[k], depth, 0) != 0 : (o.step[k] != 0 || o.num[k] != 0))
            return 0;
    }
    return 1;
}

/* Immediate record i; loop and sync bookkeeping in *p. */
static int check_imm(tg_prog *p, uint32_t i, uint32_t depth, uint64_t *imms)
{
    const uint8_t *r = p->data + p->imms_off + (size_t)i * TG_ISA_IMM_BYTES;
    tg_prog_imm m;
    tg_prog_get_imm(p, i, &m);
    if ((unsigned)m.key >= TG_IMM_COUNT || (*imms >> m.key & 1u) || r[1] || r[2] || r[3])
        return 0;
    *imms |= 1ull << m.key;
    switch (tg_isa_imm_kinds[m.key]) {
    case TG_IMMK_ALU: return m.value < TG_ALU_COUNT;
    case TG_IMMK_ACT: return m.value < TG_ACT_COUNT;
    case TG_IMMK_CMP: return m.value < TG_CMP_COUNT;
    case TG_IMMK_BOOL: return m.value <= 1;
    case TG_IMMK_FLOAT: return 1;
    case TG_IMMK_EXPR: return m.value < p->expr_size && check_expr(p, (uint32_t)m.value, depth, XF_PF) == 0;
    case TG_IMMK_FEXPR: return m.value < p->expr_size && check_expr(p, (uint32_t)m.value, depth, XF_FLOAT) == 0;
    case TG_IMMK_INT: return 1;
    case TG_IMMK_REG: return m.value < TG_ISA_MAX_REGS;
    case TG_IMMK_NAME: return m.value < p->str_size && check_ident(p, (uint32_t)m.value);
    case TG_IMMK_SEM:
        if (m.value >= TG_ISA_MAX_SEMS)
            return 0;
        if (m.value + 1 > p->max_sem)
            p->max_sem = (uint32_t)m.value + 1;
        return 1;
    default: return 0;
    }
}

/* Field combinations the table cannot say: a key given as a role and as a
 * number, operands that need their op, the loop register discipline. */
static int check_combos(const tg_prog *p, const tg_prog_inst *in, uint32_t roles, uint64_t imms, uint32_t *depth)
{
    uint64_t v = 0;
    /* a number given per iteration (FEXPR twin) counts as its FLOAT key */
#define TG_FOLD_TWIN(F, X)                                                                                        \
    if (imms >> TG_IMM_##X & 1u) {                                                                                \
        if (imms >> TG_IMM_##F & 1u)                                                                              \
            return 0;                                                                                             \
        imms = (imms & ~(1ull << TG_IMM_##X)) | 1ull << TG_IMM_##F;                                               \
    }
    TG_ISA_FLOAT_TWINS(TG_FOLD_TWIN)
#undef TG_FOLD_TWIN
#define HAS_R(x) ((roles >> TG_ROLE_##x) & 1u)
#define HAS_I(x) ((imms >> TG_IMM_##x) & 1u)
    if ((in->op == TG_OP_MEMSET && !HAS_I(VALUE)) || (in->op == TG_OP_AFFINE_SELECT && !HAS_I(FILL)) ||
        (in->op == TG_OP_NC_MATCH_REPLACE8 && !HAS_I(IMM)))
        return 0;
    if ((HAS_R(SCALE) && HAS_I(SCALE_NUM)) || (HAS_R(OPERAND0) && HAS_I(OPERAND0_NUM)) ||
        (HAS_R(OPERAND1) && HAS_I(OPERAND1_NUM)) || (HAS_R(INITIAL) && HAS_I(INITIAL_NUM)) ||
        (HAS_R(PRED) && HAS_I(PRED_NUM)) || (HAS_R(ON_TRUE) && HAS_I(ON_TRUE_NUM)) ||
        (HAS_R(ON_FALSE) && HAS_I(ON_FALSE_NUM)))
        return 0;
    if (in->op == TG_OP_SELECT && (!(HAS_R(PRED) || HAS_I(PRED_NUM)) || !(HAS_R(ON_TRUE) || HAS_I(ON_TRUE_NUM)) ||
                                   !(HAS_R(ON_FALSE) || HAS_I(ON_FALSE_NUM))))
        return 0; /* each operand a tile or a number */
    if (in->op == TG_OP_SCALAR_TENSOR_TENSOR && !(HAS_R(OPERAND0) || HAS_I(OPERAND0_NUM)))
        return 0;
    if (HAS_R(REDUCE_DST) != HAS_I(REDUCE_OP))
        return 0;
    if (in->op == TG_OP_TENSOR_SCALAR &&
        (!(HAS_R(OPERAND0) || HAS_I(OPERAND0_NUM)) || HAS_I(OP1) != (HAS_R(OPERAND1) || HAS_I(OPERAND1_NUM))))
        return 0;
    if (in->op == TG_OP_TENSOR_TENSOR_SCAN && !(HAS_R(INITIAL) || HAS_I(INITIAL_NUM)))
        return 0;
    if (HAS_I(QUEUE) && (in->engine != TG_ENG_DMA || in->queue >= TG_DMA_QUEUES))
        return 0; /* a DMA queue, on DMA instructions and DMA-tagged signal/wait only */
    if (HAS_R(INDEX) != HAS_I(INDEX_STEP) || HAS_R(INDEX) != HAS_I(INDEX_BOUND))
        return 0; /* an index column with its step and bound */
    if (HAS_R(INDEX)) {
        tg_prog_operand o, h;
        uint64_t st = 0, bd = 0;
        tg_prog_find_operand(p, in, TG_ROLE_INDEX, &o);
        tg_prog_find_operand(p, in, in->op == TG_OP_LOAD ? TG_ROLE_SRC : TG_ROLE_DST, &h);
        tg_prog_find_imm(p, in, TG_IMM_INDEX_STEP, &st);
        tg_prog_find_imm(p, in, TG_IMM_INDEX_BOUND, &bd);
        if (o.space != TG_SPACE_SBUF || tg_dtype_is_float(o.dtype) || h.space != TG_SPACE_HBM || st < 1 ||
            st > (1ull << 40) || bd < 1 || bd > (1ull << 40))
            return 0; /* an integer SBUF column indexing the HBM side, step and bound within the ISS's range */
    }
#undef HAS_R
#undef HAS_I
    if (in->op == TG_OP_LOOP) {
        uint64_t start, stop, step;
        tg_prog_find_imm(p, in, TG_IMM_REG, &v);
        tg_prog_find_imm(p, in, TG_IMM_START, &start);
        tg_prog_find_imm(p, in, TG_IMM_STOP, &stop);
        tg_prog_find_imm(p, in, TG_IMM_STEP, &step);
        /* registers by depth; bounds within +-2^40 so the ISS never overflows */
        if (v != *depth || *depth >= TG_ISA_MAX_REGS || (int64_t)step < 1 || (int64_t)step > (1ll << 40) ||
            (int64_t)start < -(1ll << 40) || (int64_t)start > (1ll << 40) || (int64_t)stop < -(1ll << 40) ||
            (int64_t)stop > (1ll << 40))
            return 0;
        (*depth)++;
    } else if (in->op == TG_OP_ENDLOOP) {
        tg_prog_find_imm(p, in, TG_IMM_REG, &v);
        if (*depth == 0 || v != *depth - 1)
            return 0;
        (*depth)--;
    }
    return 1;
}

static int check_insts(tg_prog *p)
{
    uint32_t next_op = 0, next_imm = 0, depth = 0, ncore = 0;
    for (uint32_t i = 0; i < p->ninsts; i++) {
        tg_prog_inst in;
        tg_prog_get_inst(p, i, &in);
        if ((unsigned)in.op >= TG_OP_COUNT || (unsigned)in.engine >= TG_ENG_COUNT)
            return 0;
        const tg_isa_info *info = &tg_isa_table[in.op];
        int tagged = in.op == TG_OP_SIGNAL || in.op == TG_OP_WAIT;
        if (tagged ? in.engine == TG_ENG_SYNC : in.engine != info->engine)
            return 0;
        if (in.first_op != next_op || in.first_imm != next_imm || in.nops > TG_ISA_MAX_OPERANDS ||
            in.nimms > TG_ISA_MAX_IMMS || in.nops > p->noperands - next_op || in.nimms > p->nimms - next_imm)
            return 0;
        next_op += in.nops;
        next_imm += in.nimms;
        uint32_t roles = 0;
        uint64_t imms = 0;
        uint32_t d = depth; /* a loop's own fields see only the outer registers */
        for (uint32_t k = 0; k < in.nops; k++) {
            if (!check_operand(p, in.first_op + k, d, &roles))
                return 0;
            if (in.engine == TG_ENG_POOL && p->data[p->ops_off + (size_t)(in.first_op + k) * TG_ISA_OPERAND_BYTES + 1] ==
                                                TG_SPACE_PSUM)
                return 0; /* GpSimd cannot access PSUM (SPEC §1) */
        }
        for (uint32_t k = 0; k < in.nimms; k++)
            if (!check_imm(p, in.first_imm + k, d, &imms))
                return 0;
        if ((roles & info->roles_req) != info->roles_req || (roles & ~(info->roles_req | info->roles_opt)) ||
            (imms & info->imms_req) != info->imms_req || (imms & ~(info->imms_req | info->imms_opt)))
            return 0;
        if (!check_combos(p, &in, roles, imms, &depth))
            return 0;
        if (in.op == TG_OP_CORE) { /* core N opens N's stream: at depth 0, ids in order, the first first */
            uint64_t id = 0;
            tg_prog_find_imm(p, &in, TG_IMM_ID, &id);
            if (depth != 0 || id != ncore || id >= TG_ISA_MAX_CORES || (id == 0 && i != 0))
                return 0;
            p->core_pc[ncore++] = i;
        }
        if (depth > p->max_depth)
            p->max_depth = depth;
    }
    p->ncores = ncore ? ncore : 1;
    p->core_pc[p->ncores] = p->ninsts;
    return depth == 0 && next_op == p->noperands && next_imm == p->nimms;
}

int tg_prog_decode(tg_prog *p, const uint8_t *data, size_t size)
{
    if (!p || !data || size < TG_ISA_HEADER_BYTES || size > 0x7fffffffu)
        return TG_EPROGRAM;
    const uint8_t *h = data;
    if (h[0] != 'T' || h[1] != 'G' || h[2] != 'N' || h[3] != 'C' || tg_rd_le16(h + 4) != TG_ISA_VERSION_MAJOR ||
        tg_rd_le32(h + 8) != size || tg_rd_le32(h + 12) != tg_prog_checksum(data, size) || h[16] >= TG_TARGET_COUNT ||
        h[19])
        return TG_EPROGRAM;
    p->data = data;
    p->size = (uint32_t)size;
    p->major = (uint16_t)tg_rd_le16(h + 4);
    p->minor = (uint16_t)tg_rd_le16(h + 6);
    p->target = (tg_target)h[16];
    p->ntensors = h[17];
    p->npublic = 0; /* the records before the first view (check_tables) */
    p->ntiles = h[18];
    p->ninsts = tg_rd_le32(h + 20);
    p->noperands = tg_rd_le32(h + 24);
    p->nimms = tg_rd_le32(h + 28);
    p->str_off = tg_rd_le32(h + 32);
    p->str_size = tg_rd_le32(h + 36);
    p->expr_off = tg_rd_le32(h + 40);
    p->expr_size = tg_rd_le32(h + 44);
    p->kernel = tg_rd_le32(h + 48);
    p->spec = tg_rd_le32(h + 52);
    p->version = tg_rd_le32(h + 56);
    p->max_depth = 0;
    p->max_sem = 0;
    p->ncores = 1;
    p->core_pc[0] = 0;
    /* the tables follow each other; sizes in 64 bits so nothing wraps */
    uint64_t off = TG_ISA_HEADER_BYTES;
    p->tensors_off = (uint32_t)off;
    off += (uint64_t)p->ntensors * TG_ISA_TENSOR_BYTES;
    p->tiles_off = (uint32_t)off;
    off += (uint64_t)p->ntiles * TG_ISA_TILE_BYTES;
    if (off > size)
        return TG_EPROGRAM;
    p->insts_off = (uint32_t)off;
    off += (uint64_t)p->ninsts * TG_ISA_INST_BYTES;
    if (off > size)
        return TG_EPROGRAM;
    p->ops_off = (uint32_t)off;
    off += (uint64_t)p->noperands * TG_ISA_OPERAND_BYTES;
    if (off > size)
        return TG_EPROGRAM;
    p->imms_off = (uint32_t)off;
    off += (uint64_t)p->nimms * TG_ISA_IMM_BYTES;
    if (off != p->str_off || p->str_size == 0 || off + p->str_size != p->expr_off ||
        (uint64_t)p->expr_off + p->expr_size != size || data[p->str_off + p->str_size - 1] != 0)
        return TG_EPROGRAM;
    while (p->npublic < p->ntensors && data[p->tensors_off + (size_t)p->npublic * TG_ISA_TENSOR_BYTES + 5] !=
                                           TG_TENSOR_VIEW)
        p->npublic++;
    if (!check_ident(p, p->kernel) || !check_text(p, p->spec) || !check_text(p, p->version) || !check_tables(p) ||
        !check_insts(p))
        return TG_EPROGRAM;
    return 0;
}

#include "tg_fp_end.h"
