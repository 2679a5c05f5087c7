#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void fmath(float* o, const float* a, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x; if (i>=n) return; float x = a[i];
  o[i] = sinf(x)+cosf(x)+tanf(x)+expf(x)+exp2f(x)+exp10f(x)+logf(x)+log2f(x)+log10f(x)+log1pf(x)+expm1f(x)
   + powf(x, 1.7f)+sqrtf(x)+rsqrtf(x)+cbrtf(x)+erff(x)+erfcf(x)+lgammaf(x)+tgammaf(x)+atanf(x)+atan2f(x,1.5f)
   + asinf(x)+acosf(x)+sinhf(x)+coshf(x)+tanhf(x)+asinhf(x)+acoshf(x)+atanhf(x)+fmodf(x,0.3f)+remainderf(x,0.7f)
   + hypotf(x,2.f)+fminf(x,1.f)+fmaxf(x,2.f)+floorf(x)+ceilf(x)+truncf(x)+roundf(x)+rintf(x)+copysignf(x,-1.f)
   + __sinf(x)+__cosf(x)+__expf(x)+__logf(x)+__powf(x,2.1f)+__fdividef(x,3.f)+normcdff(x)+erfinvf(x*0.1f)+ldexpf(x,3)+frexpf(x,&i)+scalbnf(x,2)+ilogbf(x);
}
extern "C" __global__ void dmath(double* o, const double* a, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x; if (i>=n) return; double x = a[i];
  o[i] = sin(x)+cos(x)+exp(x)+log(x)+pow(x,1.7)+sqrt(x)+rsqrt(x)+cbrt(x)+erf(x)+atan2(x,1.5)+tanh(x)+fmod(x,0.3)+lgamma(x)+log1p(x)+expm1(x)+floor(x)+round(x)+hypot(x,2.0)+asin(x*0.1)+acosh(x+1.0);
}
extern "C" __global__ void hmath(__half* o, const __half* a, __nv_bfloat16* ob, const __nv_bfloat16* b, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x; if (i>=n) return;
  __half x = a[i]; o[i] = hexp(x) + hsin(x) + hlog(x) + hsqrt(x) + hrcp(x) + __hfma(x, x, x) + __hmax(x, __float2half(1.f));
  __nv_bfloat16 y = b[i]; ob[i] = hexp(y) + hsqrt(y) + __hfma(y, y, y) + __float2bfloat16(__bfloat162float(y) * 3.f);
  __half2 h2 = __halves2half2(x, x); h2 = __hmul2(h2, h2); o[i+n] = __low2half(h2) + __high2half(h2);
}
