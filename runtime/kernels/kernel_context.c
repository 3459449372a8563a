/* The kernels' view of their context's owner (kernel_context.h). */
#include "runtime/kernels/kernel_context.h"

#include <stddef.h>

lg_thread_pool* lg_kernel_thread_pool(const TfLiteContext* context) {
  if (context == NULL || context->impl_ == NULL) {
    return lg_thread_pool_default();
  }
  const lg_kernel_env* env = (const lg_kernel_env*)context->impl_;
  return env->thread_pool != NULL ? env->thread_pool : lg_thread_pool_default();
}

bool lg_kernel_folded_padding(const TfLiteContext* context,
                              const TfLiteNode* node, int pads[4]) {
  if (context == NULL || context->impl_ == NULL) return false;
  const lg_kernel_env* env = (const lg_kernel_env*)context->impl_;
  return env->folded_padding != NULL &&
         env->folded_padding(context->impl_, node, pads);
}
