/* litegpu extension: the reference delegate.
 *
 * A delegate built on litegpu's delegate kit that runs its partitions with
 * litegpu's C kernels in its own memory: it copies partition inputs in and
 * partition outputs out at the boundary, exactly as a device delegate must.
 * It is the framework's test vehicle (partitioning, versions, fallback) and
 * a model for writing delegates.
 *
 *   litegpu_reference_delegate_options o =
 *       litegpu_reference_delegate_options_default();
 *   o.max_delegated_partitions = 1;
 *   TfLiteDelegate* d = litegpu_reference_delegate_create(&o);
 *   TfLiteInterpreterOptionsAddDelegate(options, d);
 *   ... create, run, delete the interpreter ...
 *   litegpu_reference_delegate_delete(d);
 *
 * The delegate must outlive every interpreter it is applied to.
 */
#ifndef LITEGPU_REFERENCE_DELEGATE_H_
#define LITEGPU_REFERENCE_DELEGATE_H_

#include <stdbool.h>
#include <stdint.h>

#include "tensorflow/lite/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the delegate fails on purpose (tests of the runtime's fallback). */
typedef enum litegpu_reference_fault {
  LITEGPU_REFERENCE_FAULT_NONE = 0,
  LITEGPU_REFERENCE_FAULT_PREPARE,        /* the delegate's Prepare */
  LITEGPU_REFERENCE_FAULT_KERNEL_INIT,    /* a partition kernel's Init */
  LITEGPU_REFERENCE_FAULT_KERNEL_PREPARE, /* a partition kernel's Prepare */
  LITEGPU_REFERENCE_FAULT_KERNEL_INVOKE,  /* a partition kernel's Invoke */
} litegpu_reference_fault;

typedef struct litegpu_reference_op_limit {
  int32_t builtin_code;
  int max_version; /* this delegate's kMaxVersion for the op */
} litegpu_reference_op_limit;

typedef struct litegpu_reference_delegate_options {
  /* Keep only the N largest partitions (0: all). */
  int max_delegated_partitions;
  /* Skip partitions with fewer nodes (0: none). */
  int min_nodes_per_partition;
  /* The ops it may claim (NULL: every builtin with a litegpu kernel). */
  const int32_t* supported_ops;
  int num_supported_ops;
  /* kMaxVersion overrides (default: the highest version litegpu's kernel
   * accepts). */
  const litegpu_reference_op_limit* op_limits;
  int num_op_limits;
  /* Copied into TfLiteDelegate.flags. */
  int64_t flags;
  litegpu_reference_fault fault;
} litegpu_reference_delegate_options;

TFL_CAPI_EXPORT litegpu_reference_delegate_options
litegpu_reference_delegate_options_default(void);

/* NULL options: the defaults. The arrays in options are copied. NULL on
 * failure. */
TFL_CAPI_EXPORT TfLiteDelegate* litegpu_reference_delegate_create(
    const litegpu_reference_delegate_options* options);

/* NULL is a no-op. */
TFL_CAPI_EXPORT void litegpu_reference_delegate_delete(
    TfLiteDelegate* delegate);

/* The decision about one node at the last application. */
typedef struct litegpu_delegate_decision {
  int node_index;
  const char* op_name;
  int version;
  bool claimed;
  const char* reason; /* "" when claimed */
} litegpu_delegate_decision;

/* Copies up to `capacity` decisions of the last application and returns how
 * many there are (-1 for a NULL delegate). Valid until the next application
 * or the delegate's deletion. */
TFL_CAPI_EXPORT int litegpu_reference_delegate_decisions(
    const TfLiteDelegate* delegate, litegpu_delegate_decision* decisions,
    int capacity);

/* Partitions created at the last application. */
TFL_CAPI_EXPORT int litegpu_reference_delegate_num_partitions(
    const TfLiteDelegate* delegate);

/* The nodes of kept partition `index` (largest first) at the last
 * application: copies up to `capacity` node indices into `nodes` and returns
 * the partition's size, or -1 when there is no such partition. */
TFL_CAPI_EXPORT int litegpu_reference_delegate_partition_nodes(
    const TfLiteDelegate* delegate, int index, int* nodes, int capacity);

#ifdef __cplusplus
}
#endif

#endif /* LITEGPU_REFERENCE_DELEGATE_H_ */
