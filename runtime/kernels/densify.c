/* DENSIFY: a constant sparse tensor (the schema's SparsityParameters, in
 * TfLiteTensor.sparsity) to its dense form, as TFLite's kernel: the output
 * has the input's dense shape and type, zeros where nothing is stored.
 *
 * The input is always a constant (TFLite requires it), so Prepare
 * densifies it once into a block the kernel owns and makes the output a
 * kTfLitePersistentRo tensor on it: Invoke does nothing, and the consumers
 * (DEQUANTIZE of float16 weights, CONV_2D) see constants, as TFLite's GPU
 * delegate merges DENSIFY into the weights. The layout was checked when
 * the model was read (base/sparse_layout.h); Prepare checks it again
 * against the tensor it gets, which a delegate or the C API may have made.
 * Version 1: float32, float16 and int8 (any whole-byte type works).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/sparse_layout.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/c/common.h"

#define LG_DENSIFY_OP "DENSIFY"

typedef struct lg_densify_data {
  void* dense; /* the output's data, made in Prepare */
  size_t bytes;
} lg_densify_data;

static void* lg_densify_init(TfLiteContext* context, const char* buffer,
                             size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_densify_data));
}

static void lg_densify_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_densify_data* data = buffer;
  if (data != NULL) free(data->dense);
  free(data);
}

/* The runtime's TfLiteSparsity as the shared walk's layout. */
static bool lg_densify_layout(const TfLiteTensor* input,
                              lg_sparse_layout* out) {
  const TfLiteSparsity* s = input->sparsity;
  memset(out, 0, sizeof(*out));
  if (s->traversal_order == NULL ||
      s->dim_metadata_size != s->traversal_order->size ||
      s->dim_metadata_size > LG_SPARSE_MAX_LEVELS) {
    return false;
  }
  out->rank = input->dims->size;
  out->shape = input->dims->data;
  out->num_levels = s->traversal_order->size;
  out->traversal_order = s->traversal_order->data;
  out->num_blocks = s->block_map != NULL ? s->block_map->size : 0;
  out->block_map = s->block_map != NULL ? s->block_map->data : NULL;
  for (int k = 0; k < s->dim_metadata_size; ++k) {
    const TfLiteDimensionMetadata* d = &s->dim_metadata[k];
    lg_sparse_level* level = &out->levels[k];
    level->format =
        d->format == kTfLiteDimSparseCSR ? LG_SPARSE_CSR : LG_SPARSE_DENSE;
    level->dense_size = d->dense_size;
    if (d->format == kTfLiteDimSparseCSR) {
      if (d->array_segments == NULL || d->array_indices == NULL) return false;
      level->segments = (lg_sparse_index){d->array_segments->data,
                                          d->array_segments->size, 4};
      level->indices =
          (lg_sparse_index){d->array_indices->data, d->array_indices->size, 4};
    }
  }
  return true;
}

static TfLiteStatus lg_densify_check_input(TfLiteContext* context,
                                           const TfLiteTensor* input,
                                           size_t* elem) {
  if (input->sparsity == NULL || !lg_kernel_is_constant(input) ||
      input->data.raw == NULL) {
    lg_kernel_log(context, LG_DENSIFY_OP,
                  "the input must be a constant sparse tensor");
    return kTfLiteError;
  }
  if (TfLiteGetSizeOfType(input->type, elem) != kTfLiteOk || *elem == 0 ||
      input->bytes % *elem != 0) {
    lg_kernel_log(context, LG_DENSIFY_OP,
                  "input type %s is not supported (whole-byte types only)",
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Every reader copied the dense output (lg_kernel_offer_folded). */
static void lg_densify_drop(TfLiteContext* context, TfLiteNode* node) {
  lg_densify_data* data = node->user_data;
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  if (output->data.raw == (char*)data->dense) output->data.raw = NULL;
  free(data->dense);
  data->dense = NULL;
  data->bytes = 0;
}

static TfLiteStatus lg_densify_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  lg_densify_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_DENSIFY_OP, "no kernel data (out of memory)");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, LG_DENSIFY_OP, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_DENSIFY_OP, 0, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_DENSIFY_OP, 0, &output));
  size_t elem = 0;
  TF_LITE_ENSURE_STATUS(lg_densify_check_input(context, input, &elem));
  if (output->type != input->type) {
    lg_kernel_log(
        context, LG_DENSIFY_OP, "output type %s differs from input type %s",
        TfLiteTypeGetName(output->type), TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  lg_sparse_layout layout;
  char why[192];
  if (!lg_densify_layout(input, &layout)) {
    lg_kernel_log(context, LG_DENSIFY_OP,
                  "the input's sparsity is incomplete (levels and traversal "
                  "order differ, or a CSR level lacks its vectors)");
    return kTfLiteError;
  }
  if (!lg_sparse_check(&layout, input->bytes / elem, why, sizeof(why))) {
    lg_kernel_log(context, LG_DENSIFY_OP, "the input's sparsity: %s", why);
    return kTfLiteError;
  }
  const size_t bytes = (size_t)lg_kernel_num_elements(input) * elem;
  /* The block stays where it is across Prepares: a delegate kernel may
   * hold its address. */
  if (data->dense == NULL || data->bytes != bytes) {
    void* dense = calloc(bytes > 0 ? bytes : 1, 1);
    if (dense == NULL) {
      lg_kernel_log(context, LG_DENSIFY_OP, "out of memory for %zu dense bytes",
                    bytes);
      return kTfLiteError;
    }
    free(data->dense);
    data->dense = dense;
    data->bytes = bytes;
  } else {
    memset(data->dense, 0, bytes);
  }
  void* dense = data->dense;
  lg_sparse_densify(&layout, input->data.raw_const, elem, dense);
  TfLiteIntArray* shape = TfLiteIntArrayCopy(input->dims);
  if (shape == NULL) {
    lg_kernel_log(context, LG_DENSIFY_OP, "out of memory for the shape");
    return kTfLiteError;
  }
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  output->data.raw = dense;
  output->allocation_type = kTfLitePersistentRo;
  /* Invoke needs neither the sparse input nor, once its readers copied
   * it (DEQUANTIZE's fold), the dense output. */
  lg_kernel_release_input(context, node, 0);
  lg_kernel_offer_folded(context, node, lg_densify_drop);
  return kTfLiteOk;
}

static TfLiteStatus lg_densify_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  const lg_densify_data* data = node->user_data;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_DENSIFY_OP, 0, &output));
  if (data == NULL || data->dense == NULL ||
      output->data.raw != (char*)data->dense) {
    lg_kernel_log(context, LG_DENSIFY_OP,
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  return kTfLiteOk; /* densified in Prepare */
}

LG_KERNEL_REGISTRATION(DENSIFY, lg_densify_init, lg_densify_free,
                       lg_densify_prepare, lg_densify_invoke)
