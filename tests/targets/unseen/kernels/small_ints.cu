// 8- and 16-bit arithmetic, vector loads/stores of small and wide types,
// sign and zero extension, and saturating float-to-integer conversions.
struct __align__(16) Pair64 { long long a, b; };
extern "C" __global__ void small_ints(const char4 *c4, const short2 *s2,
                                      const ushort4 *u4, const Pair64 *p,
                                      const float *f, uchar4 *oc, short4 *os,
                                      longlong2 *ol, int *oi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  char4 c = c4[i];
  short2 s = s2[i];
  ushort4 u = u4[i];
  Pair64 q = p[i];
  float x = f[i];
  oc[i] = make_uchar4((unsigned char)(c.x + c.y), (unsigned char)(c.z * c.w),
                      (unsigned char)max(c.x, c.w), (unsigned char)(c.y >> 2));
  os[i] = make_short4((short)(s.x + s.y), (short)(s.x * 3 - s.y),
                      (short)min((int)u.x, (int)u.w), (short)(u.y ^ u.z));
  ol[i] = make_longlong2(q.a * (long long)s.x + q.b, (q.b >> 7) ^ (long long)(unsigned short)u.z);
  int *o = oi + 8 * i;
  o[0] = (int)(signed char)(c.x * 37);
  o[1] = (int)(unsigned short)(s.y * 1001);
  o[2] = (int)(unsigned char)__float2uint_rn(x);
  o[3] = __float2int_rz(x * 100.0f);
  o[4] = (int)(short)__float2int_rn(x * 1000.0f);
  o[5] = (int)(unsigned char)(c.z / 3) + (int)(short)(s.x % 7);
  o[6] = (int)(u.x > u.y) + 2 * (int)(c.w < 0) + 4 * (int)((unsigned char)c.x > 200);
  o[7] = __float2int_rn(fminf(fmaxf(x, -128.0f), 127.0f)) & 0xff;
}
