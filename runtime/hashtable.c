/* Hash tables as TFLite's resources (tf.lookup.StaticHashTable after
 * conversion): HASHTABLE, HASHTABLE_IMPORT, HASHTABLE_FIND, HASHTABLE_SIZE
 * (manifest family "control"; they use the interpreter's resources).
 *
 * TFLite's semantics: HASHTABLE writes its table_id into its RESOURCE
 * output, creating the table of (key_dtype, value_dtype) on first use;
 * the types are STRING keys with INT64 values or INT64 keys with STRING
 * values. HASHTABLE_IMPORT fills the table once: later imports are ignored
 * (the converter leaves the initializer in the graph, so it may run again)
 * and of duplicate keys the first wins. HASHTABLE_FIND looks every key up,
 * giving the default value (the first element of input 2) for a missing
 * one; its output has the keys' shape. HASHTABLE_SIZE gives the number of
 * entries as INT64 [1].
 *
 * A table holds copies of its keys and values as byte strings (an INT64 is
 * its 8 bytes) in an open-addressing index. STRING inputs are checked
 * against TFLite's layout before they are read.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/resource_variables.h"
#include "runtime/string_tensor.h"
#include "runtime/subgraph.h"
#include "tensorflow/lite/c/builtin_op_data.h"

typedef struct lg_hash_entry {
  char* key;
  size_t key_length;
  char* value;
  size_t value_length;
} lg_hash_entry;

typedef struct lg_hashtable {
  int32_t id;
  TfLiteType key_type;
  TfLiteType value_type;
  bool imported;
  lg_hash_entry* entries;
  int32_t count;
  int32_t* slots; /* entry index + 1, 0 = empty; a power of two of them */
  int32_t num_slots;
} lg_hashtable;

static void table_free(lg_hashtable* t) {
  for (int32_t i = 0; i < t->count; ++i) {
    free(t->entries[i].key);
    free(t->entries[i].value);
  }
  free(t->entries);
  free(t->slots);
  free(t);
}

void lg_hashtables_release(lg_resources* r) {
  for (int32_t i = 0; i < r->num_tables; ++i) table_free(r->tables[i]);
  free(r->tables);
  r->tables = NULL;
  r->num_tables = r->tables_capacity = 0;
}

static uint64_t hash_bytes(const char* data, size_t length) {
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (size_t i = 0; i < length; ++i) {
    h = (h ^ (uint8_t)data[i]) * 1099511628211ULL;
  }
  return h;
}

/* The slot of `key`: its entry's, or the empty slot where it would go. */
static int32_t find_slot(const lg_hashtable* t, const char* key,
                         size_t length) {
  const uint32_t mask = (uint32_t)t->num_slots - 1;
  uint32_t i = (uint32_t)hash_bytes(key, length) & mask;
  for (;;) {
    const int32_t e = t->slots[i];
    if (e == 0) return (int32_t)i;
    const lg_hash_entry* entry = &t->entries[e - 1];
    if (entry->key_length == length &&
        (length == 0 || memcmp(entry->key, key, length) == 0)) {
      return (int32_t)i;
    }
    i = (i + 1) & mask;
  }
}

static const lg_hash_entry* lookup(const lg_hashtable* t, const char* key,
                                   size_t length) {
  if (t->num_slots == 0) return NULL;
  const int32_t e = t->slots[find_slot(t, key, length)];
  return e == 0 ? NULL : &t->entries[e - 1];
}

static char* copy_bytes(const char* data, size_t length) {
  char* out = malloc(length > 0 ? length : 1);
  if (out != NULL && length > 0) memcpy(out, data, length);
  return out;
}

/* Room for `count` entries at most half the slots full. */
static TfLiteStatus reserve(lg_hashtable* t, int32_t count) {
  t->entries = calloc((size_t)(count > 0 ? count : 1), sizeof(*t->entries));
  int32_t slots = 2;
  while (slots < 2 * count) slots *= 2;
  t->slots = calloc((size_t)slots, sizeof(*t->slots));
  t->num_slots = slots;
  return t->entries != NULL && t->slots != NULL ? kTfLiteOk : kTfLiteError;
}

/* Adds key -> value unless the key is there already (the first wins). */
static TfLiteStatus insert(lg_hashtable* t, const char* key, size_t key_length,
                           const char* value, size_t value_length) {
  const int32_t slot = find_slot(t, key, key_length);
  if (t->slots[slot] != 0) return kTfLiteOk;
  lg_hash_entry* e = &t->entries[t->count];
  e->key = copy_bytes(key, key_length);
  e->value = copy_bytes(value, value_length);
  if (e->key == NULL || e->value == NULL) {
    free(e->key);
    free(e->value);
    return kTfLiteError;
  }
  e->key_length = key_length;
  e->value_length = value_length;
  t->slots[slot] = ++t->count;
  return kTfLiteOk;
}

/* ---- Resources ----------------------------------------------------------- */

static lg_hashtable* find_table(lg_resources* r, int32_t id) {
  for (int32_t i = 0; i < r->num_tables; ++i) {
    if (r->tables[i]->id == id) return r->tables[i];
  }
  return NULL;
}

/* The table the RESOURCE tensor at input 0 names, or NULL (reported). */
static lg_hashtable* table_of_input(TfLiteContext* context,
                                    const TfLiteNode* node, const char* op) {
  lg_resources* r = lg_resources_of_kernel(context, op);
  int32_t id = 0;
  if (r == NULL || lg_resource_read_id(context, node, op, &id) != kTfLiteOk) {
    return NULL;
  }
  lg_hashtable* t = find_table(r, id);
  if (t == NULL) {
    lg_kernel_log(context, op, "hash table %d does not exist", (int)id);
  }
  return t;
}

static bool supported_pair(TfLiteType key, TfLiteType value) {
  return (key == kTfLiteString && value == kTfLiteInt64) ||
         (key == kTfLiteInt64 && value == kTfLiteString);
}

/* Element i of an INT64 or STRING tensor (checked by the caller) as bytes. */
static void element_bytes(const TfLiteTensor* t, int64_t i, const char** data,
                          size_t* length) {
  if (t->type == kTfLiteString) {
    lg_string_at(t, (int32_t)i, data, length);
  } else {
    *data = (const char*)&t->data.i64[i];
    *length = sizeof(int64_t);
  }
}

/* Checks an input holds `type` elements and, for STRING, a well-formed
 * buffer with one string per element. */
static TfLiteStatus check_elements(TfLiteContext* context, const char* op,
                                   const char* what, const TfLiteTensor* t,
                                   TfLiteType type) {
  if (t->type != type) {
    lg_kernel_log(context, op, "%s is %s; the table holds %s", what,
                  TfLiteTypeGetName(t->type), TfLiteTypeGetName(type));
    return kTfLiteError;
  }
  const int64_t n = lg_kernel_num_elements(t);
  if (type != kTfLiteString) {
    if (n > 0 && t->data.raw_const == NULL) {
      lg_kernel_log(context, op, "%s has no data", what);
      return kTfLiteError;
    }
    return kTfLiteOk;
  }
  const char* why = NULL;
  const int32_t count = lg_string_count(t, &why);
  if (count < 0 || count != n) {
    lg_kernel_log(context, op, "%s is not a STRING buffer of %lld strings: %s",
                  what, (long long)n,
                  count < 0 ? why : "the count differs from the shape");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* ---- HASHTABLE ------------------------------------------------------------
 */

static TfLiteStatus hashtable_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  static const char kOp[] = "HASHTABLE";
  const TfLiteHashtableParams* params = node->builtin_data;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, kOp, 0, 0, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, kOp, 0, &output));
  if (params == NULL || output->type != kTfLiteResource) {
    lg_kernel_log(context, kOp, "needs HashtableOptions and a RESOURCE output");
    return kTfLiteError;
  }
  if (!supported_pair(params->key_dtype, params->value_dtype)) {
    lg_kernel_log(context, kOp,
                  "key type %s with value type %s is not supported (STRING "
                  "to INT64 or INT64 to STRING)",
                  TfLiteTypeGetName(params->key_dtype),
                  TfLiteTypeGetName(params->value_dtype));
    return kTfLiteError;
  }
  TfLiteIntArray* dims = TfLiteIntArrayCreate(1);
  if (dims == NULL) return kTfLiteError;
  dims->data[0] = 1;
  return context->ResizeTensor(context, output, dims);
}

static TfLiteStatus hashtable_invoke(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "HASHTABLE";
  const TfLiteHashtableParams* params = node->builtin_data;
  lg_resources* r = lg_resources_of_kernel(context, kOp);
  if (r == NULL) return kTfLiteError;
  lg_hashtable* t = find_table(r, params->table_id);
  if (t == NULL) {
    if (r->num_tables == r->tables_capacity) {
      const int32_t capacity = r->tables_capacity ? 2 * r->tables_capacity : 4;
      lg_hashtable** tables =
          realloc(r->tables, sizeof(*tables) * (size_t)capacity);
      if (tables == NULL) return kTfLiteError;
      r->tables = tables;
      r->tables_capacity = capacity;
    }
    t = calloc(1, sizeof(*t));
    if (t == NULL) return kTfLiteError;
    t->id = params->table_id;
    t->key_type = params->key_dtype;
    t->value_type = params->value_dtype;
    r->tables[r->num_tables++] = t;
  } else if (t->key_type != params->key_dtype ||
             t->value_type != params->value_dtype) {
    lg_kernel_log(context, kOp,
                  "hash table %d exists with other key and value types",
                  (int)t->id);
    return kTfLiteError;
  }
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  memcpy(output->data.raw, &t->id, sizeof t->id);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(HASHTABLE, NULL, NULL, hashtable_prepare,
                       hashtable_invoke)

/* ---- HASHTABLE_IMPORT -----------------------------------------------------
 */

static TfLiteStatus import_prepare(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "HASHTABLE_IMPORT";
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, kOp, 3, 3, 0));
  return lg_resource_check_input(context, node, kOp);
}

static TfLiteStatus import_invoke(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "HASHTABLE_IMPORT";
  lg_hashtable* t = table_of_input(context, node, kOp);
  if (t == NULL) return kTfLiteError;
  if (t->imported) return kTfLiteOk; /* TFLite ignores later imports */
  const TfLiteTensor* keys = &context->tensors[node->inputs->data[1]];
  const TfLiteTensor* values = &context->tensors[node->inputs->data[2]];
  TF_LITE_ENSURE_STATUS(
      check_elements(context, kOp, "keys", keys, t->key_type));
  TF_LITE_ENSURE_STATUS(
      check_elements(context, kOp, "values", values, t->value_type));
  const int64_t n = lg_kernel_num_elements(keys);
  if (n != lg_kernel_num_elements(values) || n > INT32_MAX / 4) {
    lg_kernel_log(context, kOp, "%lld keys for %lld values", (long long)n,
                  (long long)lg_kernel_num_elements(values));
    return kTfLiteError;
  }
  if (reserve(t, (int32_t)n) != kTfLiteOk) {
    lg_kernel_log(context, kOp, "out of memory for %lld entries", (long long)n);
    return kTfLiteError;
  }
  for (int64_t i = 0; i < n; ++i) {
    const char *k, *v;
    size_t kl, vl;
    element_bytes(keys, i, &k, &kl);
    element_bytes(values, i, &v, &vl);
    if (insert(t, k, kl, v, vl) != kTfLiteOk) {
      lg_kernel_log(context, kOp, "out of memory");
      return kTfLiteError;
    }
  }
  t->imported = true;
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(HASHTABLE_IMPORT, NULL, NULL, import_prepare,
                       import_invoke)

/* ---- HASHTABLE_FIND -------------------------------------------------------
 */

static TfLiteStatus find_prepare(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "HASHTABLE_FIND";
  const TfLiteTensor *keys, *fallback;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, kOp, 3, 3, 1));
  TF_LITE_ENSURE_STATUS(lg_resource_check_input(context, node, kOp));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, kOp, 1, &keys));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, kOp, 2, &fallback));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, kOp, 0, &output));
  if (!supported_pair(keys->type, output->type) ||
      fallback->type != output->type) {
    lg_kernel_log(context, kOp,
                  "keys %s, default %s and output %s are not a supported "
                  "table's types",
                  TfLiteTypeGetName(keys->type),
                  TfLiteTypeGetName(fallback->type),
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  if (output->type == kTfLiteString) {
    lg_kernel_set_dynamic(output);
    return kTfLiteOk;
  }
  TfLiteIntArray* dims = TfLiteIntArrayCopy(keys->dims);
  if (dims == NULL) return kTfLiteError;
  return context->ResizeTensor(context, output, dims);
}

static TfLiteStatus find_invoke(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "HASHTABLE_FIND";
  lg_hashtable* t = table_of_input(context, node, kOp);
  if (t == NULL) return kTfLiteError;
  const TfLiteTensor* keys = &context->tensors[node->inputs->data[1]];
  const TfLiteTensor* fallback = &context->tensors[node->inputs->data[2]];
  const int out_index = node->outputs->data[0];
  TfLiteTensor* output = &context->tensors[out_index];
  TF_LITE_ENSURE_STATUS(
      check_elements(context, kOp, "keys", keys, t->key_type));
  TF_LITE_ENSURE_STATUS(
      check_elements(context, kOp, "default", fallback, t->value_type));
  if (output->type != t->value_type || lg_kernel_num_elements(fallback) < 1) {
    lg_kernel_log(context, kOp,
                  "the output must be the table's value type and the "
                  "default one value");
    return kTfLiteError;
  }
  const int64_t n = lg_kernel_num_elements(keys);
  const char* dflt;
  size_t dflt_length;
  element_bytes(fallback, 0, &dflt, &dflt_length);
  if (output->type != kTfLiteString) {
    for (int64_t i = 0; i < n; ++i) {
      const char* k;
      size_t kl;
      element_bytes(keys, i, &k, &kl);
      const lg_hash_entry* e = lookup(t, k, kl);
      memcpy(&output->data.i64[i], e ? e->value : dflt, sizeof(int64_t));
    }
    return kTfLiteOk;
  }
  const char** strings = calloc((size_t)(n > 0 ? n : 1), sizeof(*strings));
  size_t* lengths = calloc((size_t)(n > 0 ? n : 1), sizeof(*lengths));
  TfLiteIntArray* dims = TfLiteIntArrayCopy(keys->dims);
  TfLiteStatus status = strings && lengths && dims ? kTfLiteOk : kTfLiteError;
  for (int64_t i = 0; i < n && status == kTfLiteOk; ++i) {
    const char* k;
    size_t kl;
    element_bytes(keys, i, &k, &kl);
    const lg_hash_entry* e = lookup(t, k, kl);
    strings[i] = e ? e->value : dflt;
    lengths[i] = e ? e->value_length : dflt_length;
  }
  lg_subgraph* s = lg_subgraph_of_kernel(context, kOp);
  if (status == kTfLiteOk && s != NULL) {
    status = lg_string_write(s, out_index, strings, lengths, (int32_t)n, dims);
    dims = NULL;
  } else {
    status = kTfLiteError;
  }
  TfLiteIntArrayFree(dims);
  free(strings);
  free(lengths);
  return status;
}

LG_KERNEL_REGISTRATION(HASHTABLE_FIND, NULL, NULL, find_prepare, find_invoke)

/* ---- HASHTABLE_SIZE -------------------------------------------------------
 */

static TfLiteStatus size_prepare(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "HASHTABLE_SIZE";
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, kOp, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_resource_check_input(context, node, kOp));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, kOp, 0, &output));
  if (output->type != kTfLiteInt64) {
    lg_kernel_log(context, kOp, "output is %s, expected INT64",
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  TfLiteIntArray* dims = TfLiteIntArrayCreate(1);
  if (dims == NULL) return kTfLiteError;
  dims->data[0] = 1;
  return context->ResizeTensor(context, output, dims);
}

static TfLiteStatus size_invoke(TfLiteContext* context, TfLiteNode* node) {
  lg_hashtable* t = table_of_input(context, node, "HASHTABLE_SIZE");
  if (t == NULL) return kTfLiteError;
  context->tensors[node->outputs->data[0]].data.i64[0] = t->count;
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(HASHTABLE_SIZE, NULL, NULL, size_prepare, size_invoke)
