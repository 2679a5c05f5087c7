#!/usr/bin/env python3
"""Tests of run_jobs.py without a GPU: python3 -m unittest xtask/gpu/test_run_jobs.py
(also run by `cargo test -p xtask`).

This file doubles as the runner's test backend (`--backend THIS_FILE`): a
"cubin" is a word naming what the fake kernel does, so that the tests can
drive the real process-per-cubin machinery through success, wrong results,
faults, crashes and hangs.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_jobs  # noqa: E402

THIS = os.path.abspath(__file__)


class FakeBackend:
    """Memory is a dict of buffers; kernels are named by their cubin's text.
    `addK`: out[i] = in[i] + K for i < n, where the parameters are
    (in: pointer, out: pointer, n: i32) at offsets 0, 8, 16."""

    def __init__(self):
        self.memory = {}
        self.next = 0x7F0000000000

    def device_info(self):
        return {"name": "fake GPU", "cc": [9, 0], "driver": 13000}

    def load(self, image, entry):
        word = image.decode().strip()
        if word == "badimage":
            raise run_jobs.CudaError("cuModuleLoadData: CUDA_ERROR_INVALID_IMAGE (200)")
        return (word, entry)

    def registers(self, fn):
        return 16

    def set_dynamic_shared(self, fn, nbytes):
        pass

    def alloc(self, nbytes):
        ptr = self.next
        self.memory[ptr] = bytearray(nbytes)
        self.next += (nbytes + 0xFFFF) & ~0xFFFF
        return ptr

    def upload(self, ptr, data):
        self.memory[ptr][:] = data

    def zero(self, ptr, nbytes):
        self.memory[ptr][:] = bytes(nbytes)

    def download(self, ptr, nbytes):
        return bytes(self.memory[ptr][:nbytes])

    def launch(self, fn, grid, block, shared, params):
        word = fn[0]
        if word == "fault":
            raise run_jobs.CudaError("cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (700)")
        if word == "crash":
            os._exit(3)
        if word == "hang":
            time.sleep(60)
        k = int(word[3:])
        src = self.memory[int.from_bytes(params[0:8], "little")]
        dst = self.memory[int.from_bytes(params[8:16], "little")]
        n = int.from_bytes(params[16:20], "little")
        for i in range(n):
            dst[i] = (src[i] + k) & 0xFF

    def timed_launch(self, *args):
        self.launch(*args)
        return 0.001 * int(args[0][0][3:])


def open_backend():
    return FakeBackend()


def make_dir(root, pairs, n=1000, size=1000):
    """A job directory with a job per (nvidia, ours) pair of fake kernels."""
    os.makedirs(os.path.join(root, "cubins"))
    os.makedirs(os.path.join(root, "inputs"))
    with open(os.path.join(root, "inputs", "in.bin"), "wb") as f:
        f.write(bytes(i * 7 % 256 for i in range(size)))
    params = [{"offset": 0, "size": 8, "buffer": 0}, {"offset": 8, "size": 8, "buffer": 1},
              {"offset": 16, "size": 4, "hex": n.to_bytes(4, "little").hex()}]
    jobs = []
    for i, (nv, ours) in enumerate(pairs):
        job = {"id": "%03d-k%d-sm_90" % (i, i), "kernel": "k%d" % i, "entry": "k", "arch": "sm_90",
               "grid": [4, 1, 1], "block": [256, 1, 1], "shared_bytes": 0, "compare": "exact",
               "buffers": [{"name": "src", "type": "u8", "bytes": size, "output": False, "input": "inputs/in.bin"},
                           {"name": "dst", "type": "u8", "bytes": size, "output": True}]}
        for which, word in (("nvidia", nv), ("ours", ours)):
            if word is None:
                job[which] = {"error": "lowering of 'x' is not supported yet", "param_bytes": 0, "params": []}
                continue
            rel = "cubins/%d.%s.cubin" % (i, which)
            with open(os.path.join(root, rel), "w") as f:
                f.write(word)
            job[which] = {"path": rel, "param_bytes": 20, "params": params}
        jobs.append(job)
    with open(os.path.join(root, "jobs.json"), "w") as f:
        json.dump({"format": 1, "manifest": "test", "warmup": 1, "reps": 3, "timeout_s": 3, "jobs": jobs}, f)


class Helpers(unittest.TestCase):
    def test_pack_params_places_pointers_and_values(self):
        cubin = {"param_bytes": 28, "params": [{"offset": 0, "size": 8, "buffer": 1},
                                              {"offset": 8, "size": 4, "hex": "01000000"},
                                              {"offset": 16, "size": 8, "buffer": 0},
                                              {"offset": 24, "size": 2, "hex": "ffff0000"}]}
        block = run_jobs.pack_params(cubin, [0x7F0000001000, 0x7F0000002000])
        self.assertEqual(len(block), 28)
        self.assertEqual(int.from_bytes(block[0:8], "little"), 0x7F0000002000)
        self.assertEqual(block[8:12], b"\x01\0\0\0")
        self.assertEqual(int.from_bytes(block[16:24], "little"), 0x7F0000001000)
        self.assertEqual(block[24:28], b"\xff\xff\0\0")  # truncated to the slot's 2 bytes

    def test_pack_params_refuses_a_slot_outside_the_block(self):
        with self.assertRaises(ValueError):
            run_jobs.pack_params({"param_bytes": 4, "params": [{"offset": 0, "size": 8, "buffer": 0}]}, [1])

    def test_architecture_compatibility(self):
        self.assertIsNone(run_jobs.arch_mismatch("sm_90", [9, 0]))
        self.assertIsNone(run_jobs.arch_mismatch("sm_90a", [9, 0]))
        self.assertIsNone(run_jobs.arch_mismatch("sm_80", [8, 6]))
        self.assertIn("cannot run", run_jobs.arch_mismatch("sm_80", [9, 0]))
        self.assertIn("cannot run", run_jobs.arch_mismatch("sm_86", [8, 0]))
        self.assertIn("cannot run", run_jobs.arch_mismatch("sm_100a", [10, 3]))
        self.assertIsNone(run_jobs.arch_mismatch("sm_120", [12, 0]))


class Runs(unittest.TestCase):
    def run_dir(self, pairs, **kw):
        root = tempfile.mkdtemp(prefix="gpu-check-test-")
        make_dir(root, pairs)
        with open(os.devnull, "w") as log:
            results = run_jobs.run_all(root, backend_path=THIS, log=log, **kw)
        with open(os.path.join(root, "results", "results.json")) as f:
            self.assertEqual(json.load(f), results)
        return root, results

    def test_same_outputs_keep_one_copy(self):
        root, r = self.run_dir([("add1", "add1")])
        self.assertEqual(r["device"]["cc"], [9, 0])
        runs = r["jobs"]["000-k0-sm_90"]
        nv, ours = runs["nvidia"], runs["ours"]
        self.assertEqual((nv["status"], ours["status"]), ("ok", "ok"))
        self.assertEqual(nv["outputs"][0]["sha256"], ours["outputs"][0]["sha256"])
        self.assertNotIn("file", ours["outputs"][0])  # the same bytes as NVIDIA's
        with open(os.path.join(root, nv["outputs"][0]["file"]), "rb") as f:
            out = f.read()
        self.assertEqual(out[:3], bytes([1, 8, 15]))
        self.assertEqual(nv["times_ms"], [0.001] * 3)  # reps, not warm-ups
        self.assertEqual(nv["registers"], 16)

    def test_differing_outputs_keep_both(self):
        root, r = self.run_dir([("add1", "add2")], keep=0)
        runs = r["jobs"]["000-k0-sm_90"]
        self.assertNotEqual(runs["nvidia"]["outputs"][0]["sha256"], runs["ours"]["outputs"][0]["sha256"])
        for which in ("nvidia", "ours"):
            self.assertTrue(os.path.exists(os.path.join(root, runs[which]["outputs"][0]["file"])))

    def test_large_equal_outputs_keep_only_digests(self):
        _, r = self.run_dir([("add1", "add1")], keep=10)
        self.assertNotIn("file", r["jobs"]["000-k0-sm_90"]["nvidia"]["outputs"][0])

    def test_failures_are_per_job(self):
        _, r = self.run_dir([("add1", "fault"), ("add1", "crash"), ("add1", "badimage"), ("add1", None),
                             ("add1", "add1")])
        j = r["jobs"]
        self.assertEqual(j["000-k0-sm_90"]["ours"]["status"], "error")
        self.assertIn("ILLEGAL_ADDRESS", j["000-k0-sm_90"]["ours"]["error"])
        self.assertIn("the first launch", j["000-k0-sm_90"]["ours"]["error"])
        self.assertIn("exit code 3", j["001-k1-sm_90"]["ours"]["error"])
        self.assertIn("loading the cubin", j["002-k2-sm_90"]["ours"]["error"])
        self.assertEqual(j["003-k3-sm_90"]["ours"]["status"], "skipped")
        for i in range(5):
            self.assertEqual(j["%03d-k%d-sm_90" % (i, i)]["nvidia"]["status"], "ok")
        self.assertEqual(j["004-k4-sm_90"]["ours"]["status"], "ok")

    def test_a_hang_is_killed(self):
        start = time.time()
        _, r = self.run_dir([("add1", "hang")])
        self.assertEqual(r["jobs"]["000-k0-sm_90"]["ours"]["status"], "timeout")
        self.assertLess(time.time() - start, 30)

    def test_only_selects_jobs(self):
        _, r = self.run_dir([("add1", "add1"), ("add2", "add2")], only=["k1"])
        self.assertEqual(list(r["jobs"]), ["001-k1-sm_90"])

    def test_pack_round_trip(self):
        root, _ = self.run_dir([("add1", "add2")], keep=0)
        out = tempfile.mkdtemp(prefix="gpu-check-pack-")
        self.assertEqual(run_jobs.pack(root, out), 1)
        back = tempfile.mkdtemp(prefix="gpu-check-unpack-")
        subprocess.run("cat %s/gpu-results.tar.gz.* | tar -xz -C %s" % (out, back), shell=True, check=True)
        with open(os.path.join(back, "results", "results.json")) as f, open(os.path.join(out, "results.json")) as g:
            self.assertEqual(json.load(f), json.load(g))
        self.assertEqual(len(os.listdir(os.path.join(back, "results", "out"))), 2)

    def test_probe_without_a_driver_fails_cleanly(self):
        # Here (no GPU) or on a GPU machine, --probe must not crash.
        proc = subprocess.run([sys.executable, run_jobs.__file__, "--probe"], capture_output=True, text=True)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertIn(proc.returncode, (0, 1))


if __name__ == "__main__":
    unittest.main()
