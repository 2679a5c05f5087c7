// Global atomics of several kinds: min/max/and/or/xor on ints, a 64-bit
// add, an unsigned wrapping increment, and a CAS-based float max.
__device__ float atomic_max_float(float* addr, float v)
{
    int* a = (int*)addr;
    int old = *a, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(a, assumed, __float_as_int(v));
    } while (old != assumed);
    return __int_as_float(old);
}

extern "C" __global__ void atomic_ops(const int* __restrict__ in, const float* __restrict__ f,
                                      int* __restrict__ acc, unsigned long long* __restrict__ sum64,
                                      unsigned* __restrict__ ring, float* __restrict__ fmax, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    atomicMin(&acc[0], v);
    atomicMax(&acc[1], v);
    atomicAnd(&acc[2], v | 0x0ff0);
    atomicOr(&acc[3], v & 0x1111);
    atomicXor(&acc[4], v);
    atomicAdd(sum64, (unsigned long long)(long long)v * 1000003ull);
    atomicInc(ring, 999u);
    atomic_max_float(fmax, f[i]);
}
