// Half-precision math: __hadd2/__hsub2/__hmul2 on pairs, __hfma with a
// per-thread scalar, comparisons (__hgt2 masks, __hmax), conversions.
#include <cuda_fp16.h>
extern "C" __global__ void half_math(const __half2* __restrict__ a, const __half2* __restrict__ b,
                                     __half2* __restrict__ out, __half* __restrict__ out1,
                                     float* __restrict__ outf, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 x = a[i], y = b[i];
    __half2 s = __hadd2(x, y);
    __half2 d = __hsub2(x, y);
    __half2 p = __hmul2(s, d);
    __half2 g = __hgt2(x, y);
    __half2 r = __hfma2(g, p, __hneg2(d));
    out[i] = r;
    __half k = __int2half_rn(i & 15);
    __half h = __hfma(__low2half(x), k, __high2half(y));
    out1[i] = __hmax(h, __float2half(-1.0f));
    outf[i] = __half2float(__low2half(r)) - __half2float(__high2half(r)) * 0.25f;
}
