// 64-bit integer math: multiply high, shifts by runtime amounts, popcount,
// clz, byte reverse, min/max, and a mix of 32/64-bit conversions.
extern "C" __global__ void math64(const unsigned long long* __restrict__ a, const unsigned long long* __restrict__ b,
                                  unsigned long long* __restrict__ out, int* __restrict__ bits, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = a[i], y = b[i];
    unsigned s = (unsigned)(y & 63);
    unsigned long long hi = __umul64hi(x, y);
    long long shi = __mul64hi((long long)x, (long long)y);
    unsigned long long r = (x << s) ^ (y >> (63 - s)) ^ ((long long)x >> (s & 31));
    out[3 * i] = hi + (unsigned long long)shi;
    out[3 * i + 1] = r + __brevll(x) + min(x, y) - max((long long)x, (long long)y);
    out[3 * i + 2] = x * y + (unsigned long long)(unsigned)(x >> 32) * (unsigned)y;
    bits[i] = __popcll(x) * 100 + __clzll(y) + __ffsll((long long)x);
}
