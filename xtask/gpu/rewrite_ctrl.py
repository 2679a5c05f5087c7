"""Rewrites instructions of a cubin's .text.* sections, to bisect on a GPU
whether a failure comes from one control word or one value
(docs/gpu-check.md, sessions 8 and 9).

    python3 xtask/gpu/rewrite_ctrl.py MODE IN OUT [ARGS]

MODE:
  noreuse          clear every operand-reuse bit
  serial           also wait on every scoreboard, stall 11 (stalls 12..15
                   with yield are refused by nvdisasm); NOT a safe
                   sequential mode: it breaks correct cubins
  errbar0          ERRBAR with NVIDIA's S00 and no yield
  bar1             BAR.SYNC with stall 1 (undoes the barrier-before-memory
                   ordering, to show that it is needed)
  imm FUNC OFF V   set the 32-bit immediate (bits 32..63) of the
                   instruction at hex offset OFF of .text.FUNC to hex V
  delay FUNC N OFF,OFF,...
                   add N cycles to the stall of each instruction at the
                   hex offsets of .text.FUNC (at most 11: a longer stall
                   needs the yield bit clear), so that whatever follows it
                   issues N cycles later

Control bits are bits 105..125 of each 128-bit word (docs/mercury-encode.md,
"Control bits"); the opcode is in bits 0..11.
"""
import struct
import sys

ERRBAR = 0x9AB
BAR_SYNC = 0xB1D
STALL = 0xF << 41
REUSE = 0xF << 58
WAIT_ALL = 0x3F << 52


def sections(b):
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    strtab = secs[shstrndx]
    for s in secs:
        o = strtab[4] + s[0]
        yield b[o:b.index(0, o)].decode(), s[4], s[5]


def rewrite(mode, hi, lo):
    """The new high word of one instruction, or None to leave it."""
    op = lo & 0xFFF
    if mode == "errbar0":
        return hi & ~(0x1F << 41) if op == ERRBAR else None
    if mode == "bar1":
        return (hi & ~STALL) | (1 << 41) if op == BAR_SYNC else None
    hi &= ~REUSE
    if mode == "serial":
        hi = (hi | WAIT_ALL) & ~STALL | (0xB << 41)
    return hi


def main():
    mode, src, dst = sys.argv[1:4]
    b = bytearray(open(src, "rb").read())
    n = 0
    if mode == "imm":
        func, off, value = sys.argv[4], int(sys.argv[5], 16), int(sys.argv[6], 16)
        start = next(o for name, o, _ in sections(b) if name == ".text." + func)
        struct.pack_into("<I", b, start + off + 4, value)
        n = 1
    elif mode == "delay":
        func, add = sys.argv[4], int(sys.argv[5])
        start = next(o for name, o, _ in sections(b) if name == ".text." + func)
        for off in sys.argv[6].split(","):
            i = start + int(off, 16)
            hi, = struct.unpack_from("<Q", b, i + 8)
            stall = hi >> 41 & 0xF
            new = max(stall, min(stall + add, 11))
            struct.pack_into("<Q", b, i + 8, hi & ~STALL | new << 41)
            n += new != stall
    elif mode in ("noreuse", "serial", "errbar0", "bar1"):
        for name, off, size in list(sections(b)):
            if not name.startswith(".text."):
                continue
            for i in range(off, off + size, 16):
                lo, hi = struct.unpack_from("<QQ", b, i)
                new = rewrite(mode, hi, lo)
                if new is not None and new != hi:
                    struct.pack_into("<Q", b, i + 8, new)
                    n += 1
    else:
        sys.exit(f"unknown mode {mode!r} (see the docstring)")
    open(dst, "wb").write(b)
    print(f"{dst}: {n} instructions rewritten")


if __name__ == "__main__":
    main()
