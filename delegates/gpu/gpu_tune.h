/* Work-group tuning for TFLITE_GPU_INFERENCE_PREFERENCE_SUSTAINED_SPEED:
 * at Prepare, each dispatch whose kernel does not depend on its work-group
 * size (gpu_lower.h: no "-DLG_WG=") is timed on the device with a few
 * candidate sizes (the lowering's size, or the backend's own choice where
 * the lowering left it open, among them), and the fastest is kept for
 * every later run.
 *
 * Candidates: 32 to 256 work items, within the kernel's
 * kernel_max_work_group_size, the device's max_work_group_size and
 * max_work_item_sizes, multiples of simd_width where the device gives one,
 * and no more than the global size rounded up to a power of two along
 * dimension 0; at most 8 besides the backend's choice. Each is run once to
 * warm up and timed as the best of 3 runs (dispatch, submit, wait).
 *
 * Choices are kept in a table shared by the delegate's programs, keyed by
 * the device, the kernel with its defines, and the global size; with a
 * cache folder (serialization_dir) each is also stored there, one entry per
 * key (delegates/backend/cache_file.h, prefix "tune"), so that a later
 * delegate reads it instead of timing again. An entry whose size the
 * kernel no longer allows is timed again.
 *
 * One thread at a time (the backend's rule). */
#ifndef LITEGPU_DELEGATES_GPU_GPU_TUNE_H_
#define LITEGPU_DELEGATES_GPU_GPU_TUNE_H_

#include <stdbool.h>
#include <stddef.h>

#include "delegates/backend/gpu_backend.h"

typedef struct lg_gpu_tuning lg_gpu_tuning;

/* A table; `cache_dir` (may be NULL: memory only) and `model_token` (part
 * of every stored key, as for the program caches) are copied. NULL when
 * out of memory. */
lg_gpu_tuning* lg_gpu_tuning_create(const char* cache_dir,
                                    const char* model_token);
void lg_gpu_tuning_destroy(lg_gpu_tuning* tuning);

/* Dispatches timed on the device, and dispatches whose size came from the
 * table or the cache folder without timing. */
void lg_gpu_tuning_counts(const lg_gpu_tuning* tuning, int* tuned,
                          int* from_cache);

/* The work-group size for one dispatch of `kernel` (`kernel_key`: its name
 * and defines) with resolved `args` over `global`. On entry local[0..dims)
 * with *use_local true is the lowering's size, *use_local false the
 * backend's choice: the baseline, kept unless a candidate is faster. On
 * return the same pair holds the choice. The arguments' buffers must
 * exist: timing runs the kernel (its outputs are overwritten by the next
 * real run). */
TfLiteStatus lg_gpu_tune_dispatch(lg_gpu_tuning* tuning, lg_gpu_backend* be,
                                  lg_gpu_kernel* kernel, const char* kernel_key,
                                  const lg_gpu_arg* args, int num_args,
                                  int dims, const size_t* global, size_t* local,
                                  bool* use_local, lg_gpu_error* error);

#endif /* LITEGPU_DELEGATES_GPU_GPU_TUNE_H_ */
