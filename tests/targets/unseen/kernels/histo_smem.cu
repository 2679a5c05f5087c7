// Shared-memory histogram with shared atomics, privatised per block and
// merged with global atomics; keys are bytes of 32-bit words.
extern "C" __global__ void histo_smem(const unsigned* __restrict__ in, unsigned* __restrict__ hist, int n)
{
    __shared__ unsigned h[64];
    for (int k = threadIdx.x; k < 64; k += blockDim.x) h[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned v = in[i];
        atomicAdd(&h[v & 63], 1u);
        atomicAdd(&h[(v >> 8) & 63], 2u);
        atomicMax(&h[(v >> 16) & 63], v >> 26);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < 64; k += blockDim.x) atomicAdd(&hist[k], h[k]);
}
