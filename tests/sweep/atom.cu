extern "C" __global__ void aops(int* ci, unsigned* cu, float* cf, double* cd, unsigned long long* cl, const int* a, int n) {
  __shared__ int si[64]; __shared__ float sf[64]; __shared__ unsigned long long sl[64];
  int i = blockIdx.x*blockDim.x+threadIdx.x; int t = threadIdx.x & 63; if (threadIdx.x < 64) { si[t] = 0; sf[t] = 0; sl[t] = 0; } __syncthreads();
  if (i < n) { int x = a[i];
    atomicAdd(ci, x); atomicSub(ci+1, x); atomicMax(ci+2, x); atomicMin(ci+3, x); atomicExch(ci+4, x); atomicCAS(ci+5, x, x+1);
    atomicAnd(cu, (unsigned)x); atomicOr(cu+1, (unsigned)x); atomicXor(cu+2, (unsigned)x); atomicInc(cu+3, 100u); atomicDec(cu+4, 100u);
    atomicAdd(cf, (float)x); atomicAdd(cd, (double)x); atomicAdd(cl, (unsigned long long)x); atomicMax(cl+1, (unsigned long long)x); atomicCAS(cl+2, 0ull, (unsigned long long)x);
    atomicAdd(&si[t], x); atomicMax(&si[(t+1)&63], x); atomicAdd(&sf[t], 1.5f); atomicAdd(&sl[t], 3ull); atomicCAS(&si[t], 0, 1); atomicExch(&sf[t], 2.f);
    atomicAdd_block(ci+6, 1); atomicAdd_system(ci+7, 1);
  }
  __syncthreads(); if (threadIdx.x < 64) { ci[8+t] = si[t]; cf[1+t] = sf[t]; cl[3+t] = sl[t]; }
}
