/* benchmark_model: the --input_layer, --input_layer_shape and
 * --input_layer_value_range flags, and the seeded random input values (the
 * rules are at the top of tools/benchmark_model.c). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/benchmark/benchmark.h"

#define LG_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* Integers beyond 2^53 do not survive the trip through double. */
#define EXACT_INT_LIMIT 9007199254740992.0

/* ---- Input specifications (--input_layer*) --------------------------------
 */

void lg_bench_inputs_free(lg_bench_inputs* in) {
  for (int i = 0; i < in->num_layers && in->layers != NULL; ++i) {
    free(in->layers[i].dims);
  }
  free(in->layers);
  free(in->ranges);
  free(in->names);
  free(in->ranges_text);
  memset(in, 0, sizeof(*in));
}

static int count_items(const char* text, char sep) {
  if (text[0] == '\0') return 0;
  int n = 1;
  for (const char* c = text; *c != '\0'; ++c) n += *c == sep;
  return n;
}

/* Cuts `text` at every `sep` and returns the next item; *text moves on. */
static char* next_item(char** text, char sep) {
  char* item = *text;
  char* cut = strchr(item, sep);
  if (cut != NULL) {
    *cut = '\0';
    *text = cut + 1;
  } else {
    *text = item + strlen(item);
  }
  return item;
}

/* Like next_item with ':' as the separator, except that "::" stands for a
 * ':' in the item (TFLite's escape for names like "input:0"). After the
 * last item *text is NULL. */
static char* next_escaped_item(char** text) {
  char* item = *text;
  char* r = item;
  char* w = item;
  while (*r != '\0' && !(r[0] == ':' && r[1] != ':')) {
    *w++ = *r;
    r += r[0] == ':' ? 2 : 1;
  }
  *text = *r == ':' ? r + 1 : NULL;
  *w = '\0';
  return item;
}

/* "1,224,224,3" -> dims; every dimension a positive integer. */
static bool parse_shape(const char* text, lg_bench_layer* layer) {
  int n = count_items(text, ',');
  if (n == 0) return false;
  layer->dims = calloc((size_t)n, sizeof(int32_t));
  if (layer->dims == NULL) return false;
  layer->num_dims = n;
  for (int d = 0; d < n; ++d) {
    char* end = NULL;
    long v = strtol(text, &end, 10);
    if (end == text || v < 1 || v > INT32_MAX) return false;
    if (*end != (d + 1 < n ? ',' : '\0')) return false;
    layer->dims[d] = (int32_t)v;
    text = end + 1;
  }
  return true;
}

static bool parse_layers(const lg_bench_params* p, lg_bench_inputs* in) {
  in->num_layers = count_items(p->input_layer, ',');
  int num_shapes = count_items(p->input_layer_shape, ':');
  if (num_shapes > 0 && num_shapes != in->num_layers) {
    fprintf(stderr,
            "benchmark_model: --input_layer_shape has %d shape(s) "
            "for %d --input_layer name(s); give one shape per name\n",
            num_shapes, in->num_layers);
    return false;
  }
  if (in->num_layers == 0) return true;
  in->names = strdup(p->input_layer);
  char* shapes = strdup(p->input_layer_shape);
  in->layers = calloc((size_t)in->num_layers, sizeof(lg_bench_layer));
  bool ok = in->names != NULL && shapes != NULL && in->layers != NULL;
  if (!ok) fprintf(stderr, "benchmark_model: out of memory\n");
  char* names_cursor = in->names;
  char* shapes_cursor = shapes;
  for (int i = 0; ok && i < in->num_layers; ++i) {
    lg_bench_layer* layer = &in->layers[i];
    layer->name = next_item(&names_cursor, ',');
    layer->input = -1;
    if (layer->name[0] == '\0') {
      fprintf(stderr, "benchmark_model: --input_layer: name %d is empty\n",
              i + 1);
      ok = false;
    } else if (num_shapes > 0) {
      const char* shape = next_item(&shapes_cursor, ':');
      if (!parse_shape(shape, layer)) {
        fprintf(stderr,
                "benchmark_model: --input_layer_shape: '%s' (for "
                "'%s') is not a list of positive integers like 1,224,224,3\n",
                shape, layer->name);
        ok = false;
      }
    }
  }
  free(shapes);
  return ok;
}

static bool parse_real(const char* text, double* v) {
  char* end = NULL;
  *v = strtod(text, &end);
  return end != text && *end == '\0' && isfinite(*v);
}

/* One "NAME,LOW,HIGH": the last two commas end the name. */
static bool parse_range(char* item, lg_bench_range* r) {
  char* last = strrchr(item, ',');
  if (last == NULL) return false;
  *last = '\0';
  char* mid = strrchr(item, ',');
  if (mid == NULL || mid == item) return false;
  *mid = '\0';
  r->name = item;
  return parse_real(mid + 1, &r->low) && parse_real(last + 1, &r->high) &&
         r->low <= r->high;
}

/* "x,0,9:y,-1,1": inclusive ranges, one item per input. */
static bool parse_ranges(const lg_bench_params* p, lg_bench_inputs* in) {
  const char* text = p->input_layer_value_range;
  if (text[0] == '\0') return true;
  /* ':' counts every item, and each "::" once more: room enough. */
  in->ranges = calloc((size_t)count_items(text, ':'), sizeof(lg_bench_range));
  in->ranges_text = strdup(text);
  if (in->ranges_text == NULL || in->ranges == NULL) {
    fprintf(stderr, "benchmark_model: out of memory\n");
    return false;
  }
  for (char* cursor = in->ranges_text; cursor != NULL; ++in->num_ranges) {
    char* item = next_escaped_item(&cursor);
    if (!parse_range(item, &in->ranges[in->num_ranges])) {
      fprintf(stderr,
              "benchmark_model: --input_layer_value_range: item %d of '%s' "
              "is not NAME,LOW,HIGH with numbers LOW <= HIGH (write a ':' "
              "in a name as '::')\n",
              in->num_ranges + 1, text);
      return false;
    }
  }
  return true;
}

static int model_input_named(const lg_bench_graph* g, const char* name) {
  for (int i = 0; i < lg_bench_graph_input_count(g); ++i) {
    if (strcmp(lg_bench_graph_input_name(g, i), name) == 0) return i;
  }
  return -1;
}

/* "the model's inputs" or "the inputs of signature 'KEY'" (at most 160
 * bytes of the key). */
static const char* inputs_phrase(const lg_bench_graph* g, char* buf,
                                 size_t size) {
  if (g->key == NULL) return "the model's inputs";
  snprintf(buf, size, "the inputs of signature '%.160s'", g->key);
  return buf;
}

static void print_model_inputs(const lg_bench_graph* g) {
  char phrase[256];
  fprintf(stderr, "benchmark_model: %s, in order:",
          inputs_phrase(g, phrase, sizeof(phrase)));
  for (int i = 0; i < lg_bench_graph_input_count(g); ++i) {
    fprintf(stderr, "%s '%s'", i ? "," : "", lg_bench_graph_input_name(g, i));
  }
  fputc('\n', stderr);
}

/* Maps each --input_layer name to a graph input (see the header). */
static bool resolve_layers(const lg_bench_graph* g, lg_bench_inputs* in) {
  int count = lg_bench_graph_input_count(g);
  bool by_name = true;
  for (int i = 0; i < in->num_layers; ++i) {
    in->layers[i].input = model_input_named(g, in->layers[i].name);
    by_name = by_name && in->layers[i].input >= 0;
  }
  if (!by_name && in->num_layers != count) {
    fprintf(stderr,
            "benchmark_model: --input_layer names %d input(s) but "
            "the %s has %d and not every name is an input name\n",
            in->num_layers, g->key ? "signature" : "model", count);
    print_model_inputs(g);
    return false;
  }
  for (int i = 0; i < in->num_layers; ++i) {
    lg_bench_layer* layer = &in->layers[i];
    if (!by_name) {
      layer->input = i;
      fprintf(stderr,
              "benchmark_model: warning: input %d is named '%s' but "
              "--input_layer calls it '%s'\n",
              i, lg_bench_graph_input_name(g, i), layer->name);
    }
    for (int j = 0; j < i; ++j) {
      if (in->layers[j].input == layer->input) {
        fprintf(stderr,
                "benchmark_model: --input_layer names input '%s' "
                "twice\n",
                layer->name);
        return false;
      }
    }
  }
  return true;
}

static void print_dims(FILE* out, const int* dims, int num_dims) {
  fputc('[', out);
  for (int d = 0; d < num_dims; ++d) fprintf(out, d ? ",%d" : "%d", dims[d]);
  fputc(']', out);
}

/* A signature resizes strictly (only the -1 dimensions of the tensor's
 * shape signature): says so, with the shape signature. */
static void print_resize_failure(const lg_bench_graph* g,
                                 const lg_bench_layer* layer) {
  const char* name = lg_bench_graph_input_name(g, layer->input);
  if (g->key == NULL) {
    fprintf(stderr, "benchmark_model: resizing input '%s' failed\n",
            layer->name);
    return;
  }
  const TfLiteTensor* t = lg_bench_graph_input(g, layer->input);
  fprintf(stderr,
          "benchmark_model: --input_layer_shape: resizing input '%s' of "
          "signature '%s' to ",
          name, g->key);
  print_dims(stderr, layer->dims, layer->num_dims);
  fprintf(stderr,
          " failed: through a signature only the dimensions the model "
          "leaves unknown (-1) can change, and its shape signature is ");
  const TfLiteIntArray* sig = t ? t->dims_signature : NULL;
  if (sig != NULL && sig->size > 0) {
    print_dims(stderr, sig->data, sig->size);
  } else if (t != NULL && t->dims != NULL) {
    print_dims(stderr, t->dims->data, t->dims->size);
  } else {
    fputs("unknown", stderr);
  }
  fputc('\n', stderr);
}

bool lg_bench_inputs_resize(lg_bench_graph* g, lg_bench_inputs* in) {
  if (!resolve_layers(g, in)) return false;
  for (int i = 0; i < in->num_layers; ++i) {
    const lg_bench_layer* layer = &in->layers[i];
    if (layer->dims == NULL) continue;
    if (lg_bench_graph_resize(g, layer->input, layer->dims, layer->num_dims) !=
        kTfLiteOk) {
      print_resize_failure(g, layer);
      return false;
    }
  }
  return true;
}

/* The graph input a --input_layer_value_range name means: a name from
 * --input_layer first, else a graph input name; -1 when neither. */
static int range_input(const lg_bench_graph* g, const lg_bench_inputs* in,
                       const char* name) {
  for (int i = 0; i < in->num_layers; ++i) {
    if (strcmp(in->layers[i].name, name) == 0) return in->layers[i].input;
  }
  return model_input_named(g, name);
}

bool lg_bench_inputs_parse(const lg_bench_params* p, lg_bench_inputs* in) {
  return parse_layers(p, in) && parse_ranges(p, in);
}

/* ---- Random input values --------------------------------------------------
 */

typedef struct lg_type_info {
  TfLiteType type;
  size_t size;      /* bytes of one stored value (a complex: of one part) */
  bool real;        /* floating point */
  double min, max;  /* values the type holds (integers: exactly) */
  double low, high; /* default random range */
} lg_type_info;

static const lg_type_info kTypes[] = {
    {kTfLiteFloat32, 4, true, -FLT_MAX, FLT_MAX, -0.5, 0.5},
    {kTfLiteFloat64, 8, true, -DBL_MAX, DBL_MAX, -0.5, 0.5},
    {kTfLiteFloat16, 2, true, -65504, 65504, -0.5, 0.5},
    {kTfLiteComplex64, 4, true, -FLT_MAX, FLT_MAX, -0.5, 0.5},
    {kTfLiteInt8, 1, false, INT8_MIN, INT8_MAX, INT8_MIN, INT8_MAX},
    {kTfLiteUInt8, 1, false, 0, UINT8_MAX, 0, UINT8_MAX},
    {kTfLiteInt16, 2, false, INT16_MIN, INT16_MAX, 0, 99},
    {kTfLiteUInt16, 2, false, 0, UINT16_MAX, 0, 99},
    {kTfLiteInt32, 4, false, INT32_MIN, INT32_MAX, 0, 99},
    {kTfLiteUInt32, 4, false, 0, UINT32_MAX, 0, 99},
    {kTfLiteInt64, 8, false, -EXACT_INT_LIMIT, EXACT_INT_LIMIT, 0, 99},
    {kTfLiteUInt64, 8, false, 0, EXACT_INT_LIMIT, 0, 99},
    {kTfLiteBool, 1, false, 0, 1, 0, 1},
};

static const lg_type_info* type_info(TfLiteType type) {
  for (int i = 0; i < LG_COUNT(kTypes); ++i) {
    if (kTypes[i].type == type) return &kTypes[i];
  }
  return NULL;
}

/* splitmix64: small, seedable, and the same stream on every platform. */
static uint64_t rng_next(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double rng_uniform(uint64_t* state) { /* [0, 1) */
  return (double)(rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* IEEE binary16 from float, rounded to nearest even. */
static uint16_t float_to_half(float v) {
  uint32_t x;
  memcpy(&x, &v, sizeof(x));
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t mag = x & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) return sign | 0x7E00u;  /* NaN */
  if (mag >= 0x477FF000u) return sign | 0x7C00u; /* rounds past 65504 */
  if (mag < 0x38800000u) {                       /* below 2^-14 */
    float f;
    memcpy(&f, &mag, sizeof(f));
    return sign | (uint16_t)lrintf(f * 16777216.0f); /* units of 2^-24 */
  }
  uint32_t half = ((((mag >> 23) - 112u) << 10) | ((mag & 0x7FFFFFu) >> 13));
  uint32_t rest = mag & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return sign | (uint16_t)half;
}

/* Writes v, already in the type's range, as element i of the type. */
static void store_value(void* data, size_t i, const lg_type_info* ti,
                        double v) {
  union {
    float f32;
    double f64;
    uint16_t bits16;
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
  } u;
  switch (ti->type) {
    case kTfLiteFloat32:
    case kTfLiteComplex64:
      u.f32 = (float)v;
      break;
    case kTfLiteFloat64:
      u.f64 = v;
      break;
    case kTfLiteFloat16:
      u.bits16 = float_to_half((float)v);
      break;
    case kTfLiteInt8:
      u.i8 = (int8_t)v;
      break;
    case kTfLiteUInt8:
    case kTfLiteBool:
      u.u8 = (uint8_t)v;
      break;
    case kTfLiteInt16:
      u.i16 = (int16_t)v;
      break;
    case kTfLiteUInt16:
      u.bits16 = (uint16_t)v;
      break;
    case kTfLiteInt32:
      u.i32 = (int32_t)v;
      break;
    case kTfLiteUInt32:
      u.u32 = (uint32_t)v;
      break;
    case kTfLiteInt64:
      u.i64 = (int64_t)v;
      break;
    default:
      u.u64 = (uint64_t)v;
      break; /* kTfLiteUInt64 */
  }
  memcpy((char*)data + i * ti->size, &u, ti->size);
}

static void fill_tensor(TfLiteTensor* t, const lg_type_info* ti, lg_fill* f,
                        uint64_t* rng) {
  void* data = TfLiteTensorData(t);
  f->count = TfLiteTensorByteSize(t) / ti->size;
  f->seen_min = INFINITY;
  f->seen_max = -INFINITY;
  for (size_t i = 0; i < f->count && data != NULL; ++i) {
    double u = rng_uniform(rng);
    double v = ti->real
                   ? f->low + u * (f->high - f->low)
                   : fmin(f->high, f->low + floor(u * (f->high - f->low + 1)));
    store_value(data, i, ti, v);
    f->seen_min = fmin(f->seen_min, v);
    f->seen_max = fmax(f->seen_max, v);
  }
}

/* The range for input `index`: its --input_layer_value_range, checked
 * against the type, or the type's default. */
static bool input_range(const lg_bench_graph* g, const lg_bench_inputs* in,
                        int index, const lg_type_info* ti, lg_fill* f) {
  f->low = ti->low;
  f->high = ti->high;
  const char* name = lg_bench_graph_input_name(g, index);
  for (int r = 0; r < in->num_ranges; ++r) {
    const lg_bench_range* range = &in->ranges[r];
    if (range_input(g, in, range->name) != index) continue;
    bool integral = ti->real || (floor(range->low) == range->low &&
                                 floor(range->high) == range->high);
    if (!integral || range->low < ti->min || range->high > ti->max) {
      fprintf(stderr,
              "benchmark_model: --input_layer_value_range: input "
              "'%s' is %s: [%g, %g] must be %s within [%g, %g]\n",
              name, TfLiteTypeGetName(ti->type), range->low, range->high,
              ti->real ? "a range" : "integers", ti->min, ti->max);
      return false;
    }
    f->low = range->low;
    f->high = range->high;
  }
  return true;
}

static bool check_ranges_named(const lg_bench_graph* g,
                               const lg_bench_inputs* in) {
  for (int r = 0; r < in->num_ranges; ++r) {
    if (range_input(g, in, in->ranges[r].name) < 0) {
      fprintf(stderr,
              "benchmark_model: --input_layer_value_range names "
              "'%s', which is neither an --input_layer name nor a %s "
              "input\n",
              in->ranges[r].name, g->key ? "signature" : "model");
      print_model_inputs(g);
      return false;
    }
  }
  return true;
}

bool lg_bench_inputs_fill(const lg_bench_graph* g, const lg_bench_inputs* in,
                          int random_seed, lg_fill* fills) {
  if (!check_ranges_named(g, in)) return false;
  uint64_t rng = (uint64_t)random_seed;
  for (int i = 0; i < lg_bench_graph_input_count(g); ++i) {
    TfLiteTensor* t = lg_bench_graph_input(g, i);
    if (t == NULL) {
      fprintf(stderr, "benchmark_model: input %d '%s' has no tensor\n", i,
              lg_bench_graph_input_name(g, i));
      return false;
    }
    const lg_type_info* ti = type_info(TfLiteTensorType(t));
    if (ti == NULL) {
      fprintf(stderr,
              "benchmark_model: input %d '%s' is %s: random values "
              "of this type are not supported\n",
              i, lg_bench_graph_input_name(g, i),
              TfLiteTypeGetName(TfLiteTensorType(t)));
      return false;
    }
    if (!input_range(g, in, i, ti, &fills[i])) return false;
    fill_tensor(t, ti, &fills[i], &rng);
  }
  return true;
}
