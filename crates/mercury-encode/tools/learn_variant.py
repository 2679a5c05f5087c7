"""An SM that encodes as another one does, but for some opcodes: which of
the other's forms it reads otherwise.

usage: learn_variant.py CRATE BASE SM [OTHER]     (e.g. 100 110; 120 107 100)

nvdisasm 13.5 reads NVIDIA's sm_110a code word for word as SM100a does,
and the solver's scan (every opcode value with seeded-random operand
bits, `learn_isa.py`'s words) shows where the two differ: opcodes sm_100
has and sm_110 refuses (`VIADD`, `VIMNMX`, `FFMA2`, ...), bits sm_100
reads as `.XOR` and sm_110 ignores (`IADD.XOR` is sm_110's `IADD3`).
So SM's tables are BASE's without the forms whose own word (the form's
bits, operands zero, guard PT) SM rejects or prints otherwise: each form
is checked, nothing is assumed per opcode.

Writes CRATE/src/tables/smSM.rs (`DROPPED`: mnemonic and bits of the
forms left out) and prints the scan's figures.

With OTHER (sm_107: BASE 120, OTHER 100), also `ADDED`: OTHER's forms
of opcodes BASE's tables lack and whose own word SM prints as OTHER does
(sm_107's `FMNMX3`, `CREDUX`, `FFMA2`: opcodes sm_120 lacks and sm_100
has, with sm_100's bits). Opcodes both have keep BASE's forms only, so
nothing BASE's tables read changes.
"""
import collections
import os
import re
import sys

from learn_isa import CTRL, GUARD_PT, SCAN_FILLINGS, fillings, word
from sass_text import disasm_many

WORD_BITS = (1 << 105) - 1
FORM = re.compile(r'    Form \{\n        mnemonic: "([^"]*)",\n.*?\n        bits: (0x[0-9a-f]+),\n', re.S)
TEXT = re.compile(r'    Form \{\n        mnemonic: "([^"]*)",\n        operands: &\[(.*?)\],\n.*?\n        bits: (0x[0-9a-f]+),\n', re.S)


def forms(path):
    """(mnemonic, bits) of every form of FORMS and SOLVED, in order."""
    src = open(path).read()
    out = []
    for table in ('FORMS', 'SOLVED'):
        start = src.index('static %s: &[Form] = &[' % table)
        end = src.index('\n];', start)
        out += [(m.group(1), int(m.group(2), 16)) for m in FORM.finditer(src, start, end)]
    return out


def texts(path):
    """(mnemonic, operands, bits) of every form of FORMS and SOLVED, in order."""
    src = open(path).read()
    out = []
    for table in ('FORMS', 'SOLVED'):
        start = src.index('static %s: &[Form] = &[' % table)
        end = src.index('\n];', start)
        out += [(m.group(1), m.group(2), int(m.group(3), 16)) for m in TEXT.finditer(src, start, end)]
    return out


def added(crate, base, sm, other):
    """OTHER's forms (mnemonic, bits, listing) of opcodes BASE's lack that SM reads as OTHER."""
    have = {mn.split('.')[0] for mn, _, _ in texts(os.path.join(crate, 'src/tables/sm%d.rs' % base))}
    fs = [f for f in texts(os.path.join(crate, 'src/tables/sm%d.rs' % other)) if f[0].split('.')[0] not in have]
    ws = [(bits & WORD_BITS & ~(0xf << 12)) | GUARD_PT | CTRL for _, _, bits in fs]
    ta = disasm_many(ws, 'SM%d' % other)
    tb = disasm_many(ws, 'SM%d' % sm)
    out = [((mn, bits), x) for (mn, _, bits), x, y in zip(fs, ta, tb) if x is not None and x == y]
    print('added: %d forms of SM%d of opcodes SM%d lacks, %d read alike by SM%d' % (
        len(fs), other, base, len(out), sm), file=sys.stderr)
    return out


def scan(base, sm):
    """The solver's scan words of BASE, listed as BASE and as SM."""
    b, s = 'SM%d' % base, 'SM%d' % sm
    words = [word(op, f) for op in range(4096) for f in fillings(b, op, SCAN_FILLINGS)]
    a = disasm_many(words, b)
    ops = sorted({w & 0xfff for w, t in zip(words, a) if t})
    more = [word(op, f) for op in ops for f in fillings(b, op, 64, SCAN_FILLINGS)]
    words += more
    a += disasm_many(more, b)
    return words, a, disasm_many(words, s)


def main():
    crate, base, sm = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    other = int(sys.argv[4]) if len(sys.argv) > 4 else None
    words, a, b = scan(base, sm)
    differ = collections.Counter()
    for w, x, y in zip(words, a, b):
        if x != y:
            differ[(w & 0xfff, (x or 'refused').split(' ')[0].split('.')[0], (y or 'refused').split(' ')[0].split('.')[0])] += 1
    print('scan: %d words, SM%d accepts %d, SM%d %d, the same text %d' % (
        len(words), base, sum(1 for x in a if x), sm, sum(1 for y in b if y),
        sum(1 for x, y in zip(a, b) if x and x == y)), file=sys.stderr)
    for (op, x, y), n in sorted(differ.items()):
        print('  %#05x %s -> %s: %d' % (op, x, y, n), file=sys.stderr)

    fs = forms(os.path.join(crate, 'src/tables/sm%d.rs' % base))
    ws = [(bits & WORD_BITS & ~(0xf << 12)) | GUARD_PT | CTRL for _, bits in fs]
    ta = disasm_many(ws, 'SM%d' % base)
    tb = disasm_many(ws, 'SM%d' % sm)
    dropped = [(f, x, y) for f, x, y in zip(fs, ta, tb) if x is not None and x != y]
    unread = sum(1 for x in ta if x is None)
    print('forms: %d of SM%d, %d read otherwise by SM%d, %d whose zero-operand word SM%d refuses (kept)' % (
        len(fs), base, len(dropped), sm, unread, base), file=sys.stderr)

    rows = ''.join('    // %s -> %s\n    ("%s", 0x%032x),\n' % (x, y or 'refused', mn, bits)
                   for (mn, bits), x, y in dropped)
    out = ('//! sm_%d\'s differences from sm_%d. GENERATED by `tools/learn_variant.py %d %d`\n'
           '//! from nvdisasm 13.5; do not edit by hand (rerun the tool).\n\n'
           '/// sm_%d\'s forms (mnemonic, bits) whose own word nvdisasm\'s SM%d refuses or\n'
           '/// prints otherwise (the listing as SM%d, then as SM%d): left out of sm_%d\'s tables.\n'
           'pub(crate) static DROPPED: &[(&str, u128)] = &[\n%s];\n'
           % (sm, base, base, sm, base, sm, base, sm, sm, rows))
    if other is not None:
        out = out.replace('`tools/learn_variant.py %d %d`' % (base, sm), '`tools/learn_variant.py %d %d %d`' % (base, sm, other))
        rows = ''.join('    // %s\n    ("%s", 0x%032x),\n' % (x, mn, bits) for (mn, bits), x in added(crate, base, sm, other))
        out += ('\n/// sm_%d\'s forms (mnemonic, bits) of opcodes sm_%d\'s lack whose own word\n'
                '/// nvdisasm\'s SM%d prints as SM%d does (the listing): added to sm_%d\'s tables.\n'
                'pub(crate) static ADDED: &[(&str, u128)] = &[\n%s];\n' % (other, base, sm, other, sm, rows))
    open(os.path.join(crate, 'src/tables/sm%d.rs' % sm), 'w').write(out)


if __name__ == '__main__':
    main()
