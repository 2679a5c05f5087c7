extern "C" __global__ void misc(int* o, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x;
  unsigned sm; asm("mov.u32 %0, %%smid;" : "=r"(sm)); unsigned ws; asm("mov.u32 %0, %%warpid;" : "=r"(ws));
  unsigned ns; asm("mov.u32 %0, %%nsmid;" : "=r"(ns)); unsigned long long gt; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
  __nanosleep(100); __threadfence(); __threadfence_block(); __threadfence_system();
  if (i < n) o[i] = (sm < 1000) + (ws < 64) + (ns > 0) + (int)(gt & 0) + gridDim.x + blockDim.y + threadIdx.z + blockIdx.z;
  if (i == 0 && n < 0) __trap();
  if (n == -5) asm("exit;");

}
