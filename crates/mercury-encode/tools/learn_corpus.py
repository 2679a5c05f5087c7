"""Step 1: compile the corpus with NVIDIA's ptxas, list it with nvdisasm -hex
and collect every instruction as (sm, file, address, text, low, high).

usage: learn_corpus.py CORPUS_KERNEL_DIR WORK_DIR
Writes WORK_DIR/insts.json (cubins and listings stay in WORK_DIR).
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


def main(corpus, work):
    os.makedirs(work, exist_ok=True)
    out = []
    for ptx in sorted(glob.glob(os.path.join(corpus, '*.ptx'))):
        name = os.path.basename(ptx)[:-4]
        arch = {'sm80': 'sm_80', 'sm90': 'sm_90', 'sm90a': 'sm_90a'}[name.rsplit('.', 1)[1]]
        cubin = os.path.join(work, name + '.cubin')
        subprocess.run([PTXAS, '-arch=' + arch, ptx, '-o', cubin], check=True)
        listing = subprocess.run([NVDISASM, '-hex', cubin], check=True, capture_output=True, text=True).stdout
        out += listing_instructions('sm90' if arch.startswith('sm_90') else 'sm80', name, listing)
    json.dump(out, open(os.path.join(work, 'insts.json'), 'w'))
    print(len(out), 'instructions')


if __name__ == '__main__':
    main(*sys.argv[1:3])
