/* The delegate kit: what every litegpu delegate's Prepare does.
 *
 * A delegate describes what it can run as a table of ops — builtin code (or
 * kTfLiteBuiltinCustom plus a custom name), kMaxVersion, and an optional
 * parameter check that explains a refusal — and gives the kernel
 * registration for its partitions. lg_delegate_kit_prepare then, inside the
 * delegate's Prepare:
 *   1. walks the execution plan with GetNodeAndRegistration and decides each
 *      node: claimed, or the reason not ("Max version supported: 2. Requested
 *      version 3.", "Operation is not supported.", or the check's reason);
 *   2. previews the partitioning of the supported nodes, keeps the
 *      max_delegated_partitions largest (0 = all) and drops partitions
 *      smaller than min_nodes_per_partition, recording why;
 *   3. replaces the kept nodes with delegate kernels, and reports the
 *      unsupported ops in TFLite's form: each distinct (op, reason) once,
 *      sorted, with the number of nodes when several share it, never cut.
 * Every decision stays in the kit for reports (tools/inspect) until the
 * next Prepare or lg_delegate_kit_release.
 *
 *   static const lg_kit_op kOps[] = {{kTfLiteBuiltinAdd, NULL, 2, check_add}};
 *   lg_delegate_kit kit = {.name = "MyDelegate", .ops = kOps, .num_ops = 1,
 *                          .kernel = my_kernel_registration};
 *   ... in the delegate's Prepare:
 *   return lg_delegate_kit_prepare(&kit, context, delegate);
 *
 * Thread safety: one kit per delegate; a delegate is applied by one thread.
 */
#ifndef LITEGPU_PARTITION_DELEGATE_KIT_H_
#define LITEGPU_PARTITION_DELEGATE_KIT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/common.h"

#define LG_KIT_REASON_SIZE 192

/* A parameter check: returns true when the node can run; otherwise writes
 * the reason (without the op name) into `reason`. */
typedef bool (*lg_kit_check_fn)(TfLiteContext* context, const TfLiteNode* node,
                                const TfLiteRegistration* registration,
                                char* reason, size_t reason_size);

/* A delegate-wide check run after an op's own check passes (the op is in
 * the table, its version and parameters are supported): the delegate's
 * view of the node beyond the op table (its tensors, whether its kernels
 * build on the device). `user_data` is the kit's. Same contract as
 * lg_kit_check_fn. */
typedef bool (*lg_kit_node_check_fn)(void* user_data, TfLiteContext* context,
                                     const TfLiteNode* node,
                                     const TfLiteRegistration* registration,
                                     char* reason, size_t reason_size);

typedef struct lg_kit_op {
  int32_t builtin_code;
  const char* custom_name; /* for kTfLiteBuiltinCustom, else NULL */
  int max_version;         /* kMaxVersion */
  lg_kit_check_fn check;   /* NULL: every parameter is supported */
} lg_kit_op;

typedef struct lg_kit_decision {
  int node_index;
  int32_t builtin_code;
  const char* op_name; /* schema name, or the custom name */
  int version;
  bool claimed;
  char reason[LG_KIT_REASON_SIZE]; /* empty when claimed */
} lg_kit_decision;

typedef struct lg_delegate_kit {
  /* Set by the delegate. */
  const char* name; /* kernel custom_name and log name */
  /* The unsupported-ops report names the delegate and where its
   * operations run ("... not supported by GPU delegate:", "... will run on
   * the GPU"); NULL: `name` and "delegate". */
  const char* report_name;
  const char* report_target;
  const lg_kit_op* ops;
  int num_ops;
  lg_kit_node_check_fn node_check; /* NULL: the ops table decides alone */
  void* user_data;                 /* passed to node_check */
  TfLiteRegistration kernel;       /* init receives TfLiteDelegateParams */
  int max_delegated_partitions;    /* 0 or less: no limit */
  int min_nodes_per_partition;     /* 0 or less: no minimum */

  /* Filled by lg_delegate_kit_prepare. */
  lg_kit_decision* decisions; /* one per plan entry, in plan order */
  int num_decisions;
  int num_claimed;
  int num_partitions;
  TfLiteIntArray** partitions; /* the kept partitions' nodes, largest first */
} lg_delegate_kit;

/* Decides, partitions and replaces (see above). Returns what
 * ReplaceNodeSubsetsWithDelegateKernels returned (kTfLiteOk when nothing was
 * claimed), or kTfLiteError when a context call fails. */
TfLiteStatus lg_delegate_kit_prepare(lg_delegate_kit* kit,
                                     TfLiteContext* context,
                                     TfLiteDelegate* delegate);

/* Decides and partitions without replacing: fills the decisions as Prepare
 * would (for previews and reports). Must run inside a delegate's Prepare. */
TfLiteStatus lg_delegate_kit_preview(lg_delegate_kit* kit,
                                     TfLiteContext* context);

/* Frees the decisions; the kit can be prepared again. */
void lg_delegate_kit_release(lg_delegate_kit* kit);

#endif /* LITEGPU_PARTITION_DELEGATE_KIT_H_ */
