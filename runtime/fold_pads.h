/* PAD folding: a zero PAD in front of a VALID convolution that is exactly
 * the convolution's SAME padding leaves the execution plan. */
#ifndef LITEGPU_RUNTIME_FOLD_PADS_H_
#define LITEGPU_RUNTIME_FOLD_PADS_H_

#include <stdbool.h>

#include "runtime/interpreter.h"

/* The PAD nodes worth a look, found once when the subgraph is built (after
 * activation fusion): a litegpu PAD or PADV2 on a float32 or int8 rank-4
 * tensor, constant paddings that pad only H and W, the zero value (int8:
 * the zero point, input and output quantized alike), whose output is no
 * graph output and is read only as input 0 of litegpu CONV_2D or
 * DEPTHWISE_CONV_2D nodes with VALID padding. kTfLiteError only when
 * memory runs out. */
TfLiteStatus lg_subgraph_find_pad_folds(lg_subgraph* subgraph);

/* Undoes every fold (the plan and the convolutions' inputs and padding as
 * the model has them), before the graph is prepared again or handed to a
 * delegate. */
void lg_subgraph_unfold_pads(lg_subgraph* subgraph);

/* Called by AllocateTensors for plan position `plan_index` once the nodes
 * before it are prepared. When that node is a candidate PAD and, at the
 * shapes now known, its padding along H and W is what SAME padding of
 * every consumer adds (the same padding before, the same output size), the
 * consumers read the PAD's input with SAME padding instead, the PAD leaves
 * the plan (its output is no longer allocated) and the result is true.
 * Exact: SAME skips the taps a zero pad makes contribute nothing. */
bool lg_subgraph_fold_pad_at(lg_subgraph* subgraph, int plan_index);

/* Frees the candidates and the saved plan. */
void lg_subgraph_release_pad_folds(lg_subgraph* subgraph);

#endif /* LITEGPU_RUNTIME_FOLD_PADS_H_ */
