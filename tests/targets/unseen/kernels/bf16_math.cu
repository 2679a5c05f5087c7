// bfloat16: conversions both ways, packed add/mul/fma and a float
// accumulation of pairs.
#include <cuda_bf16.h>
extern "C" __global__ void bf16_math(const float* __restrict__ x, const float* __restrict__ y,
                                     __nv_bfloat16* __restrict__ out, float* __restrict__ acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat162 a = __floats2bfloat162_rn(x[i], y[i]);
    __nv_bfloat162 b = __floats2bfloat162_rn(y[i] * 0.5f, -x[i]);
    __nv_bfloat162 c = __hfma2(a, b, __hadd2(a, b));
    __nv_bfloat162 m = __hmul2(c, a);
    out[2 * i] = __low2bfloat16(m);
    out[2 * i + 1] = __high2bfloat16(m);
    acc[i] = __bfloat162float(__low2bfloat16(c)) + __bfloat162float(__high2bfloat16(c));
}
