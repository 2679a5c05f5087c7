// Warp shuffles: butterfly max with __shfl_xor_sync, an inclusive scan
// with __shfl_up_sync, and a broadcast of lane 7 with __shfl_sync.
extern "C" __global__ void shfl_mix(const int* __restrict__ in, int* __restrict__ scan,
                                    int* __restrict__ wmax, int* __restrict__ bcast, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = i < n ? in[i] : 0;
    int m = v;
    for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
    int s = v;
    for (int o = 1; o < 32; o <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, s, o);
        if (lane >= o) s += t;
    }
    int b = __shfl_sync(0xffffffffu, v * 3 + 1, 7);
    if (i < n) {
        scan[i] = s;
        bcast[i] = b;
        if (lane == 0) wmax[i >> 5] = m;
    }
}
