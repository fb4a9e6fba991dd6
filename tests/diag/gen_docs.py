#!/usr/bin/python3
"""Generate docs/diagnostics.md from tests/diag: every code that a case
produces, with its one-line meaning and the smallest case (by size) whose
expected output reports it, quoted with that output; the later phases'
codes; the assembler's codes (from docs/asm.md).
`gen_docs.py --check-codes` checks that docs/diagnostics.md lists every code
gen/ can raise and nothing else."""
import glob, os, re, sys

MEANING = {
    "E001": "YAML syntax error or invalid input bytes",
    "E002": "duplicate key in a mapping",
    "E003": "anchor or alias (not allowed in a spec)",
    "E004": "tag (not allowed in a spec)",
    "E005": "more than one YAML document",
    "E006": "nesting deeper than 64 levels",
    "E007": "empty spec",
    "E008": "non-scalar mapping key",
    "E009": "expression syntax error",
    "E010": "unknown key (with a suggestion)",
    "E011": "required key missing",
    "E012": "wrong kind of node (mapping / sequence / scalar)",
    "E013": "bad value (boolean, bufs, conflicting flags)",
    "E014": "unknown name from a fixed list: dtype, ALU op, activation, buffer, target",
    "E015": "unsupported schema version",
    "E016": "unknown op, or a statement without exactly one op key",
    "E017": "invalid identifier, or a kernel name the generated C cannot use (a C keyword; tg_..., v_..., ..._t, core, main, ...)",
    "E018": "integer too large, overflow or division by zero; a number field beyond float32 or NaN (in some iteration, for one over loop variables)",
    "E019": "-D names a param the spec does not have",
    "E020": "undefined name",
    "E021": "name defined twice (params, tensors, scratch, views, tiles share one namespace)",
    "E022": "tensor used where a tile is needed (or the reverse), or a write to an input (or a view of one)",
    "E024": "name not allowed here (loop variable in a tensor shape or a loop step; reserved or ambiguous name)",
    "E025": "cannot infer an undeclared tile's shape",
    "E026": "ragged tile used outside a loop whose variable its shape reads",
    "E030": "rank out of range (HBM tensors, views and scratch 1-5; tiles 2-4)",
    "E031": "more than 128 partitions",
    "E032": "operand shapes do not agree (or a matmul or transpose writing across a PSUM bank boundary)",
    "E033": "dtype or ALU op not legal for this op",
    "E034": "too many indices, or an integer index on a tile's partition dim",
    "E035": "dimension not positive (a ragged dim: in some iteration)",
    "E036": "operand must be a [P, 1] column",
    "E037": "tensor beyond the binary program's limits: a dim-0 stride over 2^31 - 1 elements (32-bit steps) or more than 2^40 bytes",
    "E038": "an op's free-size rule (bn_stats <= 512, bn_aggr <= 4096 free elements in whole records, max8 / nc_find_index8 8 to 16384)",
    "E040": "Tensor-engine input not in SBUF",
    "E041": "Tensor-engine output not in PSUM",
    "E042": "PSUM tile not float32",
    "E043": "PSUM tile larger than the 8 banks of 2 KiB (16 KiB per partition)",
    "E044": "GpSimd op touches PSUM",
    "E045": "Vector op reads two operands from PSUM",
    "E046": "matmul limits (K agreement, M <= 128, N <= 512)",
    "E047": "DMA endpoint in PSUM",
    "E048": "index column (indirect DMA) misplaced or malformed: not a load's src / store's dst on HBM, two of them, not an integer [P, 1] column, or with transpose / broadcast",
    "E049": "index column with fewer partitions than the DMA moves",
    "E050": "region out of bounds for some loop iteration",
    "E051": "empty region or bad slice step",
    "E053": "bad loop range",
    "E054": "independent loop reads a tile another iteration writes; a grid program reads output another program writes",
    "E055": "independent loop iterations (or grid programs) write overlapping output regions (a tensor and its views: overlapping byte intervals)",
    "E056": "read of tile elements that nothing has written yet",
    "E057": "the spec needs more checking work than its budget (enumerated iterations of non-affine regions; the scratch read-before-write check)",
    "E058": "loops nested deeper than 8 (the machine's loop registers)",
    "E060": "SBUF capacity exceeded (each copy of a tile counted at its 64-byte aligned size)",
    "E061": "PSUM capacity exceeded",
    "E062": "more than 255 tensors, or 255 tiles, in one kernel",
    "E070": "grid of rank 0 or above 3, or an axis with no programs",
    "E071": "program_id / num_programs axis not an integer literal inside the grid",
    "E072": "program_id / num_programs in a kernel without a grid",
    "E073": "cores other than 1 or 2",
    "E074": "cores: 2 on trn1 (one physical core) or in a kernel without a grid (nothing to spread over the cores)",
    "E075": "a view's `of` is not an HBM tensor (an input, output, scratch tensor or earlier view)",
    "E076": "a view's shape and dtype do not span exactly the bytes of the tensor it is of",
    "E077": "a bitcast view's dtype does not divide its tensor's bytes",
    "E078": "a load of scratch bytes that no earlier store (in program order) wrote: scratch is undefined at kernel start",
    "E080": "two prints with the same label (the host names a print's .npy files by its label)",
    "W001": "tile read before anything writes it",
    "W002": "output never written",
    "W003": "empty body",
    "W004": "cores: 2 with one program along grid axis 0: physical core 1 runs nothing",
}

# Codes the phases after `check` can raise (gen, asm, run). `check` rejects
# every spec that would reach one of them with the front-end code named here
# (SPEC.md §2.1: a spec `check` accepts is one that `gen`, `run` and `profile`
# accept), so each is an internal consistency guard with no failing spec of
# its own; the differential fuzzer (tests/numerics/fuzz_diff.py) fails on any.
BACKEND = [
    ("E090", "lowering: a region the IR cannot express (partition step, transposed or broadcast load shape)",
     "E051, E032"),
    ("E091", "out of memory in a back-end phase", "none: the machine ran out of memory"),
    ("E092", "planner: a tile too large to place", "E035, E060"),
    ("E093", "planner: PSUM tile larger than the 8 banks", "E043"),
    ("E094", "planner: SBUF overflow after placement", "E060 (counts aligned copies, no reuse)"),
    ("E095", "planner: PSUM overflow after placement", "E061"),
    ("E100", "C back end: an access pattern it cannot express", "E032, E036, E046"),
    ("E110", "assembly: an expression or address the encoding cannot express", "E058, E020"),
    ("E111", "assembly: a step beyond the encoding's 32-bit fields", "E037"),
    ("E112", "assembly: more engine dependencies than the 256 semaphores", "none known (the fuzzer would report it)"),
    ("E113", "assembly: loops nested deeper than the 8 loop registers", "E058"),
    ("E114", "assembly: more than 255 tensors or tiles", "E062"),
    ("E115", "assembly: the emitted program does not validate", "E037, E038"),
]

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))


def asm_codes():
    """The rows of the assembler's code table in docs/asm.md."""
    text = open(os.path.join(root, "docs", "asm.md"), encoding="utf-8").read()
    return [ln for ln in text.split("\n") if re.match(r"\| A\d{3} \|", ln)]


def check_codes():
    """Every code a string literal in gen/ names ("E032", "W002", "A014": how
    diag_error, diag_warning and the assembler's error helpers are called)
    must be a row of docs/diagnostics.md, and every row a code gen/ can
    raise. Prints one line per problem, then "N passed, M failed"."""
    raised = {}
    for path in sorted(glob.glob(os.path.join(root, "gen", "*"))):
        if os.path.isfile(path) and path.endswith((".c", ".h", ".re", ".def")):
            for n, ln in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                if "/*" in ln and re.search(r'/\*[^"]*"[EWA]\d{3}"', ln):
                    continue    # a comment naming a code (diag.h's field doc)
                for code in re.findall(r'"([EWA]\d{3})"', ln):
                    raised.setdefault(code, "%s:%d" % (os.path.relpath(path, root), n))
    doc = open(os.path.join(root, "docs", "diagnostics.md"), encoding="utf-8").read()
    listed = set(re.findall(r"^\| ([EWA]\d{3}) \|", doc, re.M))
    bad = 0
    for code in sorted(raised):
        if code not in listed:
            bad += 1
            print("FAIL %s (raised at %s) is not listed in docs/diagnostics.md" % (code, raised[code]))
    for code in sorted(listed - set(raised)):
        bad += 1
        print("FAIL %s is listed in docs/diagnostics.md but nothing in gen/ raises it" % code)
    print("%d passed, %d failed" % (len(raised) + len(listed - set(raised)) - bad, bad))
    return 1 if bad else 0


if len(sys.argv) > 1 and sys.argv[1] == "--check-codes":
    sys.exit(check_codes())
cases = {}
for exp in sorted(glob.glob(os.path.join(here, "[0-9][0-9][0-9]-*.expected"))):
    text = open(exp, encoding="utf-8", errors="replace").read()
    spec = exp[: -len(".expected")] + ".yaml"
    size = os.path.getsize(spec)
    for code in re.findall(r"(?:error|warning)\[([EW]\d{3})\]", text):
        if code not in cases or size < cases[code][0]:
            cases[code] = (size, spec, text)

out = ["# tilegen diagnostics", "",
       "Generated by `tests/diag/gen_docs.py` from the cases in `tests/diag/` (the `diag` suite",
       "fails when this file is stale). Every diagnostic reads `file:line:col: error[CODE]: message`,",
       "then the source line with a caret under the column, then `note:` lines pointing at related",
       "places. All errors of a run are reported; then `tilegen check` exits 1 (2 for usage or I/O",
       "errors). Codes are grouped: E00x YAML, E01x schema, E02x names, E03x shapes and dtypes,",
       "E04x engines and buffers, E05x bounds and loops, E06x capacity; W0xx are warnings.", "",
       "| code | meaning |", "| --- | --- |"]
for code in sorted(MEANING):
    out.append("| %s | %s%s |" % (code, MEANING[code], "" if code in cases else " (no test case yet)"))
out += ["", "## Codes of the later phases", "",
        "`tilegen gen`, `asm` and `run` can raise these, but `check` rejects every spec that would reach",
        "one first, with the code in the last column (whose case below is the minimal failing spec), so",
        "each is an internal consistency guard: a spec that `check` accepts and a later phase refuses is a",
        "bug (the differential fuzzer, `make suite-fuzz-diff`, fails on one). The assembler's own codes",
        "for hand-written `.s` files are listed below.", "",
        "| code | raised by | check reports instead |", "| --- | --- | --- |"]
for code, what, instead in BACKEND:
    out.append("| %s | %s | %s |" % (code, what, instead))
out += ["", "## Codes of the assembler", "",
        "`tilegen asm` raises these on a hand-written or edited `.s` file (a listing `tilegen gen` wrote",
        "always assembles: the differential fuzzer fails on one that does not). Copied from the table in",
        "[asm.md](asm.md), where `tests/asm/bad/` has one file per code with its exact output.", "",
        "| code | meaning |", "| --- | --- |"]
out += asm_codes()
out.append("")
for code in sorted(cases):
    size, spec, text = cases[code]
    rel = os.path.relpath(spec, os.path.dirname(os.path.dirname(here)))
    src = open(spec, "rb").read().decode("utf-8", errors="replace")
    args = spec[: -len(".yaml")] + ".args"
    cmd = "`tilegen check %s%s`:" % (open(args).read().strip() + " " if os.path.exists(args) else "", rel)
    out += ["## %s — %s" % (code, MEANING.get(code, "?")), "", cmd, "", "```yaml", src.rstrip("\n"), "```", "",
            "```", text.rstrip("\n"), "```", ""]
print("\n".join(out))
