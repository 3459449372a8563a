/* Float LOGISTIC, element by element: the LOGISTIC kernel's arithmetic,
 * shared with the epilogue fusion (runtime/epilogue.c) so both give the
 * same bits. */
#ifndef LITEGPU_RUNTIME_KERNELS_LOGISTIC_F32_H_
#define LITEGPU_RUNTIME_KERNELS_LOGISTIC_F32_H_

#include <math.h>

/* LOGISTIC's cut-offs: above the upper one 1 + exp(-x) rounds to 1 in
 * float; below the lower one the result is exp(x) to within float
 * precision of TFLite's reference (which uses exactly these). */
#define LG_LOGISTIC_UPPER 16.619047164916992188f
#define LG_LOGISTIC_LOWER -9.0f

static inline float lg_f32_logistic(float x) {
  if (x > LG_LOGISTIC_UPPER) return 1.0f;
  if (x < LG_LOGISTIC_LOWER) return expf(x);
  return 1.0f / (1.0f + expf(-x)); /* NaN falls through to NaN */
}

#endif /* LITEGPU_RUNTIME_KERNELS_LOGISTIC_F32_H_ */
