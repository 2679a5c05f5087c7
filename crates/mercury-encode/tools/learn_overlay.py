"""sm_86 / sm_89 tables as sm_80's plus differences.

usage: learn_overlay.py LEARNED_CRATE CRATE SM [SM...]
LEARNED_CRATE/src/tables/smSM.rs is what learn_tables.py wrote from
learn_corpus.py (tests/targets/smSM) and learn_probe.py; CRATE/src/tables/
smSM.rs (the first SM's) gets the forms whose text (mnemonic + operand
skeletons; sm_80 prints no `desc[UR]`, so compared without it) sm_80's
learned and derived tables lack, or whose fields differ from every sm_80
form of that text. Further SMs share the first one's family (sm_87 and
sm_88 are `Sm::Sm86`): their forms not kept already are added after it.
"""
import os,re,sys
def forms(path):
    src=open(path).read()
    start=src.index('static FORMS: &[Form] = &[')
    end=src.index('\n];',start)
    return src[start:end], [(m.group(0), m.group(2), m.group(3)) for m in re.finditer(
        r'(    // [^\n]*\n)?    Form \{\n        mnemonic: "([^"]*)",\n        operands: &\[(.*?)\],\n.*?\n    \},\n', src[start:end], re.S)]
def key(mn, ops): return (mn, ops.replace('desc[{U}]',''))
def norm(block):
    return re.sub(r',([\]}])', r'\1', re.sub(r'\s+', '', re.sub(r'^    //[^\n]*\n', '', block)))
base=set(); same={}
learned_crate,crate,s=sys.argv[1:4]
more=sys.argv[4:]
for p in [os.path.join(crate,'src/tables/sm80.rs'),os.path.join(crate,'src/tables/sm80_derived.rs')]:
    for f,mn,ops in forms(p)[1]:
        base.add(key(mn,ops)); same.setdefault((mn,ops),set()).add(norm(f))
keep=[]; kept=set()
for t in [s]+more:
    body,fs=forms(os.path.join(learned_crate,'src/tables/sm%s.rs'%t))
    n=len(keep)
    for f,mn,ops in fs:
        if (key(mn,ops) not in base or ((mn,ops) in same and norm(f) not in same[(mn,ops)])) and norm(f) not in kept:
            keep.append(f); kept.add(norm(f))
    print(t, len(fs), 'learned,', len(keep)-n, 'kept', file=sys.stderr)
src=open(os.path.join(learned_crate,'src/tables/sm%s.rs'%s)).read()
head=src[:src.index('/// Every form of NVIDIA')]
head=head.replace("use crate::marks::Mark;\n","").replace("use crate::hidden::Hidden;\n","")
head=head.replace("//! sm_%s forms. GENERATED"%s[:2], "//! sm_%s's own forms. GENERATED"%s)
head=head.replace("tool). Each form names the corpus instruction it was learned from.\n",
 "tool). Each form names the corpus instruction it was learned from.\n"
 "//! Learned from NVIDIA's cubins of `tests/targets/sm%s`%s; `tools/learn_overlay.py` kept the forms\n"
 "//! whose text sm_80's learned and derived tables lack, or whose fields differ\n"
 "//! from sm_80's forms of that text (`Tables` puts them first).\n"
 % (s, ''.join(' (and compiled for sm_%s)' % t for t in more)))
out=head+"/// The forms of NVIDIA's sm_%s code that sm_80's tables lack or encode otherwise, most frequent first.\npub(crate) static FORMS: &[Form] = &[\n"%s+''.join(keep)+"];\n"
open(os.path.join(crate,'src/tables/sm%s.rs'%s),'w').write(out)
