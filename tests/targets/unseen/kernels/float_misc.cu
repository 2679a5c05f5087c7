// Float intrinsics and rounding: fminf/fmaxf, copysign, rintf/truncf,
// float<->int conversions with saturation, __fdividef, rsqrtf, exp2f.
extern "C" __global__ void float_misc(const float* __restrict__ x, const float* __restrict__ y,
                                      float* __restrict__ out, int* __restrict__ iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    float m = fminf(a, b) + fmaxf(a, b) * 0.5f;
    float c = copysignf(fabsf(a) + 1.0f, b);
    float r = rintf(a * 3.3f) + truncf(b * 7.1f) + floorf(a) - ceilf(b);
    // Each approximation stored alone: NVIDIA contracts __fdividef's
    // multiply with an add after it (`FFMA a, rcp, c`), which PTX allows.
    out[5 * i] = m + c;
    out[5 * i + 1] = r;
    out[5 * i + 2] = __fdividef(a, fabsf(b) + 1.0f);
    out[5 * i + 3] = rsqrtf(fabsf(a) + 1.0f);
    out[5 * i + 4] = exp2f(b * 0.25f);
    iout[2 * i] = __float2int_rz(a * 1e9f);
    iout[2 * i + 1] = (int)__float2uint_rn(fabsf(b) * 4e9f);
}
