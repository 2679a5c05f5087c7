"""Step 0: enumerate the instruction set by asking nvdisasm.

For one SM, every opcode value (bits 0..11) is tried with seeded-random
fillings of bits 16..104 (guard PT, control bits stall 1 and no
scoreboards, which nvdisasm accepts for every opcode). Opcodes nvdisasm
accepts get more fillings. Each distinct (opcode bits, mnemonic, operand
skeletons) shape keeps its first word, which is then minimised: every bit
whose clearing leaves nvdisasm's text unchanged is cleared, so the bits
left outside the operand fields are the ones that select the form.

The minimised words are written as instructions in `learn_corpus.py`'s
format (file `isa`, address 0, branch targets `L@0x..` absolute from
address 0), so `learn_probe.py` and `learn_tables.py` treat them like
NVIDIA's own words.

usage: learn_isa.py SM WORK_DIR [FILLINGS]   (SM: 75, 80, 90, ...)
Writes WORK_DIR/isa_smSM.json.
"""
import collections
import json
import os
import random
import re
import sys

from sass_text import atom_int, disasm_many, parse_inst, strip_flags

# Control bits nvdisasm accepts on every opcode: stall 1, no yield, no
# write or read scoreboard, no wait, no reuse (docs/mercury-encode.md).
CTRL = (1 << 105) | (7 << 110) | (7 << 113)
GUARD_PT = 7 << 12
FILL_MASK = ((1 << 105) - 1) & ~((1 << 16) - 1)
# Round 1: every opcode value with this many fillings (the first all zero).
SCAN_FILLINGS = 32


def fillings(sm, op, n, start=0):
    """Deterministic random fillings of bits 16..104 for one opcode."""
    rng = random.Random('%s/%d/%d' % (sm, op, start))
    return [0 if start + k == 0 else rng.getrandbits(128) & FILL_MASK for k in range(n)]


def word(op, fill):
    return op | GUARD_PT | fill | CTRL


def shape_key(op, text):
    g, mn, sks, atoms = parse_inst(text)
    return (op, mn, tuple(sks))


def minimise(sm, words, texts):
    """Clears every bit whose clearing leaves the text unchanged. First
    each set bit alone; then all such bits at once; words where clearing
    them together changes the text go bit by bit."""
    todo = {i: w for i, w in enumerate(words)}
    done = {}
    cand = {}
    flips = []
    for i, w in todo.items():
        for b in range(16, 105):
            if w >> b & 1:
                flips.append((i, b))
    res = disasm_many([todo[i] & ~(1 << b) for i, b in flips], sm)
    for (i, b), t in zip(flips, res):
        if t == texts[i]:
            cand.setdefault(i, []).append(b)
    trial = {i: todo[i] & ~sum(1 << b for b in cand.get(i, [])) for i in todo}
    order = sorted(trial)
    res = disasm_many([trial[i] for i in order], sm)
    slow = {}
    for i, t in zip(order, res):
        if t == texts[i]:
            done[i] = trial[i]
        else:
            slow[i] = (todo[i], sorted(cand.get(i, [])))
    # Greedy, one candidate bit per round, all slow words in parallel.
    while slow:
        keys = sorted(slow)
        tries = []
        for i in keys:
            w, bs = slow[i]
            tries.append(w & ~(1 << bs[0]) if bs else w)
        res = disasm_many(tries, sm)
        for i, w2, t in zip(keys, tries, res):
            w, bs = slow[i]
            if not bs:
                done[i] = w
                del slow[i]
                continue
            slow[i] = (w2 if t == texts[i] else w, bs[1:])
    return [done[i] for i in range(len(words))]


def enumerate_sm(sm, work, more):
    smu = 'SM%d' % sm
    # Round 1: which opcode values nvdisasm accepts at all.
    words = [word(op, f) for op in range(4096) for f in fillings(smu, op, SCAN_FILLINGS)]
    texts = disasm_many(words, smu)
    ops = sorted({w & 0xfff for w, t in zip(words, texts) if t})
    print('%s: %d opcode values accepted of 4096 (%d of %d words)'
          % (smu, len(ops), sum(1 for t in texts if t), len(words)), file=sys.stderr)
    # Round 2: more fillings of the accepted ones.
    w2 = [word(op, f) for op in ops for f in fillings(smu, op, more, SCAN_FILLINGS)]
    words += w2
    texts += disasm_many(w2, smu)
    first = collections.OrderedDict()
    for w, t in zip(words, texts):
        if t:
            first.setdefault(shape_key(w & 0xfff, t), (w, t))
    print('%s: %d accepted words, %d shapes (opcode, mnemonic, skeletons)'
          % (smu, sum(1 for t in texts if t), len(first)), file=sys.stderr)
    # Only shapes Ori can represent become forms or mark probes: minimise those.
    ops_ori, mods_ori = ori_vocabulary()
    keys = [k for k in first if representable(k[1], ops_ori, mods_ori)]
    print('%s: %d shapes representable in Ori' % (smu, len(keys)), file=sys.stderr)
    # The minimisation is most of the run: cache it by shape, so that a
    # larger Ori vocabulary minimises only the new shapes.
    cache = os.path.join(work, 'minimised_sm%d_%d.json' % (sm, more))
    known = {}
    if os.path.exists(cache):
        old = json.load(open(cache))
        if isinstance(old, list):
            # an older cache, in the order of that run's shapes: a
            # minimised word prints its shape's text
            old = {repr(shape_key(w & 0xfff, t)): w for w, t in zip(old, disasm_many(old, smu)) if t}
        known = old
    todo = [k for k in keys if repr(k) not in known]
    for k, w in zip(todo, minimise(smu, [first[k][0] for k in todo], [first[k][1] for k in todo])):
        known[repr(k)] = w
    json.dump({repr(k): known[repr(k)] for k in keys}, open(cache, 'w'))
    mins = [known[repr(k)] for k in keys]
    shapes = [(first[k][1], w) for k, w in zip(keys, mins)]
    summary = collections.Counter(k[1].split('.')[0] for k in first)
    print('%s: %d mnemonics: %s' % (smu, len(summary), ' '.join(sorted(summary))), file=sys.stderr)
    bases = select_bases(shapes)
    flips = flip_all(smu, bases)
    hidden = hidden_pt(smu, bases, flips)
    seeds = select(sm, work, bases, hidden)
    marks = learn_marks(bases, flips)
    print('%s: %d seeds (new operand forms), %d source marks' % (smu, len(seeds), len(marks)), file=sys.stderr)
    write(os.path.join(work, 'isa_sm%d.json' % sm), dict(opcodes=ops, seeds=seeds, marks=marks))


def write(path, out):
    """JSON with one seed or mark per line, so that reruns diff well."""
    with open(path, 'w') as f:
        f.write('{\n"opcodes": %s,\n' % json.dumps(out['opcodes']))
        for name in ('seeds', 'marks'):
            rows = ',\n'.join(json.dumps(r) for r in out[name])
            f.write('"%s": [\n%s\n]%s\n' % (name, rows, ',' if name == 'seeds' else ''))
        f.write('}\n')


def ori_vocabulary():
    """Opcode and modifier words Ori can represent (ori-ir's tables): a
    form of another word could be decoded but not built."""
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../ori-ir/src/opcode.rs')).read()
    ops = set(re.findall(r'^\s+([A-Z0-9_]+): (?:Fixed|Variable)', src, re.M))
    mods = set(re.findall(r'^\s+"([^"]+)",', src.split('static MODIFIERS')[1], re.M))
    return ops, mods


def representable(mnemonic, ops, mods):
    words = mnemonic.split('.')
    return words[0] in ops and all(m in mods for m in words[1:])


def bitcount(w):
    return bin(w).count('1')


def select_bases(shapes):
    """Per (opcode bits, operand skeletons without marks), the minimised
    word with the fewest bits set, and the one with the fewest modifier
    words when that is another (`ULEA` beside `ULEA.HI.SX32` of the same
    operands: the plain mnemonic is what compilers write most, and a
    modifier field of the other need not be one the families know): the
    bases of the seeds and of the mark probes."""
    best = {}
    plain = {}
    for t, w in shapes:
        g, mn, sks, at = parse_inst(t)
        k = (w & 0xfff, tuple(strip_flags(x) for x in sks))
        if k not in best or bitcount(w) < bitcount(best[k][1]):
            best[k] = (t, w)
        rank = (mn.count('.'), bitcount(w))
        if k not in plain or rank < plain[k][0]:
            plain[k] = (rank, (t, w))
    out = []
    for k in sorted(best):
        out.append(best[k])
        if plain[k][1] != best[k]:
            out.append(plain[k][1])
    return out


def select(sm, work, bases, hidden):
    """The seeds for the tables: the bases, unless NVIDIA's corpus words
    have their text or nvdisasm leaves a predicate operand out when it is
    PT (`hidden`: a form with the operand would read PT words wrongly; the
    form without it is another base). Modifier variants are left to the
    families (one form per modifier combination would be thousands)."""
    corpus = set()
    path = os.path.join(work, 'insts.json')
    if os.path.exists(path):
        for s, f, a, t, lo, hi in json.load(open(path)):
            g, mn, sks, at = parse_inst(t)
            corpus.add((s, lo & 0xfff, mn, tuple(sks)))
    seeds = []
    for n, (t, w) in enumerate(bases):
        g, mn, sks, at = parse_inst(t)
        if ('sm%d' % sm, w & 0xfff, mn, tuple(sks)) in corpus or n in hidden:
            continue
        # sm_80's printer hides `desc[UR]` (NVIDIA's sm_80 code never shows
        # it); forms where nvdisasm does print it are left out.
        if sm == 80 and any(x.startswith('desc[') for x in sks):
            continue
        # branch targets: absolute from address 0, as learn_corpus writes them
        t = re.sub(r'L@(-?0x[0-9a-f]+)', lambda m: 'L@0x%x' % (int(m.group(1), 16) + 16), t)
        seeds.append(['sm%d' % sm, 'isa', 0, t, w & (2**64 - 1), w >> 64])
    return seeds


def flip_all(smu, bases):
    """nvdisasm's text of every base with each of bits 16..104 flipped."""
    flips = [(n, b) for n in range(len(bases)) for b in range(16, 105)]
    res = disasm_many([bases[n][1] ^ (1 << b) for n, b in flips], smu)
    return list(zip(flips, res))


# Adders whose PT carry-outs the printer leaves out (print.rs).
ADDERS = {'IADD3', 'UIADD3', 'LEA', 'ULEA', 'IMAD'}


def hidden_pt(smu, bases, flips):
    """Bases with a predicate operand that nvdisasm leaves out when it is
    PT: its field (from the flips that change only its number) set to 7
    changes the operand count."""
    offs = collections.defaultdict(set)
    for (n, b), t in flips:
        if t is None:
            continue
        g0, mn0, sk0, at0 = parse_inst(bases[n][0])
        g1, mn1, sk1, at1 = parse_inst(t)
        if mn1 != mn0 or sk1 != sk0:
            continue
        diff = [j for j in range(len(at0)) if at0[j][1] != at1[j][1]]
        if len(diff) == 1 and at0[diff[0]][0] in ('P', 'UP'):
            j = diff[0]
            x = atom_int(at0[j][0], at0[j][1]) ^ atom_int(at1[j][0], at1[j][1])
            if x & (x - 1) == 0:
                offs[(n, j)].add(b - (x.bit_length() - 1))
    asks = [(n, bases[n][1] | (7 << min(o))) for (n, j), o in sorted(offs.items()) if len(o) == 1]
    res = disasm_many([w for n, w in asks], smu)
    hidden = set()
    for (n, w), t in zip(asks, res):
        t0 = bases[n][0]
        if parse_inst(t0)[1].split('.')[0] in ADDERS:
            continue
        if t is None or len(parse_inst(t)[2]) != len(parse_inst(t0)[2]):
            hidden.add(n)
    return hidden


def learn_marks(bases, flips):
    """Bits that put a mark (`-`, `|..|`, `~`, `!`) on one operand or take
    it off and change nothing else: [opcode, operand count, operand index,
    operand skeleton without that mark, mark open, mark close, bit], where
    every base of the opcode agrees."""
    found = collections.defaultdict(set)
    for (n, b), t in flips:
        if t is None:
            continue
        t0, w = bases[n]
        g0, mn0, sk0, at0 = parse_inst(t0)
        g1, mn1, sk1, at1 = parse_inst(t)
        if mn1 != mn0 or len(sk1) != len(sk0) or [a[1] for a in at1] != [a[1] for a in at0]:
            continue
        diff = [i for i in range(len(sk0)) if sk0[i] != sk1[i]]
        if len(diff) != 1:
            continue
        i = diff[0]
        # unmarked -> marked: the bit is set in the marked word; a base
        # minimised with the mark on shows it the other way round
        if w >> b & 1:
            plain, mark = sk1[i], mark_of(sk1[i], sk0[i])
        else:
            plain, mark = sk0[i], mark_of(sk0[i], sk1[i])
        if mark is None:
            continue
        found[(w & 0xfff, len(sk0), i, plain, mark)].add(b)
    return [[k[0], k[1], k[2], k[3], k[4][0], k[4][1], min(v)] for k, v in sorted(found.items()) if len(v) == 1]


def mark_of(plain, marked):
    """The mark that turns operand skeleton `plain` into `marked`: a prefix
    (`-`, `!`, `~`) or `|..|` around its register."""
    for p in '-!~':
        if marked == p + plain:
            return (p, '')
    for r in ('{R}', '{U}'):
        if r in plain and marked == plain.replace(r, '|%s|' % r, 1):
            return ('|', '|')
    return None


if __name__ == '__main__':
    os.makedirs(sys.argv[2], exist_ok=True)
    enumerate_sm(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 64)
