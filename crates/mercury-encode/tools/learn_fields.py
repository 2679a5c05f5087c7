"""Step 2c: modifier fields from NVIDIA's words and the solver's seeds.

For one word of every opcode bits, opcode and operand shape (NVIDIA's
code first, then the seeds of `isa_smN.json`), each of bits 16..104 is
flipped alone: a flip after which
nvdisasm prints the same operands and another mnemonic is a modifier bit.
Two neighbouring modifier bits belong to one field when their joint flip
is rejected or does not print the words of both single flips (the two
bits of a rounding `RM RP RZ`); `.FTZ` beside `.NAN` compose and stay two
fields. Every value of every field (up to 6 bits) is listed with the other
bits as in the seed: the words a value prints are what its mnemonic has
beyond the words all values share at its start and end, a rejected value
or one nvdisasm prints `INVALIDn` / `???n` is invalid. The field's place
in the mnemonic is where its words are in the seed's mnemonic (a field
printing nothing there is placed by a word with it and its neighbour
set). Each family (opcode word, opcode bits, slots) is checked on random
combinations of its fields; a family one of whose combinations nvdisasm
prints otherwise is dropped, one nvdisasm rejects is counted (an illegal
combination).

usage: learn_fields.py WORK_DIR CRATE_DIR SM...
Reads WORK_DIR/insts.json (NVIDIA's words, `learn_corpus.py`) and
WORK_DIR/isa_smN.json, writes CRATE_DIR/tools/isa/fields_smN.json (the
families and the checked words with nvdisasm's text) and
CRATE_DIR/src/tables/fields.rs from every tools/isa/fields_sm*.json.
Deterministic.
"""
import collections
import glob
import json
import os
import random
import re
import sys

from sass_text import disasm_many, parse_inst, strip_flags

MAX_LEN = 6
INVALID_WORD = re.compile(r'INVALID|\?\?\?')
SAMPLES_PER_FAMILY = 6
# the share of checked words kept as samples for the test
SAMPLE_SHARE = 0.25


def flip_range():
    return range(16, 105)


def split(text):
    """(opcode word, modifier words, operand text) of nvdisasm's text."""
    g, mn, sks, atoms = parse_inst(text)
    words = mn.split('.')
    rest = text.split(' ', 1)[1] if ' ' in text else ''
    if text.startswith('@'):
        rest = rest.split(' ', 1)[1] if ' ' in rest else ''
    return words[0], words[1:], rest


def field_of(words_by_value):
    """value -> modifier word list (None: invalid) => value -> words the
    field prints (None: invalid), its start in the mnemonic, or None."""
    valid = {v: w for v, w in words_by_value.items() if w is not None}
    if len(valid) < 2 or len({tuple(w) for w in valid.values()}) < 2:
        return None
    lists = list(valid.values())
    pre = 0
    while all(len(w) > pre for w in lists) and len({w[pre] for w in lists}) == 1:
        pre += 1
    suf = 0
    while all(len(w) > pre + suf for w in lists) and len({w[len(w) - 1 - suf] for w in lists}) == 1:
        suf += 1
    out = {v: ('.'.join(w[pre:len(w) - suf]) if w is not None else None) for v, w in words_by_value.items()}
    return out, pre


# The solver's control bits (stall 1, no scoreboards) and guard `PT`.
CTRL = (1 << 105) | (7 << 110) | (7 << 113)
CTRL_AND_GUARD = (((1 << 23) - 1) << 105) | (0xf << 12)


def learn(sm, seeds):
    rng = random.Random('fields-' + sm)
    # one word per (opcode bits, opcode word, unmarked skeletons), NVIDIA's
    # first (the solver keeps no seed of a shape the corpus has)
    reps, seen = [], set()
    for s in seeds:
        text, word = s[3], s[4] | (s[5] << 64)
        word = (word & ~CTRL_AND_GUARD) | CTRL | (7 << 12)
        # listings comment some instructions (`(*"SpillRefill"*)`)
        text = re.sub(r'\s*\(\*.*?\*\)', '', re.sub(r'^@!?U?P[T0-6] ', '', text)).replace('.reuse', '')
        g, mn, sks, atoms = parse_inst(text)
        key = (word & 0xfff, mn.split('.')[0], tuple(strip_flags(x) for x in sks))
        if key in seen or 'L@' in text:
            continue
        seen.add(key)
        reps.append((word, text, list(key[2])))
    # 1. single flips
    batch = [w ^ (1 << b) for w, _, _ in reps for b in flip_range()]
    listed = disasm_many([w for w, _, _ in reps] + batch, sm)
    base_texts, flips = listed[:len(reps)], listed[len(reps):]
    nflip = len(flip_range())
    cands = []  # (rep index, base split, [modifier bits])
    operand_bits = {}  # rep index -> bits whose flip changes an operand only
    for i, (w, _, _) in enumerate(reps):
        t0 = base_texts[i]
        if t0 is None:
            continue
        op0, mods0, rest0 = split(t0)
        mbits, obits = [], 0
        for k, b in enumerate(flip_range()):
            t = flips[i * nflip + k]
            if t is None:
                continue
            op, mods, rest = split(t)
            if op == op0 and rest == rest0 and mods != mods0:
                mbits.append(b)
            elif op == op0 and mods == mods0 and rest != rest0:
                obits |= 1 << b
        operand_bits[i] = obits
        if mbits:
            cands.append((i, (op0, mods0, rest0), mbits))
    # 2. pair flips of neighbouring modifier bits
    pairs = [(i, b) for i, _, mb in cands for b in mb if b + 1 in mb]
    pair_texts = disasm_many([reps[i][0] ^ (3 << b) for i, b in pairs], sm)
    joint = dict(zip(pairs, pair_texts))

    def single(i, b):
        return flips[i * nflip + (b - 16)]

    def composes(i, base, b):
        t = joint[(i, b)]
        if t is None:
            return False
        op, mods, rest = split(t)
        if op != base[0] or rest != base[2]:
            return False
        m0 = collections.Counter(base[1])
        ma = collections.Counter(split(single(i, b))[1])
        mb = collections.Counter(split(single(i, b + 1))[1])
        return collections.Counter(mods) == m0 - (m0 - ma) - (m0 - mb) + (ma - m0) + (mb - m0)

    groups = []  # (rep index, base, [(pos, len)])
    for i, base, mb in cands:
        fields, cur = [], [mb[0]]
        for b in mb[1:]:
            if b == cur[-1] + 1 and not composes(i, base, cur[-1]):
                cur.append(b)
            else:
                fields.append(cur)
                cur = [b]
        fields.append(cur)
        fields = [(f[0], len(f)) for f in fields if len(f) <= MAX_LEN]
        if fields:
            groups.append((i, base, fields))
    # 3. every value of every field
    values = []
    for i, base, fields in groups:
        w = reps[i][0]
        for pos, n in fields:
            m = ((1 << n) - 1) << pos
            values += [(w & ~m) | (v << pos) for v in range(1 << n)]
    value_texts = iter(disasm_many(values, sm))
    fams = []
    for i, base, fields in groups:
        w = reps[i][0]
        learned = []
        for pos, n in fields:
            by_value = {}
            for v in range(1 << n):
                t = next(value_texts)
                if t is None:
                    by_value[v] = None
                    continue
                op, mods, rest = split(t)
                ok = op == base[0] and rest == base[2] and not any(INVALID_WORD.search(x) for x in mods)
                by_value[v] = mods if ok else None
            f = field_of(by_value)
            if f is None:
                continue
            words, pre = f
            v0 = (w >> pos) & ((1 << n) - 1)
            learned.append(dict(pos=pos, len=n, words=words, at=pre, base=v0))
        if learned:
            fams.append((i, base, learned))
    # 4. slots in print order
    order_probes = []
    for i, base, learned in fams:
        for a in learned:
            for b in learned:
                if a is not b and a['at'] == b['at'] and a['words'][a['base']] == '' and b['words'][b['base']] == '':
                    order_probes.append((i, a['pos'], b['pos']))

    def first_word(f):
        return next(v for v in sorted(f['words']) if f['words'][v])

    fam_by = {(i, f['pos']): f for i, _, ls in fams for f in ls}
    probe_words = []
    for i, pa, pb in order_probes:
        w = reps[i][0]
        for p in (pa, pb):
            f = fam_by[(i, p)]
            m = ((1 << f['len']) - 1) << p
            w = (w & ~m) | (first_word(f) << p)
        probe_words.append(w)
    order_texts = dict(zip(order_probes, disasm_many(probe_words, sm)))
    families = []
    for i, base, learned in fams:
        mods0 = base[1]
        covered = {}
        ok = True
        for f in learned:
            k = len(f['words'][f['base']].split('.')) if f['words'][f['base']] else 0
            if mods0[f['at']:f['at'] + k] != (f['words'][f['base']].split('.') if k else []):
                ok = False
            for j in range(f['at'], f['at'] + k):
                if j in covered:
                    ok = False
                covered[j] = f
        if not ok:
            continue

        # insertion fields at one place: ordered by the probe
        def before(a, b):
            t = order_texts.get((i, a['pos'], b['pos']))
            if t is None:
                return a['pos'] < b['pos']
            mods = split(t)[1]
            wa, wb = a['words'][first_word(a)], b['words'][first_word(b)]
            ja = next((j for j in range(len(mods)) if '.'.join(mods[j:]).startswith(wa)), None)
            jb = next((j for j in range(len(mods)) if '.'.join(mods[j:]).startswith(wb)), None)
            if ja is None or jb is None:
                return a['pos'] < b['pos']
            return ja < jb

        slots = []
        for j in range(len(mods0) + 1):
            ins = [f for f in learned if f['at'] == j and not f['words'][f['base']]]
            # a few at most: insertion sort by the probes
            ordered = []
            for f in ins:
                k = 0
                while k < len(ordered) and before(ordered[k], f):
                    k += 1
                ordered.insert(k, f)
            slots += [('F', f['pos'], f['len'], [f['words'][v] for v in range(1 << f['len'])]) for f in ordered]
            if j == len(mods0):
                break
            f = covered.get(j)
            if f is None:
                slots.append(('W', mods0[j]))
            elif f['at'] == j:
                slots.append(('F', f['pos'], f['len'], [f['words'][v] for v in range(1 << f['len'])]))
        families.append(dict(rep=i, opcode=base[0], encoding=reps[i][0] & 0xfff, slots=slots))
    # 5. random combinations
    # Each check: random field values, and random operand values (half of
    # the checks) with which the seed's field values give the same operands.
    # Every value of every field alone with all operand bits set (a field
    # that changes an immediate's sign shows there) and with random ones,
    # then random combinations.
    checks = []
    for n, fam in enumerate(families):
        w0 = reps[fam['rep']][0]
        obits = operand_bits[fam['rep']]
        fields = [s for s in fam['slots'] if s[0] == 'F']

        def put(w, pos, ln, v):
            return (w & ~(((1 << ln) - 1) << pos)) | (v << pos)

        for _, pos, ln, words in fields:
            for v, x in enumerate(words):
                if x is None:
                    continue
                for fill in (obits, rng.getrandbits(128) & obits):
                    base = (w0 & ~obits) | fill
                    checks.append((n, base, put(base, pos, ln, v)))
        for k in range(SAMPLES_PER_FAMILY if len(fields) > 1 else 0):
            fill = rng.getrandbits(128) & obits if k % 2 else 0
            base = (w0 & ~obits) | fill
            w = base
            for _, pos, ln, words in fields:
                w = put(w, pos, ln, rng.choice([v for v, x in enumerate(words) if x is not None]))
            checks.append((n, base, w))
    check_texts = disasm_many([x for _, b, w in checks for x in (b, w)], sm)
    bad, illegal = set(), collections.Counter()
    samples = collections.defaultdict(list)
    for k, (n, b, w) in enumerate(checks):
        fam = families[n]
        tb, t = check_texts[2 * k], check_texts[2 * k + 1]
        if tb is None:
            continue
        # a combination nvdisasm rejects or prints `INVALIDn` (`.FMZ`
        # with `.FTZ`: one two-bit mode in bits 76 and 80) is illegal
        if t is None or INVALID_WORD.search(split(t)[1] and '.'.join(split(t)[1]) or ''):
            illegal[n] += 1
            continue
        want = render(fam, w)
        op, mods, rest = split(t)
        if want is None or '.'.join([op] + mods) != want or rest != split(tb)[2]:
            bad.add(n)
        elif 'L@' not in t and '???' not in t and rng.random() < SAMPLE_SHARE:
            samples[n].append([w & (2**64 - 1), w >> 64, t])
    # one family per (opcode word, slots): the opcode values it holds for
    merged = {}
    for n, fam in enumerate(families):
        if n in bad:
            continue
        key = (fam['opcode'], json.dumps(fam['slots']))
        m = merged.setdefault(key, dict(opcode=fam['opcode'], forms=set(), slots=fam['slots'], samples=[],
                                        illegal=0))
        m['forms'].add((fam['encoding'], tuple(reps[fam['rep']][2])))
        m['samples'] += samples[n]
        m['illegal'] += illegal[n]
    out = []
    for key in sorted(merged):
        m = merged[key]
        m['forms'] = sorted(m['forms'])
        out.append(m)
    print('%s: %d seeds, %d with modifier bits, %d families checked, %d dropped, %d merged, %d illegal combinations'
          % (sm, len(reps), len(cands), len(families), len(bad), len(out), sum(illegal.values())), file=sys.stderr)
    return out


def render(fam, w):
    s = [fam['opcode']]
    for slot in fam['slots']:
        if slot[0] == 'W':
            s.append(slot[1])
        else:
            _, pos, ln, words = slot
            x = words[(w >> pos) & ((1 << ln) - 1)]
            if x is None:
                return None
            if x:
                s.append(x)
    return '.'.join(s)


SM_NAMES = {'75': 'Sm75', '80': 'Sm80', '90': 'Sm90', '100': 'Sm100', '120': 'Sm120'}


def rust(isa_dir, crate):
    out = ['//! Modifier fields learned from the ISA solver\'s seeds. GENERATED by',
           '//! `tools/learn_fields.py` from `tools/isa/fields_sm*.json`; do not edit.',
           '',
           'use crate::Sm;',
           'use crate::families::{Family, Slot, WordField};',
           '']
    per_sm = {}
    for sm in SM_NAMES:
        path = os.path.join(isa_dir, 'fields_sm%s.json' % sm)
        per_sm[sm] = json.load(open(path))['families'] if os.path.exists(path) else []

    def words_of(slot):
        words = list(slot[3])
        while words and words[-1] is None:
            words.pop()
        return tuple(words)

    # word lists of more than two values, shared (most fields repeat over
    # opcode values, operand shapes and SMs)
    lists = sorted({words_of(x) for fams in per_sm.values() for f in fams for x in f['slots']
                    if x[0] == 'F' and len(words_of(x)) > 2}, key=json.dumps)
    shared = {w: 'WORDS_%d' % i for i, w in enumerate(lists)}

    def rust_words(words):
        return ', '.join('crate::families::INVALID' if x is None else '"%s"' % x for x in words)

    out.append('/// Word lists of fields, shared by the families below.')
    for w in lists:
        out.append('const %s: &[&str] = &[%s];' % (shared[w], rust_words(w)))
    out.append('')
    for sm in SM_NAMES:
        fams = per_sm[sm]
        out.append('/// sm_%s: %d families.' % (sm, len(fams)))
        out.append('pub(crate) static SM%s: &[Family] = &[' % sm)
        for f in fams:
            slots = []
            for s in f['slots']:
                if s[0] == 'W':
                    slots.append('Slot::Word("%s")' % s[1])
                else:
                    words = words_of(s)
                    ws = shared[words] if words in shared else '&[%s]' % rust_words(words)
                    slots.append('Slot::Field(WordField { pos: %d, len: %d, words: %s })' % (s[1], s[2], ws))
            out.append('    Family {')
            out.append('        opcode: "%s",' % f['opcode'])
            forms = ', '.join('(0x%x, &[%s])' % (e, ', '.join('"%s"' % x for x in sks)) for e, sks in f['forms'])
            out.append('        forms: &[%s],' % forms)
            out.append('        sms: &[Sm::%s],' % SM_NAMES[sm])
            out.append('        slots: &[%s],' % ', '.join(slots))
            out.append('        negate: None,')
            out.append('    },')
        out.append('];')
        out.append('')
    open(os.path.join(crate, 'src/tables/fields.rs'), 'w').write('\n'.join(out))


def main(work, crate, *sms):
    corpus_path = os.path.join(work, 'insts.json')
    corpus = json.load(open(corpus_path)) if os.path.exists(corpus_path) else []
    isa_dir = os.path.join(crate, 'tools/isa')
    for sm in sms:
        seeds = json.load(open(os.path.join(work, 'isa_sm%s.json' % sm)))['seeds']
        words = [x for x in corpus if x[0] == 'sm' + sm] + seeds
        fams = learn('sm' + sm, words)
        json.dump(dict(families=fams), open(os.path.join(isa_dir, 'fields_sm%s.json' % sm), 'w'), indent=0)
    rust(isa_dir, crate)


if __name__ == '__main__':
    main(*sys.argv[1:])
