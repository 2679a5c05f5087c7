"""Shared by the form learners: nvdisasm's instruction text split into a
mnemonic, operand skeletons (`desc[{U}][{R}.64+{X}]`) and atoms, and
running `nvdisasm -b` on raw words.

Atom kinds: R, U (uniform), P, UP, B (convergence barrier), SB
(scoreboard), SR (special register), X (hex integer), F (decimal float),
L (branch target; listings are rewritten so that `(.L_x_3)` or
`(symbol)` reads `L@0x1a0`, the target's address).
"""
import os
import re
import struct
import subprocess
import tempfile

NVDISASM = os.environ.get('NVDISASM') or os.path.join(
    os.environ.get('NV_ORACLE_DIR') or os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../target/oracle'),
    'nvidia/cu13/bin/nvdisasm')

RX=[('U',r'\b(UR\d+|URZ)\b'),('R',r'\b(R\d+|RZ)\b'),('UP',r'\b(UP\d|UPT)\b'),('P',r'\b(P\d|PT)\b'),('B',r'\bB\d+\b'),('SB',r'\bSB\d\b'),('SR',r'\bSR_\w+(\.[XYZ])?|\bSRZ\b')]
def regval(k,s):
    if s in ('RZ',): return 255
    if s=='URZ': return 63
    if s in ('PT','UPT'): return 7
    return int(re.sub(r'^\D+','',s))
FLT=re.compile(r'^[-+]?(\d+(\.\d+)?(e[-+]\d+)?|INF|QNAN) ?$')
def tok_operand(o):
    """Operand text -> (skeleton, [(kind, text)])."""
    if FLT.match(o):
        return '{F}',[('F',o)]
    atoms=[]
    pat='|'.join('(?P<%s>%s)'%(k,p) for k,p in RX)+r'|(?P<X>-?0x[0-9a-f]+)'
    def rep(m):
        k=m.lastgroup
        atoms.append((k,m.group(0)))
        return '{%s}'%k
    s=re.sub(pat,rep,o)
    return s,atoms
def split_inst(t):
    g=None
    m=re.match(r'^@(!?)(U?P[T0-6]) (.*)$',t)
    if m: g=(m.group(1)=='!',m.group(2)); t=m.group(3)
    parts=t.split(' ',1)
    mn=parts[0]
    ops=parts[1].split(', ') if len(parts)>1 else []
    return g,mn,ops

def tokenize(o):
    if o.startswith('L@'):
        return '{L}',[('L',o[2:])]
    return tok_operand(o)

def parse_inst(t):
    g,mn,ops=split_inst(t)
    sks=[];atoms=[];reuse=[]
    # `RET.REL.NODEC R20 `(f)`: a register and a target, space-separated
    ops=[x for o in ops for x in (o.split(' ',1) if re.match(r'^\S+ (L@|-?0x)',o) else [o])]
    for o in ops:
        r=o.endswith('.reuse') or '.reuse' in o
        o2=o.replace('.reuse','')
        s,a=tokenize(o2)
        sks.append(s)
        for k,v in a:
            atoms.append([k,v,r and k in('R','U')])
    return g,mn,sks,atoms

def strip_flags(s):
    return re.sub(r'[-|~!]','',s)

def f16bits(x): return struct.unpack('<H',struct.pack('<e',x))[0]
def f32bits(x): return struct.unpack('<I',struct.pack('<f',x))[0]
def f64bits(x): return struct.unpack('<Q',struct.pack('<d',x))[0]
def fval(s):
    s=s.strip()
    if s.endswith('INF'): return float('-inf') if s[0]=='-' else float('inf')
    if s.endswith('QNAN'): return None
    return float(s)

def atom_int(k,v,addr=None):
    if k in ('R','U','P','UP','B','SB'): return regval(k,v)
    if k=='X': return int(v,16)
    if k=='L': return int(v,16)-(addr+16)
    return None


def disasm(words, sm):
    """Disassembles 128-bit words with `nvdisasm -b`; returns, per word,
    (text, address) or None when nvdisasm rejects it. nvdisasm prints nothing
    for a file with one bad word but names its address: drop it, retry."""
    idx=list(range(len(words)))
    res=[None]*len(words)
    fd,path=tempfile.mkstemp(suffix='.bin'); os.close(fd)
    try:
      while idx:
        with open(path,'wb') as f:
            for i in idx:
                w=words[i]; f.write(struct.pack('<QQ',w&(2**64-1),w>>64))
        r=subprocess.run([NVDISASM,'-b',sm.upper(),path],capture_output=True,text=True)
        if r.returncode==0:
            byaddr={}
            for l in r.stdout.split('\n'):
                m=re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*$',l)
                if m: byaddr[int(m.group(1),16)]=m.group(2)
            for n,i in enumerate(idx):
                if n*16 in byaddr: res[i]=(byaddr[n*16], n*16)
            break
        m=re.search(r'at address 0x([0-9a-f]+)',r.stderr)
        if m:
            bad=int(m.group(1),16)//16
            idx=idx[:bad]+idx[bad+1:]
        else:
            # no address: bisect by single runs
            if len(idx)==1: break
            h=len(idx)//2
            a=disasm([words[i] for i in idx[:h]],sm); b=disasm([words[i] for i in idx[h:]],sm)
            for i,v in zip(idx,a+b):
                res[i]=None if v is None else (v[0], None)
            break
    finally:
        os.unlink(path)
    return res


# Words per nvdisasm run: one run takes ~0.5 s to start and ~10 us a word.
CHUNK = 1 << 16
LINE = re.compile(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*$')
HEX = re.compile(r'-?0x[0-9a-f]+')
# A second listing at this base address tells branch targets (which move
# with it) from other hex numbers.
SHIFT = 1 << 32


def _listing(words, sm, path, base):
    with open(path, 'wb') as f:
        f.write(b''.join(struct.pack('<QQ', w & (2**64 - 1), w >> 64) for w in words))
    args = [NVDISASM, '-b', sm.upper(), path] + (['-base', hex(base)] if base else [])
    return subprocess.run(args, capture_output=True, text=True)


def disasm_many(words, sm):
    """nvdisasm's text of every word (None where it rejects the word), with
    branch targets written `L@OFFSET` (signed hex offset from the next
    instruction), so that the text does not depend on where the word sits.
    nvdisasm names every word it rejects in one run (some only once the
    others are gone): drop them all and repeat. A `fatal` ambiguity (SM75's
    graphics loads: "More than one pattern matched ... ald_PHYS_ and
    ald__PATCH_...") stops the run at its first word, one per run: every
    word of that opcode value (bits 0..11) is dropped from the batch."""
    out = []
    fd, path = tempfile.mkstemp(suffix='.bin')
    os.close(fd)
    try:
        for c in range(0, len(words), CHUNK):
            chunk = words[c:c + CHUNK]
            idx = list(range(len(chunk)))
            res = [None] * len(chunk)
            while idx:
                r = _listing([chunk[i] for i in idx], sm, path, 0)
                if r.returncode == 0:
                    r2 = _listing([chunk[i] for i in idx], sm, path, SHIFT)
                    a = _lines(r.stdout)
                    b = _lines(r2.stdout)
                    for n, i in enumerate(idx):
                        t = a.get(n * 16)
                        if t is not None:
                            res[i] = _relative(t, b.get(n * 16 + SHIFT), n * 16)
                    break
                bad = {int(m, 16) // 16 for m in re.findall(r'at address 0x([0-9a-f]+)', r.stderr)}
                if not bad:
                    raise RuntimeError('nvdisasm: ' + r.stderr[:300])
                if 'fatal' in r.stderr:
                    ops = {chunk[idx[n]] & 0xfff for n in bad}
                    bad |= {n for n, i in enumerate(idx) if chunk[i] & 0xfff in ops}
                idx = [i for n, i in enumerate(idx) if n not in bad]
            out += res
    finally:
        os.unlink(path)
    return out


def _lines(stdout):
    byaddr = {}
    for l in stdout.split('\n'):
        m = LINE.match(l)
        if m:
            byaddr[int(m.group(1), 16)] = m.group(2)
    return byaddr


def _relative(t, t2, addr):
    """Hex numbers that moved by SHIFT between the two listings are branch
    targets: `L@` and their offset from the next instruction."""
    if t2 is None:
        return t
    a, b = HEX.findall(t), HEX.findall(t2)
    if len(a) != len(b):
        return t
    parts = HEX.split(t)
    s = parts[0]
    for x, y, rest in zip(a, b, parts[1:]):
        if int(y, 16) - int(x, 16) == SHIFT:
            off = int(x, 16) - (addr + 16)
            x = 'L@%s0x%x' % ('-' if off < 0 else '', abs(off))
        s += x + rest
    return s
