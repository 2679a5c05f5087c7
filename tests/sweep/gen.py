#!/usr/bin/env python3
"""Regenerates tests/sweep/NAME.sm80.ptx and NAME.sm90.ptx from NAME.cu with
NVIDIA's NVRTC (installed by `cargo xtask oracle` into target/oracle), the
way ../shared/corpus/gen.py makes the corpus PTX.

    python3 tests/sweep/gen.py tests/sweep/math.cu [...]

atom.cu's PTX is tests/ptx/aops.ptx and aops.sm90.ptx.
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT.parent / "shared" / "corpus"))
import gen  # noqa: E402

CU13 = ROOT / "target" / "oracle" / "nvidia" / "cu13"
nvrtc = gen.Nvrtc(gen.load_nvrtc(str(CU13 / "lib" / "libnvrtc.so.13"))[0])
for name in sys.argv[1:]:
    src = pathlib.Path(name)
    for sm in (80, 90):
        opts = [f"-arch=compute_{sm}", f"-I{CU13 / 'include'}", "-std=c++17"]
        ptx, log = nvrtc.compile(src.read_text(), src.name, opts)
        if ptx is None:
            sys.exit(f"{src}: sm_{sm}: {log}")
        src.with_suffix(f".sm{sm}.ptx").write_text(ptx)
