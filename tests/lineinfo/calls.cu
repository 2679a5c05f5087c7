__device__ __noinline__ float helper(float x, int n) {
    float acc = 0.f;
    for (int i = 0; i < n; ++i)
        acc += __sinf(x * i);
    return acc;
}
extern "C" __global__ void k1(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = helper(in[i], n & 7) * 2.f;
}
extern "C" __global__ void k2(int *out, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int s = 0;
    for (int j = 0; j < n; ++j) s += in[(i + j) % n] ^ j;
    out[i] = s;
}
