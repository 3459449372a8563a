/* Shared float pieces of the recurrent kernels (LSTM, RNN and SVDF families:
 * lstm.c, rnn.c, svdf.c).
 *
 * Every cell of TFLite's recurrent ops starts the same way: a vector per
 * batch row of "gates from weights", bias + W_x * x + W_h * h. One helper
 * computes it for all of them, in TFLite's order (bias first, then the input
 * product, then the recurrent product, each product summed over its row
 * first), so the float results differ from LiteRT's only by the summation
 * order inside a dot product.
 *
 * Activations are TFLite's ApplyActivationToVector for float through libm:
 * sigmoid 1 / (1 + expf(-x)), tanhf, the clamps of RELU, RELU_N1_TO_1
 * and RELU6, SIGN_BIT 1 for a set sign bit (-0 and negatives) else 0. NONE
 * is the identity (LiteRT's float kernels leave the result unwritten for
 * NONE, so their output is whatever the scratch held; litegpu computes the
 * identity instead).
 *
 * The helpers never allocate and never fail; kernels check shapes in
 * Prepare.
 */
#ifndef LITEGPU_RUNTIME_KERNELS_RECURRENT_H_
#define LITEGPU_RUNTIME_KERNELS_RECURRENT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

/* For each batch row b < n_batch and unit u < n:
 *   gate[b * n + u] = (bias ? bias[u] : 0)
 *                   + sum_k w_x[u * n_x + k] * x[b * x_stride + k]
 *                   + sum_k w_h[u * n_h + k] * h[b * h_stride + k]
 * The recurrent term is skipped when w_h is NULL; with h_diagonal, w_h holds
 * n values and the term is w_h[u] * h[b * h_stride + u] (n_h must be n).
 * The input term is skipped when w_x is NULL. */
void lg_recurrent_gates(float* gate, int n, int n_batch, const float* bias,
                        const float* w_x, int n_x, const float* x,
                        ptrdiff_t x_stride, const float* w_h, int n_h,
                        bool h_diagonal, const float* h, ptrdiff_t h_stride);

/* A bidirectional op's aux_input against its input, both [batch or time,
 * time or batch, features]: the first two sizes equal, and without cross
 * links (no aux weights: the backward direction reads aux_input in place
 * of the input) the features too. *n_aux gets aux_input's features.
 * Messages start with `op`. */
TfLiteStatus lg_recurrent_check_aux_input(TfLiteContext* context,
                                          const char* op,
                                          const TfLiteTensor* aux_input,
                                          const TfLiteTensor* input, bool cross,
                                          int* n_aux);

/* gate[b * n + u] += sum_k w[u * k_count + k] * x[b * x_stride + k] for
 * each batch row b < n_batch and unit u < n (the auxiliary-input and
 * recurrent terms where TFLite adds them one after the other). */
void lg_recurrent_add_product(float* gate, int n, int n_batch, const float* w,
                              int k_count, const float* x, ptrdiff_t x_stride);

/* The hybrid form (int8 weights of per-tensor scales w_x_scale and
 * w_h_scale, float x and h), TFLite's hybrid RnnBatchStep bit for bit:
 * gate = bias; then each batch row of x is quantized to int8 (symmetric,
 * or asymmetric with asymmetric_quantize_inputs: lg_hybrid_quantize_*),
 * and gate += (float)(sum w * q - zp * sum w) * (row scale * w_x_scale);
 * then the same for h with w_h. `q` holds max(n_x, n_h) int8 values. A
 * NULL w_x or w_h skips its term. */
void lg_recurrent_gates_hybrid(float* gate, int n, int n_batch,
                               const float* bias, const int8_t* w_x,
                               float w_x_scale, int n_x, const float* x,
                               ptrdiff_t x_stride, const int8_t* w_h,
                               float w_h_scale, int n_h, const float* h,
                               ptrdiff_t h_stride, bool asymmetric, int8_t* q);

/* One hybrid term of lg_recurrent_gates_hybrid: each batch row of x (k
 * values, rows `stride` apart) quantized into q, then gate[b * n + u] +=
 * (float)(sum w * q - zp * sum w) * (row scale * w_scale). */
void lg_recurrent_hybrid_term(float* gate, int n, int n_batch, const int8_t* w,
                              float w_scale, int k, const float* x,
                              ptrdiff_t stride, bool asymmetric, int8_t* q);

/* out[i] = activation(in[i]) for i < count (in and out may alias). */
void lg_recurrent_activate(const float* in, float* out, size_t count,
                           TfLiteFusedActivation activation);

/* Checks that the kernels compute `activation`: NONE, RELU, RELU_N1_TO_1,
 * RELU6, TANH, SIGN_BIT or SIGMOID; other values are rejected naming
 * them. */
TfLiteStatus lg_recurrent_check_activation(TfLiteContext* context,
                                           const char* op,
                                           TfLiteFusedActivation activation);

/* Checks that `tensor` is FLOAT32 with exactly the dims given (`rank` of
 * them); `what` names it ("input_to_forget_weights"). A hybrid (INT8 or
 * UINT8) weight is reported as not supported, naming the type. */
TfLiteStatus lg_recurrent_check_float(TfLiteContext* context, const char* op,
                                      const char* what,
                                      const TfLiteTensor* tensor, int rank,
                                      const int* dims);

/* Checks the kinds of kernel a node asks for by its input and weight
 * types: FLOAT32 both is the float kernel; a FLOAT32 input with INT8 or
 * UINT8 weights is TFLite's hybrid kernel and an INT8 or INT16 input its
 * integer kernel, both rejected with a message naming the combination.
 * With `hybrid_ok`, FLOAT32 input with INT8 weights passes too. */
TfLiteStatus lg_recurrent_check_kernel_types(TfLiteContext* context,
                                             const char* op,
                                             const TfLiteTensor* input,
                                             const TfLiteTensor* weights,
                                             bool hybrid_ok);

/* Checks a hybrid weight: INT8 of one per-tensor scale (> 0, finite) and
 * zero point 0, exactly the dims given; its scale into *scale. */
TfLiteStatus lg_recurrent_check_int8(TfLiteContext* context, const char* op,
                                     const char* what,
                                     const TfLiteTensor* tensor, int rank,
                                     const int* dims, float* scale);

/* Checks that a state input is a variable tensor (is_variable, as TFLite's
 * GetVariableInput requires) of FLOAT32 [rows, cols]. */
TfLiteStatus lg_recurrent_check_state(TfLiteContext* context, const char* op,
                                      const char* what,
                                      const TfLiteTensor* tensor, int rows,
                                      int cols);

/* Sets the node's one float scratch temporary to `floats` elements; `id`
 * holds the temporary's tensor index (-1 before the first Prepare). */
TfLiteStatus lg_recurrent_scratch(TfLiteContext* context, TfLiteNode* node,
                                  const char* op, int* id, size_t floats);

/* The per-node data of the LSTM and RNN families: the variant (the
 * family's kind enum), the op's name for messages and the scratch
 * tensor's index (-1 until Prepare adds it). */
typedef struct lg_recurrent_data {
  int kind;
  const char* name;
  int scratch_id;
} lg_recurrent_data;

/* A new lg_recurrent_data (NULL when memory runs out): the body of both
 * families' Init. */
void* lg_recurrent_init_variant(int kind, const char* name);

/* The input's batch, time and feature counts. */
typedef struct lg_recurrent_shape {
  int n_batch, n_time, n_input;
} lg_recurrent_shape;

/* Reads them from `input`: [batch, features] for a single step, else
 * [time, batch, features] when time_major or [batch, time, features];
 * an input of another rank fails naming `op`. */
TfLiteStatus lg_recurrent_input_shape(TfLiteContext* context, const char* op,
                                      bool single_step, bool time_major,
                                      const TfLiteTensor* input,
                                      lg_recurrent_shape* shape);

/* The inputs of LSTM's BASIC kernel type, in TFLite's order (the CPU
 * kernel in lstm.c, the GPU lowering in delegates/gpu/lower_conv_matmul.c). */
enum {
  kLgLstmBasicInput = 0,
  kLgLstmBasicPrevActivation = 1,
  kLgLstmBasicWeights = 2,
  kLgLstmBasicBiases = 3,
  kLgLstmBasicPrevState = 4,
};

#endif /* LITEGPU_RUNTIME_KERNELS_RECURRENT_H_ */
