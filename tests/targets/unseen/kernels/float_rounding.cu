// The rounding-mode intrinsics of CUDA's math API, f32 and f64, and the
// conversions with explicit rounding: each is one PTX instruction with a
// rounding modifier NVIDIA's ptxas must honour exactly.
extern "C" __global__ void float_rounding(const float *a, const float *b,
                                          const double *c, const double *d,
                                          float *of, double *od, long long *oi,
                                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
  double u = c[i], v = d[i];
  float *f = of + 12 * i;
  f[0] = __fadd_rz(x, y) + __fadd_ru(x, y);
  f[1] = __fmul_rd(x, y) - __fmul_ru(x, y);
  f[2] = __fmaf_rz(x, y, 1.5f) + __fmaf_rd(x, y, -0.25f);
  f[3] = __frcp_rz(y) + __frcp_ru(x);
  f[4] = __fsqrt_rd(fabsf(x)) + __fsqrt_ru(fabsf(y));
  f[5] = __fdiv_rz(x, y) + __fdiv_ru(y, x);
  f[6] = __saturatef(x) + __frsqrt_rn(fabsf(y) + 1.0f);
  f[7] = __double2float_rz(u) + __double2float_ru(v);
  f[8] = __int2float_rz((int)(x * 1e6f)) + __uint2float_ru((unsigned)(fabsf(y) * 1e7f));
  f[9] = __ll2float_rd((long long)(u * 1e12)) + __ull2float_rz((unsigned long long)fabs(v * 1e15));
  f[10] = rintf(x * 7.5f) + truncf(y * 3.3f) + nearbyintf(x - y);
  f[11] = copysignf(fabsf(x), y) + fdimf(x, y);
  double *g = od + 8 * i;
  g[0] = __dadd_rz(u, v) + __dadd_ru(u, v);
  g[1] = __dmul_rd(u, v) - __dmul_rz(u, v);
  g[2] = __fma_ru(u, v, 0.5) + __fma_rz(u, v, -2.0);
  g[3] = __drcp_rz(v) + __drcp_rd(u);
  g[4] = __dsqrt_ru(fabs(u)) + __dsqrt_rz(fabs(v));
  g[5] = __ddiv_rd(u, v) + __ddiv_ru(v, u);
  g[6] = rint(u * 3.5) + trunc(v * 2.25) + floor(u) + ceil(v);
  g[7] = __hiloint2double(__double2hiint(u), __double2loint(v)) * 0.0 + fdim(u, v);
  long long *k = oi + 6 * i;
  k[0] = __float2ll_ru(x * 1e9f);
  k[1] = (long long)__float2ull_rd(fabsf(y) * 1e9f);
  k[2] = __double2ll_rz(u * 1e14);
  k[3] = (long long)__double2ull_rn(fabs(v) * 1e14);
  k[4] = __float2int_rd(x * 1e5f) + (long long)__float2uint_ru(fabsf(y) * 1e5f);
  k[5] = __double2int_ru(u * 1e6) + (long long)__double2uint_rz(fabs(v) * 1e6);
}
