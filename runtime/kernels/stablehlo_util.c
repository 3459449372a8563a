#include "runtime/kernels/stablehlo_util.h"

#include "runtime/kernels/kernel_util.h"

bool lg_stablehlo_dims_contain(const int64_t* dims, int count, int64_t value) {
  for (int i = 0; i < count; ++i) {
    if (dims[i] == value) return true;
  }
  return false;
}

TfLiteStatus lg_stablehlo_check_dims(TfLiteContext* context, const char* op,
                                     const char* what, const int64_t* dims,
                                     int count, int bound, bool sorted) {
  if (count < 0 || count > LG_SHAPE_MAX_RANK) {
    lg_kernel_log(context, op, "%s has %d elements (at most %d)", what, count,
                  LG_SHAPE_MAX_RANK);
    return kTfLiteError;
  }
  for (int i = 0; i < count; ++i) {
    if (dims[i] < 0 || dims[i] >= bound) {
      lg_kernel_log(context, op, "%s[%d] = %lld is out of range [0, %d)", what,
                    i, (long long)dims[i], bound);
      return kTfLiteError;
    }
    if (lg_stablehlo_dims_contain(dims, i, dims[i])) {
      lg_kernel_log(context, op, "%s holds %lld twice", what,
                    (long long)dims[i]);
      return kTfLiteError;
    }
    if (sorted && i > 0 && dims[i] < dims[i - 1]) {
      lg_kernel_log(context, op, "%s is not sorted", what);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}
