#!/usr/bin/env python3
"""Makes the Ori templates of src/ops/ieee/ from NVIDIA's code.

For each form (`div.rn.f32`, ...) and SM it compiles a one-instruction
kernel with NVIDIA's ptxas (`d = op a[, b]`, a and b loaded from two
buffers, d stored to a third), decodes the cubin to Ori text with our own
decoder (`cargo run -p ori-interp --example cubin_ori`), and keeps what
computes d: the fast path, and the slow-path subroutine inline (its
`CALL.REL.NOINC` becomes a branch to it, its `RET.REL.NODEC` a branch back,
the return-address moves go). Loads, stores, address arithmetic,
convergence barriers (`BSSY`/`BSYNC`/`BREAK`/`WARPSYNC`: our pipeline places
its own) and the trailing self-loop go too. Physical registers become
virtual ones: `%r0`, `%r1` are the sources (read once, by copies at the
start), `%r2` the result (written once, at the end, where the store was);
pairs (`.64` anywhere) become 64-bit virtual registers.

Usage: ieee_templates.py [--sm N]... OUTDIR [FORM...]   (only the FORMs
named, e.g. div.rz.ftz.f32, when given; only SM N (75, 80, 90, 100, 110, 120), when
given; NV_ORACLE_DIR must point at the oracle; run from the repository
root).
"""

import os
import re
import subprocess
import sys
import tempfile

FORMS = [
    ("div.rn.f32", 2), ("div.rz.f32", 2), ("div.rm.f32", 2), ("div.rp.f32", 2),
    ("div.full.f32", 2), ("div.approx.f32", 2),
    ("rcp.rn.f32", 1), ("rcp.rz.f32", 1), ("rcp.rm.f32", 1), ("rcp.rp.f32", 1),
    ("sqrt.rn.f32", 1), ("sqrt.rz.f32", 1), ("sqrt.rm.f32", 1), ("sqrt.rp.f32", 1),
    ("rcp.rn.f64", 1), ("sqrt.rn.f64", 1), ("div.rp.f64", 2),
    ("div.rn.f64", 2), ("div.rz.f64", 2), ("div.rm.f64", 2),
    ("div.rn.ftz.f32", 2), ("rcp.rn.ftz.f32", 1), ("sqrt.rn.ftz.f32", 1),
    ("rcp.rz.ftz.f32", 1), ("rcp.rm.ftz.f32", 1), ("rcp.rp.ftz.f32", 1),
    ("sqrt.rz.ftz.f32", 1), ("sqrt.rm.ftz.f32", 1), ("sqrt.rp.ftz.f32", 1),
    ("rcp.rz.f64", 1), ("rcp.rm.f64", 1), ("rcp.rp.f64", 1),
    ("sqrt.rz.f64", 1), ("sqrt.rm.f64", 1), ("sqrt.rp.f64", 1),
    ("div.rz.ftz.f32", 2), ("div.rm.ftz.f32", 2), ("div.rp.ftz.f32", 2),
    ("rsqrt.approx.f64", 1),
    ("div.u64", 2), ("div.s64", 2), ("rem.u64", 2), ("rem.s64", 2),
    ("div.full.ftz.f32", 2),
]

# Parameter offsets of the three buffers (sm_75/sm_80 bank layout, sm_90,
# Blackwell).
PARAMS = {75: [0x160, 0x168, 0x170], 80: [0x160, 0x168, 0x170], 90: [0x210, 0x218, 0x220],
          100: [0x380, 0x388, 0x390], 110: [0x380, 0x388, 0x390], 120: [0x380, 0x388, 0x390]}

DROP = {"LDC", "LDC.64", "ULDC", "ULDC.64", "LDCU", "LDCU.64", "S2R", "EXIT", "BSSY", "BSYNC", "BREAK", "NOP", "WARPSYNC", "BMOV.32.CLEAR",
        "BSSY.RECONVERGENT", "BSYNC.RECONVERGENT", "BSSY.RELIABLE", "BSYNC.RELIABLE",
        "BREAK.RELIABLE",
        "WARPSYNC.ALL"}


def kernel(op, arity, sm):
    ty = op.rsplit(".", 1)[1]
    r, w = {"f32": ("%f", 4), "f64": ("%fd", 8)}.get(ty, ("%x", 8))
    srcs = f"{r}1, {r}2" if arity == 2 else f"{r}1"
    # sm_100/sm_120 need PTX ISA 8.7, sm_110 (formerly sm_101) 9.0
    version = "8.0" if sm <= 90 else "9.0" if sm == 110 else "8.7"
    return f""".version {version}
.target sm_{sm}
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pout)
{{
    .reg .f32 %f<4>;
    .reg .f64 %fd<4>;
    .reg .b64 %x<4>;
    .reg .b32 %r<2>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u64 %rd3, [pout];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, {w};
    add.s64 %rd5, %rd1, %rd4;
    ld.global.{ty} {r}1, [%rd5];
    add.s64 %rd6, %rd2, %rd4;
    ld.global.{ty} {r}2, [%rd6];
    add.s64 %rd7, %rd3, %rd4;
    {op} {r}3, {srcs};
    st.global.{ty} [%rd7], {r}3;
    ret;
}}
"""


LINE = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?(?P<body>.*?)(?:\s+#0x[0-9a-f]+)?$")
REG = re.compile(r"(?<![A-Za-z0-9_%.])([RP])(\d+)(\.64)?(?![A-Za-z0-9])")


class Inst:
    def __init__(self, text):
        self.guard = None
        m = re.match(r"^(@!?P[0-9T]) (.*)$", text)
        if m:
            self.guard, text = m.group(1), m.group(2)
        if " = " in text:
            defs, rest = text.split(" = ", 1)
            self.defs = [d.strip() for d in defs.split(",")]
        else:
            self.defs, rest = [], text
        parts = rest.split(" ", 1)
        self.op = parts[0]
        self.uses = [u.strip() for u in split_top(parts[1])] if len(parts) > 1 else []

    def text(self):
        s = ""
        if self.guard:
            s += self.guard + " "
        if self.defs:
            s += ", ".join(self.defs) + " = "
        s += self.op
        if self.uses:
            s += " " + ", ".join(self.uses)
        return s

    def regs(self, operands):
        out = []
        for o in operands:
            for m in REG.finditer(o):
                out.append((m.group(1), int(m.group(2)), bool(m.group(3))))
        return out

    def reads(self):
        r = self.regs(self.uses)
        if self.guard:
            r += self.regs([self.guard])
        return r


def split_top(s):
    out, depth, cur = [], 0, ""
    for c in s:
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    out.append(cur)
    return out


def decode(cubin):
    out = subprocess.run(["cargo", "run", "-q", "-p", "ori-interp", "--example", "cubin_ori", "--", cubin, "k"],
                         check=True, capture_output=True, text=True).stdout
    blocks, order = {}, []
    for raw in out.splitlines():
        line = raw.strip()
        if not line or line.startswith(".") or line in ("}",) or line.startswith(".entry"):
            continue
        if re.match(r"^bb\d+:$", line):
            order.append(line[:-1])
            blocks[line[:-1]] = []
            continue
        body = LINE.match(raw).group("body")
        blocks[order[-1]].append(Inst(body))
    return order, blocks


def convert(op, arity, sm, work):
    ptx = os.path.join(work, "k.ptx")
    cubin = os.path.join(work, "k.cubin")
    with open(ptx, "w") as f:
        f.write(kernel(op, arity, sm))
    ptxas = os.path.join(os.environ["NV_ORACLE_DIR"], "nvidia/cu13/bin/ptxas")
    subprocess.run([ptxas, f"-arch=sm_{sm}", ptx, "-o", cubin], check=True)
    order, blocks = decode(cubin)
    wide = op.endswith("64")
    integer = op.rsplit(".", 1)[1] in ("u64", "s64")
    params = PARAMS[sm]

    # Which buffer each register's value comes from (addresses and loads).
    origin, inputs, output, join = {}, {}, None, None
    for b in order:
        for i in blocks[b]:
            src = None
            for u in i.uses:
                m = re.search(r"c\[0x0\]\[(0x[0-9a-f]+)\]", u)
                if m and int(m.group(1), 16) in params:
                    src = params.index(int(m.group(1), 16))
                for (f, n, _) in i.regs([u]):
                    if (f, n) in origin:
                        src = origin[(f, n)]
            if i.op.startswith("LDG"):
                (f, n, _), = i.regs(i.defs)
                inputs[n] = src
            elif i.op.startswith("STG"):
                output = i.regs([i.uses[-1]])[0][1]
                join = b
            elif src is not None and i.defs:
                for (f, n, _) in i.regs(i.defs):
                    origin[(f, n)] = src

    # Drop the self-loop block and what only serves loads and stores.
    order = [b for b in order if not (blocks[b] and blocks[b][0].op == "BRA" and blocks[b][0].uses == [b])]
    fall = {b: (order[k + 1] if k + 1 < len(order) else None) for k, b in enumerate(order)}
    body = {}
    ret_block = None
    extra = []
    for b in order:
        out = []
        insts = blocks[b]
        for k, i in enumerate(insts):
            # Addresses are `tid * width + base`; integer division's own
            # IMAD.WIDE products (of registers) stay.
            stride = len(i.uses) > 1 and i.uses[1] in ("0x4", "0x8")
            # sm_80 adds a buffer's base from the bank with the stride in
            # a register (`IMAD.WIDE.U32 R2, R0, R5, c[0x0][0x160]`).
            base = any(int(m.group(1), 16) in params for u in i.uses
                       for m in [re.search(r"c\[0x0\]\[(0x[0-9a-f]+)\]", u)] if m)
            wide_address = i.op.startswith("IMAD.WIDE") and (stride or base or not integer)
            if i.op in DROP or i.op.startswith("LDG") or wide_address:
                continue
            if i.op.startswith("STG"):
                join = b  # the block after a call when the store follows it
                out.append(("OUT", None))
                break  # the rest (EXIT) goes
            if i.op.startswith("CALL"):
                # The return address moved into a register just before.
                if out and out[-1][1].op in ("MOV", "IMAD.MOV.U32") and re.match(r"^0x[0-9a-f]+$", out[-1][1].uses[-1]):
                    out.pop()
                ret_block = f"{b}r"
                out.append(("I", Inst(f"BRA {i.uses[0]}")))
                body[b] = out
                extra.append((b, ret_block))
                b = ret_block
                out = []
                continue
            if i.op.startswith("RET"):
                ret_regs = {int(REG.search(i.uses[0]).group(2)), int(REG.search(i.uses[0]).group(2)) + 1}
                kept = []
                for kind, j in reversed(out):
                    d = [n for (f, n, _) in j.regs(j.defs) if f == "R"]
                    # sm_120 zeroes the high word with a plain `HFMA2 R5, -RZ,
                    # RZ, 0, 0`.
                    zero = j.op == "HFMA2" and all(u in ("RZ", "-RZ", "0", "0.0") for u in j.uses)
                    moves = j.op in ("MOV", "IMAD.MOV.U32", "HFMA2.MMA") or zero
                    if kind == "I" and d and all(n in ret_regs for n in d) and moves:
                        ret_regs -= set(d)
                        continue
                    # Only the last writes before RET set the return address
                    # (sm_120's div.s64 moves its result's high word into R5
                    # earlier).
                    ret_regs -= set(d)
                    kept.append((kind, j))
                out = list(reversed(kept))
                out.append(("I", Inst("BRA RET")))
                continue
            out.append(("I", i))
        body[b] = out
    # The block after each CALL: where RET goes back to.
    new_order = []
    for b in order:
        new_order.append(b)
        for (c, r) in extra:
            if c == b:
                new_order.append(r)
                fall[r] = fall[b]
                fall[b] = None
    for b in body:
        body[b] = [(k, Inst(f"BRA {ret_block}") if k == "I" and i.op == "BRA" and i.uses == ["RET"] else i)
                   for (k, i) in body[b]]
    # The block of the store becomes the last, the continuation.
    new_order.remove(join)
    new_order.append(join)
    for k, b in enumerate(new_order):
        insts = body.get(b, [])
        ends = insts and insts[-1][0] == "I" and insts[-1][1].op == "BRA" and insts[-1][1].guard is None
        if b != join and not ends and fall.get(b) and (k + 1 >= len(new_order) or new_order[k + 1] != fall[b]):
            insts.append(("I", Inst(f"BRA {fall[b]}")))
        body[b] = insts

    # Dead definitions (the sm_80 address stride, the stack pointer).
    while True:
        read = set()
        for b in new_order:
            for kind, i in body[b]:
                if kind == "I":
                    for (f, n, w) in i.reads():
                        read.add((f, n))
                        if w:
                            read.add((f, n + 1))
        read.add(("R", output))
        if wide:
            read.add(("R", output + 1))
        changed = False
        for b in new_order:
            keep = []
            for kind, i in body[b]:
                defs = i.regs(i.defs) if kind == "I" else []
                if kind == "I" and defs and i.op not in ("BRA",) and not any(
                        (f, n) in read or (w and (f, n + 1) in read) for (f, n, w) in defs):
                    changed = True
                    continue
                keep.append((kind, i))
            body[b] = keep
        if not changed:
            break

    # Physical to virtual registers.
    pairs = set()
    for b in new_order:
        for kind, i in body[b]:
            if kind == "I":
                for (f, n, w) in i.regs(i.defs + i.uses):
                    if w:
                        pairs.add(n)
    src_regs = sorted(inputs, key=lambda n: inputs[n])
    if wide:
        pairs |= set(src_regs) | {output}
    names, next_v = {}, 3

    def vreg(f, n):
        nonlocal next_v
        key = (f, n - 1 if f == "R" and n - 1 in pairs else n)
        if key not in names:
            names[key] = next_v
            next_v += 1
        return names[key], (n - key[1] if key[1] in pairs and f == "R" else None)

    first_def = set()

    def rename(text, is_def):
        def sub(m):
            f, n, w = m.group(1), int(m.group(2)), m.group(3)
            v, part = vreg(f, n)
            p = "%r" if f == "R" else "%p"
            if w:
                return f"{p}{v}.64"
            if part is not None:
                s = f"{p}{v}:{part}"
                if is_def and (f, v) not in first_def:
                    s = "undef " + s
                return s
            return f"{p}{v}"
        out = REG.sub(sub, text)
        if is_def:
            for m in REG.finditer(text):
                first_def.add((m.group(1), vreg(m.group(1), int(m.group(2)))[0]))
        return out

    lines = [f"// {op} for sm_{sm}: NVIDIA's ptxas (nvdisasm), slow path inline (tools/ieee_templates.py)",
             ".func t {"]
    label = {b: f"bb{k}" for k, b in enumerate(new_order)}
    for b in new_order:
        lines.append(f"{label[b]}:")
        if b == new_order[0]:
            for k, n in enumerate(src_regs):
                if wide:
                    v = vreg("R", n)[0]
                    first_def.add(("R", v))
                    lines.append(f"    undef %r{v}:0 = MOV %r{k}:0")
                    lines.append(f"    %r{v}:1 = MOV %r{k}:1")
                else:
                    lines.append(f"    {rename(f'R{n}', True)} = MOV %r{k}")
        for kind, i in body[b]:
            if kind == "OUT":
                if wide:
                    v = vreg("R", output)[0]
                    lines.append(f"    undef %r2:0 = MOV %r{v}:0")
                    lines.append(f"    %r2:1 = MOV %r{v}:1")
                else:
                    lines.append(f"    %r2 = MOV {rename(f'R{output}', False)}")
                continue
            i.uses = [re.sub(r"\bbb\d+\b", lambda m: label.get(m.group(0), m.group(0)), u) for u in i.uses]
            i.uses = [re.sub(r"\bbb\d+r\b", lambda m: label[m.group(0)], u) for u in i.uses]
            if i.guard:
                i.guard = rename(i.guard, False)
            i.uses = [rename(u.replace(".reuse", ""), False) for u in i.uses]
            i.defs = [rename(d, True) for d in i.defs]
            lines.append("    " + i.text())
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    args = sys.argv[1:]
    sms = []
    while args and args[0] == "--sm":
        sms.append(int(args[1]))
        args = args[2:]
    out = args[0]
    only = set(args[1:])
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        for op, arity in FORMS:
            if only and op not in only:
                continue
            for sm in sms or (90, 80):
                try:
                    text = convert(op, arity, sm, work)
                except subprocess.CalledProcessError as e:
                    # A form our decoder cannot read yet: no template.
                    print(f"{op} sm_{sm}: {e}", file=sys.stderr)
                    continue
                with open(os.path.join(out, f"{op.replace('.', '_')}.sm{sm}.ori"), "w") as f:
                    f.write(text)


if __name__ == "__main__":
    main()
