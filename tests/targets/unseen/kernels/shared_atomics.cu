// Shared-memory atomics of every width and kind, block-level fences, and
// a global double accumulation; results are order-independent by design.
extern "C" __global__ void shared_atomics(const int *in, const float *fin,
                                          int *out_i, float *out_f,
                                          unsigned long long *out_u64,
                                          double *out_d, int n) {
  __shared__ int si[8];
  __shared__ float sf[4];
  __shared__ unsigned long long su[4];
  __shared__ unsigned sw;
  int t = threadIdx.x;
  if (t < 8) si[t] = t == 2 ? 0x7fffffff : 0;
  if (t < 4) { sf[t] = 0.0f; su[t] = 0ull; }
  if (t == 0) sw = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + t;
  if (i < n) {
    int v = in[i];
    float f = fin[i];
    atomicAdd(&si[0], v);
    atomicMax(&si[1], v);
    atomicMin(&si[2], v);
    atomicAnd(&si[3], ~(1 << (v & 31)));
    atomicOr(&si[4], 1 << (v & 31));
    atomicXor(&si[5], v);
    atomicInc((unsigned *)&si[6], 17u);
    atomicSub(&si[7], v & 0xff);
    atomicAdd(&sf[0], (float)(v & 0xff));
    atomicMax((unsigned *)&sf[1], __float_as_uint(fabsf(f)));
    atomicAdd(&su[0], (unsigned long long)(unsigned)v);
    atomicMax(&su[1], (unsigned long long)(long long)v * 977ull);
    atomicMin(&su[2], (unsigned long long)(unsigned)v | (1ull << 40));
    atomicOr(&su[3], 1ull << (v & 63));
    unsigned old = sw, assumed;
    do {
      assumed = old;
      old = atomicCAS(&sw, assumed, assumed + ((unsigned)v & 15u));
    } while (old != assumed);
    __threadfence_block();
    atomicAdd(out_d, (double)(v & 1023) * 0.5);
  }
  __syncthreads();
  if (t < 8) atomicAdd(&out_i[t], si[t] & (t == 1 || t == 2 ? -1 : 0xffff));
  if (t < 2) atomicAdd(&out_f[t], sf[t]);
  if (t < 4) atomicAdd(&out_u64[t], su[t] & 0xffffffffffull);
  if (t == 0) atomicAdd(&out_i[8], (int)sw);
}
