__device__ __noinline__ int helper(int x, int y) { return x > y ? x * 3 - y : y / (x | 1); }
__device__ int rec(int x) { return x <= 1 ? 1 : x * rec(x - 1); }
extern "C" __global__ void cops(int* o, const int* a, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x; if (i>=n) return; int x = a[i], acc = 0;
  switch (x & 15) { case 0: acc = 3; break; case 1: acc = x * 7; break; case 2: acc = helper(x, 5); break; case 3: acc = -x; break;
    case 5: acc = x ^ 0x55; break; case 8: acc = rec(x & 7); break; case 11: acc = x << 2; break; default: acc = x + 1; }
  for (int k = 0; k < (x & 31); k++) { if (k & 1) continue; acc += k * x; if (acc > 100000) break; }
  int j = 0; do { acc ^= j * 0x9e37; j++; } while (j < (x & 7));
  while (acc & 1) { acc >>= 1; if (acc == 0) goto done; }
  acc += __syncthreads_count(x > 0) + __syncthreads_or(x < 0) + __syncthreads_and(x != 7);
done:
  o[i] = acc + clock() * 0 + (int)(clock64() & 0);
}
