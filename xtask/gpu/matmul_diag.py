#!/usr/bin/env python3
"""Where a Triton wgmma matmul compiled by our ptxas goes wrong on a GPU.

    python3 xtask/gpu/matmul_diag.py --ours PATH/ptxas --out DIR [--budget S] [--only TEXT]...

Runs tests/triton/gen.py's matmul kernel over a grid of configurations
(input type, K = one or several BLOCK_K steps, num_stages) once with
NVIDIA's ptxas (Triton's bundled one) and once with ours
(`TRITON_PTXAS_PATH`), each compiler in a child process of its own, and
for every configuration where the two differ says which elements differ:
the rows and columns inside the tile, the tiles, and whether our values
equal the exact product with one K step left out or counted twice (a
pipeline stage read too early or too late). The PTX and both cubins of
every configuration are packed into DIR/matmul-cubins.tar.gz so the
failing and the passing code can be compared here (docs/gpu-check.md).
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tarfile
import time

HERE = pathlib.Path(__file__).resolve().parent
GEN = HERE.parent.parent / "tests" / "triton"

# (name, torch input type, output type, BLOCK_M, BLOCK_N, BLOCK_K, warps)
TYPES = [("tf32", "float32", "float32", 64, 64, 32, 4), ("f16", "float16", "float32", 128, 128, 32, 4)]
STEPS = [1, 2, 3, 8, 64]
STAGES = [1, 2, 3]
MN = 256


ONLY = []


def configs():
    for t in TYPES:
        for steps in STEPS:
            for stages in STAGES:
                name = f"{t[0]}-k{steps}-s{stages}"
                if not ONLY or any(o in name for o in ONLY):
                    yield name, t, steps, stages


def child(out, names):
    import torch
    sys.path.insert(0, str(GEN))
    import gen
    for name, (_, in_ty, out_ty, bm, bn, bk, warps), steps, stages in configs():
        if name not in names:
            continue
        rec = {"name": name}
        try:
            g = torch.Generator(device="cuda")
            g.manual_seed(1234 + steps)
            k = steps * bk
            a = torch.randn(MN, k, generator=g, device="cuda").to(getattr(torch, in_ty))
            b = torch.randn(k, MN, generator=g, device="cuda").to(getattr(torch, in_ty))
            c = torch.zeros(MN, MN, device="cuda", dtype=getattr(torch, out_ty))
            grid = ((MN // bm) * (MN // bn), )
            t0 = time.time()
            gen.matmul_kernel[grid](a, b, c, MN, MN, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                                    c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps,
                                    num_stages=stages)
            torch.cuda.synchronize()
            rec["compile_s"] = round(time.time() - t0, 2)
            torch.save({"a": a.cpu(), "b": b.cpu(), "c": c.cpu()}, out / f"{name}.pt")
            rec["status"] = "ok"
        except Exception as e:
            rec["status"] = "error"
            rec["error"] = f"{type(e).__name__}: {e}"[-800:]
            try:
                torch.cuda.synchronize()
            except Exception:
                print(json.dumps(rec), flush=True)
                return 3
        print(json.dumps(rec), flush=True)
    return 0


def run_mode(mode, ptxas, work, deadline):
    env = dict(os.environ, TRITON_CACHE_DIR=str(work / f"cache-{mode}"), PYTHONUNBUFFERED="1")
    if ptxas:
        env["TRITON_PTXAS_PATH"] = str(ptxas)
    else:
        env.pop("TRITON_PTXAS_PATH", None)
    out = work / mode
    out.mkdir(parents=True, exist_ok=True)
    left = [n for n, *_ in configs()]
    recs = {}
    while left and time.time() < deadline:
        try:
            only = [a for o in ONLY for a in ("--only", o)]
            r = subprocess.run([sys.executable, __file__, *only, "--child", str(out), *left], env=env, capture_output=True,
                               text=True, timeout=max(10, deadline - time.time()))
            lines = r.stdout.splitlines()
        except subprocess.TimeoutExpired as e:
            lines = (e.stdout or b"").decode().splitlines() if isinstance(e.stdout, bytes) else (e.stdout or "").splitlines()
        got = [json.loads(x) for x in lines if x.startswith("{")]
        for rec in got:
            recs[rec["name"]] = rec
        if not got:  # the child died before its first case: count that case as failed
            recs[left[0]] = {"name": left[0], "status": "error", "error": "the child process died"}
        left = [n for n in left if n not in recs]
    return recs


def analyse(torch, nv, ours, bm, bn, bk):
    """What differs between NVIDIA's and our C, as text."""
    a, b = nv["a"].double(), nv["b"].double()
    cn, co = nv["c"].double(), ours["c"].double()
    bits = torch.int32 if nv["c"].dtype == torch.float32 else torch.int16
    bad = nv["c"].view(bits) != ours["c"].view(bits)
    n = int(bad.sum())
    if n == 0:
        return "bit-identical", {}
    exact = a @ b
    rel = ((co - exact).abs() / exact.abs().clamp_min(1e-3))
    reln = ((cn - exact).abs() / exact.abs().clamp_min(1e-3))
    info = {"differ": n, "of": bad.numel(), "ours_max_rel_vs_exact": float(rel.max()),
            "nvidia_max_rel_vs_exact": float(reln.max())}
    rows, cols = bad.nonzero(as_tuple=True)
    info["rows_in_tile"] = sorted(set((rows % bm).tolist()))[:80]
    info["cols_in_tile"] = sorted(set((cols % bn).tolist()))[:80]
    tiles = {}
    for r, c in zip((rows // bm).tolist(), (cols // bn).tolist()):
        tiles[f"{r},{c}"] = tiles.get(f"{r},{c}", 0) + 1
    info["tiles"] = tiles
    # Our wrong values against the product with one K step dropped or doubled.
    steps = a.shape[1] // bk
    for j in range(min(steps, 8)):
        part = a[:, j * bk:(j + 1) * bk] @ b[j * bk:(j + 1) * bk, :]
        for what, ref in (("without", exact - part), ("twice", exact + part)):
            close = ((co - ref).abs() <= 1e-2 * ref.abs().clamp_min(1e-1)) & bad
            if int(close.sum()) > n // 4:
                info.setdefault("matches", []).append(f"{what} step {j}: {int(close.sum())} of {n}")
    zero = int(((co == 0) & bad).sum())
    if zero:
        info["zeros"] = zero
    return f"DIFFER: {n} of {bad.numel()}", info


def parent(args):
    start = time.time()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path("/tmp/matmul-diag")
    import shutil
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    half = start + args.budget / 2
    res = {"nvidia": run_mode("nvidia", None, work, half),
           "ours": run_mode("ours", pathlib.Path(args.ours).resolve(), work, start + args.budget)}
    import torch
    lines, table = [], []
    for name, (_, _, _, bm, bn, bk, _), steps, stages in configs():
        a, b = res["nvidia"].get(name, {}), res["ours"].get(name, {})
        if a.get("status") != "ok":
            verdict, info = "NVIDIA's failed: " + a.get("error", "not run")[:200], {}
        elif b.get("status") != "ok":
            verdict, info = "ours failed: " + b.get("error", "not run")[:300], {}
        else:
            nv = torch.load(work / "nvidia" / f"{name}.pt")
            ou = torch.load(work / "ours" / f"{name}.pt")
            verdict, info = analyse(torch, nv, ou, bm, bn, bk)
        table.append({"name": name, "verdict": verdict, **info})
        lines.append(f"{name:14} {verdict} {json.dumps(info) if info else ''}")
        print(lines[-1], flush=True)
    (out / "matmul-diag.json").write_text(json.dumps(table, indent=1))
    with tarfile.open(out / "matmul-cubins.tar.gz", "w:gz") as tar:
        for mode in ("nvidia", "ours"):
            for p in sorted((work / f"cache-{mode}").rglob("*")):
                if p.suffix in (".ptx", ".cubin", ".json") and p.is_file():
                    tar.add(p, arcname=f"{mode}/{p.parent.name}/{p.name}")
    print(f"matmul-diag: {time.time() - start:.0f} s")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ours")
    p.add_argument("--out", default="matmul-diag-out")
    p.add_argument("--budget", type=float, default=150)
    p.add_argument("--only", action="append", default=[], help="configurations whose name holds this text")
    p.add_argument("--child", nargs="+")
    args = p.parse_args()
    ONLY.extend(args.only)
    if args.child:
        sys.exit(child(pathlib.Path(args.child[0]), set(args.child[1:])))
    if not args.ours:
        p.error("--ours PATH is required")
    parent(args)


if __name__ == "__main__":
    main()
