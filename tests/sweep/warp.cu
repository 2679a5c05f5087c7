extern "C" __global__ void wops(int* o, const int* a, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x; int x = i < n ? a[i] : 0;
  unsigned m = __ballot_sync(0xffffffff, x > 0); int any = __any_sync(0xffffffff, x > 5); int all = __all_sync(0xffffffff, x < 100);
  int s = __shfl_sync(0xffffffff, x, 3) + __shfl_xor_sync(0xffffffff, x, 4) + __shfl_up_sync(0xffffffff, x, 2) + __shfl_down_sync(0xffffffff, x, 1, 16);
  unsigned mm = __match_any_sync(0xffffffff, x & 3); int pred; unsigned ma = __match_all_sync(0xffffffff, x, &pred);
  int r = __reduce_add_sync(0xffffffff, x) + __reduce_min_sync(0xffffffff, x) + __reduce_max_sync(0xffffffff, x) + (int)__reduce_or_sync(0xffffffff, (unsigned)x);
  int t = __shfl_xor_sync(0xff, x, 1, 8);
  unsigned act = __activemask(); __syncwarp();
  if (i < n) o[i] = m + any + all + s + mm + ma + pred + r + t + act;
}
