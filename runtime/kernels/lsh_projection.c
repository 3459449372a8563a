/* LSH_PROJECTION: projects the rows of its input to bits by locality
 * sensitive hashing, as TFLite's kernel does.
 *
 * Inputs: hash FLOAT32 [num_hash, num_bits] (num_bits <= 32) of seeds, the
 * input (rank >= 1, any type; its dim 0 are the rows, each the next
 * bytes / dim0 bytes of its buffer, STRING tensors included, as TFLite
 * reads them), and an optional FLOAT32 weight [dim0]. For seed s, the bit is
 * 1 when sum over rows r of weight[r] (1 without weights) times
 * (double)(int64)Fingerprint64(s's 4 bytes, then row r's bytes) is > 0
 * (farmhash's Fingerprint64: fingerprint.h), summed in row order in double.
 *
 * The key buffer (seed and row) is sized in Prepare; a STRING input's rows
 * are known only at Invoke, which grows it then.
 *
 * SPARSE (options type 1): output INT32 [num_hash], hash function i's
 * num_bits bits packed first-bit-highest, plus i * 2^num_bits (the shift
 * taken mod 32 and the sum wrapping, as LiteRT's x86 build computes
 * num_bits 32). DENSE (2): output INT32 [num_hash * num_bits], one 0/1 per
 * bit. UNKNOWN (0) is rejected.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/fingerprint.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_LSH_OP "LSH_PROJECTION"

/* The key buffer: a seed's 4 bytes, then one input row. */
typedef struct lg_lsh_data {
  uint8_t* key;
  size_t key_capacity;
} lg_lsh_data;

static void* lg_lsh_init(TfLiteContext* context, const char* buffer,
                         size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_lsh_data));
}

static void lg_lsh_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_lsh_data* d = buffer;
  if (d != NULL) free(d->key);
  free(d);
}

/* Room in the key for a seed and one row of `input`. */
static TfLiteStatus lg_lsh_reserve_key(TfLiteContext* context, lg_lsh_data* d,
                                       const TfLiteTensor* input) {
  const size_t key_bytes =
      sizeof(float) + input->bytes / (size_t)input->dims->data[0];
  if (key_bytes <= d->key_capacity) return kTfLiteOk;
  uint8_t* key = realloc(d->key, key_bytes);
  if (key == NULL) {
    lg_kernel_log(context, LG_LSH_OP, "out of memory (%zu bytes)", key_bytes);
    return kTfLiteError;
  }
  d->key = key;
  d->key_capacity = key_bytes;
  return kTfLiteOk;
}

static TfLiteStatus lg_lsh_inputs(TfLiteContext* context, TfLiteNode* node,
                                  const TfLiteTensor** hash,
                                  const TfLiteTensor** input,
                                  const TfLiteTensor** weight,
                                  TfLiteTensor** output) {
  const char* op = LG_LSH_OP;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 3, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, hash));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, input));
  TF_LITE_ENSURE_STATUS(lg_kernel_optional_input(context, node, op, 2, weight));
  return lg_kernel_output(context, node, op, 0, output);
}

static TfLiteStatus lg_lsh_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_LSH_OP;
  lg_lsh_data* d = node->user_data;
  const TfLiteLSHProjectionParams* params = node->builtin_data;
  if (d == NULL || params == NULL) {
    lg_kernel_log(context, op, "no %s", d == NULL ? "kernel data" : "params");
    return kTfLiteError;
  }
  const TfLiteTensor *hash, *input, *weight;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_lsh_inputs(context, node, &hash, &input, &weight, &output));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "hash", hash));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input", input));
  if (hash->type != kTfLiteFloat32 || hash->dims->size != 2) {
    lg_kernel_log(context, op,
                  "hash must be a FLOAT32 matrix [num_hash, num_bits]; it is "
                  "%s of rank %d",
                  TfLiteTypeGetName(hash->type), hash->dims->size);
    return kTfLiteError;
  }
  const int num_hash = hash->dims->data[0];
  const int num_bits = hash->dims->data[1];
  if (num_bits > 32) {
    lg_kernel_log(context, op, "num_bits (hash dimension 1) is %d, above 32",
                  num_bits);
    return kTfLiteError;
  }
  if (input->dims->size < 1 || input->dims->data[0] < 1) {
    lg_kernel_log(context, op,
                  "the input must have rank >= 1 and at least one row");
    return kTfLiteError;
  }
  const int rows = input->dims->data[0];
  if (weight != NULL) {
    TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "weight", weight));
    if (weight->type != kTfLiteFloat32 || weight->dims->size != 1 ||
        weight->dims->data[0] != rows) {
      char shape[64];
      lg_kernel_log(context, op,
                    "weight must be FLOAT32 [%d] (one per input row); it is "
                    "%s %s",
                    rows, TfLiteTypeGetName(weight->type),
                    lg_kernel_format_shape(weight->dims, shape, sizeof shape));
      return kTfLiteError;
    }
  }
  if (output->type != kTfLiteInt32) {
    lg_kernel_log(context, op, "output type %s is not INT32",
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  int out_dim;
  if (params->type == kTfLiteLshProjectionSparse) {
    out_dim = num_hash;
  } else if (params->type == kTfLiteLshProjectionDense) {
    if (num_hash > INT32_MAX / (num_bits > 0 ? num_bits : 1)) {
      lg_kernel_log(context, op, "%d x %d output bits are too many", num_hash,
                    num_bits);
      return kTfLiteError;
    }
    out_dim = num_hash * num_bits;
  } else {
    lg_kernel_log(context, op,
                  "type %d is not supported (expected SPARSE 1 or DENSE 2)",
                  (int)params->type);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_lsh_reserve_key(context, d, input));
  return lg_shape_resize(context, op, output, &out_dim, 1);
}

/* The sign bit of sum_r weight[r] * (double)fingerprint(seed, row r). */
static int lg_lsh_bit(uint8_t* key, const TfLiteTensor* input,
                      const float* weight, int rows, float seed) {
  const size_t row_bytes = input->bytes / (size_t)rows;
  const uint8_t* row = (const uint8_t*)input->data.raw_const;
  double score = 0.0;
  memcpy(key, &seed, sizeof(seed));
  for (int r = 0; r < rows; ++r, row += row_bytes) {
    if (row_bytes > 0) memcpy(key + sizeof(seed), row, row_bytes);
    const double value =
        (double)(int64_t)lg_fingerprint64(key, sizeof(seed) + row_bytes);
    score += weight == NULL ? value : (double)weight[r] * value;
  }
  return score > 0 ? 1 : 0;
}

static TfLiteStatus lg_lsh_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_LSH_OP;
  lg_lsh_data* d = node->user_data;
  const TfLiteLSHProjectionParams* params = node->builtin_data;
  const TfLiteTensor *hash, *input, *weight;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_lsh_inputs(context, node, &hash, &input, &weight, &output));
  const int num_hash = hash->dims->data[0];
  const int num_bits = hash->dims->data[1];
  const int rows = input->dims->data[0];
  if (d == NULL || d->key == NULL) {
    lg_kernel_log(context, op, "invoked before a successful prepare");
    return kTfLiteError;
  }
  /* A STRING input's size is known only now: its key may need to grow
   * (the one allocation Invoke makes). */
  TF_LITE_ENSURE_STATUS(lg_lsh_reserve_key(context, d, input));
  if (lg_kernel_num_elements(output) == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "hash", hash));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  if (input->bytes > 0) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  }
  const float* w = NULL;
  if (weight != NULL) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "weight", weight));
    w = weight->data.f;
  }
  int32_t* out = output->data.i32;
  for (int i = 0; i < num_hash; ++i) {
    uint32_t signature = 0;
    for (int j = 0; j < num_bits; ++j) {
      float seed;
      memcpy(&seed, &hash->data.f[(int64_t)i * num_bits + j], sizeof(seed));
      const int bit = lg_lsh_bit(d->key, input, w, rows, seed);
      if (params->type == kTfLiteLshProjectionDense) {
        *out++ = bit;
      } else {
        signature = (signature << 1) | (uint32_t)bit;
      }
    }
    if (params->type == kTfLiteLshProjectionSparse) {
      const uint32_t offset = (uint32_t)i * (1u << (num_bits & 31));
      *out++ = (int32_t)(signature + offset);
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(LSH_PROJECTION, lg_lsh_init, lg_lsh_free, lg_lsh_prepare,
                       lg_lsh_invoke)
