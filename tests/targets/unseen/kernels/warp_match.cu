// Warp votes and ballots: __ballot_sync, __any_sync/__all_sync,
// __activemask in a divergent branch, popcount of the ballot, and a
// per-warp leader election with __ffs.
extern "C" __global__ void warp_match(const int* __restrict__ in, int* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    unsigned ball = __ballot_sync(0xffffffffu, v > 0);
    int any = __any_sync(0xffffffffu, v > 90);
    int all = __all_sync(0xffffffffu, v > -90);
    int active = 0;
    if (v & 1) active = __popc(__activemask());
    int leader = __ffs(ball) - 1;
    if (i < n) out[i] = __popc(ball) * 1000 + any * 100 + all * 10 + (leader & 31) + active * 100000;
}
