/* Epilogue fusion for litegpu's own float CPU kernels (see epilogue.c).
 *
 * A CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED node may complete, right
 * after its own Invoke, the chain that follows it: an ADD of a same-shape
 * residual (with the ADD's fused activation), then a PRELU (constant alpha,
 * per channel or scalar), LOGISTIC or HARD_SWISH. The chain's nodes stay in
 * the execution plan (prepared as usual) and are skipped at Invoke.
 *
 * A producer's kernel may instead run the chain inside its own tasks, on
 * each block of output it finished (lg_kernel_offer_epilogue and
 * lg_kernel_take_epilogue, kernel_context.h), saving a pass over memory and
 * a thread hand-off; lg_kernel_take_epilogue (epilogue.c) hands it over only
 * when the chain's output shares no memory with the producer's inputs and
 * temporaries. */
#ifndef LITEGPU_RUNTIME_EPILOGUE_H_
#define LITEGPU_RUNTIME_EPILOGUE_H_

#include <stdbool.h>
#include <stdint.h>

#include "tensorflow/lite/c/common.h"

typedef enum lg_epilogue_activation {
  LG_EPILOGUE_NONE = 0,
  LG_EPILOGUE_PRELU,
  LG_EPILOGUE_LOGISTIC,
  LG_EPILOGUE_HARD_SWISH,
} lg_epilogue_activation;

/* The chain a producer completes; tensors by index in its subgraph. */
typedef struct lg_epilogue {
  bool active;
  int input;              /* the producer's output, the chain's input */
  int residual;           /* the ADD's other operand, or -1 without an ADD */
  bool residual_first;    /* the residual is the ADD's first operand */
  float add_min, add_max; /* the ADD's activation clamp */
  lg_epilogue_activation activation;
  int alpha;    /* PRELU's constant alpha tensor */
  int channels; /* the last dimension of the chain's tensors */
  int output;   /* the chain's final tensor */
  /* The producer's kernel offered to run the chain in its tasks
   * (lg_kernel_offer_epilogue): memory planning keeps the producer's inputs
   * and temporaries alive through the chain. */
  bool in_kernel;
} lg_epilogue;

/* A chain's tensors for one Invoke (kernel_context.h's opaque
 * lg_kernel_epilogue): what lg_kernel_epilogue_run reads. */
struct lg_kernel_epilogue {
  const lg_epilogue* e;
  const float* input;
  const float* residual; /* NULL without an ADD */
  const float* alpha;    /* NULL without a PRELU */
  int64_t alpha_count;
  float* output;
};

struct lg_subgraph;

/* Decides the chains of a prepared subgraph's static part (plan positions
 * below first_unprepared), clearing earlier decisions: fills the producers'
 * epilogue and marks the nodes they absorb. Off when the environment
 * variable LITEGPU_EPILOGUE_FUSION is "0". kTfLiteError only when memory
 * runs out. */
TfLiteStatus lg_subgraph_plan_epilogues(struct lg_subgraph* subgraph);

/* Computes the chain from its input tensor into its output tensor, split
 * over `context`'s thread pool. The result equals running the absorbed
 * nodes' kernels one after the other, bit for bit. */
void lg_epilogue_run(TfLiteContext* context, const lg_epilogue* epilogue);

#endif /* LITEGPU_RUNTIME_EPILOGUE_H_ */
