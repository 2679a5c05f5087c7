"""Session 16's probe for one NVIDIA word (how `src/tables/unseen16_probed.rs`
was made): `python3 probe_form.py SM75 0x000fe200000feeff000000ff0a0e7211 ...`
prints, per word, nvdisasm's text, the fields found and a Rust `Form`.
Every bit 16..104 but the guard is flipped alone under `nvdisasm -b SM`; a
flip that changes one operand's register, predicate or number and nothing
else is that operand's field; every other bit is fixed by the mask. Bits
122..125 are set one at a time (with a plain control word: nvdisasm
rejects some reuse bits under other control words) to find each register's
`.reuse` bit. A binary32 immediate is bits 32..63 (its sign flip prints a
`-` mark). Check the result with `xtask sass-roundtrip` and the decoder
tests (`isa_solver`, `decode_facts`, `targets_round_trip`)."""
import os
import re
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sass_text import disasm_many as dis
CTRL = ((1 << 128) - 1) ^ ((1 << 105) - 1)
def split(t):
    t = re.sub(r'^@!?U?P[0-9T] ', '', t)
    m = t.split(' ', 1)
    ops = [o.strip() for o in m[1].split(',')] if len(m) > 1 else []
    return m[0], ops
def skel(o):
    o = o.replace('.reuse', '')
    o = re.sub(r'\b(R\d+|RZ)\b', '{R}', o)
    o = re.sub(r'\b(P\d|PT)\b', '{P}', o)
    o = re.sub(r'0x[0-9a-f]+', '{X}', o)
    o = re.sub(r'^([-|]*)([-+]?(\d[\d.e+-]*|INF|QNAN|SNAN|NAN))', r'\1{F}', o)
    return o
def b128(x):
    h = '%032x' % x
    return '0x' + '_'.join(h[i:i + 4] for i in range(0, 32, 4))
def gen(sm, word, lo=16, hi=105):
    bits = list(range(lo, hi))
    ws = [word] + [word ^ (1 << b) for b in bits] + [((word & ((1 << 105) - 1)) | ((0x000fe20000000000 << 64) & CTRL)) ^ (1 << b) for b in range(122, 126)]
    ts = dis(ws, sm)
    mn, ops = split(ts[0])
    fields = {}  # operand index -> bits
    fixed = []
    for b, t in zip(bits, ts[1:1 + len(bits)]):
        if t is None or t == ts[0]:
            fixed.append(b); continue
        m2, o2 = split(t)
        diff = [i for i in range(len(ops)) if i < len(o2) and o2[i] != ops[i]]
        if m2 == mn and len(o2) == len(ops) and len(diff) == 1 and skel(o2[diff[0]]) == skel(ops[diff[0]]):
            fields.setdefault(diff[0], []).append(b)
        else:
            fixed.append(b)
    reuse = {}
    for k, t in zip(range(122, 126), ts[1 + len(bits):]):
        if t is None: continue
        _, o2 = split(t)
        for i in range(len(ops)):
            if i < len(o2) and '.reuse' in o2[i]:
                reuse[i] = k - 122
    mask = (1 << 105) - 1
    mask &= ~(0xf << 12)
    for i, bs in fields.items():
        for b in bs: mask &= ~(1 << b)
    print(f'// {sm} {hex(word)}: {ts[0]}')
    atoms = []
    for i in sorted(fields):
        bs = sorted(fields[i]); lo_, n = bs[0], len(bs)
        assert bs == list(range(lo_, lo_ + n)), (i, bs)
        sk = skel(ops[i])
        kind = 'R' if '{R}' in sk else 'P' if '{P}' in sk else 'X' if '{X}' in sk else 'F32' if '{F}' in sk else '?'
        r = reuse.get(i)
        if kind == 'F32':
            # the immediate's sign is bit 63 (its flip prints the negation: skeleton-wise a mark)
            assert lo_ == 32 and n in (31, 32), (lo_, n)
            lo_, n = 32, 32
            mask &= ~(1 << 63)
        atoms.append(f'Atom {{ kind: {kind}, fields: &[Field {{ pos: {lo_}, len: {n}, shift: 0 }}], signed: false, reuse: {"None" if r is None else f"Some({r})"} }}')
    base = word & mask
    print('//   fields:', [(ops[i], min(bs), len(bs)) for i, bs in sorted(fields.items())], 'reuse', reuse)
    ops_s = ', '.join('"%s"' % skel(o) for o in ops)
    print(f'Form {{\n    mnemonic: "{mn}",\n    operands: &[{ops_s}],\n    atoms: &[\n        ' + ',\n        '.join(atoms) + f',\n    ],\n    bits: {b128(base)},\n    mask: {b128(mask)},\n    uniform_guard: false,\n}},')
    return ts[0]
if __name__ == '__main__':
    sm = sys.argv[1]
    for w in sys.argv[2:]:
        gen(sm, int(w, 16))
