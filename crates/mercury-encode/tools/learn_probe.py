"""Step 2: nvdisasm bit-flip probes. For one instruction of every shape
(opcode bits, operand skeletons) and mnemonic of the corpus, flip each of
bits 16..104 (the opcode bits 0..15 and the control bits stay) and
disassemble all variants with `nvdisasm -b`. A flip that changes exactly
one atom places that bit in the atom's field (its value says which bit of
the atom, and a sign-extended change marks the field's sign bit); a flip
that changes the mnemonic or skeleton, or is rejected, is recorded in
`nonop` (alias mnemonics pin those operand bits); a flip that leaves the
text as it was, in `same` (bits nvdisasm ignores in that form).

usage: learn_probe.py WORK_DIR SHARD NSHARDS   (shards can run in parallel)
Reads WORK_DIR/insts.json, writes WORK_DIR/probe_SHARD.json.
"""
import collections
import glob
import json
import os
import sys

from sass_text import *

work, shard, nsh = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = json.load(open(os.path.join(work, 'insts.json')))
for extra in sorted(glob.glob(os.path.join(work, 'isa_sm*.json'))):
    d += json.load(open(extra))['seeds']

# one probe per (shape, mnemonic): aliases (IMAD.MOV = IMAD with RZ, RZ)
# pin operand bits, which only the alias's own probe shows
shapes=collections.defaultdict(list)
seen=set()
for i,(sm,f,a,t,lo,hi) in enumerate(d):
    g,mn,sks,atoms=parse_inst(t)
    key=(sm,lo&0xfff,mn.split('.')[0],tuple(strip_flags(s) for s in sks))
    if (key,mn) in seen: continue
    seen.add((key,mn))
    shapes[(key,mn)].append(i)

out={}
todo=list(shapes.items())
todo=todo[shard::nsh]
# one nvdisasm batch for every probe: the base word, its 89 flips and the
# four reuse bits (which operand prints `.reuse`)
PER=1+89+4
batch=[]
for key,idxs in todo:
    x=d[idxs[0]]; w=(x[5]<<64)|x[4]
    batch+=[w]+[w^(1<<b) for b in range(16,105)]+[w|(1<<(122+i)) for i in range(4)]
by_sm=collections.defaultdict(list)
for n,(key,idxs) in enumerate(todo): by_sm[key[0][0]].append(n)
allres=[None]*len(batch)
for sm,ns in by_sm.items():
    words=[batch[n*PER+j] for n in ns for j in range(PER)]
    res=disasm_many(words,sm)
    for k,n in enumerate(ns): allres[n*PER:n*PER+PER]=res[k*PER:k*PER+PER]
for n,(key,idxs) in enumerate(todo):
    x=d[idxs[0]]; lo,hi=x[4],x[5]
    res=allres[n*PER:n*PER+PER]
    if res[0] is None:
        print('base illegal',key,file=sys.stderr); continue
    bt=res[0]
    g0,mn0,sk0,at0=parse_inst(bt)
    cg,cmn,csk,cat=parse_inst(x[3])
    kinds=[a[0] for a in cat]
    if len(at0)!=len(cat):
        print('atom mismatch',key,bt,x[3],file=sys.stderr); continue
    # branch targets print as `L@offset` from the next instruction
    def vals(atoms):
        r=[]
        for (k,v,_),ck in zip(atoms,kinds):
            if ck=='L': r.append(int(v,16) if k=='L' else None)
            elif ck=='F': r.append(v)
            elif ck=='SR': r.append(v)
            # Blackwell's URZ is 255 (255 uniform registers)
            elif ck=='U' and v=='URZ' and int(key[0][0][2:])>=100: r.append(255)
            else: r.append(atom_int(ck,v))
        return r
    v0=vals(at0)
    bits={}  # atom index -> list of (pos, atombit or 'sign' )
    nonop=[]
    # bits whose flip leaves the text as it was: nvdisasm ignores them here
    same=[]
    # the reuse slot of each register atom
    reuse={}
    for i,t in enumerate(res[90:94]):
        if t is None: continue
        marked=[j for j,a in enumerate(parse_inst(t)[3]) if a[2]]
        if len(marked)==1: reuse[str(marked[0])]=i
    for b,t in zip(range(16,105),res[1:90]):
        if t is None: nonop.append(b); continue
        g,mn,sk,at=parse_inst(t)
        if mn!=mn0 or sk!=sk0 or len(at)!=len(at0):
            nonop.append(b); continue
        try: v=vals(at)
        except Exception: nonop.append(b); continue
        ch=[j for j in range(len(v)) if v[j]!=v0[j]]
        if not ch and t==bt: same.append(b); continue
        if len(ch)!=1: nonop.append(b); continue
        j=ch[0]
        if kinds[j] in ('F','SR'):
            bits.setdefault(j,[]).append((b,v0[j],v[j])); continue
        xo=(v[j]^v0[j])&((1<<64)-1)
        if xo & (xo-1)==0:
            bits.setdefault(j,[]).append((b,xo.bit_length()-1))
        elif (xo>>63)&1:
            # sign-extended top bit
            lowbit=(xo & -xo).bit_length()-1
            bits.setdefault(j,[]).append((b,('S',lowbit)))
        else:
            bits.setdefault(j,[]).append((b,('?',xo)))
    out[repr(key)]=dict(key=list(key[0]),mn=key[1],base=[lo,hi],raw=bt,corpus=x[3],kinds=kinds,bits={str(k):v for k,v in bits.items()},nonop=nonop,same=same,reuse=reuse)
json.dump(out,open(os.path.join(work,'probe_%d.json'%shard),'w'))
