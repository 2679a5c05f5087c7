// SIMD-within-a-word and video intrinsics, 24/64-bit multiplies, halving
// adds and dot products: the integer corners libraries reach for.
extern "C" __global__ void simd_video(const unsigned *a, const unsigned *b,
                                      unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned *o = out + 16 * i;
  o[0] = __vadd2(x, y);
  o[1] = __vsub4(x, y);
  o[2] = __vabsdiffu4(x, y);
  o[3] = __vmaxs2(x, y) ^ __vminu4(x, y);
  o[4] = __vcmpgtu2(x, y) + __vcmpeq4(x, y);
  o[5] = __vavgu4(x, y);
  o[6] = __vsads2(x, y) + __vsadu4(x, y);
  o[7] = (unsigned)__dp4a((int)x, (int)y, (int)i);
  o[8] = __dp2a_lo(x, y, 7u) + __dp2a_hi((int)x, (int)y, -3);
  o[9] = (unsigned)__mul24((int)x, (int)y) + __umul24(x, y);
  o[10] = __umulhi(x, y) + (unsigned)__mulhi((int)x, (int)y);
  o[11] = (unsigned)(__umul64hi((unsigned long long)x * 3u, (unsigned long long)y << 20));
  o[12] = (unsigned)__hadd((int)x, (int)y) + __urhadd(x, y);
  o[13] = __usad(x, y, 5u) + (unsigned)__sad((int)x, (int)y, 9u);
  o[14] = __vseteq2(x, y) | __vsetles4(x, y);
  o[15] = __vnegss2(x) + __vabsss4(y);
}
