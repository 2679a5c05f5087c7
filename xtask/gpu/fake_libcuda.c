// A stand-in for libcuda.so.1, for testing run_jobs.py's ctypes binding
// without a GPU (xtask/src/gpu_check/tests.rs builds it with `cc`):
// "device" memory is host memory, module images must be ELF, the only
// function is `vadd`, and every launch runs vadd (a, b, c pointers at
// parameter offsets 0, 8, 16 and n at 24, passed as one parameter buffer
// through CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE). Each entry point checks
// what a real driver would reject, so that a wrong signature or marshalling
// on the Python side fails the test.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
typedef int CUresult;
static int inited;
CUresult cuInit(unsigned f) { inited = 1; return f ? 1 : 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int o) { *d = o; return 0; }
CUresult cuDeviceGetName(char *n, int len, int d) { snprintf(n, len, "Fake H100"); return 0; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) { *v = a == 75 ? 9 : a == 76 ? 0 : -1; return (a == 75 || a == 76) ? 0 : 1; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)0x1234; return 0; }
CUresult cuCtxSetCurrent(void *c) { return c == (void *)0x1234 ? 0 : 201; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuModuleLoadData(void **m, const void *img) { if (memcmp(img, "\x7f" "ELF", 4)) return 200; *m = (void *)0x55; return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) { if (m != (void *)0x55 || strcmp(name, "vadd")) return 500; *f = (void *)0x66; return 0; }
CUresult cuFuncGetAttribute(int *v, int a, void *f) { *v = a == 4 ? 12 : 0; return f == (void *)0x66 ? 0 : 400; }
CUresult cuFuncSetAttribute(void *f, int a, int v) { return 0; }
CUresult cuMemAlloc_v2(uint64_t *p, size_t n) { *p = (uint64_t)calloc(n, 1); return 0; }
CUresult cuMemcpyHtoD_v2(uint64_t d, const void *s, size_t n) { memcpy((void *)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, uint64_t s, size_t n) { memcpy(d, (void *)s, n); return 0; }
CUresult cuMemsetD8_v2(uint64_t d, unsigned char c, size_t n) { memset((void *)d, c, n); return 0; }
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned sh, void *st, void **kp, void **extra) {
    if (f != (void *)0x66 || kp || !extra || extra[0] != (void *)1 || extra[2] != (void *)2 || extra[4]) return 1;
    char *p = extra[1];
    size_t size = *(size_t *)extra[3];
    if (size != 28) return 2;
    float *a, *b, *c; int n;
    memcpy(&a, p, 8); memcpy(&b, p + 8, 8); memcpy(&c, p + 16, 8); memcpy(&n, p + 24, 4);
    for (long i = 0; i < n && i < (long)gx * bx; i++) c[i] = a[i] + b[i];
    return 0;
}
CUresult cuEventCreate(void **e, unsigned f) { *e = malloc(8); return 0; }
CUresult cuEventRecord(void *e, void *s) { return 0; }
CUresult cuEventSynchronize(void *e) { return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) { *ms = 0.0125f; return 0; }
CUresult cuGetErrorName(int e, const char **s) { *s = "CUDA_ERROR_FAKE"; return 0; }
