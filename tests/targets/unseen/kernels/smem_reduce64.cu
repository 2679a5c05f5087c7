// Shared-memory tree reduction of 64-bit integers and doubles with a
// dynamic block size, then one atomicAdd per block.
extern "C" __global__ void smem_reduce64(const long long* __restrict__ in, const double* __restrict__ d,
                                         long long* __restrict__ out, double* __restrict__ dout, int n)
{
    __shared__ long long s[256];
    __shared__ double sd[256];
    int t = threadIdx.x;
    long long acc = 0;
    double dacc = 0.0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
        acc += in[i] * (long long)(i % 7 - 3);
        dacc += d[i] * d[i];
    }
    s[t] = acc;
    sd[t] = dacc;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (t < w) {
            s[t] += s[t + w];
            sd[t] += sd[t + w];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
        dout[blockIdx.x] = sd[0];
    }
}
