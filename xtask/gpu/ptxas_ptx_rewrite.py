#!/usr/bin/env python3
"""A ptxas for TRITON_PTXAS_PATH that compiles a rewritten copy of the
PTX it is given, to show on a GPU which PTX construct a wrong result
comes from (docs/gpu-check.md, session 11: the matmuls' cp.async).

PTXAS_REAL names the ptxas to run (default /tmp/ptxas); PTXAS_PTX_MODE
holds rewrites, comma-separated: `nosize` drops cp.async's source-size
operand (every copy reads all its bytes), `wait0` makes every
`wgmma.wait_group` wait for all groups.
"""
import os, re, subprocess, sys, tempfile
real = os.environ.get("PTXAS_REAL", "/tmp/ptxas")
mode = os.environ.get("PTXAS_PTX_MODE", "")
args = list(sys.argv[1:])
for i, a in enumerate(args):
    if a.endswith(".ptx") and os.path.exists(a) and mode:
        t = open(a).read()
        if "nosize" in mode:
            t = re.sub(r"(cp\.async\.c[ag]\.shared\.global \[[^\]]*\], \[[^\]]*\], 0x(?:4|8|10)), %r\d+;", r"\1;", t)
        if "wait0" in mode:
            t = t.replace("wgmma.wait_group.sync.aligned 1;", "wgmma.wait_group.sync.aligned 0;")
        f = tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False)
        f.write(t); f.close()
        args[i] = f.name
sys.exit(subprocess.run([real] + args).returncode)
