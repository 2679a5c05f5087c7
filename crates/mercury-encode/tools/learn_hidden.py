"""Step 2b: operands nvdisasm leaves out at their zero value.

nvdisasm prints some operands only when they are not zero: the thread
count of `BAR.SYNC R93` (`BAR.SYNC R93, 0x2` otherwise), the offset of
`CALL.ABS R4`, the condition of `JMP.DIV ~UR13, c[..]` when it is `PT`.
For every probed form (`learn_probe.py`) and every bare immediate or
predicate operand (`{X}`, `{P}`, `{UP}`; `!{P}` without its negation
bit), the operand's field is set to zero (`PT`/`UPT` for predicates: all
ones) and the word listed again: when
nvdisasm prints the same instruction without that operand, the operand is
hidden at zero in that form.

usage: learn_hidden.py WORK_DIR
Reads WORK_DIR/probe_*.json, writes WORK_DIR/hidden.json: sorted
[sm, mnemonic, operand skeletons without marks, operand index] rows.
"""
import ast
import collections
import glob
import json
import os
import re
import sys

from sass_text import *

work = sys.argv[1]
records = []
for f in sorted(glob.glob(os.path.join(work, 'probe_*.json'))):
    records += json.load(open(f)).values()


def zeroed(v, j, kind):
    """The base word with atom j's field at its zero value, or None."""
    entries = v['bits'].get(str(j), [])
    # [pos, atom bit] or [pos, ['S', atom bit]] (the sign bit)
    bits = {pos: (ab[1] if isinstance(ab, list) else ab) for pos, ab in entries
            if not isinstance(ab, list) or ab[0] == 'S'}
    if not bits:
        return None
    w = (v['base'][1] << 64) | v['base'][0]
    if kind in ('P', 'UP'):
        start = min(pos - ab for pos, ab in bits.items())
        return w | (7 << start)
    # A flip that zeroes the value hides the operand: such a bit is in
    # `nonop`, next to the learned ones.
    field = set(bits)
    nonop = set(v['nonop'])
    for pos in sorted(bits):
        for step in (-1, 1):
            b = pos + step
            while b in nonop and b not in field:
                field.add(b)
                b += step
    return w & ~sum(1 << b for b in field)


# The negation bit of a predicate operand (`learn_isa.py`'s marks: opcode
# bits, operand count, operand index) takes `!PT` to `PT`.
negation = {}
for f in sorted(glob.glob(os.path.join(work, 'isa_sm*.json'))):
    sm = 'sm' + re.search(r'isa_sm(\d+)\.json$', f).group(1)
    for op, n, i, on, o, c, b in json.load(open(f))['marks']:
        if o == '!' and on in ('{P}', '{UP}'):
            negation.setdefault((sm, op, n, i), b)

probes = collections.defaultdict(list)  # sm -> [(record, operand index, word)]
for v in records:
    sm = v['key'][0]
    g, mn, sks, atoms = parse_inst(v['raw'])
    j = 0
    for k, sk in enumerate(sks):
        n = sk.count('{')
        plain = sk.lstrip('!')
        if plain in ('{X}', '{P}', '{UP}') and n == 1:
            w = zeroed(v, j, plain[1:-1])
            not_bit = negation.get((sm, v['base'][0] & 0xfff, len(sks), k))
            if w is not None and sk != plain:
                w = None if not_bit is None else w & ~(1 << not_bit)
            if w is not None:
                probes[sm].append((v, k, w))
        j += n

hidden = set()
for sm, ps in sorted(probes.items()):
    listed = disasm_many([w for _, _, w in ps], sm)
    for (v, k, w), t in zip(ps, listed):
        if t is None:
            continue
        g, mn, sks, atoms = parse_inst(v['raw'])
        g2, mn2, sks2, atoms2 = parse_inst(t)
        others = [a[1] for a in atoms[:sum(s.count('{') for s in sks[:k])]] + \
                 [a[1] for a in atoms[sum(s.count('{') for s in sks[:k + 1]):]]
        if mn2 == mn and sks2 == sks[:k] + sks[k + 1:] and [a[1] for a in atoms2] == others:
            hidden.add((sm, mn, tuple(strip_flags(s) for s in sks), k))
rows = [[sm, mn, list(sks), k] for sm, mn, sks, k in sorted(hidden)]
json.dump(rows, open(os.path.join(work, 'hidden.json'), 'w'), indent=0)
print(len(rows), 'hidden operands', file=sys.stderr)
