// Loops with break/continue, a dense switch, a small local array indexed
// at run time, and a non-inlined helper with several returns.
__device__ __noinline__ int classify(int v, int k) {
  if (v < 0) return -1;
  if (v == 0) return 0;
  for (int j = 0; j < k; ++j) {
    if ((v >> j) & 1) continue;
    if (j > 20) break;
    v ^= j * 0x9e37;
  }
  return v & 0xffff;
}
extern "C" __global__ void control_local(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int buf[12];
  for (int j = 0; j < 12; ++j) buf[j] = v * (j + 1) ^ j;
  int acc = 0;
  int steps = (v & 15) + 3;
  while (steps-- > 0) {
    int k = (acc + v) % 12;
    if (k < 0) k += 12;
    switch ((acc ^ v) & 15) {
      case 0: acc += buf[k]; break;
      case 1: acc -= buf[(k + 3) % 12]; break;
      case 2: acc ^= v << 3; break;
      case 3: acc = acc * 5 + 1; break;
      case 4: buf[k] = acc; break;
      case 5: acc += classify(v, k + 4); break;
      case 6: acc |= 0x100; break;
      case 7: if (acc > 1000) goto done; acc += 77; break;
      case 8: acc >>= 1; break;
      case 9: acc += buf[11 - k]; break;
      case 10: acc = -acc; break;
      case 11: buf[(k * 7) % 12] ^= acc; break;
      default: acc += k; break;
    }
  }
done:
  out[2 * i] = acc;
  out[2 * i + 1] = classify(acc, v & 31) + buf[v & 7];
}
