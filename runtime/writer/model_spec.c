/* Model specs (model_spec.h): the parser, statement by statement, into the
 * model writer. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/model/builtin_options.h"
#include "runtime/model/model.h"
#include "runtime/writer/model_spec.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_MAX_WORDS 256
/* Builtin codes with a schema name: 0 .. LG_NUM_BUILTIN_CODES - 1. */
#define LG_NUM_BUILTIN_CODES 210
#define LG_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct lg_spec {
  const char* spec_name; /* for messages */
  const char* base_dir;  /* data paths are relative to it; NULL: cwd */
  const lg_reporter* reporter;
  int line;
  lg_model_writer* w;
  char writer_msg[1024]; /* the writer's latest report */
  /* The current subgraph's tensor names, by tensor index. */
  char** names;
  int num_names;
  int cap_names;
  int current;        /* subgraph index */
  bool any_statement; /* a statement other than comments was seen */
} lg_spec;

/* One line, split into words in place. */
typedef struct lg_line {
  char* words[LG_MAX_WORDS];
  int count;
} lg_line;

/* Name -> value pairs of the enum-valued option fields. */
typedef struct lg_enum_name {
  const char* name;
  int value;
} lg_enum_name;

static const lg_enum_name kPaddings[] = {
    {"SAME", kTfLitePaddingSame},
    {"VALID", kTfLitePaddingValid},
};
static const lg_enum_name kActivations[] = {
    {"NONE", kTfLiteActNone},
    {"RELU", kTfLiteActRelu},
    {"RELU_N1_TO_1", kTfLiteActReluN1To1},
    {"RELU6", kTfLiteActRelu6},
    {"TANH", kTfLiteActTanh},
    {"SIGN_BIT", kTfLiteActSignBit},
};
static const lg_enum_name kMirrorModes[] = {
    {"REFLECT", kTfLiteMirrorPaddingReflect},
    {"SYMMETRIC", kTfLiteMirrorPaddingSymmetric},
};
static const lg_enum_name kRngAlgorithms[] = {
    {"DEFAULT", kTfLiteRngAlgorithmDefault},
    {"PHILOX", kTfLiteRngAlgorithmPhilox},
    {"THREEFRY", kTfLiteRngAlgorithmThreefry},
};
static const lg_enum_name kLstmKernelTypes[] = {
    {"FULL", kTfLiteLSTMFullKernel},
    {"BASIC", kTfLiteLSTMBasicKernel},
};
static const lg_enum_name kCombiners[] = {
    {"SUM", kTfLiteCombinerTypeSum},
    {"MEAN", kTfLiteCombinerTypeMean},
    {"SQRTN", kTfLiteCombinerTypeSqrtn},
};
static const lg_enum_name kLshProjectionTypes[] = {
    {"UNKNOWN", kTfLiteLshProjectionUnknown},
    {"SPARSE", kTfLiteLshProjectionSparse},
    {"DENSE", kTfLiteLshProjectionDense},
};
static const lg_enum_name kWeightsFormats[] = {
    {"DEFAULT", kTfLiteFullyConnectedWeightsFormatDefault},
    {"SHUFFLED4x16INT8", kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8},
};

/* The schema's TensorType names, indexed by schema value. */
static const char* const kTypeNames[] = {
    "FLOAT32", "FLOAT16",       "INT32",       "UINT8",     "INT64",
    "STRING",  "BOOL",          "INT16",       "COMPLEX64", "INT8",
    "FLOAT64", "COMPLEX128",    "UINT64",      "RESOURCE",  "VARIANT",
    "UINT32",  "UINT16",        "INT4",        "BFLOAT16",  "INT2",
    "UINT4",   "FLOAT8_E4M3FN", "FLOAT8_E5M2",
};

/* ---- Messages ------------------------------------------------------------*/

static bool lg_error(lg_spec* s, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

/* Reports "SPEC:LINE: message"; returns false for `return lg_error(...)`. */
static bool lg_error(lg_spec* s, const char* format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  lg_report(s->reporter, "%s:%d: %s", s->spec_name, s->line, message);
  return false;
}

static void lg_writer_report(void* user_data, const char* format,
                             va_list args) {
  lg_spec* s = user_data;
  vsnprintf(s->writer_msg, sizeof(s->writer_msg), format, args);
}

/* A writer call failed: report what the writer said. */
static bool lg_writer_error(lg_spec* s, const char* what) {
  return lg_error(s, "%s: %s", what,
                  s->writer_msg[0] ? s->writer_msg : "model writer error");
}

static void* lg_spec_alloc(lg_spec* s, size_t count, size_t size) {
  void* p = calloc(count > 0 ? count : 1, size);
  if (p == NULL) lg_error(s, "out of memory");
  return p;
}

/* ---- Scalars -------------------------------------------------------------*/

static bool lg_parse_i64(const char* text, int64_t lo, int64_t hi,
                         int64_t* out) {
  if (*text == '\0' || isspace((unsigned char)*text)) return false;
  char* end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

/* A float32: decimal, hex float, inf or nan; finite text that overflows is
 * an error (underflow to a denormal or zero is fine). */
static bool lg_parse_f32(const char* text, float* out) {
  if (*text == '\0' || isspace((unsigned char)*text)) return false;
  char* end;
  errno = 0;
  float v = strtof(text, &end);
  if (*end != '\0' || (errno == ERANGE && isinf(v))) return false;
  *out = v;
  return true;
}

static bool lg_parse_bool(const char* text, bool* out) {
  if (strcmp(text, "1") == 0 || strcasecmp(text, "true") == 0) {
    *out = true;
    return true;
  }
  if (strcmp(text, "0") == 0 || strcasecmp(text, "false") == 0) {
    *out = false;
    return true;
  }
  return false;
}

static bool lg_parse_type(const char* text, TfLiteType* type) {
  for (int i = 0; i < LG_COUNT(kTypeNames); ++i) {
    if (strcmp(text, kTypeNames[i]) == 0) {
      *type = lg_model_convert_tensor_type((int8_t)i);
      return *type != kTfLiteNoType;
    }
  }
  return false;
}

static bool lg_is_name(const char* text) {
  return *text != '\0' && strcmp(text, "-") != 0 &&
         strpbrk(text, ",:=@") == NULL;
}

/* ---- Lists ---------------------------------------------------------------*/

/* Items in a comma-separated list: 0 for "", else commas + 1. */
static int lg_list_count(const char* text) {
  if (*text == '\0') return 0;
  int n = 1;
  for (; *text != '\0'; ++text) n += *text == ',';
  return n;
}

/* The next item of a list, split in place; *cursor becomes NULL after the
 * last. Call only while lg_list_count says items remain. */
static char* lg_list_next(char** cursor) {
  char* item = *cursor;
  char* comma = strchr(item, ',');
  if (comma != NULL) {
    *comma = '\0';
    *cursor = comma + 1;
  } else {
    *cursor = item + strlen(item);
  }
  return item;
}

/* Parses a list of ints in [lo, hi] into a new array. */
static bool lg_parse_int_list(lg_spec* s, const char* what, char* text,
                              int64_t lo, int64_t hi, int32_t** out,
                              int* count) {
  int n = lg_list_count(text);
  int32_t* values = lg_spec_alloc(s, (size_t)n, sizeof(int32_t));
  if (values == NULL) return false;
  for (int i = 0; i < n; ++i) {
    const char* item = lg_list_next(&text);
    int64_t v;
    if (!lg_parse_i64(item, lo, hi, &v)) {
      free(values);
      return lg_error(s, "%s: bad value '%s' (an integer in [%lld, %lld])",
                      what, item, (long long)lo, (long long)hi);
    }
    values[i] = (int32_t)v;
  }
  *out = values;
  *count = n;
  return true;
}

static int32_t lg_find_tensor(const lg_spec* s, const char* name) {
  for (int i = 0; i < s->num_names; ++i) {
    if (strcmp(s->names[i], name) == 0) return i;
  }
  return -1;
}

/* Parses a list of tensor names ("-": omitted, when allowed) into indices. */
static bool lg_parse_tensor_list(lg_spec* s, const char* what, char* text,
                                 bool allow_omitted, int32_t** out,
                                 int* count) {
  int n = lg_list_count(text);
  int32_t* indices = lg_spec_alloc(s, (size_t)n, sizeof(int32_t));
  if (indices == NULL) return false;
  for (int i = 0; i < n; ++i) {
    const char* name = lg_list_next(&text);
    if (strcmp(name, "-") == 0 && allow_omitted) {
      indices[i] = -1;
      continue;
    }
    indices[i] = lg_find_tensor(s, name);
    if (indices[i] < 0) {
      free(indices);
      if (strcmp(name, "-") == 0) {
        return lg_error(s, "%s: '-' (omitted) is only allowed in op inputs",
                        what);
      }
      return lg_error(s, "%s: unknown tensor '%s' in subgraph %d", what, name,
                      s->current);
    }
  }
  *out = indices;
  *count = n;
  return true;
}

/* ---- Data ----------------------------------------------------------------*/

static int lg_hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static bool lg_parse_hex(lg_spec* s, const char* what, const char* text,
                         uint8_t** data, size_t* size) {
  size_t len = strlen(text);
  if (len % 2 != 0) {
    return lg_error(s, "%s: odd number of hex digits (%zu)", what, len);
  }
  uint8_t* bytes = lg_spec_alloc(s, len / 2, 1);
  if (bytes == NULL) return false;
  for (size_t i = 0; i < len / 2; ++i) {
    int hi = lg_hex_digit(text[2 * i]), lo = lg_hex_digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      free(bytes);
      return lg_error(s, "%s: bad hex digit at position %zu", what,
                      hi < 0 ? 2 * i : 2 * i + 1);
    }
    bytes[i] = (uint8_t)(hi * 16 + lo);
  }
  *data = bytes;
  *size = len / 2;
  return true;
}

/* Reads the whole file `path` (relative to the spec's directory). */
static bool lg_read_file(lg_spec* s, const char* what, const char* path,
                         uint8_t** data, size_t* size) {
  char full[4096];
  if (path[0] == '/' || s->base_dir == NULL) {
    snprintf(full, sizeof(full), "%s", path);
  } else {
    snprintf(full, sizeof(full), "%s/%s", s->base_dir, path);
  }
  FILE* f = fopen(full, "rb");
  long length = -1;
  if (f != NULL && fseek(f, 0, SEEK_END) == 0) length = ftell(f);
  uint8_t* buf = length >= 0 ? malloc((size_t)length + 1) : NULL;
  bool ok = buf != NULL && fseek(f, 0, SEEK_SET) == 0 &&
            fread(buf, 1, (size_t)length, f) == (size_t)length;
  int error = errno;
  if (f != NULL) fclose(f);
  if (!ok) {
    free(buf);
    return lg_error(s, "%s: cannot read '%s': %s", what, full, strerror(error));
  }
  *data = buf;
  *size = (size_t)length;
  return true;
}

/* Integer element types for values=: size and range. */
typedef struct lg_int_type {
  TfLiteType type;
  size_t size;
  int64_t lo, hi;
} lg_int_type;

static const lg_int_type kIntTypes[] = {
    {kTfLiteInt8, 1, INT8_MIN, INT8_MAX},    {kTfLiteUInt8, 1, 0, UINT8_MAX},
    {kTfLiteInt16, 2, INT16_MIN, INT16_MAX}, {kTfLiteUInt16, 2, 0, UINT16_MAX},
    {kTfLiteInt32, 4, INT32_MIN, INT32_MAX}, {kTfLiteUInt32, 4, 0, UINT32_MAX},
    {kTfLiteInt64, 8, INT64_MIN, INT64_MAX},
};

static const lg_int_type* lg_int_type_of(TfLiteType type) {
  for (int i = 0; i < LG_COUNT(kIntTypes); ++i) {
    if (kIntTypes[i].type == type) return &kIntTypes[i];
  }
  return NULL;
}

/* The element size values= writes for `type`; 0 when unsupported. */
static size_t lg_value_size(TfLiteType type) {
  const lg_int_type* t = lg_int_type_of(type);
  if (t != NULL) return t->size;
  if (type == kTfLiteFloat32) return 4;
  return type == kTfLiteBool ? 1 : 0;
}

/* One number of `type` as the bits of its little-endian encoding. */
static bool lg_value_bits(TfLiteType type, const char* text, uint64_t* bits) {
  if (type == kTfLiteFloat32) {
    float f;
    uint32_t b;
    if (!lg_parse_f32(text, &f)) return false;
    memcpy(&b, &f, sizeof(b));
    *bits = b;
    return true;
  }
  if (type == kTfLiteBool) {
    bool b;
    if (!lg_parse_bool(text, &b)) return false;
    *bits = b;
    return true;
  }
  const lg_int_type* t = lg_int_type_of(type);
  int64_t v;
  if (t == NULL || !lg_parse_i64(text, t->lo, t->hi, &v)) return false;
  *bits = (uint64_t)v;
  return true;
}

static bool lg_parse_values(lg_spec* s, const char* what, TfLiteType type,
                            char* text, uint8_t** data, size_t* size) {
  size_t elem = lg_value_size(type);
  if (elem == 0) {
    return lg_error(s, "%s: not supported for type %s (use data= or hex=)",
                    what, TfLiteTypeGetName(type));
  }
  int n = lg_list_count(text);
  uint8_t* bytes = lg_spec_alloc(s, (size_t)n, elem);
  if (bytes == NULL) return false;
  for (int i = 0; i < n; ++i) {
    const char* item = lg_list_next(&text);
    uint64_t bits;
    if (!lg_value_bits(type, item, &bits)) {
      free(bytes);
      return lg_error(s, "%s: bad %s value '%s' at position %d", what,
                      TfLiteTypeGetName(type), item, i);
    }
    for (size_t k = 0; k < elem; ++k) {
      bytes[elem * (size_t)i + k] = (uint8_t)(bits >> (8 * k));
    }
  }
  *data = bytes;
  *size = elem * (size_t)n;
  return true;
}

/* ---- tensor --------------------------------------------------------------*/

/* What a tensor line says besides its name, type and shape. */
typedef struct lg_tensor_attrs {
  char what[128]; /* "tensor NAME", for messages */
  int32_t* shape_signature;
  int num_signature;
  bool is_variable;
  bool has_rank;
  bool has_quant;
  float* scales;
  int64_t* zero_points;
  int num_quant;
  int32_t axis;
  uint8_t* data;
  size_t data_size;
  bool has_data;
} lg_tensor_attrs;

static void lg_tensor_attrs_free(lg_tensor_attrs* a) {
  free(a->shape_signature);
  free(a->scales);
  free(a->zero_points);
  free(a->data);
}

/* quant=SCALE:ZP[,SCALE:ZP...][@AXIS] */
static bool lg_parse_quant(lg_spec* s, char* text, lg_tensor_attrs* a) {
  char* at = strchr(text, '@');
  int64_t axis = 0;
  if (at != NULL) {
    *at = '\0';
    if (!lg_parse_i64(at + 1, 0, INT32_MAX, &axis)) {
      return lg_error(s, "%s quant=: bad axis '%s'", a->what, at + 1);
    }
  }
  int n = lg_list_count(text);
  if (n == 0) {
    return lg_error(s, "%s quant=: needs SCALE:ZERO_POINT pairs", a->what);
  }
  a->scales = lg_spec_alloc(s, (size_t)n, sizeof(float));
  a->zero_points = lg_spec_alloc(s, (size_t)n, sizeof(int64_t));
  if (a->scales == NULL || a->zero_points == NULL) return false;
  for (int i = 0; i < n; ++i) {
    char* item = lg_list_next(&text);
    char* colon = strchr(item, ':');
    if (colon != NULL) *colon = '\0';
    if (colon == NULL || !lg_parse_f32(item, &a->scales[i]) ||
        !lg_parse_i64(colon + 1, INT64_MIN, INT64_MAX, &a->zero_points[i])) {
      return lg_error(s, "%s quant=: bad SCALE:ZERO_POINT pair %d", a->what, i);
    }
  }
  a->num_quant = n;
  a->axis = (int32_t)axis;
  a->has_quant = true;
  return true;
}

static bool lg_tensor_data_attr(lg_spec* s, const char* key, char* value,
                                TfLiteType type, lg_tensor_attrs* a) {
  if (a->has_data) {
    return lg_error(s, "%s: more than one of data=, hex=, values=", a->what);
  }
  a->has_data = true;
  char what[160];
  snprintf(what, sizeof(what), "%s %s=", a->what, key);
  if (strcmp(key, "data") == 0) {
    return lg_read_file(s, what, value, &a->data, &a->data_size);
  }
  if (strcmp(key, "hex") == 0) {
    return lg_parse_hex(s, what, value, &a->data, &a->data_size);
  }
  return lg_parse_values(s, what, type, value, &a->data, &a->data_size);
}

static bool lg_tensor_attr(lg_spec* s, char* word, TfLiteType type,
                           lg_tensor_attrs* a) {
  if (strcmp(word, "variable") == 0) return a->is_variable = true;
  if (strcmp(word, "has_rank") == 0) return a->has_rank = true;
  char* eq = strchr(word, '=');
  if (eq == NULL) {
    return lg_error(s, "%s: unknown attribute '%s'", a->what, word);
  }
  *eq = '\0';
  char* value = eq + 1;
  if (strcmp(word, "sig") == 0) {
    if (a->shape_signature != NULL) {
      return lg_error(s, "%s: sig= twice", a->what);
    }
    char what[160];
    snprintf(what, sizeof(what), "%s sig=", a->what);
    return lg_parse_int_list(s, what, value, -1, INT32_MAX, &a->shape_signature,
                             &a->num_signature);
  }
  if (strcmp(word, "quant") == 0) {
    if (a->has_quant) return lg_error(s, "%s: quant= twice", a->what);
    return lg_parse_quant(s, value, a);
  }
  if (strcmp(word, "data") == 0 || strcmp(word, "hex") == 0 ||
      strcmp(word, "values") == 0) {
    return lg_tensor_data_attr(s, word, value, type, a);
  }
  return lg_error(s, "%s: unknown attribute '%s='", a->what, word);
}

/* For types of a fixed element size: does `bytes` match the shape? */
static bool lg_check_data_size(lg_spec* s, const char* name, TfLiteType type,
                               const int32_t* shape, int num_dims,
                               size_t bytes) {
  size_t elem = 0;
  if (TfLiteGetSizeOfType(type, &elem) != kTfLiteOk || elem == 0) return true;
  uint64_t count = 1;
  for (int i = 0; i < num_dims; ++i) {
    if (shape[i] != 0 && count > UINT64_MAX / (uint64_t)shape[i] / elem) {
      return lg_error(s, "tensor %s: the shape is too large", name);
    }
    count *= (uint64_t)shape[i];
  }
  if (count * elem == bytes) return true;
  return lg_error(s,
                  "tensor %s: %zu bytes of data, but %s with %llu elements "
                  "needs %llu",
                  name, bytes, TfLiteTypeGetName(type),
                  (unsigned long long)count,
                  (unsigned long long)(count * elem));
}

static bool lg_remember_name(lg_spec* s, const char* name) {
  if (s->num_names == s->cap_names) {
    int cap = s->cap_names ? s->cap_names * 2 : 16;
    char** grown = realloc(s->names, sizeof(char*) * (size_t)cap);
    if (grown == NULL) return lg_error(s, "out of memory");
    s->names = grown;
    s->cap_names = cap;
  }
  s->names[s->num_names] = strdup(name);
  if (s->names[s->num_names] == NULL) return lg_error(s, "out of memory");
  s->num_names++;
  return true;
}

/* Adds the tensor to the writer (its data first, as a buffer). */
static bool lg_add_tensor(lg_spec* s, lg_writer_tensor* t,
                          const lg_tensor_attrs* a) {
  lg_writer_quantization q = {0};
  if (a->has_quant) {
    q = (lg_writer_quantization){.scale = a->scales,
                                 .num_scale = a->num_quant,
                                 .zero_point = a->zero_points,
                                 .num_zero_point = a->num_quant,
                                 .quantized_dimension = a->axis};
    t->quantization = &q;
  }
  if (a->has_data) {
    if (!lg_check_data_size(s, t->name, t->type, t->shape, t->num_dims,
                            a->data_size)) {
      return false;
    }
    t->buffer = lg_model_writer_add_buffer(s->w, a->data, a->data_size);
    if (t->buffer < 0) return lg_writer_error(s, a->what);
  }
  if (lg_model_writer_add_tensor(s->w, t) < 0) {
    return lg_writer_error(s, a->what);
  }
  return lg_remember_name(s, t->name);
}

static bool lg_stmt_tensor(lg_spec* s, lg_line* l) {
  if (l->count < 4)
    return lg_error(s, "usage: tensor NAME TYPE SHAPE [ATTR...]");
  const char* name = l->words[1];
  if (!lg_is_name(name)) return lg_error(s, "tensor: bad name '%s'", name);
  if (lg_find_tensor(s, name) >= 0) {
    return lg_error(s, "tensor: '%s' is declared twice in subgraph %d", name,
                    s->current);
  }
  lg_writer_tensor t = {.name = name};
  if (!lg_parse_type(l->words[2], &t.type)) {
    return lg_error(s, "tensor %s: unknown type '%s'", name, l->words[2]);
  }
  int32_t* shape = NULL;
  lg_tensor_attrs a = {.has_data = false};
  char what[160];
  snprintf(a.what, sizeof(a.what), "tensor %s", name);
  snprintf(what, sizeof(what), "tensor %s shape", name);
  bool ok = strcmp(l->words[3], "-") == 0
                ? (shape = lg_spec_alloc(s, 1, sizeof(int32_t))) != NULL
                : lg_parse_int_list(s, what, l->words[3], 0, INT32_MAX, &shape,
                                    &t.num_dims);
  for (int i = 4; ok && i < l->count; ++i) {
    ok = lg_tensor_attr(s, l->words[i], t.type, &a);
  }
  if (ok && a.shape_signature != NULL && a.num_signature != t.num_dims) {
    ok = lg_error(s, "tensor %s: sig= has %d entries for %d dims", name,
                  a.num_signature, t.num_dims);
  }
  if (ok) {
    t.shape = shape;
    t.shape_signature = a.shape_signature;
    t.is_variable = a.is_variable;
    t.has_rank = a.has_rank;
    ok = lg_add_tensor(s, &t, &a);
  }
  free(shape);
  lg_tensor_attrs_free(&a);
  return ok;
}

/* ---- op and custom -------------------------------------------------------*/

static bool lg_parse_enum(const lg_enum_name* names, int count,
                          const char* text, int* value) {
  for (int i = 0; i < count; ++i) {
    if (strcmp(text, names[i].name) == 0) {
      *value = names[i].value;
      return true;
    }
  }
  return false;
}

static void lg_store_int(void* params, size_t offset, int value) {
  memcpy((char*)params + offset, &value, sizeof(value));
}

/* Parses an enum-kinded field value into *value. */
static bool lg_parse_enum_field(lg_option_kind kind, const char* text,
                                int* value) {
  TfLiteType type;
  switch (kind) {
    case LG_OPTION_PADDING:
      return lg_parse_enum(kPaddings, LG_COUNT(kPaddings), text, value);
    case LG_OPTION_ACTIVATION:
      return lg_parse_enum(kActivations, LG_COUNT(kActivations), text, value);
    case LG_OPTION_MIRROR_PAD:
      return lg_parse_enum(kMirrorModes, LG_COUNT(kMirrorModes), text, value);
    case LG_OPTION_FC_WEIGHTS_FORMAT:
      return lg_parse_enum(kWeightsFormats, LG_COUNT(kWeightsFormats), text,
                           value);
    case LG_OPTION_LSTM_KERNEL_TYPE:
      return lg_parse_enum(kLstmKernelTypes, LG_COUNT(kLstmKernelTypes), text,
                           value);
    case LG_OPTION_COMBINER:
      return lg_parse_enum(kCombiners, LG_COUNT(kCombiners), text, value);
    case LG_OPTION_RNG_ALGORITHM:
      return lg_parse_enum(kRngAlgorithms, LG_COUNT(kRngAlgorithms), text,
                           value);
    case LG_OPTION_LSH_PROJECTION_TYPE:
      return lg_parse_enum(kLshProjectionTypes, LG_COUNT(kLshProjectionTypes),
                           text, value);
    case LG_OPTION_TENSOR_TYPE:
      if (!lg_parse_type(text, &type)) return false;
      *value = (int)type;
      return true;
    default:
      return false;
  }
}

/* What a value of each lg_option_kind looks like, in enum order. */
static const char* const kKindHints[] = {
    "true, false, 1 or 0",
    "a 32-bit integer",
    "a float",
    "SAME or VALID",
    "NONE, RELU, RELU_N1_TO_1, RELU6, TANH or SIGN_BIT",
    "a tensor type name such as INT32",
    "REFLECT or SYMMETRIC",
    "DEFAULT or SHUFFLED4x16INT8",
    "FULL or BASIC",
    "SUM, MEAN or SQRTN",
    "a list of 32-bit integers",
    "a word (no blanks)",
    "a list of floats",
    "a 32-bit integer (written as a long)",
    "DEFAULT, PHILOX or THREEFRY",
    "a list of 64-bit integers",
    "hex:HEX bytes",
    "a list of 64-bit integers",
    "a 64-bit integer",
    "UNKNOWN, SPARSE or DENSE",
};
_Static_assert(LG_COUNT(kKindHints) == LG_OPTION_LSH_PROJECTION_TYPE + 1,
               "one hint per lg_option_kind");

static bool lg_set_vector_field(lg_spec* s, const char* op,
                                const lg_option_field* f, char* text,
                                void* params) {
  int32_t* values = NULL;
  int n = 0;
  char what[128];
  snprintf(what, sizeof(what), "%s %s", op, f->name);
  if (!lg_parse_int_list(s, what, text, INT32_MIN, INT32_MAX, &values, &n)) {
    return false;
  }
  if (n > f->capacity) {
    free(values);
    return lg_error(s, "%s: %d values, more than the %d the params hold", what,
                    n, f->capacity);
  }
  for (int i = 0; i < n; ++i) {
    lg_store_int(params, f->offset + sizeof(int) * (size_t)i, values[i]);
  }
  lg_store_int(params, f->count_offset, n);
  free(values);
  return true;
}

/* An int64 array field: the values, the field's default after them (an
 * LG_OPTION_INT64_ARRAY's; zeros for an LG_OPTION_INT64_VECTOR, which also
 * gets their count). */
static bool lg_set_int64_array_field(lg_spec* s, const char* op,
                                     const lg_option_field* f, char* text,
                                     void* params) {
  char what[128];
  snprintf(what, sizeof(what), "%s %s", op, f->name);
  const int n = lg_list_count(text);
  if (n > f->capacity) {
    return lg_error(s, "%s: %d values, more than the %d the params hold", what,
                    n, f->capacity);
  }
  char* at = (char*)params + f->offset;
  const int64_t fill =
      f->kind == LG_OPTION_INT64_ARRAY ? (int64_t)f->default_value : 0;
  for (int i = 0; i < f->capacity; ++i) {
    memcpy(at + sizeof(int64_t) * (size_t)i, &fill, sizeof(fill));
  }
  for (int i = 0; i < n; ++i) {
    const char* item = lg_list_next(&text);
    int64_t v;
    if (!lg_parse_i64(item, INT64_MIN, INT64_MAX, &v)) {
      return lg_error(s, "%s: bad value '%s' (a 64-bit integer)", what, item);
    }
    memcpy(at + sizeof(int64_t) * (size_t)i, &v, sizeof(v));
  }
  if (f->kind == LG_OPTION_INT64_VECTOR)
    lg_store_int(params, f->count_offset, n);
  return true;
}

/* A float vector field: a new array whose pointer the params hold (a field
 * given twice replaces the first array); lg_free_float_vectors frees them
 * once the op is added. */
static bool lg_set_float_vector_field(lg_spec* s, const char* op,
                                      const lg_option_field* f, char* text,
                                      void* params) {
  char what[128];
  snprintf(what, sizeof(what), "%s %s", op, f->name);
  const int n = lg_list_count(text);
  float* values = lg_spec_alloc(s, n > 0 ? (size_t)n : 1, sizeof(float));
  if (values == NULL) return false;
  for (int i = 0; i < n; ++i) {
    const char* item = lg_list_next(&text);
    if (!lg_parse_f32(item, &values[i])) {
      free(values);
      return lg_error(s, "%s: bad value '%s' (a float)", what, item);
    }
  }
  char* at = (char*)params + f->offset;
  float* old;
  memcpy(&old, at, sizeof(old));
  free(old);
  memcpy(at, &values, sizeof(values));
  lg_store_int(params, f->count_offset, n);
  return true;
}

/* Frees the arrays lg_set_float_vector_field gave `params`. */
static void lg_free_float_vectors(const lg_builtin_options_desc* desc,
                                  void* params) {
  if (desc == NULL || params == NULL) return;
  for (int i = 0; i < desc->num_fields; ++i) {
    if (desc->fields[i].kind != LG_OPTION_FLOAT_VECTOR &&
        desc->fields[i].kind != LG_OPTION_BYTES) {
      continue;
    }
    float* values;
    memcpy(&values, (char*)params + desc->fields[i].offset, sizeof(values));
    free(values);
  }
}

/* Writes field `f` = `text` into the params struct. */
static bool lg_set_field(lg_spec* s, const char* op, const lg_option_field* f,
                         char* text, void* params) {
  char* at = (char*)params + f->offset;
  bool ok;
  if (f->kind == LG_OPTION_INT32_VECTOR) {
    return lg_set_vector_field(s, op, f, text, params);
  } else if (f->kind == LG_OPTION_FLOAT_VECTOR) {
    return lg_set_float_vector_field(s, op, f, text, params);
  } else if (f->kind == LG_OPTION_INT64_ARRAY ||
             f->kind == LG_OPTION_INT64_VECTOR) {
    return lg_set_int64_array_field(s, op, f, text, params);
  } else if (f->kind == LG_OPTION_BYTES) {
    /* hex:HEX; lg_free_float_vectors frees the copy once the op is added. */
    if (strncmp(text, "hex:", 4) != 0) {
      return lg_error(s, "%s %s: expected hex:HEX, got '%s'", op, f->name,
                      text);
    }
    uint8_t* data = NULL;
    size_t size = 0;
    if (!lg_parse_hex(s, f->name, text + 4, &data, &size)) return false;
    uint8_t* old;
    memcpy(&old, at, sizeof(old));
    free(old);
    memcpy(at, &data, sizeof(data));
    memcpy((char*)params + f->count_offset, &size, sizeof(size));
    return true;
  } else if (f->kind == LG_OPTION_STRING) {
    /* The params point into the statement's words, which outlive the
     * add_operator call that copies them. */
    memcpy(at, &text, sizeof(text));
    ok = true;
  } else if (f->kind == LG_OPTION_BOOL) {
    bool b;
    if ((ok = lg_parse_bool(text, &b))) memcpy(at, &b, sizeof(b));
  } else if (f->kind == LG_OPTION_FLOAT) {
    float v;
    if ((ok = lg_parse_f32(text, &v))) memcpy(at, &v, sizeof(v));
  } else if (f->kind == LG_OPTION_INT32) {
    int64_t v;
    ok = lg_parse_i64(text, INT32_MIN, INT32_MAX, &v);
    if (ok) lg_store_int(params, f->offset, (int)v);
  } else if (f->kind == LG_OPTION_LONG) {
    int64_t v;
    if ((ok = lg_parse_i64(text, INT64_MIN, INT64_MAX, &v))) {
      memcpy(at, &v, sizeof(v));
    }
  } else if (f->kind == LG_OPTION_INT64) {
    int64_t v;
    ok = lg_parse_i64(text, INT32_MIN, INT32_MAX, &v);
    if (ok) lg_store_int(params, f->offset, (int)v);
  } else {
    int v;
    ok = lg_parse_enum_field(f->kind, text, &v);
    if (ok) lg_store_int(params, f->offset, v);
  }
  if (ok) return true;
  return lg_error(s, "%s: bad value '%s' for field %s (expected %s)", op, text,
                  f->name, kKindHints[f->kind]);
}

static int32_t lg_find_builtin(const char* name) {
  for (int32_t code = 0; code < LG_NUM_BUILTIN_CODES; ++code) {
    if (strcmp(lg_builtin_op_name(code), name) == 0) return code;
  }
  return -1;
}

/* The parts of an op or custom line. */
typedef struct lg_op_line {
  const char* name;
  int version;
  int32_t* inputs;
  int num_inputs;
  int32_t* outputs;
  int num_outputs;
  bool has_in, has_out;
} lg_op_line;

/* Takes in=/out= words; other words are left for the caller (returns 0),
 * 1 when the word was taken, -1 on error. */
static int lg_op_io_word(lg_spec* s, lg_op_line* op, char* word) {
  if (strncmp(word, "in=", 3) == 0) {
    if (op->has_in) {
      lg_error(s, "%s: in= twice", op->name);
      return -1;
    }
    op->has_in = true;
    return lg_parse_tensor_list(s, "in=", word + 3, true, &op->inputs,
                                &op->num_inputs)
               ? 1
               : -1;
  }
  if (strncmp(word, "out=", 4) == 0) {
    if (op->has_out) {
      lg_error(s, "%s: out= twice", op->name);
      return -1;
    }
    op->has_out = true;
    return lg_parse_tensor_list(s, "out=", word + 4, false, &op->outputs,
                                &op->num_outputs)
               ? 1
               : -1;
  }
  return 0;
}

static bool lg_op_header(lg_spec* s, lg_line* l, lg_op_line* op) {
  const char* keyword = l->words[0];
  if (l->count < 3) {
    return lg_error(s, "usage: %s NAME VERSION in=LIST out=LIST ...", keyword);
  }
  op->name = l->words[1];
  int64_t version;
  if (strcmp(keyword, "op") == 0 && strcmp(l->words[2], "auto") == 0) {
    lg_model_writer_set_auto_versions(s->w, true);
    op->version = LG_MODEL_WRITER_VERSION_AUTO;
    return true;
  }
  if (!lg_parse_i64(l->words[2], 1, INT32_MAX, &version)) {
    return lg_error(s, "%s %s: bad version '%s' (an integer >= 1)", keyword,
                    op->name, l->words[2]);
  }
  op->version = (int)version;
  return true;
}

static bool lg_op_check_io(lg_spec* s, const lg_op_line* op) {
  if (!op->has_in || !op->has_out) {
    return lg_error(s, "%s: missing %s", op->name,
                    op->has_in ? "out=LIST" : "in=LIST");
  }
  return true;
}

/* Parses the FIELD=VALUE words of a builtin op into `params`. */
static bool lg_op_fields(lg_spec* s, lg_line* l, lg_op_line* op,
                         const lg_builtin_options_desc* desc, void* params) {
  bool seen[64] = {false};
  for (int i = 3; i < l->count; ++i) {
    int taken = lg_op_io_word(s, op, l->words[i]);
    if (taken != 0) {
      if (taken < 0) return false;
      continue;
    }
    char* eq = strchr(l->words[i], '=');
    if (eq == NULL) {
      return lg_error(s, "%s: expected FIELD=VALUE, got '%s'", op->name,
                      l->words[i]);
    }
    *eq = '\0';
    if (desc == NULL) {
      return lg_error(s, "%s: unknown field '%s' (the op takes no params)",
                      op->name, l->words[i]);
    }
    int k = 0;
    while (k < desc->num_fields && strcmp(desc->fields[k].name, l->words[i]))
      ++k;
    if (k == desc->num_fields) {
      return lg_error(s, "%s: unknown field '%s' for this op (%s)", op->name,
                      l->words[i], desc->options_name);
    }
    if (seen[k])
      return lg_error(s, "%s: field %s given twice", op->name, l->words[i]);
    seen[k] = true;
    if (!lg_set_field(s, op->name, &desc->fields[k], eq + 1, params)) {
      return false;
    }
  }
  return lg_op_check_io(s, op);
}

static bool lg_stmt_op(lg_spec* s, lg_line* l) {
  lg_op_line op = {0};
  void* params = NULL;
  bool ok = lg_op_header(s, l, &op);
  int32_t code = ok ? lg_find_builtin(op.name) : -1;
  if (ok && (code < 0 || code == kTfLiteBuiltinCustom ||
             code == kTfLiteBuiltinPlaceholderForGreaterOpCodes)) {
    ok = lg_error(s, "unknown op '%s'%s", op.name,
                  code < 0 ? " (ops are schema names such as CONV_2D)"
                           : " (use a custom line)");
  }
  const lg_builtin_options_desc* desc =
      ok ? lg_builtin_options_find(code) : NULL;
  if (desc != NULL) {
    params = lg_spec_alloc(s, 1, desc->params_size);
    ok = params != NULL;
    if (ok) lg_builtin_options_set_defaults(desc, params);
  }
  if (ok) ok = lg_op_fields(s, l, &op, desc, params);
  if (ok && lg_model_writer_add_operator(s->w, code, op.version, op.inputs,
                                         op.num_inputs, op.outputs,
                                         op.num_outputs, params) < 0) {
    ok = lg_writer_error(s, op.name);
  }
  lg_free_float_vectors(desc, params);
  free(params);
  free(op.inputs);
  free(op.outputs);
  return ok;
}

/* options=hex:HEX or options=file:PATH */
static bool lg_custom_options(lg_spec* s, const char* value, uint8_t** data,
                              size_t* size) {
  if (strncmp(value, "hex:", 4) == 0) {
    return lg_parse_hex(s, "options=hex:", value + 4, data, size);
  }
  if (strncmp(value, "file:", 5) == 0) {
    return lg_read_file(s, "options=file:", value + 5, data, size);
  }
  return lg_error(s, "custom: options= takes hex:HEX or file:PATH, got '%s'",
                  value);
}

static bool lg_stmt_custom(lg_spec* s, lg_line* l) {
  lg_op_line op = {0};
  uint8_t* options = NULL;
  size_t options_size = 0;
  bool ok = lg_op_header(s, l, &op);
  for (int i = 3; ok && i < l->count; ++i) {
    int taken = lg_op_io_word(s, &op, l->words[i]);
    if (taken < 0) ok = false;
    if (taken != 0) continue;
    if (strncmp(l->words[i], "options=", 8) != 0) {
      ok = lg_error(s, "custom %s: unknown word '%s' (in=, out=, options=)",
                    op.name, l->words[i]);
    } else if (options != NULL) {
      ok = lg_error(s, "custom %s: options= twice", op.name);
    } else {
      ok = lg_custom_options(s, l->words[i] + 8, &options, &options_size);
    }
  }
  if (ok) ok = lg_op_check_io(s, &op);
  if (ok && lg_model_writer_add_custom_operator(
                s->w, op.name, op.version, op.inputs, op.num_inputs, op.outputs,
                op.num_outputs, options, options_size) < 0) {
    ok = lg_writer_error(s, op.name);
  }
  free(options);
  free(op.inputs);
  free(op.outputs);
  return ok;
}

/* ---- Graph-level statements ----------------------------------------------*/

static bool lg_stmt_io(lg_spec* s, lg_line* l) {
  bool inputs = strcmp(l->words[0], "inputs") == 0;
  if (l->count > 2) {
    return lg_error(s, "%s: expected one comma-separated list", l->words[0]);
  }
  int32_t* list = NULL;
  int n = 0;
  char empty[] = "";
  if (!lg_parse_tensor_list(s, l->words[0], l->count == 2 ? l->words[1] : empty,
                            false, &list, &n)) {
    return false;
  }
  TfLiteStatus status = inputs ? lg_model_writer_set_inputs(s->w, list, n)
                               : lg_model_writer_set_outputs(s->w, list, n);
  free(list);
  return status == kTfLiteOk || lg_writer_error(s, l->words[0]);
}

static void lg_forget_names(lg_spec* s) {
  for (int i = 0; i < s->num_names; ++i) free(s->names[i]);
  s->num_names = 0;
}

static bool lg_stmt_subgraph(lg_spec* s, lg_line* l, bool first) {
  if (l->count > 2) return lg_error(s, "usage: subgraph [NAME]");
  const char* name = l->count == 2 ? l->words[1] : NULL;
  if (name != NULL && !lg_is_name(name)) {
    return lg_error(s, "subgraph: bad name '%s'", name);
  }
  if (first) {
    if (lg_model_writer_set_subgraph_name(s->w, name) != kTfLiteOk) {
      return lg_writer_error(s, "subgraph");
    }
    return true;
  }
  int32_t index = lg_model_writer_add_subgraph(s->w, name);
  if (index < 0) return lg_writer_error(s, "subgraph");
  s->current = index;
  lg_forget_names(s);
  return true;
}

static bool lg_stmt_min_runtime_version(lg_spec* s, lg_line* l) {
  if (l->count != 2) return lg_error(s, "usage: min_runtime_version X.Y.Z");
  if (lg_model_writer_set_min_runtime_version(s->w, l->words[1]) != kTfLiteOk) {
    return lg_writer_error(s, "min_runtime_version");
  }
  return true;
}

/* ---- Driver --------------------------------------------------------------*/

static void lg_split_words(lg_line* l, char* p) {
  l->count = 0;
  while (*p != '\0' && l->count < LG_MAX_WORDS) {
    while (isspace((unsigned char)*p)) *p++ = '\0';
    if (*p == '\0') break;
    l->words[l->count++] = p;
    while (*p != '\0' && !isspace((unsigned char)*p)) ++p;
  }
}

static bool lg_statement(lg_spec* s, lg_line* l) {
  const char* k = l->words[0];
  bool first = !s->any_statement;
  s->any_statement = true;
  if (strcmp(k, "tensor") == 0) return lg_stmt_tensor(s, l);
  if (strcmp(k, "op") == 0) return lg_stmt_op(s, l);
  if (strcmp(k, "custom") == 0) return lg_stmt_custom(s, l);
  if (strcmp(k, "inputs") == 0 || strcmp(k, "outputs") == 0) {
    return lg_stmt_io(s, l);
  }
  if (strcmp(k, "subgraph") == 0) return lg_stmt_subgraph(s, l, first);
  if (strcmp(k, "min_runtime_version") == 0) {
    return lg_stmt_min_runtime_version(s, l);
  }
  return lg_error(s, "unknown statement '%s'", k);
}

/* Handles one line (newline stripped). */
static bool lg_process_line(lg_spec* s, char* text) {
  const char* p = text;
  while (isspace((unsigned char)*p)) ++p;
  if (*p == '\0' || *p == '#') return true;
  lg_line l = {.count = 0};
  lg_split_words(&l, text);
  if (l.count == LG_MAX_WORDS) {
    return lg_error(s, "more than %d words", LG_MAX_WORDS - 1);
  }
  return lg_statement(s, &l);
}

static bool lg_process_stream(lg_spec* s, FILE* in) {
  char* line = NULL;
  size_t cap = 0;
  ssize_t len;
  bool ok = true;
  while (ok && (len = getline(&line, &cap, in)) >= 0) {
    s->line++;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) {
      line[--len] = '\0';
    }
    if (strlen(line) != (size_t)len) {
      ok = lg_error(s, "NUL byte in the line");
    } else {
      ok = lg_process_line(s, line);
    }
  }
  if (ok && ferror(in)) ok = lg_error(s, "read error");
  free(line);
  return ok;
}

static void lg_spec_release(lg_spec* s) {
  lg_forget_names(s);
  free(s->names);
}

lg_model_writer* lg_model_spec_read(FILE* in, const char* spec_name,
                                    const char* base_dir,
                                    const lg_reporter* reporter) {
  lg_spec s = {.spec_name = spec_name ? spec_name : "<spec>",
               .base_dir = base_dir,
               .reporter = reporter};
  lg_reporter writer_reporter = {lg_writer_report, &s};
  s.w = lg_model_writer_create(&writer_reporter);
  bool ok = s.w != NULL || lg_error(&s, "out of memory");
  if (ok) ok = lg_process_stream(&s, in);
  lg_spec_release(&s);
  if (!ok) {
    lg_model_writer_destroy(s.w);
    return NULL;
  }
  /* The writer keeps its reporter: later failures go to the caller's. */
  lg_model_writer_set_reporter(s.w, reporter);
  return s.w;
}

lg_model_writer* lg_model_spec_read_text(const char* text,
                                         const char* spec_name,
                                         const char* base_dir,
                                         const lg_reporter* reporter) {
  FILE* in = fmemopen((void*)text, strlen(text), "r");
  if (in == NULL) {
    lg_report(reporter, "%s: cannot read the spec text: %s",
              spec_name ? spec_name : "<spec>", strerror(errno));
    return NULL;
  }
  lg_model_writer* w = lg_model_spec_read(in, spec_name, base_dir, reporter);
  fclose(in);
  return w;
}
