/* ir_dump.c - the tile IR as readable text (tilegen --dump=ir, like QBE's -d):
 * tensors, tiles with their rotation loop, then the loop nest with one line
 * per instruction: engine, opcode, operands as access patterns, op fields and
 * the spec file:line it came from. Prints only to the FILE* it is given. */
#include <stdarg.h>
#include <string.h>

#include "ir.h"

tg_isa_op ir_isa_op(IrOpcode op)
{
    static const tg_isa_op isa[IR_OP_COUNT] = {
#define X(ID, SPECOP) [IR_OP_##ID] = TG_OP_##ID,
        IR_OPCODES(X)
#undef X
    };
    return isa[(unsigned)op < IR_OP_COUNT ? op : 0];
}

const char *ir_opcode_name(IrOpcode op)
{
    return (unsigned)op < IR_OP_COUNT ? tg_isa_table[ir_isa_op(op)].mnemonic : "?";
}

const char *ir_mem_name(IrMem m)
{
    switch (m) {
    case IR_MEM_HBM: return "hbm";
    case IR_MEM_SBUF: return "sbuf";
    case IR_MEM_PSUM: return "psum";
    }
    return "?";
}

/* Append printf output to buf at *pos, bounded by size. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void put(char *buf, size_t size, size_t *pos, const char *fmt, ...)
{
    if (*pos >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *pos, size - *pos, fmt, ap);
    va_end(ap);
    if (n > 0)
        *pos += (size_t)n;
    if (*pos >= size)
        *pos = size - 1;
}

static void put_expr(char *buf, size_t size, size_t *pos, const Expr *e)
{
    char t[256];
    if (!e) {
        put(buf, size, pos, "?");
        return;
    }
    expr_format(e, t, sizeof t);
    put(buf, size, pos, "%s", t);
}

void ir_ap_format(const Ir *ir, const IrAp *ap, char *buf, size_t size)
{
    size_t pos = 0;
    const Spec *s = ir->spec;
    if (size == 0)
        return;
    buf[0] = '\0';
    if (ap->mem == IR_MEM_HBM) {
        put(buf, size, &pos, "hbm:%s[+", ap->index < s->ntensors ? s->tensors[ap->index].name : "?");
        put_expr(buf, size, &pos, ap->pcount);
        put(buf, size, &pos, " s%lld]", (long long)ap->pstep);
    } else {
        const SpecTile *t = ap->index < s->ntiles ? &s->tiles[ap->index] : NULL;
        put(buf, size, &pos, "%s:%s", ir_mem_name(ap->mem), t ? t->name : "?");
        int64_t k;
        if (ap->rot_loop >= 0 || (t && t->bufs > 1)) {
            int konst = ir_expr_const(ap->buf, &k);
            put(buf, size, &pos, konst ? "." : ".(");
            put_expr(buf, size, &pos, ap->buf);
            put(buf, size, &pos, konst ? "" : ")");
        }
        put(buf, size, &pos, "[");
        put_expr(buf, size, &pos, ap->pstart);
        put(buf, size, &pos, ":+");
        put_expr(buf, size, &pos, ap->pcount);
        put(buf, size, &pos, "]");
    }
    put(buf, size, &pos, " +");
    put_expr(buf, size, &pos, ap->offset);
    put(buf, size, &pos, " %s [", tg_dtype_name(ap->dtype));
    for (int i = 0; i < ap->nfree; i++) {
        put(buf, size, &pos, "%s[%lld,", i ? "," : "", (long long)ap->free[i].step);
        put_expr(buf, size, &pos, ap->free[i].num);
        put(buf, size, &pos, "]");
    }
    put(buf, size, &pos, "]");
}

/* A number field: the constant, or its expression over loop variables. */
static void dump_num(FILE *out, const char *name, double num, const Expr *numx)
{
    char b[1024];
    if (numx) {
        expr_format(numx, b, sizeof b);
        fprintf(out, " %s=\"%s\"", name, b);
    } else {
        fprintf(out, " %s=%.9g", name, num);
    }
}

static void dump_scalar(FILE *out, const Ir *ir, const char *name, const IrScalar *sc)
{
    char b[1024];
    if (sc->is_ap) {
        ir_ap_format(ir, &sc->ap, b, sizeof b);
        fprintf(out, " %s=%s", name, b);
    } else {
        dump_num(out, name, sc->num, sc->numx);
    }
}

static void dump_fields(FILE *out, const Ir *ir, const IrInst *in)
{
    char b[1024];
    switch (in->op) {
    case IR_OP_TENSOR_TENSOR:
    case IR_OP_TENSOR_REDUCE:
    case IR_OP_PARTITION_REDUCE:
        fprintf(out, " op=%s", spec_alu_name(in->alu[0]));
        break;
    case IR_OP_SELECT:
        for (int i = 0; i < 3; i++)
            if (in->sel_src[i] < 0)
                fprintf(out, " %s=%.9g", i == 0 ? "pred" : i == 1 ? "on_true" : "on_false", in->sel_num[i]);
        break;
    case IR_OP_TENSOR_SCALAR:
    case IR_OP_TENSOR_TENSOR_SCAN:
    case IR_OP_SCALAR_TENSOR_TENSOR:
        for (int i = 0; i < in->nalu; i++)
            fprintf(out, " op%d=%s%s", i, spec_alu_name(in->alu[i]), in->reverse[i] ? " reverse" : "");
        break;
    case IR_OP_ACTIVATION:
        fprintf(out, " func=%s", spec_act_name(in->func));
        break;
    default:
        break;
    }
    static const char *const scalar_names[IR_OP_COUNT][2] = {
        [IR_OP_TENSOR_SCALAR] = {"operand0", "operand1"},
        [IR_OP_ACTIVATION] = {"scale", ""},
        [IR_OP_TENSOR_TENSOR_SCAN] = {"initial", ""},
        [IR_OP_SCALAR_TENSOR_TENSOR] = {"operand0", ""},
    };
    for (int i = 0; i < in->nscalar && i < 2; i++)
        dump_scalar(out, ir, scalar_names[in->op][i] ? scalar_names[in->op][i] : "scalar", &in->scalar[i]);
    if (in->has_bias) {
        ir_ap_format(ir, &in->bias, b, sizeof b);
        fprintf(out, " bias=%s", b);
    }
    if (in->has_vals) {
        ir_ap_format(ir, &in->vals, b, sizeof b);
        fprintf(out, " values=%s", b);
    }
    if (in->has_ind) {
        ir_ap_format(ir, &in->ind, b, sizeof b);
        fprintf(out, " index=%s step=%lld bound=%lld", b, (long long)(in->op == IR_OP_LOAD ? in->src[0] : in->dst).istep,
                (long long)in->ind_bound);
    }
    if (in->op == IR_OP_NC_MATCH_REPLACE8)
        fprintf(out, " imm=%.9g", in->value);
    if (in->op == IR_OP_PRINT)
        fprintf(out, " label=%s", in->label);
    if (in->has_reduce) {
        ir_ap_format(ir, &in->reduce_dst, b, sizeof b);
        fprintf(out, " reduce=%s:%s", spec_alu_name(in->reduce_op), b);
    }
    if (in->negate)
        fprintf(out, " negate");
    if (in->op == IR_OP_MATMUL)
        fprintf(out, " accumulate=%s", in->accumulate ? "true" : "false");
    if (in->transpose)
        fprintf(out, " transpose");
    if (in->broadcast)
        fprintf(out, " broadcast");
    if (in->op == IR_OP_MEMSET)
        dump_num(out, "value", in->value, in->valuex);
    if (in->op == IR_OP_IOTA) {
        expr_format(in->iota, b, sizeof b);
        fprintf(out, " expr=\"%s\"", b);
    }
    if (in->op == IR_OP_AFFINE_SELECT) {
        char r[512];
        expr_format(in->pred.lhs, b, sizeof b);
        expr_format(in->pred.rhs, r, sizeof r);
        fprintf(out, " pred=\"%s %s %s\"", b, expr_cmp_name(in->pred.cmp), r);
        dump_num(out, "fill", in->value, in->valuex);
    }
}

static void dump_inst(FILE *out, const Ir *ir, const IrInst *in, int depth)
{
    char b[1024];
    fprintf(out, "%*s%3d %-6s %-22s", 2 * depth, "", in->id, spec_engine_name(in->engine), ir_opcode_name(in->op));
    if (in->op != IR_OP_PRINT) {
        ir_ap_format(ir, &in->dst, b, sizeof b);
        fprintf(out, " dst=%s", b);
    }
    static const char *const src_names[5][3] = {{"src", "src1", "src2"}, {"stationary", "moving", ""}, {"a", "b", ""},
                                                {"src", "b", ""}, {"pred", "on_true", "on_false"}};
    int k = in->op == IR_OP_MATMUL                                                           ? 1
            : (in->op == IR_OP_TENSOR_TENSOR || in->op == IR_OP_TENSOR_TENSOR_SCAN)          ? 2
            : in->op == IR_OP_SCALAR_TENSOR_TENSOR                                           ? 3
            : in->op == IR_OP_SELECT                                                         ? 4
                                                                                             : 0;
    for (int i = 0; i < in->nsrc && i < 3; i++) {
        int j = i;
        for (int s = 0; k == 4 && s < 3; s++)
            if (in->sel_src[s] == i)
                j = s; /* select: the operand's name */
        ir_ap_format(ir, &in->src[i], b, sizeof b);
        fprintf(out, " %s=%s", src_names[k][j], b);
    }
    dump_fields(out, ir, in);
    fprintf(out, "  ; %s:%d\n", in->loc.file ? in->loc.file : "?", in->loc.line);
}

static void dump_body(FILE *out, const Ir *ir, const IrStmt *body, int n, int depth)
{
    for (int i = 0; i < n; i++) {
        if (body[i].kind == IR_STMT_INST) {
            dump_inst(out, ir, body[i].inst, depth);
            continue;
        }
        const IrLoop *lp = body[i].loop;
        char lo[128] = "", hi[128] = ""; /* bounds over enclosing loops, per iteration */
        int var = lp->start_e || lp->stop_e;
        if (lp->start_e)
            expr_format(lp->start_e, lo, sizeof lo);
        else
            snprintf(lo, sizeof lo, "%lld", (long long)lp->start);
        if (lp->stop_e)
            expr_format(lp->stop_e, hi, sizeof hi);
        else
            snprintf(hi, sizeof hi, "%lld", (long long)lp->stop);
        fprintf(out, "%*sloop %d: for %s in [%lld, %lld)%s%s%s%s%s step %lld  (%lld iterations%s)  ; %s:%d\n",
                2 * depth, "", lp->id, lp->var, (long long)lp->start, (long long)lp->stop,
                var ? " within [" : "", var ? lo : "", var ? ", " : "", var ? hi : "", var ? ")" : "", (long long)lp->step, (long long)lp->trip,
                lp->carried ? ", carried" : "", lp->loc.file ? lp->loc.file : "?", lp->loc.line);
        dump_body(out, ir, lp->body, lp->nbody, depth + 1);
        fprintf(out, "%*send loop %d\n", 2 * depth, "", lp->id);
    }
}

void ir_dump(FILE *out, const Ir *ir)
{
    const Spec *s = ir->spec;
    fprintf(out, "# tile IR of kernel %s (%s): %d instructions, %d loops\n", s->kernel ? s->kernel : "?",
            tg_machine_of(s->target).name, ir->ninsts, ir->nloops);
    for (int i = 0; i < s->ntensors; i++) {
        const SpecTensor *t = &s->tensors[i];
        fprintf(out, "tensor %s %s %s [", t->name, t->is_output ? "output" : "input", tg_dtype_name(t->dtype));
        for (int d = 0; d < t->rank; d++)
            fprintf(out, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
        fprintf(out, "]\n");
    }
    for (int i = 0; i < s->ntiles; i++) {
        const SpecTile *t = &s->tiles[i];
        const IrTile *u = &ir->tiles[i];
        fprintf(out, "tile %s %s %s [", t->name, t->buffer == SPEC_BUF_PSUM ? "psum" : "sbuf", tg_dtype_name(t->dtype));
        for (int d = 0; d < t->rank; d++)
            fprintf(out, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
        fprintf(out, "] bufs %d", t->bufs);
        if (u->naccess == 0)
            fprintf(out, " unused\n");
        else if (u->scope < 0)
            fprintf(out, " scope kernel\n");
        else
            fprintf(out, " scope loop %d (%s)%s\n", u->scope, ir->loops[u->scope]->var,
                    t->bufs > 1 ? ": copies rotate per iteration" : "");
    }
    dump_body(out, ir, ir->body, ir->nbody, 0);
}
