/* PAD folding: a zero PAD of H and W in front of VALID convolutions leaves
 * the execution plan; the convolutions' kernels take its padding as
 * explicit padding. */
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

/* Undoes every fold (the plan and the convolutions' inputs as the model
 * has them), before the graph is prepared again or handed to a
 * delegate. */
void lg_subgraph_unfold_pads(lg_subgraph* subgraph);

/* Called by AllocateTensors for plan position `plan_index` once the node
 * there is prepared. When it is a candidate PAD and, at the shapes now
 * known, every consumer's windows over the padded input each hold an input
 * element (the padding is SAME's, or shorter than an undilated window), the
 * consumers read the PAD's input instead and get its padding through
 * lg_kernel_folded_padding; the PAD leaves the plan (its output is no
 * longer allocated) and the result is true. Exact: the kernels skip the
 * taps in the padding, which a zero pad makes contribute nothing. */
bool lg_subgraph_fold_pad_at(lg_subgraph* subgraph, int plan_index);

/* lg_kernel_env.folded_padding of a subgraph (`owner`): the folded PAD's
 * top, bottom, left and right padding when `node` is a convolution whose
 * PAD is folded now. */
bool lg_subgraph_folded_padding(const void* owner, const TfLiteNode* node,
                                int pads[4]);

/* Frees the candidates and the saved plan. */
void lg_subgraph_release_pad_folds(lg_subgraph* subgraph);

#endif /* LITEGPU_RUNTIME_FOLD_PADS_H_ */
