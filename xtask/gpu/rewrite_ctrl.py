"""Rewrites the control bits of every instruction in a cubin's .text.*
sections, to tell on a GPU whether a failure comes from the control words
(docs/gpu-check.md).

    python3 xtask/gpu/rewrite_ctrl.py MODE IN OUT

MODE: noreuse (clear the operand-reuse bits), serial (also wait on every
scoreboard, stall 11: stalls of 12..15 with yield are refused by nvdisasm;
not a safe sequential mode, see docs/gpu-check.md), errbar0 (ERRBAR with
NVIDIA's S00 and no yield). Bits 105..125 of each 128-bit word; the layout
is docs/mercury-encode.md's "Control bits".
"""
import struct, sys
mode, src, dst = sys.argv[1:4]
b = bytearray(open(src, "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
strtab = secs[shstrndx]
def name(s):
    o = strtab[4] + s[0]
    return b[o:b.index(0, o)].decode()
n = 0
for s in secs:
    if not name(s).startswith(".text."):
        continue
    off, size = s[4], s[5]
    for i in range(off, off + size, 16):
        hi, = struct.unpack_from("<Q", b, i + 8)
        lo, = struct.unpack_from("<Q", b, i)
        if mode == "errbar0":
            if lo & 0xfff == 0x9ab:             # ERRBAR: NVIDIA's S00, no yield
                hi &= ~(0x1f << 41)
            struct.pack_into("<Q", b, i + 8, hi)
            n += 1
            continue
        hi &= ~(0xf << 58)                      # reuse
        if mode == "serial":
            hi |= 0x3f << 52                    # wait on every scoreboard
            hi = (hi & ~(0xf << 41)) | (0xb << 41)  # stall 11 (12..15 with yield are refused)
        struct.pack_into("<Q", b, i + 8, hi)
        n += 1
open(dst, "wb").write(b)
print(f"{dst}: {n} instructions")
