/* out[i] = act(a[i] + b[i]) over n elements (float32 buffers).
 *
 * Defines:
 *   ACTIVATION  fused activation, TfLiteFusedActivation values: 0 none
 *               (default), 1 relu, 2 relu_n1_to_1, 3 relu6, 4 tanh,
 *               6 sigmoid.
 *   LG_FP16     set by the backend when half precision is allowed and the
 *               device has cl_khr_fp16: the sum is computed in half.
 * The global size may be rounded up past n: every work item checks its
 * index. */
#ifndef ACTIVATION
#define ACTIVATION 0
#endif

#ifdef LG_FP16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half lg_acc;
#define LG_ACC(x) convert_half(x)
#else
typedef float lg_acc;
#define LG_ACC(x) (x)
#endif

static float lg_activate(float x) {
#if ACTIVATION == 1
  return fmax(x, 0.0f);
#elif ACTIVATION == 2
  return clamp(x, -1.0f, 1.0f);
#elif ACTIVATION == 3
  return clamp(x, 0.0f, 6.0f);
#elif ACTIVATION == 4
  return tanh(x);
#elif ACTIVATION == 6
  return 1.0f / (1.0f + exp(-x));
#else
  return x;
#endif
}

__kernel void add(__global const float* a, __global const float* b,
                  __global float* out, int n) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const lg_acc sum = LG_ACC(a[i]) + LG_ACC(b[i]);
  out[i] = lg_activate((float)sum);
}
