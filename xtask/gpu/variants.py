#!/usr/bin/env python3
"""Adds control-word variants of one job's cubin of ours to a job
directory, to bisect on a GPU which ordering a failing kernel lacks
(docs/gpu-check.md, session 11).

    python3 xtask/gpu/variants.py DIR JOB_ID FUNC NAME=N:OFF,OFF,... [NAME=...]

Each NAME=N:OFFS writes a copy of JOB_ID's cubin of ours with N cycles
added to the stall of the instructions at the hex offsets OFFS of
.text.FUNC (`rewrite_ctrl.py delay`: whatever follows each issues N
cycles later) and appends a job `JOB_ID-NAME` with the same inputs to
DIR/jobs.json. To delay a reader, name the instruction before it.
"""
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    root, job_id, func = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    jobs = json.loads((root / "jobs.json").read_text())
    base = next(j for j in jobs["jobs"] if j["id"] == job_id)
    src = root / base["ours"]["path"]
    for spec in sys.argv[4:]:
        name, rest = spec.split("=", 1)
        cycles, offsets = rest.split(":", 1)
        out = src.with_name(src.name.replace(".cubin", f".{name}.cubin"))
        subprocess.run([sys.executable, str(HERE / "rewrite_ctrl.py"), "delay", str(src), str(out), func, cycles, offsets],
                       check=True)
        v = json.loads(json.dumps(base))
        v["id"] = f"{job_id}-{name}"
        v["ours"]["path"] = str(out.relative_to(root))
        jobs["jobs"].append(v)
    (root / "jobs.json").write_text(json.dumps(jobs, indent=1))


if __name__ == "__main__":
    main()
