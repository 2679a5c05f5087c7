struct __align__(16) S { float a, b, c, d; };
__constant__ float ctab[32];
__device__ int gcount;
extern "C" __global__ void mops(float4* o, const float4* a, S* s, const double2* d, char* c, short* sh, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x; if (i>=n) return;
  float4 v = __ldg(&a[i]); float4 w = __ldcs(&a[i+1]); float4 u = __ldlu(&a[i+2]);
  S t = s[i]; double2 q = d[i]; char ch = c[i]; short h = sh[i];
  float local[16]; for (int k = 0; k < 16; k++) local[k] = v.x * k + ch; 
  __stcs(&o[i], make_float4(v.x + w.y + u.z + local[i & 15], t.b + (float)q.y, ctab[i & 31] + h, t.d));
  __stwt(&o[i+n], v); c[i+1] = ch * 3; sh[i+1] = h + 2; atomicAdd(&gcount, 1);
  s[i].c = __ldca(&s[i].a) + __ldcg(&s[i].b);

}
