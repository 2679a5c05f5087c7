__device__ __noinline__ float helper(float x, int n) { float s = 0; for (int i = 0; i < n; ++i) s += x * i; return s; }
__device__ float (*fp)(float, int) = helper;
extern "C" __global__ void dbg(float *out, const float *in, int n, int sel) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = in[i];
    switch (sel) { case 0: v += 1; break; case 1: v *= 2; break; case 2: v -= 3; break; case 3: v /= 4; break; default: v = -v; }
    out[i] = helper(v, sel) + fp(v, 2);
}
