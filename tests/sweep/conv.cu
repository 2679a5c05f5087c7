#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
extern "C" __global__ void cvops(float* o, const double* d, const float* f, long long* l, unsigned* u, __half* h, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x; if (i>=n) return; double x = d[i]; float y = f[i];
  o[i] = (float)x + __double2float_rd(x) + __double2float_ru(x) + __int2float_rz((int)y) + __uint2float_rd((unsigned)y) + __ll2float_rn((long long)x) + __ull2float_ru((unsigned long long)y)
    + __float2int_rd(y) + __float2uint_ru(y) + __float2ll_rz(y) + __double2int_rz(x) + __double2ll_ru(x) + __double2ull_rd(x) + __half2float(__float2half_rz(y)) + __bfloat162float(__float2bfloat16_rd(y))
    + __saturatef(y) + (float)__float_as_int(y) + __int_as_float((int)x) + (float)__double_as_longlong(x) + (float)__hiloint2double(3, (int)y)
    + (float)__nv_fp8_e4m3(y) + (float)__nv_fp8_e5m2(y);
  l[i] = llrintf(y) + lrint(x) + (long long)x; u[i] = (unsigned)(unsigned char)y + (unsigned short)x; h[i] = __float2half(y) + __double2half(x);
}
