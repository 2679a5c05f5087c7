// Warp-wide reductions and matches with partial masks, sub-warp shuffles
// of several widths, and per-lane mask registers.
extern "C" __global__ void warp_reduce_ops(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = i < n ? in[i] : 0;
  int *o = out + 12 * i;
  unsigned full = 0xffffffffu;
  unsigned odd = 0xaaaaaaaau;
  o[0] = __reduce_add_sync(full, v);
  o[1] = __reduce_min_sync(full, v);
  o[2] = (int)__reduce_max_sync(full, (unsigned)v);
  o[3] = (int)__reduce_or_sync(full, (unsigned)v) ^ (int)__reduce_xor_sync(full, (unsigned)v);
  if (lane & 1) {
    o[4] = __reduce_add_sync(odd, v);
    o[5] = (int)__match_any_sync(odd, v & 3);
  } else {
    o[4] = -1;
    o[5] = (int)__match_any_sync(~odd, v & 7);
  }
  o[6] = __shfl_down_sync(full, v, 3, 8) + __shfl_up_sync(full, v, 2, 16);
  o[7] = __shfl_xor_sync(full, v, 5, 16) - __shfl_sync(full, v, lane ^ 9, 4);
  unsigned lt, ge;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  o[8] = (int)(__ballot_sync(full, v > 0) & lt) + __popc(ge);
  int pred;
  o[9] = (int)__match_all_sync(full, v >> 30, &pred) + pred;
  o[10] = __any_sync(0x0000ffffu, v < -500) * 2 + __all_sync(0xffff0000u, v > -900);
  __syncwarp(full);
  o[11] = __popc(__activemask());
}
