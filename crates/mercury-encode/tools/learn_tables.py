"""Step 3: Rust form tables from the corpus and the probes.

A form is one (mnemonic, operand skeletons, fixed bits) seen in NVIDIA's
code. Atom fields come from the probes of the form's shape (merged over
its mnemonics; register fields filled to their full width; gaps inside a
linear run filled); fixed bits are all bits 0..104 outside the atoms and
the guard, plus operand bits an alias mnemonic pins. The reuse slot of a
register atom comes from the `.reuse` marks of the corpus.

usage: learn_tables.py WORK_DIR CRATE_DIR
Writes CRATE_DIR/src/tables/smXY.rs for every family XY of the inputs
(run rustfmt after).
"""
import collections
import glob
import json
import os
import re
import struct
import sys

from sass_text import *

work, crate = sys.argv[1], sys.argv[2]
d=json.load(open(os.path.join(work,'insts.json')))
# the solver's words (learn_isa.py) after NVIDIA's, so corpus words name the forms
marks={}
for f in sorted(glob.glob(os.path.join(work,'isa_sm*.json'))):
    isa=json.load(open(f))
    d+=isa['seeds']
    marks['sm'+re.search(r'isa_sm(\d+)\.json$',f).group(1)]=isa['marks']
# operands nvdisasm leaves out when zero (learn_hidden.py)
hidden=json.load(open(os.path.join(work,'hidden.json')))
# shape -> probe records (one per mnemonic probed); (shape, mnemonic) -> bits
# whose flip changed the mnemonic or skeleton, or was rejected
probe=collections.defaultdict(list)
nonop={}
same={}
for f in sorted(glob.glob(os.path.join(work,'probe_*.json'))):
    for k,v in json.load(open(f)).items():
        skey=repr((v['key'][0],v['key'][1],v['key'][2],tuple(v['key'][3])))
        mn=v.get('mn') or parse_inst(v['corpus'])[1]
        v['mnemonic']=mn
        probe[skey].append(v)
        # an unchanged text pins alias operand bits as a changed one does
        nonop[(skey,mn)]=set(v['nonop'])|set(v.get('same',()))
        same[(skey,mn)]=set(v.get('same',()))

REGW={'R':8,'U':6,'P':3,'UP':3,'B':4,'SB':3}
def blackwell(sm): return int(sm[2:])>=100
def regw(sm,kind):
    """Register field width; Blackwell has 255 uniform registers (URZ = 255)."""
    return 8 if kind=='U' and blackwell(sm) else REGW[kind]
def zero(sm,kind):
    return 255 if kind=='U' and blackwell(sm) else ZERO[kind]
FT={'F32','F64Hi','F16','BF16'}
report=collections.Counter()

def int_fields(entries):
    """entries: [(pos, atombit|['S',b]|['?',x])] -> (map atombit->pos, signed)"""
    m={}; signed=False
    for pos,ab in entries:
        if isinstance(ab,list):
            if ab[0]=='S': m[ab[1]]=pos; signed=True
            else: report['odd-xor']+=1
        else: m[ab]=pos
    return m,signed

def fill_gaps(m):
    """Bits a flip could not show (the value became 0 and its `+{X}` vanished)
    lie between learned bits of the same linear run."""
    if not m: return m
    known=sorted(m)
    for a,b in zip(known,known[1:]):
        if b>a+1 and m[b]-b==m[a]-a:
            for k in range(a+1,b): m[k]=m[a]+(k-a)
    return m

def runs(m):
    """atombit->pos map -> [(pos,len,shift)]"""
    out=[]
    for ab in sorted(m):
        if out and out[-1][2]+out[-1][1]==ab and out[-1][0]+out[-1][1]==m[ab]:
            p,l,s=out[-1]; out[-1]=(p,l+1,s)
        else: out.append((m[ab],1,ab))
    return out

def fbits(kind,s):
    v=fval(s)
    if v is None: return None
    try:
        if kind=='F32': return f32bits(v)
        if kind=='F64Hi': return f64bits(v)>>32 if f64bits(v)&0xffffffff==0 else None
        if kind=='F16': return f16bits(v)
        if kind=='BF16': return f32bits(v)>>16 if f32bits(v)&0xffff==0 else None
    except (OverflowError,struct.error): return None

FLOAT_PLACES=[('F32',32,32),('F64Hi',32,32),('F16',32,16),('F16',48,16),('BF16',32,16),('BF16',48,16)]
def float_field(entries, word, base_text):
    """The float type and place that explain the probe: after flipping bit
    `pos`, nvdisasm prints the value whose bits are the field's bits with
    that bit flipped (works when the base value is a NaN, too)."""
    best=None
    for kind,place,width in FLOAT_PLACES:
        field=(word>>place)&((1<<width)-1)
        ok=0
        for pos,old,new in entries:
            if not place<=pos<place+width: continue
            nb=fbits(kind,new)
            if nb is not None and nb==field^(1<<(pos-place)): ok+=1
        if ok and (best is None or ok>best[0]): best=(ok,kind,{i:place+i for i in range(width)})
    if best is None: return None,{}
    return best[1],best[2]

shape_atoms={}   # shape key -> list of atom specs or None
sr_names=collections.defaultdict(dict)
def atom_map(p, j, k):
    """What one probe record says about atom j: (kind, atombit->pos, signed)."""
    w=(p['base'][1]<<64)|p['base'][0]
    e=p['bits'].get(str(j),[])
    if k=='F':
        if not e: return None
        kind,m=float_field(e,w,e[0][1]); return kind,m,False
    if k=='SR':
        pos=[x[0] for x in e]
        if not pos: return None
        start=min(pos)-min(pos)%8
        base=(w>>start)&0xff
        sr_names[p['key'][0]][base]=e[0][1]
        for q,old,new in e: sr_names[p['key'][0]][base^(1<<(q-start))]=new
        return 'SR',{i:start+i for i in range(8)},False
    m,signed=int_fields(e)
    return k,m,signed

def atoms_for(key, mn):
    """The atoms of shape `key` as the form of mnemonic `mn` has them
    (None: any). A float's type depends on the mnemonic (`HMNMX2` has
    binary16 immediates where `HMNMX2.BF16_V2` of the same opcode bits has
    bfloat16), so the mnemonic's own probe types its floats."""
    recs=probe.get(key)
    floats=bool(recs) and 'F' in recs[0]['kinds']
    ck=(key,mn) if floats else key
    if ck in shape_atoms: return shape_atoms[ck]
    if not recs:
        shape_atoms[ck]=None; return None
    kinds=recs[0]['kinds']; specs=[]
    own=[p for p in recs if p['mnemonic']==mn]
    for j,k in enumerate(kinds):
        kind=None; m={}; signed=False
        for p in (own+[p for p in recs if p not in own] if k=='F' else recs):
            r=atom_map(p,j,k)
            if r is None: continue
            if kind is None: kind=r[0]
            if r[0]!=kind: report['kind-conflict']+=1; continue
            for ab,pos in r[1].items(): m.setdefault(ab,pos)
            signed=signed or r[2]
        if kind in REGW and m:
            # registers are contiguous fields: fill bits a flip could not show
            ab0=min(m); off=m[ab0]-ab0
            m={i:off+i for i in range(regw(recs[0]['key'][0],kind))}
        elif kind not in FT and kind!='SR':
            m=fill_gaps(m)
        if not m:
            specs.append(None); continue
        specs.append(dict(kind=kind,fields=runs(m),signed=signed))
    shape_atoms[ck]=specs
    return specs

def imad_alias_family(mn):
    """IMAD's MOV/IADD/SHL aliases follow a rule on the operand values that
    the crate applies (src/alias.rs); their forms pin nothing."""
    words=mn.split('.')
    return words[0]=='IMAD' and not {'WIDE','HI','X'}&set(words[1:])

def sm90_desc_atom(key):
    """sm_80 nvdisasm never prints `desc[UR]` but the field is there: take
    its place from the sm_90 form with the same opcode bits."""
    sm,k,op,sks=eval(key)
    for pk,pv in probe.items():
        psm,pk2,pop,psks=eval(pk)
        if psm=='sm90' and pk2==k and len(psks)==len(sks) and any(x.startswith('desc[') for x in psks):
            if [x.replace('desc[{U}]','') for x in psks]==list(sks):
                specs=atoms_for(pk,None)
                if specs is None: return None
                j=0
                for x in psks:
                    if x.startswith('desc['): return j, specs[j]
                    j+=x.count('{')
    return None

templates=collections.OrderedDict()
reuse_votes=collections.defaultdict(collections.Counter)
for sm,f,a,t,lo,hi in d:
    t=re.sub(r'\s+\(\*.*?\*\)\s*$','',t)   # ptxas's (*"SpillRefill"*) notes
    g,mn,sks,atoms=parse_inst(t)
    key=repr((sm,lo&0xfff,mn.split('.')[0],tuple(strip_flags(s) for s in sks)))
    specs=atoms_for(key,mn)
    if specs is None or any(s is None for s in specs) or len(specs)!=len(atoms):
        report['no-probe']+=1; continue
    w=(hi<<64)|lo
    if sm=='sm80' and '.E' in mn and any(x.startswith('[{R}.64') for x in sks):
        hid=sm90_desc_atom(key)
        if hid:
            j,spec=hid
            specs=specs[:j]+[spec]+specs[j:]
            atoms=atoms[:j]+[['U','?',False]]+atoms[j:]
            sks=['desc[{U}]'+x if x.startswith('[{R}.64') else x for x in sks]
            key=key+'+desc'
    amask=0
    for s in specs:
        for p_,l,sh in s['fields']: amask|=((1<<l)-1)<<p_
    # Some predicate fields hold the complement of the number (LDG's
    # predicate operand, HMMA's `UP`: nvdisasm prints P1 for 6): the probes
    # place the field, the text and the bits tell the two apart. A
    # predicate that is neither is another field's: nvdisasm leaves a `PT`
    # carry-out out, so `IADD3 R62, P2, ...` shows the second carry-out
    # where the probed word of the same skeleton showed the first. Such a
    # word is left to the form with both carry-outs (the printer hides the
    # `PT`), which tells them apart.
    inv=[]
    for spec,at in zip(specs,atoms):
        if spec['kind'] in ('P','UP'):
            v=sum(((w>>p_)&((1<<l)-1))<<sh for p_,l,sh in spec['fields'])
            inv.append((spec,v!=regval(at[0],at[1]),v^7==regval(at[0],at[1])))
    if any((i and not c) or spec.get('inv',i)!=i for spec,i,c in inv):
        report['misplaced-predicate']+=1; continue
    for spec,i,c in inv: spec['inv']=i
    # alias mnemonics pin operand bits (IMAD.MOV is IMAD with RZ, RZ)
    # Only operand kinds whose every flip shows: a flip inside a NaN payload,
    # a special-register number without a name or sm_80's hidden descriptor
    # prints the same text (or a non-atom), which says nothing about aliases.
    pinmask=0
    for spec,at in zip(specs,atoms):
        if spec['kind'] in ('R','U','P','UP','B','X') and at[1]!='?':
            for p_,l,sh in spec['fields']: pinmask|=((1<<l)-1)<<p_
    pinned=0
    for b in nonop.get((key.replace('+desc',''),mn),()):
        if pinmask>>b&1: pinned|=1<<b
    if imad_alias_family(mn): pinned=0
    mask=((1<<105)-1) & (~amask | pinned) & ~(0xf<<12)
    tk=(sm,mn,tuple(sks),w&mask)
    tpl=templates.setdefault(tk,dict(sm=sm,mn=mn,sks=sks,bits=w&mask,mask=mask,specs=specs,n=0,ug=False,ex=t,shape=key,seed=f=='isa'))
    tpl['n']+=1
    tpl.setdefault('vals',[]).append([sum(((w>>p_)&((1<<l)-1))<<sh for p_,l,sh in sp['fields']) for sp in specs])
    for spec,at in zip(specs,atoms):
        if spec['kind']=='SR':
            num=sum(((w>>p_)&((1<<l)-1))<<sh for p_,l,sh in spec['fields'])
            sr_names[sm][num]=at[1]
    if g and g[1].startswith('U'): tpl['ug']=True
    # reuse slots
    rb=(hi>>58)&0xf
    ro=[i for i,at in enumerate(atoms) if at[2]]
    sb=[i for i in range(4) if rb>>i&1]
    if len(ro)==len(sb):
        for i,b in zip(ro,sb): reuse_votes[(key,i)][b]+=1
    else: report['reuse-count-mismatch']+=1

# Aliases that single-bit probes cannot see: nvdisasm prints IMAD.MOV when a
# or b is RZ, so flipping one of them keeps the alias. Where forms of one
# shape share their fixed bits, pin the zero registers the alias always has
# in NVIDIA's code; the form without them stays the general one.
ZERO={'R':255,'U':63,'P':7,'UP':7}
ties=collections.defaultdict(list)
for t in templates.values():
    ties[(t['sm'],t['shape'],t['bits'],t['mask'])].append(t)
for group in ties.values():
    if len({(t['mn'],tuple(t['sks'])) for t in group})<2: continue
    if all(imad_alias_family(t['mn']) for t in group): continue
    print('alias group', sorted({t['mn'] for t in group}), file=sys.stderr)
    for t in group:
        for spec,vals in zip(t['specs'],zip(*t['vals'])):
            if spec['kind'] in ZERO and set(vals)=={zero(t['sm'],spec['kind'])}:
                for p_,l,sh in spec['fields']:
                    t['mask']|=((1<<l)-1)<<p_
                    t['bits']|=(((zero(t['sm'],spec['kind'])>>sh)&((1<<l)-1))<<p_)
        report['alias-pinned']+=1

# Bits nvdisasm ignores in a solver form (their flip left its text as it
# was) are not fixed: NVIDIA's words hold other values there than the
# minimised seed (`URZ` in an unused source field, `!UPT` in the carry-in
# of an adder without `.X`), so the decoder must not compare them. The
# encoder writes what NVIDIA's code has there: the bit NVIDIA's words of
# the opcode's mnemonic mostly have where their form fixes it (else those
# of `LEA` for `ULEA`: the same fields), else the zero register of an operand that
# forms of the opcode with more operands (a modifier shows it: `.HI`'s
# third source, `.X`'s carry-in) keep there (`!` where it is the
# predicate's negation bit: ptxas writes `!PT` into unused carry-ins),
# else 0 (a field of another operand kind, as `cx[UR]`'s register beside
# `c[..]`).
def neutral_bits():
    val=collections.defaultdict(dict)
    ordered=sorted(templates.values(),key=lambda t:(t['seed'],-t['n']))
    def family(t): return t['mn'].split('.')[0].lstrip('U')
    for t in ordered:
        v=val[(t['sm'],t['bits']&0xfff,len(t['sks']))]
        for spec in t['specs']:
            if spec['kind'] not in ZERO: continue
            for p_,l,sh in spec['fields']:
                for i in range(l): v.setdefault(p_+i,(zero(t['sm'],spec['kind'])>>(sh+i))&1)
    for sm,rows in marks.items():
        for op,n,i,on,o,c,b in rows:
            if o=='!': val[(sm,op,n)].setdefault(b,1)
    votes=collections.defaultdict(collections.Counter)
    for t in templates.values():
        if t['seed']: continue
        amask=0
        for spec in t['specs']:
            for p_,l,sh in spec['fields']: amask|=((1<<l)-1)<<p_
        for c in (votes[(t['sm'],t['mn'].split('.')[0])],votes[(t['sm'],family(t))]):
            for b in range(16,105):
                if t['mask']>>b&1 and not amask>>b&1: c[(b,t['bits']>>b&1)]+=t['n']
    # R fields of `LEA` are wider than the UR fields of `ULEA` at the same place
    rbits=collections.defaultdict(int)
    for t in templates.values():
        for spec in t['specs']:
            if spec['kind']=='R':
                for p_,l,sh in spec['fields']: rbits[(t['sm'],family(t))]|=((1<<l)-1)<<p_
    def fill(t,b):
        c=votes[(t['sm'],t['mn'].split('.')[0])]
        if c[(b,1)]!=c[(b,0)]: return int(c[(b,1)]>c[(b,0)])
        c=votes[(t['sm'],family(t))]
        if c[(b,1)]!=c[(b,0)] and not (t['mn'].startswith('U') and rbits[(t['sm'],family(t))]>>b&1):
            return int(c[(b,1)]>c[(b,0)])
        # an operand that forms with more operands (a modifier shows it) keep there
        for n in range(len(t['sks'])+1,12):
            v=val.get((t['sm'],t['bits']&0xfff,n),{})
            if b in v: return v[b]
        return 0
    return fill
fill=neutral_bits()
for t in templates.values():
    if not t['seed']: continue
    amask=0
    for spec in t['specs']:
        for p_,l,sh in spec['fields']: amask|=((1<<l)-1)<<p_
    dc=0
    for b in same.get((t['shape'].replace('+desc',''),t['mn']),()):
        if b>=16 and t['mask']>>b&1 and not amask>>b&1: dc|=1<<b
    if not dc: continue
    op=t['bits']&0xfff
    t['mask']&=~dc
    t['bits']=(t['bits']&~dc)|sum(fill(t,b)<<b for b in range(16,105) if dc>>b&1)
    report['ignored-bits']+=bin(dc).count('1')

# text-ambiguous templates
amb=collections.Counter((t['sm'],t['mn'],tuple(t['sks'])) for t in templates.values())
report['ambiguous-text']=sum(1 for v in amb.values() if v>1)
for k,v in amb.items():
    if v>1: print('ambiguous',k,v,file=sys.stderr)

def reuse_slot(key,i,spec):
    v=reuse_votes.get((key,i))
    if v:
        if len(v)>1: report['reuse-conflict']+=1
        return v.most_common(1)[0][0]
    # the probes' reuse bits (words the corpus never marked)
    for p in probe.get(key,[]):
        if str(i) in p.get('reuse',{}): return p['reuse'][str(i)]
    if spec['kind']=='R':
        return {24:0,32:1,64:2}.get(spec['fields'][0][0])
    return None

KIND={'R':'R','U':'U','P':'P','UP':'UP','B':'B','SB':'SB','SR':'SR','X':'X','L':'L','F32':'F32','F64Hi':'F64Hi','F16':'F16','BF16':'BF16'}
def rs_u128(x): return '0x%032x'%x
for sm in sorted({t['sm'] for t in templates.values()}):
    ts=sorted([t for t in templates.values() if t['sm']==sm], key=lambda t:-t['n'])
    out=[]
    out.append('//! sm_%s forms. GENERATED by `tools/learn_tables.py` from NVIDIA ptxas 13.5 cubins of'%sm[2:])
    out.append('//! the corpus and nvdisasm bit-flip probes; do not edit by hand (rerun the')
    out.append('//! tool). Each form names the corpus instruction it was learned from.')
    out.append('')
    out.append('use crate::form::{Atom, AtomKind::*, Field, Form};')
    out.append('use crate::hidden::Hidden;')
    out.append('use crate::marks::{Mark, MarkKind::*};' if marks.get(sm) else 'use crate::marks::Mark;')
    out.append('')
    def form_rows(ts):
      for t in ts:
          atoms=[]
          for i,s in enumerate(t['specs']):
              fs=', '.join('Field { pos: %d, len: %d, shift: %d }'%f for f in s['fields'])
              r=reuse_slot(t['shape'],i,s) if s['kind']=='R' or s['kind']=='U' else None
              kind=('Inv'+s['kind']) if s.get('inv') else KIND[s['kind']]
              atoms.append('Atom { kind: %s, fields: &[%s], signed: %s, reuse: %s }'%(kind,fs,'true' if s['signed'] else 'false','None' if r is None else 'Some(%d)'%r))
          ex=t['ex'].replace('\\','\\\\')
          out.append('    // %s  (x%d)'%(ex,t['n']))
          out.append('    Form {')
          out.append('        mnemonic: "%s",'%t['mn'])
          out.append('        operands: &[%s],'%', '.join('"%s"'%s for s in t['sks']))
          out.append('        atoms: &[%s],'%(', '.join(atoms)))
          out.append('        bits: %s,'%rs_u128(t['bits']))
          out.append('        mask: %s,'%rs_u128(t['mask']))
          # uniform-datapath instructions are guarded by uniform predicates
          out.append('        uniform_guard: %s,'%('true' if t['ug'] or t['mn'].startswith('U') or t['mn'].startswith('S2UR') else 'false'))
          out.append('    },')
    out.append('/// Every form of NVIDIA\'s corpus code for this family, most frequent first.')
    out.append('pub(crate) static FORMS: &[Form] = &[')
    form_rows([t for t in ts if not t['seed']])
    out.append('];')
    out.append('')
    out.append('/// The ISA solver\'s forms (`tools/learn_isa.py`) the corpus lacks. The')
    out.append('/// derivation rules of `derive.rs` apply to `FORMS` only.')
    out.append('pub(crate) static SOLVED: &[Form] = &[')
    form_rows([t for t in ts if t['seed']])
    out.append('];')
    out.append('')
    out.append('/// Operand marks one bit toggles, found by `tools/learn_isa.py` (`marks.rs`).')
    out.append('pub(crate) static MARKS: &[Mark] = &[')
    MK={'-':'Neg','!':'Not','~':'Invert','|':'Abs'}
    # One bit is `-` on IADD3 and `~` on IADD3.X (same opcode bits): such a
    # bit says no mark without the mnemonic, so it is left out.
    kinds=collections.defaultdict(set)
    for op,n,i,on,o,c,b in marks.get(sm,[]): kinds[(op,n,i,on,b)].add(o)
    for op,n,i,on,o,c,b in marks.get(sm,[]):
        if len(kinds[(op,n,i,on,b)])>1: report['ambiguous-mark']+=1; continue
        out.append('    Mark { opcode: 0x%x, operands: %d, operand: %d, on: "%s", kind: %s, bit: %d },'%(op,n,i,on,MK[o],b))
    out.append('];')
    out.append('')
    out.append('/// Operands nvdisasm leaves out when zero (`tools/learn_hidden.py`, `hidden.rs`).')
    out.append('pub(crate) static HIDDEN: &[Hidden] = &[')
    for op,sks,k in sorted({(mn.split('.')[0],tuple(sks),k) for s_,mn,sks,k in hidden if s_==sm}):
        out.append('    Hidden { opcode: "%s", operands: &[%s], operand: %d },'%(op,', '.join('"%s"'%x for x in sks),k))
    out.append('];')
    out.append('')
    out.append('/// Special registers: hardware number, nvdisasm name (learned from probes).')
    out.append('pub(crate) static SPECIAL_REGS: &[(u16, &str)] = &[')
    for n,name in sorted(sr_names[sm].items()):
        out.append('    (%d, "%s"),'%(n,name))
    out.append('];')
    open(os.path.join(crate,'src/tables/%s.rs'%sm),'w').write('\n'.join(out)+'\n')
    print(sm,len(ts),'forms',file=sys.stderr)
print(dict(report),file=sys.stderr)
if os.environ.get('LEARN_SHOW_AMBIGUOUS'):
    groups=collections.defaultdict(list)
    for t in templates.values(): groups[(t['sm'],t['mn'],tuple(t['sks']))].append(t)
    for k,ts in groups.items():
        if len(ts)>1:
            x=0
            for t in ts[1:]: x|=t['bits']^ts[0]['bits']
            print(k, [t['n'] for t in ts], hex(x), [hex((t['bits']&x)>>32) for t in ts], ts[0]['ex'])
