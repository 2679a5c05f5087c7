"""Step 1: compile the corpus with NVIDIA's ptxas, list it with nvdisasm -hex
and collect every instruction as (sm, file, address, text, low, high).

usage: learn_corpus.py WORK_DIR PTX_DIR...
Every `NAME.smXY[a].ptx` of the folders is compiled for sm_XY[a]; its
instructions belong to family `smXY`. Writes WORK_DIR/insts.json (cubins
and listings stay in WORK_DIR).
"""
import glob
import json
import os
import re
import subprocess
import sys

from sass_text import NVDISASM

PTXAS = os.path.join(os.path.dirname(NVDISASM), 'ptxas')


def listing_instructions(sm, name, text):
    lines = text.split('\n')
    # Branch and call targets: `.L_x_3:` labels and function symbols.
    labels, pending = {}, []
    for line in lines:
        m = re.match(r'^([^\s/:][^:\s]*):\s*$', line)
        if m and not m.group(1).startswith('.text.'):
            pending.append(m.group(1))
            continue
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/', line)
        if m:
            for p in pending:
                labels[p] = int(m.group(1), 16)
            pending = []
    out, in_text, i = [], False, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith('\t.section\t'):
            in_text = '.text.' in line
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]{16}) \*/', line)
        if in_text and m:
            hi = re.search(r'/\* (0x[0-9a-f]{16}) \*/', lines[i + 1]).group(1)
            t = re.sub(r'`\(([^)]+)\)',
                       lambda mm: 'L@0x%x' % labels[mm.group(1)] if mm.group(1) in labels else mm.group(0),
                       m.group(2))
            out.append((sm, name, int(m.group(1), 16), t, int(m.group(3), 16), int(hi, 16)))
            i += 2
            continue
        i += 1
    return out


def main(work, *corpora):
    os.makedirs(work, exist_ok=True)
    out = []
    ptxs = sorted(p for corpus in corpora for p in glob.glob(os.path.join(corpus, '*.ptx')))
    for ptx in ptxs:
        name = os.path.basename(ptx)[:-4]
        m = re.fullmatch(r'sm(\d+)(a?)', name.rsplit('.', 1)[1])
        cubin = os.path.join(work, name + '.cubin')
        # a cubin newer than its PTX is ptxas's output already (reruns)
        if not os.path.exists(cubin) or os.path.getmtime(cubin) < os.path.getmtime(ptx):
            subprocess.run([PTXAS, '-arch=sm_%s%s' % m.groups(), ptx, '-o', cubin], check=True)
        listing = subprocess.run([NVDISASM, '-hex', cubin], check=True, capture_output=True, text=True).stdout
        out += listing_instructions('sm' + m.group(1), name, listing)
    json.dump(out, open(os.path.join(work, 'insts.json'), 'w'))
    print(len(out), 'instructions')


if __name__ == '__main__':
    main(*sys.argv[1:])
