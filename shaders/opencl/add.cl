/* out[i] = act(a[i] + b[i]) over n elements (float tensor buffers, see
 * lg_types.cl).
 *
 * Defines:
 *   ACTIVATION  fused activation, TfLiteFusedActivation values: 0 none
 *               (default), 1 relu, 2 relu_n1_to_1, 3 relu6, 4 tanh,
 *               6 sigmoid.
 *   LG_FP16     half buffers (the backend's fp16_storage); with
 *               LG_HALF_MATH the sum is computed in half, the activation
 *               in float.
 * The global size may be rounded up past n: every work item checks its
 * index. */
#ifndef ACTIVATION
#define ACTIVATION 0
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

__kernel void add(__global const LG_DATA* a, __global const LG_DATA* b,
                  __global LG_DATA* out, int n) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const lg_real sum = LG_LOADR1(i, a) + LG_LOADR1(i, b);
  LG_STORE1(lg_activate((float)sum), i, out);
}
