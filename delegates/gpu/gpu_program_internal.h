/* Private to gpu_program.c (kernel cache, values, lowering),
 * gpu_program_run.c (memory plan, execution) and gpu_quant.c (quantized
 * tensors): the program's state, shared by them. Nothing else includes this
 * header; the public API is gpu_program.h and gpu_lower.h.
 *
 * Lowering fills `values` and `dispatches` (operands still name values);
 * lg_gpu_program_prepare places the values into buffers and resolves each
 * dispatch's operands into backend arguments; runs only read the resolved
 * dispatches. The program owns everything it points to except `be`, the
 * kernel cache and its kernels, `lowering` and the static op names. Not
 * thread safe (one call at a time).
 */
#ifndef LITEGPU_DELEGATES_GPU_GPU_PROGRAM_INTERNAL_H_
#define LITEGPU_DELEGATES_GPU_GPU_PROGRAM_INTERNAL_H_

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "delegates/backend/gpu_backend.h"
#include "delegates/gpu/gpu_lower.h"
#include "delegates/gpu/gpu_program.h"
#include "tensorflow/lite/c/common.h"

#define PROGRAM_ERROR_SIZE 1024
#define NO_DISPATCH INT_MAX

typedef enum value_kind {
  VALUE_TENSOR,   /* produced in the partition or a boundary input */
  VALUE_CONSTANT, /* a constant tensor or lowering constant */
  VALUE_SCRATCH,
} value_kind;

/* Anything that needs device bytes. */
typedef struct value {
  value_kind kind;
  int tensor;   /* context index, -1 for lowering constants and scratch */
  int alias_of; /* value whose bytes this one uses, -1 if its own */
  size_t bytes;
  int first, last; /* dispatch range using it (after alias merge: root's) */
  bool produced;   /* a node in the partition writes it */
  bool boundary_input, output;
  /* A variable tensor a lowering rewrote: downloaded after each run like an
   * output (lg_gpu_lower_update_variable). */
  bool updated_variable;
  bool half;          /* float16 on the device (float32 or quantized on
                         the host) */
  bool quantized;     /* INT8/UINT8 on the host, floats on the device */
  lg_gpu_quant quant; /* its grid, when quantized */
  size_t host_size;   /* bytes on the host (tensor values) */
  void* host_copy;    /* lowering constants: the data to upload (float32 when
                         half) */
  uint16_t* staging;  /* half values: host-side float16 copy for transfers */
  int buffer;         /* index into the shared buffers (non-constants) */
  lg_gpu_buffer* own; /* constants: their own buffer */
  /* Roots of bound boundary tensors (lg_gpu_program_bind): the
   * application's buffer, used in place of the planned one (not owned). */
  lg_gpu_buffer* bound;
  TfLiteIntArray* dims;  /* tensor values: the shape they were lowered at */
  uint64_t content_hash; /* constants: of their device bytes, once uploaded */
  int donor_value;       /* constants: the donor's value whose buffer `own` is
                            (lg_gpu_program_relower), else -1 */
  bool lent;             /* constants: `own` is lent to a program being
                            prepared at new shapes */
} value;

typedef struct dispatch {
  lg_gpu_kernel* kernel;
  lg_gpu_operand args[LG_GPU_MAX_ARGS];
  lg_gpu_arg resolved[LG_GPU_MAX_ARGS];
  int num_args;
  int dims;
  size_t global[3];
  size_t local[3];
  bool has_local;
  int node_index;      /* the node being lowered when it was made */
  const char* op_name; /* that node's op (static) */
  char kernel_name[32];
  const char* kernel_key;   /* name and defines (the kernel cache's) */
  uint64_t total_ns, count; /* profiling */
} dispatch;

typedef struct shared_buffer {
  lg_gpu_buffer* buffer;
  size_t bytes;
  bool from_donor; /* the donor's buffer of the same index */
} shared_buffer;

struct lg_gpu_program {
  lg_gpu_backend* be;
  lg_gpu_kernel_cache* kernels;
  value* values;
  int num_values, values_capacity;
  int* value_of_tensor; /* context tensor index -> value, -1 */
  int num_context_tensors;
  dispatch* dispatches;
  int num_dispatches, dispatches_capacity;
  shared_buffer* buffers;
  int num_buffers;
  int* output_values; /* values to download, per partition output */
  int* output_tensors;
  int num_outputs;
  lg_gpu_download* downloads;    /* one Invoke's copies, num_outputs at most */
  const TfLiteContext* lowering; /* during lower_node only */
  int lowering_node;             /* its index; -1 in a trial lowering */
  const char* lowering_op;
  int nodes;
  bool profiling; /* lg_gpu_program_set_profiling */
  bool prepared;
  bool dry_run; /* lg_gpu_program_can_lower: check kernels, build nothing */
  /* The partition (lg_gpu_program_set_partition), for fusion and for
   * lowering again at new shapes: its nodes and registrations are copied at
   * Init, since a kernel's Prepare may not call GetNodeAndRegistration. */
  TfLiteIntArray* partition_nodes;
  TfLiteNode* partition_node_copies;
  TfLiteRegistration* partition_regs;
  TfLiteIntArray* partition_outputs;
  bool* absorbed; /* per partition node: lowered by an earlier node */
  int fused_nodes;
  lg_gpu_recording* recording; /* the dispatches, when the backend records */
  /* While profiling with a backend that has timed recordings: the
   * dispatches recorded again with a device timestamp around each (NULL
   * otherwise: profiled runs then time each dispatch on the host, waiting
   * for it). timed_run: the run in flight replays it; its times are added
   * when it completes. */
  lg_gpu_recording* timed_recording;
  bool timed_run;
  /* While lg_gpu_program_relower prepares this program: the program at the
   * old shapes, whose buffers of unchanged size and content it takes. */
  lg_gpu_program* donor;
  bool relowering;     /* lowered by lg_gpu_program_relower */
  float** dequantized; /* per context tensor: lg_gpu_constant_floats copies
                          (during lowering; freed once uploaded) */
  uint64_t bytes_uploaded, bytes_downloaded;
  /* Between lg_gpu_program_enqueue and lg_gpu_program_complete: whether a
   * run is in flight, and the fence of its outputs' download (NULL when it
   * downloads nothing or the backend has no non-blocking downloads). */
  bool in_flight;
  lg_gpu_fence* pending;
  int runs_in_flight; /* lg_gpu_program_enqueue_run's, not yet completed */
  char error[PROGRAM_ERROR_SIZE];
};

/* Slot k of the partition: its node and registration (copies). */
static inline void partition_node_at(const lg_gpu_program* p, int k,
                                     const TfLiteNode** node,
                                     const TfLiteRegistration** reg) {
  *node = &p->partition_node_copies[k];
  *reg = &p->partition_regs[k];
}

/* The value's size in host memory. */
static inline size_t host_bytes(const value* x) { return x->host_size; }

/* The value an operand names; -1 for ints and floats. */
static inline int operand_value(const lg_gpu_program* p,
                                const lg_gpu_operand* arg) {
  if (arg->kind == LG_GPU_OPERAND_TENSOR) {
    return p->value_of_tensor[arg->value.id];
  }
  if (arg->kind == LG_GPU_OPERAND_CONSTANT ||
      arg->kind == LG_GPU_OPERAND_SCRATCH) {
    return arg->value.id;
  }
  return -1;
}

/* gpu_quant.c: the fake quantization after a lowered node's quantized
 * outputs; a dequantizable constant's floats (malloc'd, NULL when out of
 * memory); a quantized value's host data into its device form (x->bytes)
 * and back. */
TfLiteStatus lg_gpu_quant_after_node(lg_gpu_program* p, TfLiteContext* context,
                                     const TfLiteNode* node,
                                     const TfLiteRegistration* reg);
float* lg_gpu_quant_dequantized_copy(const TfLiteTensor* t);
void lg_gpu_quant_to_device(const value* x, const void* host, void* device);
void lg_gpu_quant_from_device(const value* x, const void* device, void* host);

/* gpu_program_run.c: after lg_gpu_program_prepare with p->donor set, the
 * donor's buffers p took become p's (keep) or stay the donor's. */
void lg_gpu_program_settle_donor(lg_gpu_program* p, bool keep);

#endif /* LITEGPU_DELEGATES_GPU_GPU_PROGRAM_INTERNAL_H_ */
