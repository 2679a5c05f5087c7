extern "C" __global__ void iops(unsigned* o, const unsigned* a, long long* o64, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x; if (i>=n) return; unsigned x = a[i]; long long y = (long long)x * 0x12345677LL;
  o[i] = __popc(x) + __clz(x) + __ffs(x) + __brev(x) + __byte_perm(x, x>>3, 0x3210 ^ (x & 7)) + __funnelshift_l(x, x*3, x&31) + __funnelshift_r(x, ~x, 7)
     + __umulhi(x, 0x9e3779b9u) + __mulhi((int)x, -7) + __sad(x, 5u, 3u) + __usad(x, 9u, 1u) + __hadd((int)x, 3) + __rhadd((int)x, 5) + __uhadd(x, 2u)
     + __vabsdiffu4(x, 0x01020304u) + __vadd4(x, x) + __vcmpgtu2(x, 0x00ff00ffu) + __dp4a((int)x, 0x01010101, 0) + __dp2a_lo((int)x, 0x00020002, 1)
     + (x / 7u) + (x % 13u) + ((int)x / -9) + ((int)x % 5) + __popcll(y) + __clzll(y) + __ffsll(y) + (unsigned)__brevll(y);
  o64[i] = y / 1234567LL + y % 98765LL + (long long)((unsigned long long)y / 777ULL) + __mul64hi(y, 0x7fffffffffLL) + __umul64hi((unsigned long long)y, 99ULL) + (y >> (x & 63)) + (y << (x & 31));
}
