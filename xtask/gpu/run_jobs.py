#!/usr/bin/env python3
"""gpu-check's runner: executes a job directory written by
`cargo xtask gpu-check --prepare DIR` on an NVIDIA GPU and writes
DIR/results/results.json plus the output buffers it keeps
(docs/gpu-check.md describes both files).

    python3 run_jobs.py DIR [--only TEXT]... [--keep BYTES] [--pack OUTDIR]
    python3 run_jobs.py --probe            # is a GPU usable here? (exit 0 if so)
    python3 run_jobs.py --pack-only DIR OUTDIR

It talks to the CUDA driver (libcuda) through ctypes, so it needs nothing
but Python 3 and the driver: no Rust, no pip package, no network.

Each cubin runs in a process of its own (`--child`): a kernel that faults
poisons its CUDA context and one that hangs must be killed; either way it
is reported for that job and the other jobs go on.
"""

import argparse
import ctypes
import hashlib
import importlib.util
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time

FORMAT = 1
WHICH = ("nvidia", "ours")
# Launches above this much dynamic shared memory must opt in (cuFuncSetAttribute).
DEFAULT_DYNAMIC_SHARED = 48 << 10
# What one file brought back from a device machine may hold.
PART_BYTES = 15 << 20


class CudaError(Exception):
    """A driver call failed (or a backend reports a failure)."""


# --------------------------------------------------------------- the driver

def _load_libcuda():
    errors = []
    for name in ("libcuda.so.1", "libcuda.so", "/usr/local/nvidia/lib64/libcuda.so.1",
                 "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1"):
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            errors.append(str(e))
    raise CudaError("cannot load the CUDA driver libcuda: %s" % errors[0])


class CudaBackend:
    """The driver API calls the runner needs, on device 0's primary context."""

    CC_MAJOR, CC_MINOR = 75, 76  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_*
    FUNC_NUM_REGS, FUNC_MAX_DYNAMIC_SHARED = 4, 8  # CU_FUNC_ATTRIBUTE_*

    def __init__(self):
        lib = _load_libcuda()
        p, vp, i, u = ctypes.POINTER, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint
        u64, size = ctypes.c_uint64, ctypes.c_size_t
        signatures = {
            "cuInit": [u],
            "cuDriverGetVersion": [p(i)],
            "cuDeviceGetCount": [p(i)],
            "cuDeviceGet": [p(i), i],
            "cuDeviceGetName": [ctypes.c_char_p, i, i],
            "cuDeviceGetAttribute": [p(i), i, i],
            "cuDevicePrimaryCtxRetain": [p(vp), i],
            "cuCtxSetCurrent": [vp],
            "cuCtxSynchronize": [],
            "cuModuleLoadData": [p(vp), vp],
            "cuModuleGetFunction": [p(vp), vp, ctypes.c_char_p],
            "cuFuncGetAttribute": [p(i), i, vp],
            "cuFuncSetAttribute": [vp, i, i],
            "cuMemAlloc_v2": [p(u64), size],
            "cuMemcpyHtoD_v2": [u64, vp, size],
            "cuMemcpyDtoH_v2": [vp, u64, size],
            "cuMemsetD8_v2": [u64, ctypes.c_ubyte, size],
            "cuLaunchKernel": [vp, u, u, u, u, u, u, u, vp, p(vp), p(vp)],
            "cuEventCreate": [p(vp), u],
            "cuEventRecord": [vp, vp],
            "cuEventSynchronize": [vp],
            "cuEventElapsedTime": [p(ctypes.c_float), vp, vp],
            "cuGetErrorName": [i, p(ctypes.c_char_p)],
        }
        self.fns = {}
        for name, args in signatures.items():
            # Newer drivers may export a call only under a versioned name.
            f = getattr(lib, name, None) or getattr(lib, name + "_v2", None)
            if f is None:
                raise CudaError("the driver has no %s" % name)
            f.argtypes = args
            f.restype = i
            self.fns[name] = f
        self.lib = lib
        self._call("cuInit", 0)
        count = ctypes.c_int()
        self._call("cuDeviceGetCount", ctypes.byref(count))
        if count.value < 1:
            raise CudaError("the driver sees no device")
        self.dev = ctypes.c_int()
        self._call("cuDeviceGet", ctypes.byref(self.dev), 0)
        self.ctx = ctypes.c_void_p()
        self._call("cuDevicePrimaryCtxRetain", ctypes.byref(self.ctx), self.dev)
        self._call("cuCtxSetCurrent", self.ctx)
        self._keep = []  # module images must outlive their modules

    def _call(self, name, *args):
        err = self.fns[name](*args)
        if err != 0:
            text = ctypes.c_char_p()
            self.fns["cuGetErrorName"](err, ctypes.byref(text))
            raise CudaError("%s: %s (%d)" % (name, (text.value or b"?").decode(), err))

    def device_info(self):
        name = ctypes.create_string_buffer(256)
        self._call("cuDeviceGetName", name, 256, self.dev)
        major, minor, version = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        self._call("cuDeviceGetAttribute", ctypes.byref(major), self.CC_MAJOR, self.dev)
        self._call("cuDeviceGetAttribute", ctypes.byref(minor), self.CC_MINOR, self.dev)
        self._call("cuDriverGetVersion", ctypes.byref(version))
        return {"name": name.value.decode(), "cc": [major.value, minor.value], "driver": version.value}

    def load(self, image, entry):
        buf = ctypes.create_string_buffer(image, len(image))
        self._keep.append(buf)
        module, fn = ctypes.c_void_p(), ctypes.c_void_p()
        self._call("cuModuleLoadData", ctypes.byref(module), ctypes.cast(buf, ctypes.c_void_p))
        self._call("cuModuleGetFunction", ctypes.byref(fn), module, entry.encode())
        return fn

    def registers(self, fn):
        n = ctypes.c_int()
        self._call("cuFuncGetAttribute", ctypes.byref(n), self.FUNC_NUM_REGS, fn)
        return n.value

    def set_dynamic_shared(self, fn, nbytes):
        self._call("cuFuncSetAttribute", fn, self.FUNC_MAX_DYNAMIC_SHARED, nbytes)

    def alloc(self, nbytes):
        ptr = ctypes.c_uint64()
        self._call("cuMemAlloc_v2", ctypes.byref(ptr), max(nbytes, 1))
        return ptr.value

    def upload(self, ptr, data):
        buf = ctypes.create_string_buffer(data, len(data))
        self._call("cuMemcpyHtoD_v2", ptr, ctypes.cast(buf, ctypes.c_void_p), len(data))

    def zero(self, ptr, nbytes):
        self._call("cuMemsetD8_v2", ptr, 0, nbytes)

    def download(self, ptr, nbytes):
        buf = ctypes.create_string_buffer(max(nbytes, 1))
        self._call("cuMemcpyDtoH_v2", ctypes.cast(buf, ctypes.c_void_p), ptr, nbytes)
        return buf.raw[:nbytes]

    def _launch(self, fn, grid, block, shared, params):
        # The parameter block goes as one buffer (CU_LAUNCH_PARAM_BUFFER_*):
        # the job gives its bytes, laid out by the cubin's KPARAM_INFO.
        extra = None
        if params:
            pbuf = ctypes.create_string_buffer(bytes(params), len(params))
            size = ctypes.c_size_t(len(params))
            extra = (ctypes.c_void_p * 5)(1, ctypes.addressof(pbuf), 2, ctypes.addressof(size), None)
            self._keep_launch = (pbuf, size)
        self._call("cuLaunchKernel", fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared,
                   None, None, extra)

    def launch(self, fn, grid, block, shared, params):
        self._launch(fn, grid, block, shared, params)
        self._call("cuCtxSynchronize")

    def timed_launch(self, fn, grid, block, shared, params):
        if not hasattr(self, "_events"):
            self._events = (ctypes.c_void_p(), ctypes.c_void_p())
            for e in self._events:
                self._call("cuEventCreate", ctypes.byref(e), 0)
        start, stop = self._events
        self._call("cuEventRecord", start, None)
        self._launch(fn, grid, block, shared, params)
        self._call("cuEventRecord", stop, None)
        self._call("cuEventSynchronize", stop)
        ms = ctypes.c_float()
        self._call("cuEventElapsedTime", ctypes.byref(ms), start, stop)
        return ms.value


def open_backend(path):
    """The CUDA backend, or the one a test module at `path` provides."""
    if not path:
        return CudaBackend()
    spec = importlib.util.spec_from_file_location("gpu_check_backend", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.open_backend()


# ------------------------------------------------------------ pure helpers

def load_jobs(dir):
    with open(os.path.join(dir, "jobs.json")) as f:
        jobs = json.load(f)
    if jobs.get("format") != FORMAT:
        raise SystemExit("%s/jobs.json: format %r, this runner reads %d" % (dir, jobs.get("format"), FORMAT))
    return jobs


def pack_params(cubin, ptrs):
    """The parameter block of `cubin` (a job's cubin entry) with buffer k at ptrs[k]."""
    block = bytearray(cubin["param_bytes"])
    for p in cubin["params"]:
        if p.get("buffer") is not None:
            value = ptrs[p["buffer"]].to_bytes(8, "little")
        else:
            value = bytes.fromhex(p["hex"])
        n = min(len(value), p["size"])
        if p["offset"] + n > len(block):
            raise ValueError("parameter at %d (+%d) outside the %d-byte block" % (p["offset"], n, len(block)))
        block[p["offset"]:p["offset"] + n] = value[:n]
    return bytes(block)


def arch_mismatch(arch, cc):
    """Why a cubin for `arch` (sm_90, sm_90a, sm_86) cannot run on compute
    capability `cc`, or None. SASS runs only within its major version, on
    the same or a later minor; `a` variants only on exactly theirs."""
    m = re.fullmatch(r"sm_(\d+)(\d)([af]?)", arch)
    if not m:
        return "unknown architecture %s" % arch
    major, minor, variant = int(m.group(1)), int(m.group(2)), m.group(3)
    ok = cc[0] == major and (cc[1] == minor if variant == "a" else cc[1] >= minor)
    return None if ok else "a %s cubin cannot run on a device of compute capability %d.%d" % (arch, cc[0], cc[1])


def describe(device):
    return "%s (compute capability %d.%d, driver %d)" % (device["name"], device["cc"][0], device["cc"][1],
                                                        device["driver"])


def selected(job, only):
    return not only or any(o == job["kernel"] or o == job["entry"] or o in job["id"] for o in only)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ------------------------------------------------------------ one cubin run

def child(dir, job_id, which, scratch, backend_path):
    """Runs one cubin of one job; writes scratch/result.json and the outputs."""
    jobs = load_jobs(dir)
    job = next(j for j in jobs["jobs"] if j["id"] == job_id)
    cubin = job[which]
    result = {"status": "ok", "outputs": [], "times_ms": []}
    stage = "initialising the driver"
    try:
        be = open_backend(backend_path)
        stage = "loading the cubin"
        with open(os.path.join(dir, cubin["path"]), "rb") as f:
            fn = be.load(f.read(), job["entry"])
        result["registers"] = be.registers(fn)
        if job["shared_bytes"] > DEFAULT_DYNAMIC_SHARED:
            be.set_dynamic_shared(fn, job["shared_bytes"])
        stage = "allocating buffers"
        buffers = job["buffers"]
        inputs = []
        for b in buffers:
            data = None
            if b.get("input"):
                with open(os.path.join(dir, b["input"]), "rb") as f:
                    data = f.read()
                if len(data) != b["bytes"]:
                    raise CudaError("%s: %d bytes, the job says %d" % (b["input"], len(data), b["bytes"]))
            inputs.append(data)
        ptrs = [be.alloc(b["bytes"]) for b in buffers]

        def reset(outputs_only):
            for b, ptr, data in zip(buffers, ptrs, inputs):
                if outputs_only and not b["output"]:
                    continue
                if data is None:
                    be.zero(ptr, b["bytes"])
                else:
                    be.upload(ptr, data)

        reset(False)
        params = pack_params(cubin, ptrs)
        args = (fn, job["grid"], job["block"], job["shared_bytes"], params)
        stage = "the first launch"
        be.launch(*args)
        stage = "reading back"
        for k, (b, ptr) in enumerate(zip(buffers, ptrs)):
            if b["output"]:
                name = "%d.bin" % k
                with open(os.path.join(scratch, name), "wb") as f:
                    f.write(be.download(ptr, b["bytes"]))
                result["outputs"].append({"buffer": k, "bytes": b["bytes"], "scratch": name})
        # Timed launches start from the same inputs: accumulating kernels
        # (atomics, y += ...) would otherwise time other data each time.
        for i in range(jobs["warmup"] + jobs["reps"]):
            stage = "timed launch %d" % i
            reset(True)
            t = be.timed_launch(*args)
            if i >= jobs["warmup"]:
                result["times_ms"].append(t)
    except (CudaError, OSError, ValueError) as e:
        result["status"] = "error"
        result["error"] = "%s: %s" % (stage, e)
    with open(os.path.join(scratch, "result.json"), "w") as f:
        json.dump(result, f)


def run_cubin(dir, job, which, device, scratch, backend_path, timeout):
    cubin = job[which]
    if not cubin.get("path"):
        return {"status": "skipped", "error": cubin.get("error") or "no cubin", "outputs": [], "times_ms": []}
    why = arch_mismatch(job["arch"], device["cc"])
    if why:
        return {"status": "skipped", "error": why, "outputs": [], "times_ms": []}
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", dir, job["id"], which, scratch]
    if backend_path:
        cmd += ["--backend", backend_path]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "error": "killed after %d s" % timeout, "outputs": [], "times_ms": []}
    path = os.path.join(scratch, "result.json")
    if not os.path.exists(path):
        tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-3:]
        return {"status": "error", "error": "the run died (exit code %d): %s" % (proc.returncode, " | ".join(tail)),
                "outputs": [], "times_ms": []}
    with open(path) as f:
        return json.load(f)


def keep_outputs(dir, job, runs, scratches, keep):
    """Digests every output; keeps the bytes of NVIDIA's small outputs and of
    every output where the two cubins differ (the compare step needs both
    then); deletes the rest."""
    out_dir = os.path.join(dir, "results", "out")
    for which in WHICH:
        for o in runs[which].get("outputs", []):
            o["sha256"] = sha256_file(os.path.join(scratches[which], o["scratch"]))
    nvidia = {o["buffer"]: o for o in runs["nvidia"].get("outputs", [])}
    ours = {o["buffer"]: o for o in runs["ours"].get("outputs", [])}
    for which, outs, other in (("nvidia", nvidia, ours), ("ours", ours, nvidia)):
        for k, o in outs.items():
            differs = k in other and other[k]["sha256"] != o["sha256"]
            wanted = differs or (which == "nvidia" and o["bytes"] <= keep) or (which == "ours" and k not in other)
            src = os.path.join(scratches[which], o.pop("scratch"))
            if wanted:
                rel = "results/out/%s.%s.%d.bin" % (job["id"], which, k)
                shutil.move(src, os.path.join(out_dir, os.path.basename(rel)))
                o["file"] = rel
            else:
                os.remove(src)


def summary_line(job, runs):
    def one(r):
        if r["status"] != "ok":
            return "%s (%s)" % (r["status"], (r.get("error") or "")[:80])
        t = r.get("times_ms") or []
        return "ok %.1f us" % (statistics.median(t) * 1000) if t else "ok"
    return "%-40s nvidia: %s | ours: %s" % (job["id"], one(runs["nvidia"]), one(runs["ours"]))


def probe(backend_path, timeout=120):
    """The device, from a process of its own (this one never touches CUDA)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--probe", "--json"]
    if backend_path:
        cmd += ["--backend", backend_path]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SystemExit("probing the GPU timed out")
    if proc.returncode != 0:
        raise SystemExit("no usable GPU: " + (proc.stdout + proc.stderr).strip())
    return json.loads(proc.stdout)


def write_results(dir, results):
    path = os.path.join(dir, "results", "results.json")
    with open(path + ".tmp", "w") as f:
        json.dump(results, f, indent=1)
    os.replace(path + ".tmp", path)


def run_all(dir, only=(), keep=1 << 20, backend_path=None, log=sys.stdout):
    """Runs every selected job; returns the results (also in DIR/results)."""
    jobs = load_jobs(dir)
    device = probe(backend_path)
    print("device: " + describe(device), file=log, flush=True)
    results_dir = os.path.join(dir, "results")
    shutil.rmtree(results_dir, ignore_errors=True)
    os.makedirs(os.path.join(results_dir, "out"))
    results = {"format": FORMAT, "device": device, "jobs": {}}
    scratches = {w: os.path.join(results_dir, "scratch", w) for w in WHICH}
    for job in jobs["jobs"]:
        if job.get("skip") or not selected(job, only):
            continue
        runs = {w: run_cubin(dir, job, w, device, scratches[w], backend_path, jobs["timeout_s"]) for w in WHICH}
        keep_outputs(dir, job, runs, scratches, keep)
        results["jobs"][job["id"]] = runs
        write_results(dir, results)  # after each job: a killed run still leaves what it did
        print(summary_line(job, runs), file=log, flush=True)
    shutil.rmtree(os.path.join(results_dir, "scratch"), ignore_errors=True)
    write_results(dir, results)
    return results


def pack(dir, out):
    """DIR/results as a .tar.gz cut into parts of at most PART_BYTES, so that
    a device machine can send it back as ordinary files; join them with
    `cat gpu-results.tar.gz.* | tar -xz -C DIR`."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        tar.add(os.path.join(dir, "results"), arcname="results")
    blob = data.getvalue()
    parts = [blob[i:i + PART_BYTES] for i in range(0, len(blob), PART_BYTES)] or [b""]
    if len(parts) > 7:
        raise SystemExit("results take %d parts of %d MiB: run with a smaller --keep" % (len(parts), PART_BYTES >> 20))
    os.makedirs(out, exist_ok=True)
    for i, part in enumerate(parts):
        with open(os.path.join(out, "gpu-results.tar.gz.%03d" % i), "wb") as f:
            f.write(part)
    shutil.copy(os.path.join(dir, "results", "results.json"), os.path.join(out, "results.json"))
    return len(parts)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--only", action="append", default=[], help="run jobs of this kernel/entry/id text only")
    ap.add_argument("--keep", type=int, default=1 << 20,
                    help="keep NVIDIA's output buffers up to this many bytes (default 1 MiB)")
    ap.add_argument("--pack", metavar="OUTDIR", help="then pack DIR/results into OUTDIR")
    ap.add_argument("--pack-only", nargs=2, metavar=("DIR", "OUTDIR"))
    ap.add_argument("--probe", action="store_true")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child", nargs=4, metavar=("DIR", "JOB", "WHICH", "SCRATCH"), help=argparse.SUPPRESS)
    ap.add_argument("--backend", help=argparse.SUPPRESS)  # tests: a module with open_backend()
    a = ap.parse_args(argv)
    if a.child:
        child(*a.child, a.backend)
        return 0
    if a.probe:
        try:
            info = open_backend(a.backend).device_info()
        except CudaError as e:
            print(e)
            return 1
        print(json.dumps(info) if a.json else describe(info))
        return 0
    if a.pack_only:
        print("%d part(s) written to %s" % (pack(*a.pack_only), a.pack_only[1]))
        return 0
    if not a.dir:
        ap.error("a job directory is needed")
    start = time.time()
    results = run_all(a.dir, a.only, a.keep, a.backend)
    print("%d jobs in %.0f s; results in %s" % (len(results["jobs"]), time.time() - start,
                                                os.path.join(a.dir, "results")))
    if a.pack:
        print("%d part(s) written to %s" % (pack(a.dir, a.pack), a.pack))
    return 0


if __name__ == "__main__":
    # A backend module that imports run_jobs must see this very module (one
    # CudaError class), not a second copy.
    sys.modules.setdefault("run_jobs", sys.modules[__name__])
    sys.exit(main(sys.argv[1:]))
