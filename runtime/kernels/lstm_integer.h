/* TFLite's integer (8x8->16) LSTM step for lstm.c's LSTM and
 * UNIDIRECTIONAL_SEQUENCE_LSTM nodes with an INT8 input (CIFG, peephole,
 * projection and layer norm included): see lstm_integer.c. */
#ifndef LITEGPU_RUNTIME_KERNELS_LSTM_INTEGER_H_
#define LITEGPU_RUNTIME_KERNELS_LSTM_INTEGER_H_

#include <stdbool.h>
#include <stddef.h>

#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

typedef struct lg_lstm_int_options {
  float cell_clip, proj_clip;
  bool time_major; /* true for the one-step LSTM too */
} lg_lstm_int_options;

/* Checks the node's tensors for the integer kernel (messages name `op`
 * and the tensor); *n_cell gets the cell count, *n_output the output's
 * features (the projection's width, else n_cell). */
TfLiteStatus lg_lstm_int_check(TfLiteContext* context, const TfLiteNode* node,
                               const char* op, const lg_lstm_int_options* o,
                               const TfLiteTensor* input, int n_batch,
                               int n_input, int* n_cell, int* n_output);

/* Checks the output's type (INT8). */
TfLiteStatus lg_lstm_int_output_check(TfLiteContext* context, const char* op,
                                      const TfLiteTensor* output);

/* The scratch floats lg_lstm_int_run needs. */
size_t lg_lstm_int_scratch_floats(int n_batch, int n_input, int n_cell,
                                  int n_output);

/* Checks the node as lg_lstm_int_check does and the output (INT8, sized
 * for this input), then runs the n_time steps over n_batch rows, updating
 * the state tensors; its scratch is the node's temporary 0 (at least
 * lg_lstm_int_scratch_floats). */
TfLiteStatus lg_lstm_int_run(TfLiteContext* context, const TfLiteNode* node,
                             const char* op, const lg_lstm_int_options* o,
                             const TfLiteTensor* input, TfLiteTensor* output,
                             int n_batch, int n_time, int n_input);

#endif /* LITEGPU_RUNTIME_KERNELS_LSTM_INTEGER_H_ */
