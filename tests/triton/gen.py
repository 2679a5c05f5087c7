#!/usr/bin/env python3
"""Regenerates the Triton fixtures tests/triton/NAME.sm80.ptx and
NAME.sm{90,100,120}a.ptx: kernels in the shape of Triton's tutorials, compiled by the
pinned Triton that `cargo xtask triton` installs into target/triton, with
no GPU: `triton.compile(ASTSource(fn, signature, constexprs),
target=GPUTarget("cuda", 80, 90, 100 or 120, 32))`.

    cargo xtask triton --update        (or, by hand:)
    PYTHONPATH=target/triton TRITON_PTXAS_PATH=... python3 tests/triton/gen.py OUT_DIR [NAME...]

Triton runs ptxas as the last stage of `compile`; the PTX is taken from
the compiled kernel's `asm["ptx"]`, exactly what Triton gives ptxas (but
for the path of this script in `.file`, made relative).
Every pointer argument is marked 16-byte divisible, as Triton's launcher
does for the aligned buffers that torch allocates.
"""
import pathlib
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.language.extra.cuda import libdevice

HERE = pathlib.Path(__file__).resolve().parent


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    start = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(start, n_rows, step):
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_stride + cols, y, mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n_elements, p, seed, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    keep = tl.rand(seed, offsets) > p
    tl.store(out_ptr + offsets, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    exact = 0.5 * x * (1.0 + libdevice.erf(x * 0.7071067811865476))
    tanh = 0.5 * x * (1.0 + libdevice.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    tl.store(out_ptr + offsets, exact + libdevice.exp2(x) * 0.0 + tanh * 1e-3, mask=mask)


@triton.jit
def reduce_kernel(x_ptr, sum_ptr, max_ptr, argmax_ptr, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_C)
    mask = cols[None, :] < n_cols
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(sum_ptr + rows, tl.sum(x, axis=1))
    tl.store(max_ptr + rows, tl.max(tl.where(mask, x, -float("inf")), axis=1))
    tl.store(argmax_ptr + rows, tl.argmax(tl.where(mask, x, -float("inf")), axis=1))


@triton.jit
def scan_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets)
    tl.store(out_ptr + offsets, tl.cumsum(x, axis=0))


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n_elements, n_bins, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0)
    bins = x % n_bins
    tl.atomic_add(hist_ptr + bins, 1, mask=mask)
    tl.atomic_max(hist_ptr + n_bins + offsets * 0, x, mask=mask)


@triton.jit
def intdiv_kernel(a_ptr, q_ptr, r_ptr, n_elements, d, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask, other=0)
    tl.store(q_ptr + offsets, a // d + a // 7, mask=mask)
    tl.store(r_ptr + offsets, a % d - (a % 13), mask=mask)


@triton.jit
def inductor_pointwise(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # torch-Inductor's `triton_poi_fused_*` shape: a broadcast operand kept
    # in L2 (`evict_last`), the streamed one let go (`evict_first`), GELU
    # through libdevice and a clamp.
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex % 256
    tmp0 = tl.load(in_ptr0 + xindex, xmask, eviction_policy="evict_first")
    tmp1 = tl.load(in_ptr1 + x0, xmask, eviction_policy="evict_last")
    tmp2 = tmp0 + tmp1
    tmp3 = 0.5 * tmp2 * (1.0 + libdevice.erf(tmp2 * 0.7071067811865476))
    tmp4 = tl.clamp(tl.sigmoid(tmp2) + libdevice.tanh(tmp2), 0.0, 1.0)
    tl.store(out_ptr0 + xindex, tmp3 + tmp4, xmask, eviction_policy="evict_first")


@triton.jit
def inductor_reduction(in_ptr0, in_ptr1, out_ptr0, out_ptr1, xnumel, rnumel, XBLOCK: tl.constexpr,
                       RBLOCK: tl.constexpr):
    # torch-Inductor's `triton_red_fused_*` shape: a looped row reduction
    # (max and sum of a product) with eviction hints on both loads.
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rbase = tl.arange(0, RBLOCK)[None, :]
    acc_max = tl.full([XBLOCK, RBLOCK], float("-inf"), tl.float32)
    acc_sum = tl.zeros([XBLOCK, RBLOCK], tl.float32)
    for roffset in range(0, rnumel, RBLOCK):
        rindex = roffset + rbase
        rmask = rindex < rnumel
        tmp0 = tl.load(in_ptr0 + (rindex + rnumel * xindex), rmask & xmask, eviction_policy="evict_first", other=0.0)
        tmp1 = tl.load(in_ptr1 + rindex, rmask, eviction_policy="evict_last", other=0.0)
        tmp2 = tmp0 * tmp1
        acc_max = tl.where(rmask & xmask, tl.maximum(acc_max, tmp2), acc_max)
        acc_sum = tl.where(rmask & xmask, acc_sum + tmp2, acc_sum)
    tl.store(out_ptr0 + xindex, tl.max(acc_max, 1)[:, None], xmask)
    tl.store(out_ptr1 + xindex, tl.sum(acc_sum, 1)[:, None], xmask)


@triton.jit
def math_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # `tl.math` as libraries use it: exp, log, sqrt, rsqrt, sin, cos, erf,
    # floor, ceil, a correctly rounded division and an fma.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.exp(x) + tl.log(tl.abs(x) + 1) + tl.sqrt(tl.abs(x)) + tl.rsqrt(tl.abs(x) + 1) + tl.sin(x) + tl.cos(x)
    y += tl.math.erf(x) + tl.math.floor(x) + tl.math.ceil(x) + tl.math.div_rn(x, 3.0) + tl.math.fma(x, x, 1.0)
    tl.store(out_ptr + offs, y, mask=m)


@triton.jit
def attention_kernel(Q, K, V, O, seq, sm_scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # Flash attention forward (online softmax over key blocks), one head.
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + offs_m[:, None] * D + offs_d[None, :], mask=offs_m[:, None] < seq, other=0.0)
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for start in range(0, seq, BN):
        offs_n = start + tl.arange(0, BN)
        k = tl.load(K + offs_n[None, :] * D + offs_d[:, None], mask=offs_n[None, :] < seq, other=0.0)
        s = tl.dot(q, k) * sm_scale
        s = tl.where(offs_n[None, :] < seq, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp2((s - m_new[:, None]) * 1.4426950408889634)
        alpha = tl.exp2((m_i - m_new) * 1.4426950408889634)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + offs_n[:, None] * D + offs_d[None, :], mask=offs_n[:, None] < seq, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out = (acc / l_i[:, None]).to(O.dtype.element_ty)
    tl.store(O + offs_m[:, None] * D + offs_d[None, :], out, mask=offs_m[:, None] < seq)


@triton.jit
def layer_norm_bwd(DX, DY, DW, DB, X, W, Mean, Rstd, stride, N, BLOCK: tl.constexpr):
    # The tutorial's backward pass, one row per program: dx, and the row's
    # share of dw and db stored per row (the tutorial sums them under a
    # spin lock; the partial sums here keep every output deterministic).
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    wdy = tl.where(mask, w * dy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + row * stride + cols, dx, mask=mask)
    tl.store(DW + row * stride + cols, (dy * xhat).to(w.dtype), mask=mask)
    tl.store(DB + row * stride + cols, dy.to(w.dtype), mask=mask)


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def scan2d_kernel(x_ptr, sum_ptr, prod_ptr, max_ptr, rev_ptr, R: tl.constexpr, C: tl.constexpr):
    # Scans along rows of a 2-D tile: an inclusive sum, a product, a running
    # maximum (`tl.associative_scan` with a user combine) and a reversed sum.
    rows = tl.program_id(0) * R + tl.arange(0, R)[:, None]
    cols = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + rows * C + cols)
    tl.store(sum_ptr + rows * C + cols, tl.cumsum(x, axis=1))
    tl.store(prod_ptr + rows * C + cols, tl.cumprod((x & 3) + 1, axis=1))
    tl.store(max_ptr + rows * C + cols, tl.associative_scan(x, 1, _max_combine))
    tl.store(rev_ptr + rows * C + cols, tl.cumsum(x, axis=1, reverse=True))


@triton.jit
def sort_kernel(x_ptr, sorted_ptr, desc_ptr, argmin_ptr, min_ptr, R: tl.constexpr, C: tl.constexpr):
    # Per-row sort (both orders, Triton's bitonic network), argmin and min.
    rows = tl.program_id(0) * R + tl.arange(0, R)
    x = tl.load(x_ptr + rows[:, None] * C + tl.arange(0, C)[None, :])
    offs = rows[:, None] * C + tl.arange(0, C)[None, :]
    tl.store(sorted_ptr + offs, tl.sort(x, 1))
    tl.store(desc_ptr + offs, tl.sort(x, 1, descending=True))
    tl.store(argmin_ptr + rows, tl.argmin(x, 1))
    tl.store(min_ptr + rows, tl.min(x, 1))


@triton.jit
def libm_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # libdevice as libraries call it: log1p, expm1, pow, exp2, log2, atan2,
    # cbrt, tanh, asinh, a float remainder, and `tl.math` exp2/log2.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    a = libdevice.log1p(tl.abs(x)) + libdevice.expm1(x * 0.5) + libdevice.pow(tl.abs(x) + 0.5, y)
    a += libdevice.exp2(y) + libdevice.log2(tl.abs(y) + 1.0) + libdevice.atan2(y, x) + libdevice.cbrt(x)
    a += libdevice.tanh(x) + libdevice.asinh(y) + libdevice.fmod(x, y + 3.0) + tl.math.exp2(x) * tl.math.log2(y + 5.0)
    tl.store(out_ptr + offs, a, mask=m)


@triton.jit
def fp8_cvt_kernel(x_ptr, e4m3_ptr, e5m2_ptr, back_ptr, bf16_ptr, n, BLOCK: tl.constexpr):
    # fp8 conversions (round to nearest even, saturating as Triton does)
    # both ways, and bf16 rounding.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    a = x.to(tl.float8e4nv)
    b = x.to(tl.float8e5)
    tl.store(e4m3_ptr + offs, a.to(tl.uint8, bitcast=True), mask=m)
    tl.store(e5m2_ptr + offs, b.to(tl.uint8, bitcast=True), mask=m)
    tl.store(back_ptr + offs, a.to(tl.float32) + b.to(tl.float32), mask=m)
    tl.store(bf16_ptr + offs, x.to(tl.bfloat16).to(tl.float32), mask=m)


@triton.jit
def atomics_kernel(x_ptr, fsum_ptr, imin_ptr, cas_ptr, xchg_ptr, n, BLOCK: tl.constexpr):
    # Atomics beyond the histogram's: float add into one word (`RED.F32` or
    # its returning form), integer min and or, compare-and-swap and exchange.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.atomic_add(fsum_ptr + offs % 4, x.to(tl.float32) * 0.25, mask=m)
    tl.atomic_min(imin_ptr + offs % 8, x, mask=m)
    tl.atomic_or(imin_ptr + 8 + offs % 2, x & 0xff, mask=m)
    old = tl.atomic_cas(cas_ptr + offs, tl.zeros_like(x), x)
    tl.store(xchg_ptr + offs, tl.atomic_xchg(cas_ptr + offs, old + 1), mask=m)


@triton.jit
def matmul_i8_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    # int8 x int8 into int32 (`mma...s8.s8.s32`, NVIDIA's IMMA; IGMMA on sm_90a).
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
        b = tl.load(b_ptr + (k + offs_k)[:, None] * N + offs_n[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)


def matmul(in_ty, out_ty, bm, bn, bk, warps):
    sig = {"a_ptr": f"*{in_ty}", "b_ptr": f"*{in_ty}", "c_ptr": f"*{out_ty}"}
    sig.update({k: "i32" for k in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm",
                                   "stride_cn")})
    sig.update({k: "constexpr" for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M")})
    consts = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}
    # The unit strides are constants, as Triton specializes an argument
    # equal to 1 (row-major A, B and C).
    for unit in ("stride_ak", "stride_bn", "stride_cn"):
        sig[unit] = "constexpr"
        consts[unit] = 1
    return matmul_kernel, sig, consts, warps


# name -> (function, signature, constexprs, num_warps, targets)
KERNELS = {
    "add": (add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32",
                         "BLOCK": "constexpr"}, {"BLOCK": 1024}, 4),
    "softmax": (softmax_kernel, {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32", "out_stride": "i32",
                                 "n_rows": "i32", "n_cols": "i32", "BLOCK": "constexpr"}, {"BLOCK": 1024}, 8),
    "matmul_f16": matmul("fp16", "fp16", 128, 128, 32, 4),
    "matmul_bf16": matmul("bf16", "fp32", 64, 128, 32, 4),
    "matmul_tf32": matmul("fp32", "fp32", 64, 64, 32, 4),
    # fp8 dots need sm_89 or later: sm_90a only (FP8_ONLY).
    "matmul_fp8": matmul("fp8e4nv", "fp16", 64, 128, 64, 4),
    "layer_norm": (layer_norm_fwd, {"X": "*fp32", "Y": "*fp32", "W": "*fp32", "B": "*fp32", "Mean": "*fp32",
                                    "Rstd": "*fp32", "stride": "i32", "N": "i32", "eps": "fp32",
                                    "BLOCK": "constexpr"}, {"BLOCK": 512}, 4),
    "dropout": (dropout_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32", "p": "fp32",
                                 "seed": "i32", "BLOCK": "constexpr"}, {"BLOCK": 1024}, 4),
    "gelu": (gelu_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32", "BLOCK": "constexpr"},
             {"BLOCK": 512}, 4),
    "reduce": (reduce_kernel, {"x_ptr": "*fp32", "sum_ptr": "*fp32", "max_ptr": "*fp32", "argmax_ptr": "*i32",
                               "n_cols": "i32", "BLOCK_R": "constexpr", "BLOCK_C": "constexpr"},
               {"BLOCK_R": 4, "BLOCK_C": 256}, 4),
    "scan": (scan_kernel, {"x_ptr": "*i32", "out_ptr": "*i32", "BLOCK": "constexpr"}, {"BLOCK": 512}, 4),
    "histogram": (histogram_kernel, {"x_ptr": "*i32", "hist_ptr": "*i32", "n_elements": "i32", "n_bins": "i32",
                                     "BLOCK": "constexpr"}, {"BLOCK": 1024}, 4),
    "intdiv": (intdiv_kernel, {"a_ptr": "*i32", "q_ptr": "*i32", "r_ptr": "*i32", "n_elements": "i32", "d": "i32",
                               "BLOCK": "constexpr"}, {"BLOCK": 512}, 4),
    "inductor_pointwise": (inductor_pointwise, {"in_ptr0": "*fp32", "in_ptr1": "*fp32", "out_ptr0": "*fp32",
                                                "xnumel": "i32", "XBLOCK": "constexpr"}, {"XBLOCK": 512}, 4),
    "inductor_reduction": (inductor_reduction, {"in_ptr0": "*fp32", "in_ptr1": "*fp32", "out_ptr0": "*fp32",
                                                "out_ptr1": "*fp32", "xnumel": "i32", "rnumel": "i32",
                                                "XBLOCK": "constexpr", "RBLOCK": "constexpr"},
                           {"XBLOCK": 4, "RBLOCK": 128}, 4),
    "math": (math_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 512},
             4),
    "attention": (attention_kernel, {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "O": "*fp16", "seq": "i32",
                                     "sm_scale": "fp32", "D": "constexpr", "BM": "constexpr", "BN": "constexpr"},
                  {"D": 64, "BM": 64, "BN": 64}, 4),
    "layer_norm_bwd": (layer_norm_bwd, {"DX": "*fp32", "DY": "*fp32", "DW": "*fp32", "DB": "*fp32", "X": "*fp32",
                                        "W": "*fp32", "Mean": "*fp32", "Rstd": "*fp32", "stride": "i32", "N": "i32",
                                        "BLOCK": "constexpr"}, {"BLOCK": 1024}, 4),
    "scan2d": (scan2d_kernel, {"x_ptr": "*i32", "sum_ptr": "*i32", "prod_ptr": "*i32", "max_ptr": "*i32",
                               "rev_ptr": "*i32", "R": "constexpr", "C": "constexpr"}, {"R": 4, "C": 64}, 4),
    "sort": (sort_kernel, {"x_ptr": "*fp32", "sorted_ptr": "*fp32", "desc_ptr": "*fp32", "argmin_ptr": "*i32",
                           "min_ptr": "*fp32", "R": "constexpr", "C": "constexpr"}, {"R": 4, "C": 64}, 4),
    "libm": (libm_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
             {"BLOCK": 512}, 4),
    "fp8_cvt": (fp8_cvt_kernel, {"x_ptr": "*fp32", "e4m3_ptr": "*u8", "e5m2_ptr": "*u8", "back_ptr": "*fp32",
                                 "bf16_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 512}, 4),
    "atomics": (atomics_kernel, {"x_ptr": "*i32", "fsum_ptr": "*fp32", "imin_ptr": "*i32", "cas_ptr": "*i32",
                                 "xchg_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 512}, 4),
    "matmul_i8": (matmul_i8_kernel, {"a_ptr": "*i8", "b_ptr": "*i8", "c_ptr": "*i32", "M": "i32", "N": "i32",
                                     "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
                                     "BLOCK_K": "constexpr"}, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, 4),
}

# Triton's names for its targets: sm_90 compiles as sm_90a, and so do the
# Blackwell ones (sm_100a, sm_120a: ptxas from TRITON_PTXAS_BLACKWELL_PATH).
TARGETS = {"sm80": 80, "sm90a": 90, "sm100a": 100, "sm120a": 120}
# Kernels Triton compiles for sm_90a and later only (fp8e4nv needs sm_89).
FP8_ONLY = {"matmul_fp8", "fp8_cvt"}


def generate(name, out):
    fn, sig, consts, warps = KERNELS[name]
    attrs = {(i, ): [["tt.divisibility", 16]] for i, ty in enumerate(sig.values()) if ty.startswith("*")}
    for tag, cap in TARGETS.items():
        if name in FP8_ONLY and cap < 90:
            continue
        src = ASTSource(fn, sig, constexprs=consts, attrs=attrs)
        kernel = triton.compile(src, target=GPUTarget("cuda", cap, 32), options={"num_warps": warps})
        # The `.file` Triton writes is this script's absolute path: made
        # relative, so that the fixtures do not depend on the checkout.
        ptx = kernel.asm["ptx"].replace(f'"{HERE}/', '"')
        (out / f"{name}.{tag}.ptx").write_text(ptx)
        # What a launch needs beside the PTX (tests/triton/manifest.toml).
        print(f"{name}.{tag}: {warps * 32} threads, {kernel.metadata.shared} bytes of dynamic shared memory")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    names = sys.argv[2:] or list(KERNELS)
    for name in names:
        if name not in KERNELS:
            sys.exit(f"unknown kernel {name}; known: {', '.join(KERNELS)}")
        generate(name, out)


if __name__ == "__main__":
    main()
