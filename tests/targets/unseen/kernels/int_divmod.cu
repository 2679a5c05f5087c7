// Integer division and remainder: signed and unsigned, 32 and 64 bits,
// by runtime divisors and by constants.
extern "C" __global__ void int_divmod(const int* __restrict__ a, const int* __restrict__ b,
                                      const long long* __restrict__ c, int* __restrict__ q32,
                                      unsigned* __restrict__ r32, long long* __restrict__ q64,
                                      unsigned long long* __restrict__ r64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    if (y == 0) y = 7;
    long long z = c[i];
    long long w = (long long)y * 1000000007LL + 3;
    q32[i] = x / y + x / 13 - x % 10;
    r32[i] = (unsigned)x % (unsigned)y + (unsigned)x / 6u;
    q64[i] = z / w + z / 1000LL + z % 17;
    r64[i] = (unsigned long long)z % (unsigned long long)w + (unsigned long long)z / 3ull;
}
