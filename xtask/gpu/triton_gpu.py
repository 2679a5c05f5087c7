#!/usr/bin/env python3
"""Triton kernels launched by Triton itself on a GPU, compiled once by
NVIDIA's ptxas and once by ours (`TRITON_PTXAS_PATH`): outputs compared,
times, registers and spills (docs/gpu-check.md, "Triton on the GPU").

    python3 xtask/gpu/triton_gpu.py --ours PATH/ptxas --out DIR
        [--nvidia PATH/ptxas] [--only NAME]... [--budget SECONDS] [--no-inductor]

It runs on the lent GPU machines (Triton, PyTorch and the CUDA driver; no
Rust toolchain): our `ptxas` travels as a binary built here. NVIDIA's
ptxas is the one Triton bundles unless `--nvidia` names another.

The kernels are tests/triton/gen.py's (the fixtures' sources), each
launched on inputs made here with a fixed seed, plus a `torch.compile`
model whose Inductor kernels all go through the ptxas under test.

Each compiler runs in its own child process (Triton keeps compiled
kernels in memory and its cache keys do not name the ptxas path), with
its own Triton and Inductor cache directories. A kernel that faults
leaves the CUDA context unusable, so the child stops there and the
parent starts a new child for the cases left; the faulting case is
reported. The parent then compares the two children's outputs and writes
DIR/triton-gpu.md (a table) and DIR/triton-gpu.json.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
GEN = HERE.parent.parent / "tests" / "triton"

MODES = ("nvidia", "ours")


# ----------------------------------------------------------------------
# Cases (child side; torch and triton are imported only there)


def cdiv(a, b):
    return (a + b - 1) // b


def cases(torch, gen, cap):
    """name -> (kernel, make): make() returns (args, grid, meta, outputs,
    rule) where outputs are the indices of the output tensors in args and
    rule is "exact" or a relative tolerance."""
    K = gen.KERNELS
    dev = "cuda"
    g = torch.Generator(device=dev)

    def seed(name):
        g.manual_seed(sum(name.encode()) * 7919)

    def randn(n, dtype=torch.float32):
        return torch.randn(n, generator=g, device=dev, dtype=torch.float32).to(dtype)

    def randint(lo, hi, n):
        return torch.randint(lo, hi, (n, ), generator=g, device=dev, dtype=torch.int64).to(torch.int32)

    out = {}

    def case(name, kernel, targets=(80, 90)):
        def wrap(make):
            if cap in targets:
                out[name] = (kernel, lambda: (seed(name), make())[1])
            return make
        return wrap

    @case("add", "add")
    def _():
        n = 1_000_003
        x, y, o = randn(n), randn(n), torch.zeros(n, device=dev)
        return [x, y, o, n], (cdiv(n, 1024), ), {"BLOCK": 1024}, [2], "exact"

    @case("softmax", "softmax")
    def _():
        rows, cols = 4096, 781
        x, o = randn(rows * cols).view(rows, cols), torch.zeros(rows, cols, device=dev)
        return [o, x, cols, cols, rows, cols], (528, ), {"BLOCK": 1024, "num_warps": 8}, [0], 1e-5

    def matmul(name, in_ty, out_ty, bm, bn, bk, warps, targets=(80, 90), size=2048):
        @case(name, "matmul_f16", targets)
        def _():
            m = n = k = size
            a = randn(m * k).view(m, k).to(in_ty)
            b = randn(k * n).view(k, n).to(in_ty)
            c = torch.zeros(m, n, device=dev, dtype=out_ty)
            args = [a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)]
            meta = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "num_warps": warps}
            return args, (cdiv(m, bm) * cdiv(n, bn), ), meta, [2], 1e-2

    matmul("matmul_f16", torch.float16, torch.float16, 128, 128, 32, 4)
    matmul("matmul_bf16", torch.bfloat16, torch.float32, 64, 128, 32, 4)
    matmul("matmul_tf32", torch.float32, torch.float32, 64, 64, 32, 4)
    matmul("matmul_fp8", torch.float8_e4m3fn, torch.float16, 64, 128, 64, 4, targets=(90, ))
    # A wider tile than the fixtures': wgmma m64n256 on sm_90a.
    matmul("matmul_f16_128x256", torch.float16, torch.float16, 128, 256, 64, 8, targets=(90, ))

    @case("layer_norm", "layer_norm")
    def _():
        rows, n = 2048, 1000
        x, w, b = randn(rows * n).view(rows, n), randn(n), randn(n)
        y, mean, rstd = torch.zeros(rows, n, device=dev), torch.zeros(rows, device=dev), torch.zeros(rows, device=dev)
        return [x, y, w, b, mean, rstd, n, n, 1e-5], (rows, ), {"BLOCK": 512}, [1, 4, 5], 1e-5

    @case("dropout", "dropout")
    def _():
        n = 1_000_003
        x, o = randn(n), torch.zeros(n, device=dev)
        return [x, o, n, 0.3, 1234], (cdiv(n, 1024), ), {"BLOCK": 1024}, [1], "exact"

    @case("gelu", "gelu")
    def _():
        n = 1_000_003
        x, o = randn(n) * 3, torch.zeros(n, device=dev)
        return [x, o, n], (cdiv(n, 512), ), {"BLOCK": 512}, [1], 1e-5

    @case("reduce", "reduce")
    def _():
        rows, cols = 4096, 200
        x = randn(rows * cols)
        s, m = torch.zeros(rows, device=dev), torch.zeros(rows, device=dev)
        a = torch.zeros(rows, device=dev, dtype=torch.int32)
        return [x, s, m, a, cols], (rows // 4, ), {"BLOCK_R": 4, "BLOCK_C": 256}, [1, 2, 3], 1e-5

    @case("scan", "scan")
    def _():
        n = 512 * 2048
        x, o = randint(-1000, 1000, n), torch.zeros(n, device=dev, dtype=torch.int32)
        return [x, o], (n // 512, ), {"BLOCK": 512}, [1], "exact"

    @case("histogram", "histogram")
    def _():
        n, bins = 1_000_003, 97
        x = randint(0, 100_000, n)
        h = torch.zeros(bins + 1, device=dev, dtype=torch.int32)
        return [x, h, n, bins], (cdiv(n, 1024), ), {"BLOCK": 1024}, [1], "exact"

    @case("intdiv", "intdiv")
    def _():
        n = 1_000_003
        a = randint(-(2**31), 2**31 - 1, n)
        q, r = torch.zeros(n, device=dev, dtype=torch.int32), torch.zeros(n, device=dev, dtype=torch.int32)
        return [a, q, r, n, 37], (cdiv(n, 512), ), {"BLOCK": 512}, [1, 2], "exact"

    return {name: (K[kernel][0], make) for name, (kernel, make) in out.items()}


def inductor_model(torch):
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.up = torch.nn.Linear(1024, 4096)
            self.down = torch.nn.Linear(4096, 1024)
            self.norm = torch.nn.LayerNorm(1024)

        def forward(self, x):
            h = self.norm(x + self.down(torch.nn.functional.gelu(self.up(x))))
            return torch.cumsum(torch.softmax(h * 0.5, dim=-1), dim=-1), h.amax(dim=0)

    torch.manual_seed(4321)
    return Block().cuda(), torch.randn(2048, 1024, device="cuda")


def child(args):
    import torch
    import triton

    sys.path.insert(0, str(GEN))
    import gen

    work = pathlib.Path(args.work) / args.child
    work.mkdir(parents=True, exist_ok=True)
    log = open(work / "results.jsonl", "a")
    cap = torch.cuda.get_device_capability()[0] * 10
    table = cases(torch, gen, cap)
    for name in args.cases:
        (work / "current").write_text(name)
        rec = {"case": name}
        try:
            if name == "inductor":
                model, x = inductor_model(torch)
                t0 = time.time()
                fn = torch.compile(model)
                outs = [o.detach() for o in fn(x)]
                rec["compile_s"] = round(time.time() - t0, 2)
                torch.cuda.synchronize()
                rec["time_ms"] = triton.testing.do_bench(lambda: fn(x), return_mode="median")
                cache = pathlib.Path(os.environ["TRITON_CACHE_DIR"])
                rec["kernels"] = len(list(cache.rglob("*.cubin")))
                rec["rule"] = 1e-3
            else:
                fn, make = table[name]
                targs, grid, meta, outputs, rule = make()
                t0 = time.time()
                k = fn[grid](*targs, **meta)
                torch.cuda.synchronize()
                rec["compile_s"] = round(time.time() - t0, 2)
                outs = [targs[i].clone() for i in outputs]
                for key, attr in (("registers", "n_regs"), ("spills", "n_spills")):
                    if getattr(k, attr, None) is not None:
                        rec[key] = getattr(k, attr)
                rec["rule"] = rule
                rec["time_ms"] = triton.testing.do_bench(lambda: fn[grid](*targs, **meta), return_mode="median")
            torch.save([o.cpu() for o in outs], work / f"{name}.pt")
            rec["status"] = "ok"
        except Exception as e:  # a compile error or a fault: reported, and a fault ends this child
            msg = f"{type(e).__name__}: {e}"
            rec["status"] = "error"
            rec["error"] = msg[-1500:]
            log.write(json.dumps(rec) + "\n")
            log.flush()
            try:
                torch.cuda.synchronize()
            except Exception:
                return 3
            continue
        log.write(json.dumps(rec) + "\n")
        log.flush()
    (work / "current").unlink(missing_ok=True)
    return 0


# ----------------------------------------------------------------------
# Parent side


def run_mode(mode, ptxas, names, work, deadline):
    env = dict(os.environ)
    env["TRITON_CACHE_DIR"] = str(work / f"cache-{mode}")
    env["TORCHINDUCTOR_CACHE_DIR"] = str(work / f"inductor-{mode}")
    env["PYTHONUNBUFFERED"] = "1"
    if ptxas:
        env["TRITON_PTXAS_PATH"] = str(ptxas)
    else:
        env.pop("TRITON_PTXAS_PATH", None)
    done = {}
    left = list(names)
    mdir = work / mode
    while left and time.time() < deadline:
        cmd = [sys.executable, __file__, "--child", mode, "--work", str(work), "--cases", *left]
        try:
            subprocess.run(cmd, env=env, timeout=max(10, deadline - time.time()))
        except subprocess.TimeoutExpired:
            pass
        for line in (mdir / "results.jsonl").read_text().splitlines() if (mdir / "results.jsonl").exists() else []:
            rec = json.loads(line)
            done[rec["case"]] = rec
        cur = mdir / "current"
        if cur.exists():
            name = cur.read_text()
            cur.unlink()
            if name not in done:
                done[name] = {"case": name, "status": "error", "error": "the child process died or timed out here"}
        left = [n for n in left if n not in done]
    for n in left:
        done[n] = {"case": n, "status": "skipped", "error": "the time budget ran out"}
    return done


def compare(torch, work, name, rule):
    a = torch.load(work / "nvidia" / f"{name}.pt")
    b = torch.load(work / "ours" / f"{name}.pt")
    worst = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False, f"output {i}: shape/type {tuple(x.shape)} {x.dtype} vs {tuple(y.shape)} {y.dtype}"
        xb = x.contiguous().view(torch.uint8)
        yb = y.contiguous().view(torch.uint8)
        if torch.equal(xb, yb):
            continue
        if rule == "exact" or not x.is_floating_point():
            diff = (x != y).flatten().nonzero()
            j = int(diff[0]) if len(diff) else -1
            return False, f"output {i}[{j}]: nvidia {x.flatten()[j].item()}, ours {y.flatten()[j].item()} ({len(diff)} differ)"
        xf, yf = x.double(), y.double()
        both_nan = torch.isnan(xf) & torch.isnan(yf)
        rel = ((xf - yf).abs() / xf.abs().clamp_min(1e-30)).masked_fill(both_nan, 0.0)
        err = float(rel.max())
        worst = max(worst, err)
        if not err <= rule:
            j = int(rel.flatten().argmax())
            return False, f"output {i}[{j}]: nvidia {xf.flatten()[j].item()}, ours {yf.flatten()[j].item()} (rel {err:.2e})"
    return True, "bit-identical" if worst == 0.0 else f"within {rule} (max rel {worst:.1e})"


def parent(args):
    start = time.time()
    deadline = start + args.budget
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(args.work or "/tmp/triton-gpu")
    import shutil
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)

    import torch
    import triton
    sys.path.insert(0, str(GEN))
    import gen

    cap = torch.cuda.get_device_capability()[0] * 10
    names = list(cases(torch, gen, cap))
    if not args.no_inductor:
        names.append("inductor")
    if args.only:
        names = [n for n in names if n in args.only]

    from triton.backends.nvidia import compiler as nvc
    bundled = pathlib.Path(nvc.__file__).parent / "bin" / "ptxas"
    nvidia = pathlib.Path(args.nvidia) if args.nvidia else bundled
    versions = {}
    for mode, p in (("nvidia", nvidia), ("ours", pathlib.Path(args.ours))):
        r = subprocess.run([str(p), "--version"], capture_output=True, text=True)
        versions[mode] = (r.stdout.strip().splitlines() or ["?"])[-1]
    device = torch.cuda.get_device_name()
    print(f"device {device}; triton {triton.__version__}; torch {torch.__version__}")
    print(f"nvidia ptxas: {nvidia}: {versions['nvidia']}\nours: {versions['ours']}", flush=True)

    results = {}
    half = start + (deadline - start) / 2
    # NVIDIA's first, with half the budget; ours gets what is left.
    results["nvidia"] = run_mode("nvidia", nvidia if args.nvidia else None, names, work, half)
    results["ours"] = run_mode("ours", pathlib.Path(args.ours).resolve(), names, work, deadline)

    rows = []
    fails = 0
    for n in names:
        a, b = results["nvidia"][n], results["ours"][n]
        row = {"case": n, "nvidia": a, "ours": b}
        if a["status"] != "ok":
            verdict = "NVIDIA's failed: " + a.get("error", "")[:200]
        elif b["status"] != "ok":
            verdict = "FAIL: ours: " + b.get("error", "")[:300]
            fails += 1
        else:
            ok, what = compare(torch, work, n, a["rule"])
            verdict = ("same: " if ok else "DIFFER: ") + what
            fails += not ok
        row["verdict"] = verdict
        rows.append(row)
        print(f"{n:22} {verdict}", flush=True)

    def cell(r, key, fmt="{}"):
        return fmt.format(r[key]) if key in r else "-"

    ratios = [r["ours"]["time_ms"] / r["nvidia"]["time_ms"] for r in rows
              if r["nvidia"].get("time_ms") and r["ours"].get("time_ms") and r["verdict"].startswith("same")]
    geo = 0.0
    if ratios:
        import math
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    md = [f"Device: {device}, Triton {triton.__version__}, PyTorch {torch.__version__}.",
          f"NVIDIA's ptxas: `{versions['nvidia']}`; ours: `{versions['ours']}`.", "",
          "| case | result | registers ours / NVIDIA | spills ours / NVIDIA | time ours / NVIDIA (ms, median) |",
          "|---|---|---|---|---|"]
    for r in rows:
        a, b = r["nvidia"], r["ours"]
        md.append(f"| {r['case']} | {r['verdict'].replace('|', '/')} | {cell(b, 'registers')} / {cell(a, 'registers')}"
                  f" | {cell(b, 'spills')} / {cell(a, 'spills')}"
                  f" | {cell(b, 'time_ms', '{:.4f}')} / {cell(a, 'time_ms', '{:.4f}')} |")
    same = sum(r["verdict"].startswith("same") for r in rows)
    md += ["", f"{len(rows)} cases: same {same}, fail {fails}; time ours/NVIDIA geometric mean over the same ones: "
           f"{geo:.3f} ({len(ratios)} cases)."]
    (out / "triton-gpu.md").write_text("\n".join(md) + "\n")
    (out / "triton-gpu.json").write_text(json.dumps({"device": device, "versions": versions, "rows": rows}, indent=1))
    print("\n".join(md))
    print(f"triton-gpu: {time.time() - start:.0f} s")
    return 1 if fails else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ours")
    p.add_argument("--nvidia")
    p.add_argument("--out", default="triton-gpu-out")
    p.add_argument("--work")
    p.add_argument("--only", action="append")
    p.add_argument("--budget", type=float, default=300)
    p.add_argument("--no-inductor", action="store_true")
    p.add_argument("--child", choices=MODES)
    p.add_argument("--cases", nargs="*")
    args = p.parse_args()
    if args.child:
        sys.exit(child(args))
    if not args.ours:
        p.error("--ours PATH is required")
    sys.exit(parent(args))


if __name__ == "__main__":
    main()
