/* The random graph generator, its spec writer and the shrinking steps
 * (graph_gen.h). */
#define _POSIX_C_SOURCE 200809L
#include "tests/conformance/graph_gen.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/fp16.h"
#include "runtime/model/builtin_options.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* Tensors stay small so that hundreds of graphs run in seconds. */
#define GG_MAX_ELEMENTS 6144
/* The smallest input of SQRT, RSQRT, LOG and POW's base. */
#define GG_MIN_POSITIVE 0.1f

/* ---- Random numbers -------------------------------------------------------
 */

typedef struct gen {
  gg_graph* g;
  uint32_t rng;
  int max_nodes;
} gen;

static float uniform(gen* x, float lo, float hi) {
  return lo + (hi - lo) * conf_random(&x->rng);
}

/* Uniform in [lo, hi]. */
static int between(gen* x, int lo, int hi) {
  const int v = lo + (int)(conf_random(&x->rng) * (float)(hi - lo + 1));
  return v > hi ? hi : v;
}

static bool chance(gen* x, float p) { return conf_random(&x->rng) < p; }

/* ---- Shapes and tensors ---------------------------------------------------
 */

static conf_shape shape4(int n, int h, int w, int c) {
  return (conf_shape){4, {n, h, w, c}};
}

static bool same_shape(conf_shape a, conf_shape b) {
  if (a.rank != b.rank) return false;
  for (int i = 0; i < a.rank; ++i) {
    if (a.d[i] != b.d[i]) return false;
  }
  return true;
}

static bool fits(conf_shape s) {
  for (int i = 0; i < s.rank; ++i) {
    if (s.d[i] < 1) return false;
  }
  return conf_shape_elements(s) <= GG_MAX_ELEMENTS;
}

static int add_tensor(gen* x, conf_shape shape, float mag, float path_mag) {
  gg_graph* g = x->g;
  if (g->num_tensors >= GG_MAX_TENSORS) return -1;
  gg_tensor* t = &g->tensors[g->num_tensors];
  memset(t, 0, sizeof(*t));
  t->shape = shape;
  t->mag = mag;
  t->path_mag = fmaxf(mag, path_mag);
  t->lo_bound = -INFINITY;
  t->producer = -1;
  return g->num_tensors++;
}

/* Whether tensor `t` is read by a live node. */
static bool is_read(const gg_graph* g, int t) {
  for (int n = 0; n < g->num_nodes; ++n) {
    const gg_node* node = &g->nodes[n];
    if (node->removed) continue;
    for (int i = 0; i < node->num_in; ++i) {
      if (!node->in[i].constant && node->in[i].index == t) return true;
    }
  }
  return false;
}

typedef bool (*tensor_filter)(const gg_tensor* t, const void* ctx);

/* A random tensor that passes `filter` (NULL: any), -1 when none does.
 * Tensors nothing reads yet count three times, so chains form and few
 * branches are left dangling. */
static int pick_tensor(gen* x, tensor_filter filter, const void* ctx) {
  int weights[GG_MAX_TENSORS];
  int total = 0;
  for (int t = 0; t < x->g->num_tensors; ++t) {
    const gg_tensor* tensor = &x->g->tensors[t];
    weights[t] = 0;
    if (tensor->special || tensor->is_int) continue;
    if (filter != NULL && !filter(tensor, ctx)) continue;
    weights[t] = is_read(x->g, t) ? 1 : 3;
    total += weights[t];
  }
  if (total == 0) return -1;
  int r = between(x, 0, total - 1);
  for (int t = 0; t < x->g->num_tensors; ++t) {
    if (r < weights[t]) return t;
    r -= weights[t];
  }
  return -1;
}

static bool is_rank4(const gg_tensor* t, const void* ctx) {
  (void)ctx;
  return t->shape.rank == 4;
}

static bool has_shape(const gg_tensor* t, const void* ctx) {
  return same_shape(t->shape, *(const conf_shape*)ctx);
}

/* ---- Nodes ----------------------------------------------------------------
 */

struct op_entry;
typedef bool (*make_fn)(gen* x, const struct op_entry* op, gg_node* n);
typedef void (*fields_fn)(const gg_node* n, char* text, size_t size);

typedef struct op_entry {
  const char* name; /* the schema name, or a custom op's name */
  int32_t code;
  int weight; /* how often it is drawn (0: only made by other ops) */
  make_fn make;
  /* NULL: no options. A custom op's writes its options as hex. */
  fields_fn fields;
  /* Every output value is one of the inputs' values or a convex
   * combination of them (data movement, pooling, means): the output keeps
   * the inputs' lower bound. */
  bool keeps_range;
} op_entry;

static const op_entry* ops(void);                  /* the table, at the end */
static const op_entry* op_named(const char* name); /* ... by name */

static gg_node* begin_node(gen* x, const op_entry* op) {
  gg_graph* g = x->g;
  if (g->num_nodes >= GG_MAX_NODES) return NULL;
  gg_node* n = &g->nodes[g->num_nodes];
  memset(n, 0, sizeof(*n));
  n->op = (int)(op - ops());
  return n;
}

static void add_input(gg_node* n, int t) {
  n->in[n->num_in++] = (gg_operand){false, t};
}

static void add_omitted(gg_node* n) {
  n->in[n->num_in++] = (gg_operand){false, -1};
}

static gg_const* add_const(gg_node* n, bool is_int, conf_shape shape) {
  gg_const* c = &n->consts[n->num_consts];
  memset(c, 0, sizeof(*c));
  c->is_int = is_int;
  c->shape = shape;
  const size_t count = conf_shape_elements(shape);
  if (is_int) {
    c->i = calloc(count ? count : 1, sizeof(int32_t));
  } else {
    c->f = calloc(count ? count : 1, sizeof(float));
  }
  if (c->i == NULL && c->f == NULL) {
    fprintf(stderr, "litegpu_conformance: out of memory\n");
    exit(2);
  }
  n->in[n->num_in++] = (gg_operand){true, n->num_consts++};
  return c;
}

/* Seeded float constants in [-scale, scale]; returns the largest |value|. */
static float add_floats(gen* x, gg_node* n, conf_shape shape, float scale) {
  gg_const* c = add_const(n, false, shape);
  float largest = 0;
  for (size_t i = 0; i < conf_shape_elements(shape); ++i) {
    c->f[i] = uniform(x, -scale, scale);
    largest = fmaxf(largest, fabsf(c->f[i]));
  }
  return largest;
}

static void add_ints(gg_node* n, conf_shape shape, const int32_t* values) {
  gg_const* c = add_const(n, true, shape);
  memcpy(c->i, values, conf_shape_elements(shape) * sizeof(int32_t));
}

static void add_int_vec(gg_node* n, int count, const int32_t* values) {
  add_ints(n, (conf_shape){1, {count}}, values);
}

/* The largest path magnitude over a node's tensor operands. */
static float inputs_path_mag(const gen* x, const gg_node* n) {
  float m = 0;
  for (int i = 0; i < n->num_in; ++i) {
    if (n->in[i].constant || n->in[i].index < 0) continue;
    m = fmaxf(m, x->g->tensors[n->in[i].index].path_mag);
  }
  return m;
}

/* Adds an output of `shape` whose values reach `mag`, and commits the node
 * on its first output. False (node dropped) when the shape is empty or too
 * large, or the magnitude too big for float16. */
static bool add_output(gen* x, gg_node* n, conf_shape shape, float mag) {
  if (!fits(shape) || !(mag <= GG_MAX_MAG) || n->num_out >= GG_MAX_NODE_OUTPUTS)
    return false;
  const int t = add_tensor(x, shape, mag, inputs_path_mag(x, n));
  if (t < 0) return false;
  x->g->tensors[t].producer = x->g->num_nodes;
  n->out[n->num_out++] = t;
  return true;
}

static void commit(gen* x) { x->g->num_nodes++; }

/* Releases a node that was not committed (its constants and outputs). */
static void discard(gen* x, gg_node* n) {
  for (int k = 0; k < n->num_consts; ++k) {
    free(n->consts[k].f);
    free(n->consts[k].i);
  }
  x->g->num_tensors -= n->num_out;
  memset(n, 0, sizeof(*n));
}

/* Fused activations: NONE most of the time. */
static int pick_activation(gen* x) {
  static const int kActs[] = {kTfLiteActNone,  kTfLiteActNone,
                              kTfLiteActNone,  kTfLiteActRelu,
                              kTfLiteActRelu6, kTfLiteActReluN1To1};
  return kActs[between(x, 0, COUNT(kActs) - 1)];
}

static float activated_mag(int act, float mag) {
  if (act == kTfLiteActRelu6) return fminf(mag, 6);
  if (act == kTfLiteActReluN1To1) return fminf(mag, 1);
  return mag;
}

static const char* activation_name(int act) {
  switch (act) {
    case kTfLiteActRelu:
      return "RELU";
    case kTfLiteActRelu6:
      return "RELU6";
    case kTfLiteActReluN1To1:
      return "RELU_N1_TO_1";
    default:
      return "NONE";
  }
}

static const char* padding_name(int padding) {
  return padding == kTfLitePaddingValid ? "VALID" : "SAME";
}

/* A windowed op's output size along one dim (TFLite's rule). */
static int window_out(int in, int k, int stride, int dilation, int padding) {
  const int effective = (k - 1) * dilation + 1;
  if (padding == kTfLitePaddingSame) return (in + stride - 1) / stride;
  return in < effective ? 0 : (in - effective + stride) / stride;
}

/* ---- Elementwise ----------------------------------------------------------
 */

static float unary_mag(int32_t code, float m, float alpha) {
  switch (code) {
    case kTfLiteBuiltinRelu6:
      return fminf(m, 6);
    case kTfLiteBuiltinReluN1To1:
    case kTfLiteBuiltinLogistic:
    case kTfLiteBuiltinTanh:
    case kTfLiteBuiltinSin:
    case kTfLiteBuiltinCos:
    case kTfLiteBuiltinSoftmax:
      return 1;
    case kTfLiteBuiltinElu:
      return fmaxf(m, 1);
    case kTfLiteBuiltinExp:
      return expf(m);
    case kTfLiteBuiltinSquare:
      return m * m;
    case kTfLiteBuiltinLeakyRelu:
    case kTfLiteBuiltinPrelu:
      return m * fmaxf(1, fabsf(alpha));
    case kTfLiteBuiltinSqrt:
      return sqrtf(m);
    case kTfLiteBuiltinRsqrt:
      return 1.0f / sqrtf(GG_MIN_POSITIVE);
    case kTfLiteBuiltinLog:
      return fmaxf(fabsf(logf(GG_MIN_POSITIVE)), logf(fmaxf(m, 1)));
    default:
      return m; /* RELU, ABS, NEG, HARD_SWISH, GELU, FLOOR */
  }
}

/* A lower bound of the op's output from its input's (-inf: none). */
static float unary_lo(int32_t code, float lo, float m) {
  switch (code) {
    case kTfLiteBuiltinRelu:
    case kTfLiteBuiltinAbs:
      return fmaxf(lo, 0);
    case kTfLiteBuiltinRelu6:
      return fminf(fmaxf(lo, 0), 6);
    case kTfLiteBuiltinSquare:
      return lo > 0 ? lo * lo : 0;
    case kTfLiteBuiltinExp:
      return expf(-m);
    case kTfLiteBuiltinSqrt:
      return sqrtf(lo);
    case kTfLiteBuiltinRsqrt:
      return 1.0f / sqrtf(m);
    case kTfLiteBuiltinLog:
      return logf(lo);
    case kTfLiteBuiltinFloor:
      return floorf(lo);
    case kTfLiteBuiltinLogistic:
    case kTfLiteBuiltinSoftmax:
      return 0;
    default:
      return -INFINITY;
  }
}

/* Ops that need a positive input (at least GG_MIN_POSITIVE), and those
 * whose output jumps (their input must be the same on both sides). */
static bool needs_positive(int32_t code) {
  return code == kTfLiteBuiltinSqrt || code == kTfLiteBuiltinRsqrt ||
         code == kTfLiteBuiltinLog || code == kTfLiteBuiltinPow;
}

static bool needs_exact(int32_t code) { return code == kTfLiteBuiltinFloor; }

/* Unary ops with a bounded useful argument (float32 rounding of the
 * argument alone moves exp and the periodic functions far off). */
static float unary_max_input(int32_t code) {
  switch (code) {
    case kTfLiteBuiltinExp:
      return 9;
    case kTfLiteBuiltinSin:
    case kTfLiteBuiltinCos:
      return 100;
    default:
      return GG_MAX_MAG;
  }
}

/* What an operand must satisfy. */
typedef struct operand_rule {
  float max_mag;
  bool positive, exact;
} operand_rule;

static bool operand_ok(const gg_tensor* t, const void* ctx) {
  const operand_rule* r = ctx;
  return t->mag <= r->max_mag &&
         (!r->positive || t->lo_bound >= GG_MIN_POSITIVE) &&
         (!r->exact || t->exact);
}

static void set_lo(gen* x, const gg_node* n, float lo) {
  for (int i = 0; i < n->num_out; ++i) x->g->tensors[n->out[i]].lo_bound = lo;
}

static void set_exact(gen* x, const gg_node* n) {
  for (int i = 0; i < n->num_out; ++i) x->g->tensors[n->out[i]].exact = true;
}

static bool make_unary(gen* x, const op_entry* op, gg_node* n) {
  const operand_rule rule = {unary_max_input(op->code),
                             needs_positive(op->code), needs_exact(op->code)};
  const int a = pick_tensor(x, operand_ok, &rule);
  if (a < 0) return false;
  const gg_tensor* in = &x->g->tensors[a];
  add_input(n, a);
  if (op->code == kTfLiteBuiltinLeakyRelu) n->alpha = uniform(x, 0.01f, 0.9f);
  if (op->code == kTfLiteBuiltinSoftmax) n->alpha = chance(x, 0.5f) ? 1 : 0.5f;
  if (op->code == kTfLiteBuiltinGelu) n->p[0] = chance(x, 0.5f);
  if (op->code == kTfLiteBuiltinPrelu) {
    /* Alpha per channel, broadcast over the leading dims. */
    const int c = in->shape.d[in->shape.rank - 1];
    n->alpha = add_floats(x, n, (conf_shape){1, {c}}, 1.0f);
  }
  if (!add_output(x, n, in->shape, unary_mag(op->code, in->mag, n->alpha))) {
    return false;
  }
  set_lo(x, n, unary_lo(op->code, in->lo_bound, in->mag));
  if (op->code == kTfLiteBuiltinFloor) set_exact(x, n);
  return true;
}

static void fields_unary(const gg_node* n, char* text, size_t size) {
  const int32_t code = ops()[n->op].code;
  if (code == kTfLiteBuiltinLeakyRelu) {
    snprintf(text, size, "alpha=%.9g", n->alpha);
  } else if (code == kTfLiteBuiltinSoftmax) {
    snprintf(text, size, "beta=%.9g", n->alpha);
  } else if (code == kTfLiteBuiltinGelu) {
    snprintf(text, size, "approximate=%s", n->p[0] ? "true" : "false");
  }
}

static float binary_mag(int32_t code, float a, float b) {
  switch (code) {
    case kTfLiteBuiltinMul:
      return a * b;
    case kTfLiteBuiltinDiv:
      return a * 2; /* divisors are constants with |d| >= 0.5 */
    case kTfLiteBuiltinSquaredDifference:
      return (a + b) * (a + b);
    case kTfLiteBuiltinMaximum:
    case kTfLiteBuiltinMinimum:
      return fmaxf(a, b);
    default:
      return a + b;
  }
}

static bool has_activation_option(int32_t code) {
  return code == kTfLiteBuiltinAdd || code == kTfLiteBuiltinSub ||
         code == kTfLiteBuiltinMul || code == kTfLiteBuiltinDiv;
}

/* [N or 1, 1, 1, C]: a reduced tensor that broadcasts over H and W. */
static bool broadcasts_over_hw(const gg_tensor* t, const void* ctx) {
  const conf_shape* s = ctx;
  return t->shape.rank == 4 && s->rank == 4 && t->shape.d[1] == 1 &&
         t->shape.d[2] == 1 && t->shape.d[3] == s->d[3] &&
         (t->shape.d[0] == 1 || t->shape.d[0] == s->d[0]) &&
         (s->d[1] > 1 || s->d[2] > 1);
}

/* Rank 4 with the same batch, height and width. */
static bool same_pixels(const gg_tensor* t, const void* ctx) {
  const conf_shape* s = ctx;
  return t->shape.rank == 4 && s->rank == 4 && t->shape.d[0] == s->d[0] &&
         t->shape.d[1] == s->d[1] && t->shape.d[2] == s->d[2];
}

static bool project_channels(gen* x, int from, int channels, int* out);

/* A constant second operand for a binary op over `s`: per channel or of
 * the full shape; DIV's divisors keep |d| in [0.5, 2]. Returns its
 * largest magnitude. */
static float add_constant_operand(gen* x, const op_entry* op, gg_node* n,
                                  conf_shape s) {
  const conf_shape cs =
      chance(x, 0.6f) ? (conf_shape){1, {s.d[s.rank - 1]}} : s;
  if (op->code != kTfLiteBuiltinDiv) return add_floats(x, n, cs, 2.0f);
  gg_const* k = add_const(n, false, cs);
  for (size_t i = 0; i < conf_shape_elements(cs); ++i) {
    const float v = uniform(x, 0.5f, 2.0f);
    k->f[i] = chance(x, 0.5f) ? v : -v;
  }
  return 2;
}

/* The second operand of a binary op whose first is `a`: another tensor of
 * its shape, a reduced tensor that broadcasts, or a 1x1 projection of
 * another branch with a's pixels (a helper CONV_2D node, committed before
 * the op); `a` itself when none of those exists. */
static int second_tensor(gen* x, int a, float r) {
  const conf_shape s = x->g->tensors[a].shape;
  int b = -1;
  if (r < 0.35f) b = pick_tensor(x, broadcasts_over_hw, &s);
  if (b < 0 && r < 0.7f) b = pick_tensor(x, has_shape, &s);
  if (b < 0 && s.rank == 4) {
    const int from = pick_tensor(x, same_pixels, &s);
    if (from < 0 || !project_channels(x, from, s.d[3], &b)) b = -1;
  }
  return b < 0 ? a : b;
}

static bool make_binary(gen* x, const op_entry* op, gg_node* n) {
  const int a = pick_tensor(x, NULL, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  const float r = conf_random(&x->rng);
  const bool constant = op->code == kTfLiteBuiltinDiv || r < 0.2f;
  const int b = constant ? -1 : second_tensor(x, a, (r - 0.2f) / 0.8f);
  n = begin_node(x, op); /* after a helper node, the next slot */
  if (n == NULL) return false;
  add_input(n, a);
  float b_mag;
  if (constant) {
    b_mag = add_constant_operand(x, op, n, s);
  } else {
    add_input(n, b);
    b_mag = x->g->tensors[b].mag;
  }
  if (op->code != kTfLiteBuiltinDiv && chance(x, 0.3f)) {
    const gg_operand t = n->in[0];
    n->in[0] = n->in[1];
    n->in[1] = t;
  }
  if (has_activation_option(op->code)) n->p[0] = pick_activation(x);
  const float mag =
      activated_mag(n->p[0], binary_mag(op->code, x->g->tensors[a].mag, b_mag));
  return add_output(x, n, s, mag);
}

static void fields_activation(const gg_node* n, char* text, size_t size) {
  if (has_activation_option(ops()[n->op].code)) {
    snprintf(text, size, "fused_activation_function=%s",
             activation_name(n->p[0]));
  }
}

/* ---- Convolutions and matrix products -------------------------------------
 */

/* p[] of CONV_2D and DEPTHWISE_CONV_2D: kernel, stride, dilation, padding,
 * activation, depth multiplier. */
enum { CP_K, CP_STRIDE, CP_DILATION, CP_PADDING, CP_ACT, CP_MULT };

static void pick_window(gen* x, gg_node* n, const int* kernels, int count) {
  n->p[CP_K] = kernels[between(x, 0, count - 1)];
  n->p[CP_STRIDE] = chance(x, 0.7f) ? 1 : 2;
  n->p[CP_DILATION] =
      (n->p[CP_K] > 1 && n->p[CP_STRIDE] == 1 && chance(x, 0.15f)) ? 2 : 1;
  n->p[CP_PADDING] = chance(x, 0.7f) ? kTfLitePaddingSame : kTfLitePaddingValid;
  n->p[CP_ACT] = pick_activation(x);
}

static conf_shape windowed(const gg_node* n, conf_shape in, int channels) {
  return shape4(in.d[0],
                window_out(in.d[1], n->p[CP_K], n->p[CP_STRIDE],
                           n->p[CP_DILATION], n->p[CP_PADDING]),
                window_out(in.d[2], n->p[CP_K], n->p[CP_STRIDE],
                           n->p[CP_DILATION], n->p[CP_PADDING]),
                channels);
}

/* Weights scaled by 1/sqrt(fan_in) keep the output's magnitude near the
 * input's; the estimate adds the largest bias. */
static bool finish_conv(gen* x, gg_node* n, int a, int w, int out_c, int fan_in,
                        conf_shape weights, conf_shape out) {
  if (w >= 0) {
    add_input(n, w);
  } else {
    add_floats(x, n, weights, 1.0f / sqrtf((float)fan_in));
  }
  const float bias = add_floats(x, n, (conf_shape){1, {out_c}}, 0.5f);
  const float mag = x->g->tensors[a].mag + bias;
  return add_output(x, n, out, activated_mag(n->p[CP_ACT], mag));
}

static bool dequantized_weights(gen* x, conf_shape shape, float scale,
                                int* out);

/* Float16 weights behind a DEQUANTIZE a third of the time (as converters
 * write float16 models): the helper node comes first, and the op's node
 * moves to the next slot with the window it drew. Returns the op's node,
 * or NULL; *w is the weights tensor, or -1 for constant float32 weights. */
static gg_node* maybe_half_weights(gen* x, const op_entry* op, gg_node* n,
                                   conf_shape weights, int fan_in, int* w) {
  *w = -1;
  if (!chance(x, 0.33f)) return n;
  int p[GG_MAX_PARAMS];
  memcpy(p, n->p, sizeof(p));
  if (!dequantized_weights(x, weights, 1.0f / sqrtf((float)fan_in), w)) {
    return NULL;
  }
  n = begin_node(x, op);
  if (n != NULL) memcpy(n->p, p, sizeof(p));
  return n;
}

static bool make_conv(gen* x, const op_entry* op, gg_node* n) {
  static const int kKernels[] = {1, 1, 1, 3, 3, 3, 5};
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  pick_window(x, n, kKernels, COUNT(kKernels));
  const int k = n->p[CP_K], out_c = between(x, 1, 24);
  const conf_shape weights = shape4(out_c, k, k, s.d[3]);
  int w;
  n = maybe_half_weights(x, op, n, weights, k * k * s.d[3], &w);
  if (n == NULL) return false;
  add_input(n, a);
  return finish_conv(x, n, a, w, out_c, k * k * s.d[3], weights,
                     windowed(n, s, out_c));
}

static void fields_conv(const gg_node* n, char* text, size_t size) {
  snprintf(text, size,
           "padding=%s stride_w=%d stride_h=%d dilation_w_factor=%d "
           "dilation_h_factor=%d fused_activation_function=%s",
           padding_name(n->p[CP_PADDING]), n->p[CP_STRIDE], n->p[CP_STRIDE],
           n->p[CP_DILATION], n->p[CP_DILATION], activation_name(n->p[CP_ACT]));
}

/* A 1x1 CONV_2D from tensor `from` to `channels` channels, committed as a
 * node of its own: the other operand of a join. */
static bool project_channels(gen* x, int from, int channels, int* out) {
  const op_entry* conv = NULL;
  for (const op_entry* op = ops(); op->name != NULL; ++op) {
    if (op->code == kTfLiteBuiltinConv2d) conv = op;
  }
  if (x->g->num_nodes + 2 > x->max_nodes) return false;
  gg_node* n = begin_node(x, conv);
  if (n == NULL) return false;
  n->p[CP_K] = 1;
  n->p[CP_STRIDE] = 1;
  n->p[CP_DILATION] = 1;
  n->p[CP_PADDING] = kTfLitePaddingSame;
  n->p[CP_ACT] = kTfLiteActNone;
  add_input(n, from);
  const conf_shape s = x->g->tensors[from].shape;
  if (!finish_conv(x, n, from, -1, channels, s.d[3],
                   shape4(channels, 1, 1, s.d[3]),
                   shape4(s.d[0], s.d[1], s.d[2], channels))) {
    discard(x, n);
    return false;
  }
  *out = n->out[0];
  commit(x);
  return true;
}

static bool make_depthwise(gen* x, const op_entry* op, gg_node* n) {
  static const int kKernels[] = {3, 3, 3, 5, 1};
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  pick_window(x, n, kKernels, COUNT(kKernels));
  n->p[CP_MULT] = chance(x, 0.8f) ? 1 : 2;
  const int k = n->p[CP_K], out_c = s.d[3] * n->p[CP_MULT];
  const conf_shape weights = shape4(1, k, k, out_c);
  int w;
  n = maybe_half_weights(x, op, n, weights, k * k, &w);
  if (n == NULL) return false;
  add_input(n, a);
  return finish_conv(x, n, a, w, out_c, k * k, weights, windowed(n, s, out_c));
}

static void fields_depthwise(const gg_node* n, char* text, size_t size) {
  char conv[200];
  fields_conv(n, conv, sizeof(conv));
  snprintf(text, size, "%s depth_multiplier=%d", conv, n->p[CP_MULT]);
}

/* TRANSPOSE_CONV: operands output_shape, weights [O, k, k, I], input, and
 * a bias half of the time. p: kernel, stride, -, padding, activation. */
static bool make_transpose_conv(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  const int k = between(x, 2, 4), stride = chance(x, 0.7f) ? 2 : 1;
  const int padding =
      chance(x, 0.6f) ? kTfLitePaddingSame : kTfLitePaddingValid;
  const int out_c = between(x, 1, 16);
  const int oh = padding == kTfLitePaddingSame ? s.d[1] * stride
                                               : (s.d[1] - 1) * stride + k;
  const int ow = padding == kTfLitePaddingSame ? s.d[2] * stride
                                               : (s.d[2] - 1) * stride + k;
  n->p[CP_K] = k;
  n->p[CP_STRIDE] = stride;
  n->p[CP_PADDING] = padding;
  n->p[CP_ACT] = pick_activation(x);
  const int32_t shape[4] = {s.d[0], oh, ow, out_c};
  add_int_vec(n, 4, shape);
  /* Each output sums about k*k*I/stride^2 terms. */
  const int fan_in = (k * k * s.d[3] + stride * stride - 1) / (stride * stride);
  add_floats(x, n, shape4(out_c, k, k, s.d[3]), 1.0f / sqrtf((float)fan_in));
  add_input(n, a);
  float bias = 0;
  if (chance(x, 0.5f)) {
    bias = add_floats(x, n, (conf_shape){1, {out_c}}, 0.5f);
  }
  const float mag =
      activated_mag(n->p[CP_ACT], x->g->tensors[a].mag * 1.5f + bias);
  return add_output(x, n, shape4(s.d[0], oh, ow, out_c), mag);
}

static void fields_transpose_conv(const gg_node* n, char* text, size_t size) {
  snprintf(text, size,
           "padding=%s stride_w=%d stride_h=%d fused_activation_function=%s",
           padding_name(n->p[CP_PADDING]), n->p[CP_STRIDE], n->p[CP_STRIDE],
           activation_name(n->p[CP_ACT]));
}

static bool last_dim_small(const gg_tensor* t, const void* ctx) {
  (void)ctx;
  return t->shape.rank >= 2 && t->shape.d[t->shape.rank - 1] <= 256;
}

/* FULLY_CONNECTED without keep_num_dims: [elements / K, units]. */
static bool make_fully_connected(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, last_dim_small, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  const int k = s.d[s.rank - 1], units = between(x, 1, 24);
  const int rows = (int)(conf_shape_elements(s) / (size_t)k);
  n->p[0] = pick_activation(x);
  add_input(n, a);
  add_floats(x, n, (conf_shape){2, {units, k}}, 1.0f / sqrtf((float)k));
  float bias = 0;
  if (chance(x, 0.7f)) {
    bias = add_floats(x, n, (conf_shape){1, {units}}, 0.5f);
  } else {
    add_omitted(n);
  }
  const float mag = activated_mag(n->p[0], x->g->tensors[a].mag + bias);
  return add_output(x, n, (conf_shape){2, {rows, units}}, mag);
}

static void fields_fully_connected(const gg_node* n, char* text, size_t size) {
  snprintf(text, size, "fused_activation_function=%s",
           activation_name(n->p[0]));
}

typedef struct matmul_ctx {
  conf_shape a;
} matmul_ctx;

/* B of shape [N, H, X, C] for A [N, H, W, C] (adj_y: A times B^T). */
static bool matmul_partner(const gg_tensor* t, const void* ctx) {
  const conf_shape* a = ctx;
  return t->shape.rank == 4 && t->shape.d[0] == a->d[0] &&
         t->shape.d[1] == a->d[1] && t->shape.d[3] == a->d[3] && t->mag <= 4;
}

static bool small_rank4(const gg_tensor* t, const void* ctx) {
  (void)ctx;
  return t->shape.rank == 4 && t->mag <= 4 && t->shape.d[3] <= 64;
}

static bool make_batch_matmul(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, small_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  const int b = pick_tensor(x, matmul_partner, &s);
  if (b < 0) return false;
  const conf_shape bs = x->g->tensors[b].shape;
  add_input(n, a);
  add_input(n, b);
  const float mag =
      x->g->tensors[a].mag * x->g->tensors[b].mag * sqrtf((float)s.d[3]);
  return add_output(x, n, shape4(s.d[0], s.d[1], s.d[2], bs.d[2]), mag);
}

static void fields_batch_matmul(const gg_node* n, char* text, size_t size) {
  (void)n;
  snprintf(text, size, "adj_x=false adj_y=true");
}

/* ---- Pooling and reductions -----------------------------------------------
 */

static bool make_pool(gen* x, const op_entry* op, gg_node* n) {
  static const int kWindows[] = {2, 2, 3};
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  pick_window(x, n, kWindows, COUNT(kWindows));
  n->p[CP_DILATION] = 1;
  if (chance(x, 0.7f)) n->p[CP_ACT] = kTfLiteActNone;
  add_input(n, a);
  (void)op;
  return add_output(x, n, windowed(n, s, s.d[3]),
                    activated_mag(n->p[CP_ACT], x->g->tensors[a].mag));
}

static void fields_pool(const gg_node* n, char* text, size_t size) {
  snprintf(text, size,
           "padding=%s stride_w=%d stride_h=%d filter_width=%d "
           "filter_height=%d fused_activation_function=%s",
           padding_name(n->p[CP_PADDING]), n->p[CP_STRIDE], n->p[CP_STRIDE],
           n->p[CP_K], n->p[CP_K], activation_name(n->p[CP_ACT]));
}

/* MEAN, SUM, REDUCE_MAX, REDUCE_MIN over H and W, C, H or W; p[0]
 * keep_dims. */
static bool make_reduce(gen* x, const op_entry* op, gg_node* n) {
  static const int32_t kAxes[][2] = {{1, 2}, {1, 2}, {3, -1}, {1, -1}, {2, -1}};
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  const int pick = between(x, 0, COUNT(kAxes) - 1);
  const int num_axes = kAxes[pick][1] < 0 ? 1 : 2;
  n->p[0] = chance(x, 0.6f);
  add_input(n, a);
  add_int_vec(n, num_axes, kAxes[pick]);
  conf_shape out = {0, {0}};
  int count = 1;
  for (int d = 0; d < 4; ++d) {
    bool reduced = false;
    for (int k = 0; k < num_axes; ++k) reduced |= kAxes[pick][k] == d;
    if (reduced) count *= s.d[d];
    if (!reduced) {
      out.d[out.rank++] = s.d[d];
    } else if (n->p[0]) {
      out.d[out.rank++] = 1;
    }
  }
  float mag = x->g->tensors[a].mag;
  if (op->code == kTfLiteBuiltinSum) mag *= (float)count;
  return add_output(x, n, out, mag);
}

static void fields_reduce(const gg_node* n, char* text, size_t size) {
  snprintf(text, size, "keep_dims=%s", n->p[0] ? "true" : "false");
}

/* ---- Data movement --------------------------------------------------------
 */

typedef struct concat_ctx {
  conf_shape of;
  int axis;
} concat_ctx;

static bool concat_partner(const gg_tensor* t, const void* ctx) {
  const concat_ctx* c = ctx;
  if (t->shape.rank != c->of.rank) return false;
  for (int d = 0; d < c->of.rank; ++d) {
    if (d != c->axis && t->shape.d[d] != c->of.d[d]) return false;
  }
  return true;
}

/* CONCATENATION of 2 or 3 tensors along the channels mostly; p[0] axis. */
static bool make_concatenation(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, NULL, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  concat_ctx ctx = {s,
                    chance(x, 0.7f) ? s.rank - 1 : between(x, 0, s.rank - 1)};
  const int parts = chance(x, 0.7f) ? 2 : 3;
  add_input(n, a);
  conf_shape out = s;
  float mag = x->g->tensors[a].mag;
  for (int i = 1; i < parts; ++i) {
    const int b = pick_tensor(x, concat_partner, &ctx);
    add_input(n, b);
    out.d[ctx.axis] += x->g->tensors[b].shape.d[ctx.axis];
    mag = fmaxf(mag, x->g->tensors[b].mag);
  }
  n->p[0] = ctx.axis;
  return add_output(x, n, out, mag);
}

static void fields_concatenation(const gg_node* n, char* text, size_t size) {
  snprintf(text, size, "axis=%d fused_activation_function=NONE", n->p[0]);
}

/* PAD, PADV2 (constant value operand) and MIRROR_PAD (p[0] mode): rank-4
 * paddings of 0..2 on H, W and, 40% of the time, on the channels. */
static bool make_pad(gen* x, const op_entry* op, gg_node* n) {
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  const bool mirror = op->code == kTfLiteBuiltinMirrorPad;
  n->p[0] = chance(x, 0.5f) ? kTfLiteMirrorPaddingReflect
                            : kTfLiteMirrorPaddingSymmetric;
  int32_t pads[8] = {0};
  conf_shape out = s;
  const bool channels = chance(x, 0.4f);
  for (int d = 1; d < 4; ++d) {
    for (int side = 0; side < 2; ++side) {
      int most = d == 3 && !channels ? 0 : 2;
      if (mirror) {
        const int room =
            n->p[0] == kTfLiteMirrorPaddingReflect ? s.d[d] - 1 : s.d[d];
        if (most > room) most = room;
      }
      pads[2 * d + side] = between(x, 0, most);
      out.d[d] += pads[2 * d + side];
    }
  }
  add_input(n, a);
  add_ints(n, (conf_shape){2, {4, 2}}, pads);
  float mag = x->g->tensors[a].mag;
  if (op->code == kTfLiteBuiltinPadv2) {
    mag = fmaxf(mag, add_floats(x, n, (conf_shape){1, {1}}, 2.0f));
  }
  return add_output(x, n, out, mag);
}

static void fields_pad(const gg_node* n, char* text, size_t size) {
  if (ops()[n->op].code == kTfLiteBuiltinMirrorPad) {
    snprintf(text, size, "mode=%s",
             n->p[0] == kTfLiteMirrorPaddingReflect ? "REFLECT" : "SYMMETRIC");
  }
}

/* SLICE (begin, size) and STRIDED_SLICE (begin, end, strides 1 or 2). */
static bool make_slice(gen* x, const op_entry* op, gg_node* n) {
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  const bool strided = op->code == kTfLiteBuiltinStridedSlice;
  int32_t begin[4], second[4], strides[4];
  conf_shape out = s;
  for (int d = 0; d < 4; ++d) {
    begin[d] = between(x, 0, s.d[d] - 1);
    const int size = between(x, 1, s.d[d] - begin[d]);
    strides[d] = strided && chance(x, 0.3f) ? 2 : 1;
    second[d] = strided ? begin[d] + size : size;
    out.d[d] = (size + strides[d] - 1) / strides[d];
  }
  add_input(n, a);
  add_int_vec(n, 4, begin);
  add_int_vec(n, 4, second);
  if (strided) add_int_vec(n, 4, strides);
  return add_output(x, n, out, x->g->tensors[a].mag);
}

static void fields_strided_slice(const gg_node* n, char* text, size_t size) {
  (void)n;
  snprintf(text, size, "begin_mask=0 end_mask=0 shrink_axis_mask=0");
}

/* RESHAPE into another rank-4 view, or into rank 2 or 3. */
static bool make_reshape(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  const int hw = s.d[1] * s.d[2];
  const conf_shape choices[] = {
      shape4(s.d[0], hw, 1, s.d[3]),
      shape4(s.d[0], s.d[2], s.d[1], s.d[3]),
      shape4(s.d[0], 1, 1, hw * s.d[3]),
      shape4(s.d[0], s.d[1], 1, s.d[2] * s.d[3]),
      {3, {s.d[0], hw, s.d[3]}},
      {2, {s.d[0] * hw, s.d[3]}},
  };
  const conf_shape out = choices[between(x, 0, COUNT(choices) - 1)];
  add_input(n, a);
  add_int_vec(n, out.rank, out.d);
  n->p[0] = out.rank;
  return add_output(x, n, out, x->g->tensors[a].mag);
}

static void fields_reshape(const gg_node* n, char* text, size_t size) {
  const int32_t* d = n->consts[0].i;
  int used = snprintf(text, size, "new_shape=");
  for (int i = 0; i < n->p[0] && used > 0 && (size_t)used < size; ++i) {
    used +=
        snprintf(text + used, size - (size_t)used, "%s%d", i ? "," : "", d[i]);
  }
}

static bool make_transpose(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  int32_t perm[4] = {0, 1, 2, 3};
  for (int i = 3; i > 0; --i) {
    const int j = between(x, chance(x, 0.8f) ? 1 : 0, i);
    const int32_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  conf_shape out = s;
  for (int d = 0; d < 4; ++d) out.d[d] = s.d[perm[d]];
  add_input(n, a);
  add_int_vec(n, 4, perm);
  return add_output(x, n, out, x->g->tensors[a].mag);
}

/* RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR; p[0] align_corners, p[1]
 * half_pixel_centers (never both). */
static bool make_resize(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  int32_t size[2];
  for (int i = 0; i < 2; ++i) {
    const int d = s.d[1 + i];
    const int r = between(x, 0, 3);
    size[i] = r == 0 ? 2 * d : r == 1 ? d + 3 : r == 2 ? (d + 1) / 2 : d;
  }
  const int mode = between(x, 0, 2);
  n->p[0] = mode == 1;
  n->p[1] = mode == 2;
  add_input(n, a);
  add_int_vec(n, 2, size);
  return add_output(x, n, shape4(s.d[0], size[0], size[1], s.d[3]),
                    x->g->tensors[a].mag);
}

static void fields_resize(const gg_node* n, char* text, size_t size) {
  snprintf(text, size, "align_corners=%s half_pixel_centers=%s",
           n->p[0] ? "true" : "false", n->p[1] ? "true" : "false");
}

static bool even_pixels(const gg_tensor* t, const void* ctx) {
  (void)ctx;
  return t->shape.rank == 4 && t->shape.d[1] % 2 == 0 && t->shape.d[2] % 2 == 0;
}

static bool channels_by_4(const gg_tensor* t, const void* ctx) {
  (void)ctx;
  return t->shape.rank == 4 && t->shape.d[3] % 4 == 0;
}

/* SPACE_TO_DEPTH and DEPTH_TO_SPACE with block 2. */
static bool make_block(gen* x, const op_entry* op, gg_node* n) {
  const bool to_depth = op->code == kTfLiteBuiltinSpaceToDepth;
  const int a = pick_tensor(x, to_depth ? even_pixels : channels_by_4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  add_input(n, a);
  const conf_shape out =
      to_depth ? shape4(s.d[0], s.d[1] / 2, s.d[2] / 2, s.d[3] * 4)
               : shape4(s.d[0], s.d[1] * 2, s.d[2] * 2, s.d[3] / 4);
  return add_output(x, n, out, x->g->tensors[a].mag);
}

static void fields_block(const gg_node* n, char* text, size_t size) {
  (void)n;
  snprintf(text, size, "block_size=2");
}

static bool two_channels(const gg_tensor* t, const void* ctx) {
  (void)ctx;
  return t->shape.rank == 4 && t->shape.d[3] >= 2;
}

/* SPLIT (axis, input; p[0] pieces) and SPLIT_V (input, sizes, axis) along
 * the channels. */
static bool make_split(gen* x, const op_entry* op, gg_node* n) {
  const bool v = op->code == kTfLiteBuiltinSplitV;
  const int a = pick_tensor(x, two_channels, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  const int c = s.d[3];
  int pieces = (!v && c % 3 == 0 && chance(x, 0.4f)) ? 3 : 2;
  if (!v && c % pieces != 0) return false;
  if (v && c >= 3 && chance(x, 0.4f)) pieces = 3;
  int32_t sizes[3];
  int left = c;
  for (int i = 0; i < pieces; ++i) {
    sizes[i] =
        v ? (i + 1 < pieces ? between(x, 1, left - (pieces - 1 - i)) : left)
          : c / pieces;
    left -= sizes[i];
  }
  const int32_t axis = 3;
  if (v) {
    add_input(n, a);
    add_int_vec(n, pieces, sizes);
    add_ints(n, (conf_shape){0, {0}}, &axis);
  } else {
    add_ints(n, (conf_shape){0, {0}}, &axis);
    add_input(n, a);
  }
  n->p[0] = pieces;
  for (int i = 0; i < pieces; ++i) {
    if (!add_output(x, n, shape4(s.d[0], s.d[1], s.d[2], sizes[i]),
                    x->g->tensors[a].mag)) {
      return false;
    }
  }
  return true;
}

static void fields_split(const gg_node* n, char* text, size_t size) {
  snprintf(text, size, "num_splits=%d", n->p[0]);
}

static bool make_tile(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  int32_t multiples[4];
  conf_shape out = s;
  for (int d = 0; d < 4; ++d) {
    multiples[d] = d > 0 && chance(x, 0.4f) ? 2 : 1;
    out.d[d] *= multiples[d];
  }
  add_input(n, a);
  add_int_vec(n, 4, multiples);
  return add_output(x, n, out, x->g->tensors[a].mag);
}

/* GATHER of constant indices along the channels (or H); p[0] axis. */
static bool make_gather(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  const int axis = chance(x, 0.7f) ? 3 : 1;
  const int count = between(x, 1, s.d[axis] + 2);
  int32_t indices[32];
  if (count > COUNT(indices)) return false;
  for (int i = 0; i < count; ++i) indices[i] = between(x, 0, s.d[axis] - 1);
  n->p[0] = axis;
  add_input(n, a);
  add_int_vec(n, count, indices);
  conf_shape out = s;
  out.d[axis] = count;
  return add_output(x, n, out, x->g->tensors[a].mag);
}

static void fields_gather(const gg_node* n, char* text, size_t size) {
  snprintf(text, size, "axis=%d batch_dims=0", n->p[0]);
}

/* ---- Domains, casts, float16 weights ----------------------------------------
 */

static bool positive_operand(const gg_tensor* t, const void* ctx) {
  (void)ctx;
  return t->lo_bound >= GG_MIN_POSITIVE && t->mag <= 100;
}

/* POW of a positive base to a constant exponent in [0.5, 2] (one per
 * channel or one for all). */
static bool make_pow(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, positive_operand, NULL);
  if (a < 0) return false;
  const gg_tensor* base = &x->g->tensors[a];
  const int c = base->shape.d[base->shape.rank - 1];
  const conf_shape es =
      chance(x, 0.5f) ? (conf_shape){1, {c}} : (conf_shape){1, {1}};
  add_input(n, a);
  gg_const* e = add_const(n, false, es);
  for (size_t i = 0; i < conf_shape_elements(es); ++i) {
    e->f[i] = uniform(x, 0.5f, 2.0f);
  }
  const float lo = base->lo_bound;
  if (!add_output(x, n, base->shape, base->mag * base->mag + 1)) return false;
  set_lo(x, n, fminf(lo * lo, sqrtf(lo)));
  return true;
}

static bool squeezable(const gg_tensor* t, const void* ctx) {
  (void)ctx;
  return t->shape.rank == 4 && t->shape.d[1] == 1 && t->shape.d[2] == 1;
}

/* SQUEEZE of the H and W dims of a [N, 1, 1, C] tensor. */
static bool make_squeeze(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, squeezable, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  add_input(n, a);
  return add_output(x, n, (conf_shape){2, {s.d[0], s.d[3]}},
                    x->g->tensors[a].mag);
}

static void fields_squeeze(const gg_node* n, char* text, size_t size) {
  (void)n;
  snprintf(text, size, "squeeze_dims=1,2");
}

static bool exact_operand(const gg_tensor* t, const void* ctx) {
  (void)ctx;
  return t->exact && t->mag <= 2048;
}

/* CAST to int32 and back (two nodes): truncation toward zero, so only
 * values that are the same on both sides go in. */
static bool make_cast(gen* x, const op_entry* op, gg_node* n) {
  const int a = pick_tensor(x, exact_operand, NULL);
  if (a < 0 || x->g->num_nodes + 2 > x->max_nodes) return false;
  const conf_shape s = x->g->tensors[a].shape;
  const float mag = x->g->tensors[a].mag;
  add_input(n, a);
  n->p[0] = 1; /* to int32 */
  if (!add_output(x, n, s, mag)) return false;
  const int i = n->out[0];
  x->g->tensors[i].is_int = true;
  commit(x);
  n = begin_node(x, op);
  if (n == NULL) return false;
  add_input(n, i);
  n->p[0] = 0; /* back to float32 */
  if (!add_output(x, n, s, mag)) return false;
  set_exact(x, n);
  return true;
}

static void fields_cast(const gg_node* n, char* text, size_t size) {
  snprintf(text, size, "in_data_type=%s out_data_type=%s",
           n->p[0] ? "FLOAT32" : "INT32", n->p[0] ? "INT32" : "FLOAT32");
}

/* A DEQUANTIZE node of a float16 constant (values uniform in [-scale,
 * scale], rounded to half), committed before the node that reads it:
 * float16 weights as converters write them. */
static bool dequantized_weights(gen* x, conf_shape shape, float scale,
                                int* out) {
  if (x->g->num_nodes + 2 > x->max_nodes) return false;
  gg_node* n = begin_node(x, op_named("DEQUANTIZE"));
  if (n == NULL) return false;
  gg_const* c = add_const(n, false, shape);
  c->half = true;
  for (size_t i = 0; i < conf_shape_elements(shape); ++i) {
    c->f[i] = lg_fp16_to_fp32(lg_fp32_to_fp16(uniform(x, -scale, scale)));
  }
  if (!add_output(x, n, shape, scale)) {
    discard(x, n);
    return false;
  }
  *out = n->out[0];
  x->g->tensors[*out].special = true;
  commit(x);
  return true;
}

/* ---- MediaPipe's custom ops ------------------------------------------------
 */

/* A custom op's options as hex: `count` little-endian int32 from p[]. */
static void fields_raw_ints(const gg_node* n, int count, char* text,
                            size_t size) {
  size_t used = 0;
  text[0] = '\0';
  for (int i = 0; i < count && used + 9 <= size; ++i) {
    const uint32_t v = (uint32_t)n->p[i];
    used += (size_t)snprintf(text + used, size - used, "%02x%02x%02x%02x",
                             v & 0xffu, (v >> 8) & 0xffu, (v >> 16) & 0xffu,
                             v >> 24);
  }
}

/* MediaPipe's output size of its transposed convolution. */
static int mp_tconv_out(int padding, int in, int k, int stride) {
  int pad = 0;
  if (padding == kTfLitePaddingSame) {
    pad = k - (in - 1) % stride - 1;
    if (pad < 0) pad = 0;
  }
  return stride * (in - 1) + k - pad;
}

/* Convolution2DTransposeBias: input, weights [O, k, k, I], bias [O];
 * p: padding, stride_w, stride_h (its raw options). */
static bool make_tconv_bias(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, is_rank4, NULL);
  if (a < 0) return false;
  const conf_shape s = x->g->tensors[a].shape;
  const int k = between(x, 2, 4), stride = chance(x, 0.7f) ? 2 : 1;
  const int out_c = between(x, 1, 16);
  n->p[0] = chance(x, 0.7f) ? kTfLitePaddingSame : kTfLitePaddingValid;
  n->p[1] = n->p[2] = stride;
  const int fan_in = (k * k * s.d[3] + stride * stride - 1) / (stride * stride);
  add_input(n, a);
  add_floats(x, n, shape4(out_c, k, k, s.d[3]), 1.0f / sqrtf((float)fan_in));
  const float bias = add_floats(x, n, (conf_shape){1, {out_c}}, 0.5f);
  return add_output(x, n,
                    shape4(s.d[0], mp_tconv_out(n->p[0], s.d[1], k, stride),
                           mp_tconv_out(n->p[0], s.d[2], k, stride), out_c),
                    x->g->tensors[a].mag * 1.5f + bias);
}

static void fields_tconv_bias(const gg_node* n, char* text, size_t size) {
  fields_raw_ints(n, 3, text, size);
}

/* MaxPoolingWithArgmax2D: p is its raw TfLitePoolParams (padding,
 * stride_w, stride_h, filter_w, filter_h, activation). Its input must be
 * the same on both sides: a rounding difference could move an argmax. */
static bool make_argmax(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  const int a = pick_tensor(x, exact_operand, NULL);
  if (a < 0 || x->g->tensors[a].shape.rank != 4) return false;
  const gg_tensor* in = &x->g->tensors[a];
  const conf_shape s = in->shape;
  const float in_mag = in->mag, in_lo = in->lo_bound;
  const int k = chance(x, 0.7f) ? 2 : 3;
  n->p[0] = chance(x, 0.6f) ? kTfLitePaddingValid : kTfLitePaddingSame;
  n->p[1] = n->p[2] = chance(x, 0.8f) ? k : 1;
  n->p[3] = n->p[4] = k;
  n->p[5] = chance(x, 0.8f) ? kTfLiteActNone : kTfLiteActRelu6;
  const conf_shape out =
      shape4(s.d[0], window_out(s.d[1], k, n->p[2], 1, n->p[0]),
             window_out(s.d[2], k, n->p[1], 1, n->p[0]), s.d[3]);
  add_input(n, a);
  if (!add_output(x, n, out, activated_mag(n->p[5], in_mag)) ||
      !add_output(x, n, out, (float)(k * k) + 0.1f)) {
    return false;
  }
  x->g->tensors[n->out[0]].lo_bound = in_lo;
  x->g->tensors[n->out[1]].special = true; /* positions: for the unpooling */
  return true;
}

static void fields_pool_raw(const gg_node* n, char* text, size_t size) {
  fields_raw_ints(n, 6, text, size);
}

/* MaxUnpooling2D of an argmax's positions and a tensor of their shape
 * (usually the argmax's values), with the argmax's options. */
static bool make_unpool(gen* x, const op_entry* op, gg_node* n) {
  (void)op;
  int positions = -1;
  for (int t = x->g->num_tensors - 1; t >= 0 && positions < 0; --t) {
    const gg_tensor* c = &x->g->tensors[t];
    if (c->special && c->producer >= 0 && !is_read(x->g, t) &&
        x->g->nodes[c->producer].num_out == 2) {
      positions = t;
    }
  }
  if (positions < 0) return false;
  const gg_node* argmax = &x->g->nodes[x->g->tensors[positions].producer];
  const conf_shape s = x->g->tensors[positions].shape;
  const int values =
      chance(x, 0.8f) ? argmax->out[0] : pick_tensor(x, has_shape, &s);
  if (values < 0) return false;
  memcpy(n->p, argmax->p, sizeof(n->p));
  add_input(n, values);
  add_input(n, positions);
  return add_output(x, n,
                    shape4(s.d[0], s.d[1] * n->p[4], s.d[2] * n->p[3], s.d[3]),
                    x->g->tensors[values].mag);
}

/* ---- The op table ---------------------------------------------------------
 */

#define UNARY(code, name, weight) \
  { name, kTfLiteBuiltin##code, weight, make_unary, fields_unary, false }
#define BINARY(code, name, weight) \
  { name, kTfLiteBuiltin##code, weight, make_binary, fields_activation, false }
#define OP(code, name, weight, make, fields) \
  { name, kTfLiteBuiltin##code, weight, make, fields, false }
/* An op whose output keeps its inputs' lower bound (op_entry). */
#define RANGE_OP(code, name, weight, make, fields) \
  { name, kTfLiteBuiltin##code, weight, make, fields, true }
#define CUSTOM(name, weight, make, fields) \
  { name, kTfLiteBuiltinCustom, weight, make, fields, false }

static const op_entry kOps[] = {
    UNARY(Relu, "RELU", 3),
    UNARY(Relu6, "RELU6", 2),
    UNARY(ReluN1To1, "RELU_N1_TO_1", 1),
    UNARY(Relu0To1, "RELU_0_TO_1", 1),
    UNARY(LeakyRelu, "LEAKY_RELU", 1),
    UNARY(Logistic, "LOGISTIC", 2),
    UNARY(Tanh, "TANH", 2),
    UNARY(Elu, "ELU", 1),
    UNARY(HardSwish, "HARD_SWISH", 2),
    UNARY(Abs, "ABS", 1),
    UNARY(Neg, "NEG", 1),
    UNARY(Exp, "EXP", 1),
    UNARY(Square, "SQUARE", 1),
    UNARY(Sin, "SIN", 1),
    UNARY(Cos, "COS", 1),
    UNARY(Gelu, "GELU", 1),
    UNARY(Prelu, "PRELU", 1),
    UNARY(Softmax, "SOFTMAX", 2),
    UNARY(Sqrt, "SQRT", 1),
    UNARY(Rsqrt, "RSQRT", 1),
    UNARY(Log, "LOG", 1),
    UNARY(Floor, "FLOOR", 1),
    OP(Pow, "POW", 1, make_pow, NULL),
    BINARY(Add, "ADD", 6),
    BINARY(Sub, "SUB", 2),
    BINARY(Mul, "MUL", 3),
    BINARY(Div, "DIV", 1),
    BINARY(Maximum, "MAXIMUM", 1),
    BINARY(Minimum, "MINIMUM", 1),
    BINARY(SquaredDifference, "SQUARED_DIFFERENCE", 1),
    OP(Conv2d, "CONV_2D", 8, make_conv, fields_conv),
    OP(DepthwiseConv2d, "DEPTHWISE_CONV_2D", 5, make_depthwise,
       fields_depthwise),
    OP(TransposeConv, "TRANSPOSE_CONV", 2, make_transpose_conv,
       fields_transpose_conv),
    OP(FullyConnected, "FULLY_CONNECTED", 2, make_fully_connected,
       fields_fully_connected),
    OP(BatchMatmul, "BATCH_MATMUL", 1, make_batch_matmul, fields_batch_matmul),
    RANGE_OP(MaxPool2d, "MAX_POOL_2D", 3, make_pool, fields_pool),
    RANGE_OP(AveragePool2d, "AVERAGE_POOL_2D", 2, make_pool, fields_pool),
    RANGE_OP(Mean, "MEAN", 2, make_reduce, fields_reduce),
    OP(Sum, "SUM", 1, make_reduce, fields_reduce),
    RANGE_OP(ReduceMax, "REDUCE_MAX", 1, make_reduce, fields_reduce),
    RANGE_OP(ReduceMin, "REDUCE_MIN", 1, make_reduce, fields_reduce),
    RANGE_OP(Concatenation, "CONCATENATION", 4, make_concatenation,
             fields_concatenation),
    RANGE_OP(Pad, "PAD", 4, make_pad, fields_pad),
    RANGE_OP(Padv2, "PADV2", 1, make_pad, fields_pad),
    RANGE_OP(MirrorPad, "MIRROR_PAD", 1, make_pad, fields_pad),
    RANGE_OP(Slice, "SLICE", 1, make_slice, NULL),
    RANGE_OP(StridedSlice, "STRIDED_SLICE", 1, make_slice,
             fields_strided_slice),
    RANGE_OP(Reshape, "RESHAPE", 2, make_reshape, fields_reshape),
    RANGE_OP(Squeeze, "SQUEEZE", 1, make_squeeze, fields_squeeze),
    RANGE_OP(Transpose, "TRANSPOSE", 1, make_transpose, NULL),
    RANGE_OP(ResizeBilinear, "RESIZE_BILINEAR", 2, make_resize, fields_resize),
    RANGE_OP(ResizeNearestNeighbor, "RESIZE_NEAREST_NEIGHBOR", 1, make_resize,
             fields_resize),
    RANGE_OP(SpaceToDepth, "SPACE_TO_DEPTH", 1, make_block, fields_block),
    RANGE_OP(DepthToSpace, "DEPTH_TO_SPACE", 1, make_block, fields_block),
    RANGE_OP(Split, "SPLIT", 1, make_split, fields_split),
    RANGE_OP(SplitV, "SPLIT_V", 1, make_split, fields_split),
    RANGE_OP(Tile, "TILE", 1, make_tile, NULL),
    RANGE_OP(Gather, "GATHER", 1, make_gather, fields_gather),
    OP(Cast, "CAST", 1, make_cast, fields_cast),
    OP(Dequantize, "DEQUANTIZE", 0, NULL, NULL), /* made by the convs */
    CUSTOM("Convolution2DTransposeBias", 1, make_tconv_bias, fields_tconv_bias),
    CUSTOM("MaxPoolingWithArgmax2D", 1, make_argmax, fields_pool_raw),
    /* Drawn often: it only applies after an unread argmax. */
    CUSTOM("MaxUnpooling2D", 12, make_unpool, fields_pool_raw),
    {NULL, 0, 0, NULL, NULL, false},
};

static const op_entry* ops(void) { return kOps; }

static const op_entry* op_named(const char* name) {
  for (const op_entry* op = kOps; op->name != NULL; ++op) {
    if (strcmp(op->name, name) == 0) return op;
  }
  return NULL;
}

static const op_entry* draw_op(gen* x) {
  int total = 0; /* ops of weight 0 are never drawn */
  for (int i = 0; kOps[i].name != NULL; ++i) total += kOps[i].weight;
  int r = between(x, 0, total - 1);
  for (int i = 0; kOps[i].name != NULL; ++i) {
    if (r < kOps[i].weight) return &kOps[i];
    r -= kOps[i].weight;
  }
  return &kOps[0];
}

int32_t gg_node_builtin(const gg_graph* g, int n) {
  return ops()[g->nodes[n].op].code;
}

/* ---- Generation -----------------------------------------------------------
 */

/* 1 to 3 graph inputs: the first rank 4, the others of its shape, of its
 * pixels with other channels, or of their own. */
static void add_graph_inputs(gen* x, float scale) {
  const int n = between(x, 1, 5) < 4 ? 1 : between(x, 2, 3);
  const conf_shape first = shape4(chance(x, 0.85f) ? 1 : 2, between(x, 1, 12),
                                  between(x, 1, 12), between(x, 1, 20));
  for (int i = 0; i < n; ++i) {
    conf_shape s = first;
    const float r = conf_random(&x->rng);
    if (i > 0 && r < 0.4f) s.d[3] = between(x, 1, 20);
    if (i > 0 && r >= 0.7f) {
      s = shape4(first.d[0], between(x, 1, 12), between(x, 1, 12),
                 between(x, 1, 20));
    }
    const int t = add_tensor(x, s, scale, scale);
    gg_tensor* in = &x->g->tensors[t];
    /* A quarter of the inputs are positive: what SQRT, LOG, ... read. */
    const bool positive = chance(x, 0.25f);
    in->lo = positive ? 0.25f : -scale;
    in->hi = scale > 0.5f ? scale : 1.0f;
    in->lo_bound = in->lo;
    in->exact = true;
  }
}

static int count_outputs(const gg_graph* g) {
  int n = 0;
  for (int t = 0; t < g->num_tensors; ++t) n += g->tensors[t].output;
  return n;
}

/* Every tensor nothing reads becomes an output (the first GG_MAX_IO of
 * them; the rest are removed with their producers), and now and then one
 * that later nodes also read. */
static void choose_outputs(gen* x) {
  gg_graph* g = x->g;
  for (int t = g->num_tensors - 1; t >= 0; --t) {
    if (g->tensors[t].producer >= 0 && !is_read(g, t) &&
        count_outputs(g) < GG_MAX_IO) {
      g->tensors[t].output = true;
    }
  }
  for (int t = 0; t < g->num_tensors; ++t) {
    if (g->tensors[t].producer >= 0 && !g->tensors[t].output &&
        count_outputs(g) < GG_MAX_IO && chance(x, 0.1f)) {
      g->tensors[t].output = true;
    }
  }
}

static void remove_dead(gg_graph* g);

/* The lowest lower bound of a node's tensor operands, and of a PAD's
 * padding value (0, or PADV2's constant). */
static void keep_range(gen* x, const gg_node* n) {
  float lo = INFINITY;
  for (int i = 0; i < n->num_in; ++i) {
    if (n->in[i].constant || n->in[i].index < 0) continue;
    lo = fminf(lo, x->g->tensors[n->in[i].index].lo_bound);
  }
  const int32_t code = ops()[n->op].code;
  if (code == kTfLiteBuiltinPad) lo = fminf(lo, 0);
  if (code == kTfLiteBuiltinPadv2) lo = fminf(lo, n->consts[1].f[0]);
  set_lo(x, n, lo);
}

/* Whether every tensor operand of node `n` is a graph input or written by
 * a node in `done`. */
static bool node_ready(const gg_graph* g, int n, const bool* done) {
  const gg_node* node = &g->nodes[n];
  for (int i = 0; i < node->num_in; ++i) {
    if (node->in[i].constant || node->in[i].index < 0) continue;
    const int producer = g->tensors[node->in[i].index].producer;
    if (producer >= 0 && !done[producer]) return false;
  }
  return true;
}

/* Puts the nodes in another order that respects their dependencies (each
 * step takes a random ready node), so producers of one join run in every
 * order relative to each other. */
static void shuffle_order(gen* x) {
  gg_graph* g = x->g;
  bool done[GG_MAX_NODES] = {false};
  int order[GG_MAX_NODES], where[GG_MAX_NODES];
  for (int k = 0; k < g->num_nodes; ++k) {
    int ready[GG_MAX_NODES], count = 0;
    for (int n = 0; n < g->num_nodes; ++n) {
      if (!done[n] && node_ready(g, n, done)) ready[count++] = n;
    }
    const int pick = ready[between(x, 0, count - 1)];
    done[pick] = true;
    order[k] = pick;
    where[pick] = k;
  }
  gg_node moved[GG_MAX_NODES];
  for (int k = 0; k < g->num_nodes; ++k) moved[k] = g->nodes[order[k]];
  memcpy(g->nodes, moved, (size_t)g->num_nodes * sizeof(gg_node));
  for (int t = 0; t < g->num_tensors; ++t) {
    if (g->tensors[t].producer >= 0) {
      g->tensors[t].producer = where[g->tensors[t].producer];
    }
  }
}

void gg_generate(gg_graph* g, uint32_t seed, int max_nodes) {
  memset(g, 0, sizeof(*g));
  gen x = {g, seed * 2654435761u + 0x9e3779b9u, max_nodes};
  if (x.max_nodes > GG_MAX_NODES) x.max_nodes = GG_MAX_NODES;
  if (x.max_nodes < 2) x.max_nodes = 2;
  for (int i = 0; i < 3; ++i) conf_random(&x.rng); /* mix the seed */
  const float r = conf_random(&x.rng);
  add_graph_inputs(&x, r < 0.6f ? 1.0f : r < 0.8f ? 8.0f : 15000.0f);
  const int target = between(&x, 2, x.max_nodes);
  for (int tries = 0; g->num_nodes < target && tries < 400; ++tries) {
    const op_entry* op = draw_op(&x);
    gg_node* n = begin_node(&x, op);
    if (n == NULL) break;
    if (op->make(&x, op, n)) {
      if (op->keeps_range) keep_range(&x, &g->nodes[g->num_nodes]);
      commit(&x);
    } else {
      discard(&x, &g->nodes[g->num_nodes]);
    }
  }
  choose_outputs(&x);
  remove_dead(g);
  if (chance(&x, 0.5f)) shuffle_order(&x);
}

/* ---- Copies ---------------------------------------------------------------
 */

static bool copy_const(gg_const* dst, const gg_const* src) {
  *dst = *src;
  const size_t count = conf_shape_elements(src->shape);
  const size_t bytes = (count ? count : 1) * sizeof(float);
  dst->f = NULL;
  dst->i = NULL;
  if (src->f != NULL && (dst->f = malloc(bytes)) != NULL) {
    memcpy(dst->f, src->f, bytes);
  }
  if (src->i != NULL && (dst->i = malloc(bytes)) != NULL) {
    memcpy(dst->i, src->i, bytes);
  }
  return (dst->f != NULL) == (src->f != NULL) &&
         (dst->i != NULL) == (src->i != NULL);
}

bool gg_copy(gg_graph* dst, const gg_graph* src) {
  memcpy(dst, src, sizeof(*dst));
  for (int n = 0; n < dst->num_nodes; ++n) {
    for (int k = 0; k < dst->nodes[n].num_consts; ++k) {
      dst->nodes[n].consts[k].f = NULL; /* src's until copied */
      dst->nodes[n].consts[k].i = NULL;
    }
  }
  bool ok = true;
  for (int n = 0; n < src->num_nodes; ++n) {
    for (int k = 0; k < src->nodes[n].num_consts; ++k) {
      ok &= copy_const(&dst->nodes[n].consts[k], &src->nodes[n].consts[k]);
    }
  }
  if (!ok) {
    gg_free(dst);
    memset(dst, 0, sizeof(*dst));
  }
  return ok;
}

void gg_free(gg_graph* g) {
  for (int n = 0; n < g->num_nodes; ++n) {
    for (int k = 0; k < g->nodes[n].num_consts; ++k) {
      free(g->nodes[n].consts[k].f);
      free(g->nodes[n].consts[k].i);
      g->nodes[n].consts[k].f = NULL;
      g->nodes[n].consts[k].i = NULL;
    }
  }
}

int gg_live_nodes(const gg_graph* g) {
  int live = 0;
  for (int n = 0; n < g->num_nodes; ++n) live += !g->nodes[n].removed;
  return live;
}

/* ---- The spec -------------------------------------------------------------
 */

typedef struct text {
  char* data;
  size_t length, capacity;
  bool failed;
} text;

static void append(text* t, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
static void append(text* t, const char* format, ...) {
  if (t->failed) return;
  for (;;) {
    va_list args;
    va_start(args, format);
    const size_t room = t->capacity - t->length;
    const int n = vsnprintf(t->data ? t->data + t->length : NULL,
                            t->data ? room : 0, format, args);
    va_end(args);
    if (n < 0) {
      t->failed = true;
      return;
    }
    if (t->data != NULL && (size_t)n < room) {
      t->length += (size_t)n;
      return;
    }
    const size_t capacity = 2 * t->capacity + (size_t)n + 256;
    char* data = realloc(t->data, capacity);
    if (data == NULL) {
      t->failed = true;
      return;
    }
    t->data = data;
    t->capacity = capacity;
  }
}

static void append_shape(text* t, conf_shape s) {
  if (s.rank == 0) {
    append(t, "-");
    return;
  }
  for (int i = 0; i < s.rank; ++i) append(t, "%s%d", i ? "," : "", s.d[i]);
}

/* Whether tensor `t` is part of the graph: an output, read by a live node
 * or written by one. */
static bool tensor_used(const gg_graph* g, int t) {
  const gg_tensor* x = &g->tensors[t];
  if (x->output || is_read(g, t)) return true;
  return x->producer >= 0 && !g->nodes[x->producer].removed;
}

static void append_const(text* t, int node, int k, const gg_const* c) {
  const size_t count = conf_shape_elements(c->shape);
  append(t, "tensor c%d_%d %s ", node, k,
         c->is_int ? "INT32" : (c->half ? "FLOAT16" : "FLOAT32"));
  append_shape(t, c->shape);
  if (c->half) { /* little-endian half bits */
    append(t, " hex=");
    for (size_t i = 0; i < count; ++i) {
      const uint16_t h = lg_fp32_to_fp16(c->f[i]);
      append(t, "%02x%02x", h & 0xffu, h >> 8);
    }
    append(t, "\n");
    return;
  }
  append(t, " values=");
  for (size_t i = 0; i < count; ++i) {
    if (c->is_int) {
      append(t, "%s%d", i ? "," : "", c->i[i]);
    } else {
      append(t, "%s%.9g", i ? "," : "", c->f[i]);
    }
  }
  append(t, "\n");
}

static void append_node(text* t, const gg_graph* g, int n) {
  const gg_node* node = &g->nodes[n];
  const op_entry* op = &ops()[node->op];
  for (int k = 0; k < node->num_consts; ++k) {
    append_const(t, n, k, &node->consts[k]);
  }
  if (op->code == kTfLiteBuiltinCustom) {
    append(t, "custom %s 1 in=", op->name);
  } else {
    append(t, "op %s auto in=", op->name);
  }
  for (int i = 0; i < node->num_in; ++i) {
    const gg_operand* o = &node->in[i];
    if (i > 0) append(t, ",");
    if (o->index < 0) {
      append(t, "-");
    } else if (o->constant) {
      append(t, "c%d_%d", n, o->index);
    } else {
      append(t, "t%d", o->index);
    }
  }
  append(t, " out=");
  for (int i = 0; i < node->num_out; ++i) {
    append(t, "%st%d", i ? "," : "", node->out[i]);
  }
  char fields[512] = "";
  if (op->fields != NULL) op->fields(node, fields, sizeof(fields));
  if (op->code == kTfLiteBuiltinCustom) {
    append(t, " options=hex:%s\n", fields);
  } else {
    append(t, "%s%s\n", fields[0] ? " " : "", fields);
  }
}

static bool is_graph_input(const gg_graph* g, int t) {
  return g->tensors[t].producer < 0 && tensor_used(g, t);
}

static void append_io(text* t, const gg_graph* g, bool inputs) {
  append(t, inputs ? "inputs " : "outputs ");
  bool first = true;
  for (int k = 0; k < g->num_tensors; ++k) {
    const bool listed = inputs ? is_graph_input(g, k) : g->tensors[k].output;
    if (!listed) continue;
    append(t, "%st%d", first ? "" : ",", k);
    first = false;
  }
  append(t, "\n");
}

char* gg_to_spec(const gg_graph* g, const char* title) {
  text t = {NULL, 0, 0, false};
  append(&t, "# %s\n", title);
  for (int k = 0; k < g->num_tensors; ++k) {
    const gg_tensor* x = &g->tensors[k];
    if (is_graph_input(g, k)) {
      append(&t, "# range t%d %.9g %.9g\n", k, x->lo, x->hi);
    }
  }
  for (int k = 0; k < g->num_tensors; ++k) {
    const gg_tensor* x = &g->tensors[k];
    if (x->output) append(&t, "# scale t%d %.9g\n", k, x->path_mag);
  }
  for (int k = 0; k < g->num_tensors; ++k) {
    if (!tensor_used(g, k)) continue;
    append(&t, "tensor t%d %s ", k, g->tensors[k].is_int ? "INT32" : "FLOAT32");
    append_shape(&t, g->tensors[k].shape);
    append(&t, "\n");
  }
  for (int n = 0; n < g->num_nodes; ++n) {
    if (!g->nodes[n].removed) append_node(&t, g, n);
  }
  append_io(&t, g, true);
  append_io(&t, g, false);
  if (t.failed) {
    free(t.data);
    return NULL;
  }
  return t.data;
}

/* ---- Directives -----------------------------------------------------------
 */

#define GG_NAME_SIZE 64

typedef struct io_names {
  char inputs[GG_MAX_IO][GG_NAME_SIZE], outputs[GG_MAX_IO][GG_NAME_SIZE];
  int num_inputs, num_outputs;
} io_names;

/* The names of an "inputs" or "outputs" statement (the first of each:
 * subgraph 0's); false when there are too many or one is too long. */
static bool read_names(const char* list, char names[][GG_NAME_SIZE],
                       int* count) {
  *count = 0;
  while (*list == ' ' || *list == '\t') ++list;
  while (*list != '\0' && *list != '\n' && *list != ' ') {
    const size_t length = strcspn(list, ", \t\n");
    if (*count >= GG_MAX_IO || length == 0 || length >= GG_NAME_SIZE) {
      return false;
    }
    memcpy(names[*count], list, length);
    names[(*count)++][length] = '\0';
    list += length;
    if (*list == ',') ++list;
  }
  return true;
}

static int name_index(const char* name, char names[][GG_NAME_SIZE], int count) {
  for (int i = 0; i < count; ++i) {
    if (strcmp(names[i], name) == 0) return i;
  }
  return -1;
}

/* One "# range NAME LO HI" or "# scale NAME S" line (others are plain
 * comments). */
static bool parse_directive(const char* line, io_names* names,
                            gg_directives* out, char* why, size_t why_size) {
  char kind[8], name[GG_NAME_SIZE];
  double a = 0, b = 0;
  const int got = sscanf(line, "# %7s %63s %lf %lf", kind, name, &a, &b);
  const bool range = got >= 1 && strcmp(kind, "range") == 0;
  const bool scale = got >= 1 && strcmp(kind, "scale") == 0;
  if (!range && !scale) return true;
  if ((range && got != 4) || (scale && got != 3) || !isfinite(a) ||
      !isfinite(b) || (range && !(a < b)) || (scale && !(a > 0))) {
    snprintf(why, why_size, "malformed directive '%.200s'", line);
    return false;
  }
  const int index = range
                        ? name_index(name, names->inputs, names->num_inputs)
                        : name_index(name, names->outputs, names->num_outputs);
  if (index < 0) {
    snprintf(why, why_size, "the directive names no graph %s: '%.200s'",
             range ? "input" : "output", line);
    return false;
  }
  if (range) {
    out->inputs[index].lo = (float)a;
    out->inputs[index].hi = (float)b;
  } else {
    out->scales[index] = a;
  }
  return true;
}

/* Calls `fn` on each line of `spec` (copied, at most 511 characters). */
static bool each_line(const char* spec, bool (*fn)(const char*, void*),
                      void* ctx) {
  const char* line = spec;
  while (*line != '\0') {
    const char* end = strchr(line, '\n');
    const size_t length = end ? (size_t)(end - line) : strlen(line);
    char buffer[512];
    const size_t kept = length < sizeof(buffer) ? length : sizeof(buffer) - 1;
    memcpy(buffer, line, kept);
    buffer[kept] = '\0';
    if (!fn(buffer, ctx)) return false;
    line += length + (end ? 1 : 0);
  }
  return true;
}

typedef struct directive_pass {
  io_names names;
  gg_directives* out;
  char* why;
  size_t why_size;
} directive_pass;

static bool collect_names(const char* line, void* ctx) {
  directive_pass* d = ctx;
  io_names* n = &d->names;
  bool ok = true;
  if (strncmp(line, "inputs ", 7) == 0 && n->num_inputs == 0) {
    ok = read_names(line + 7, n->inputs, &n->num_inputs);
  } else if (strncmp(line, "outputs ", 8) == 0 && n->num_outputs == 0) {
    ok = read_names(line + 8, n->outputs, &n->num_outputs);
  }
  if (!ok) {
    snprintf(d->why, d->why_size,
             "more than %d graph inputs or outputs, or a name over %d "
             "characters: '%.200s'",
             GG_MAX_IO, GG_NAME_SIZE - 1, line);
  }
  return ok;
}

static bool apply_directive(const char* line, void* ctx) {
  directive_pass* d = ctx;
  return line[0] != '#' ||
         parse_directive(line, &d->names, d->out, d->why, d->why_size);
}

bool gg_parse_directives(const char* spec, gg_directives* out, char* why,
                         size_t why_size) {
  directive_pass d;
  memset(&d, 0, sizeof(d));
  d.out = out;
  d.why = why;
  d.why_size = why_size;
  if (!each_line(spec, collect_names, &d)) return false;
  out->num_inputs = d.names.num_inputs;
  out->num_outputs = d.names.num_outputs;
  for (int i = 0; i < out->num_inputs; ++i) {
    out->inputs[i] = (conf_input_spec){
        .tensor = -1, .type = kTfLiteFloat32, .lo = -1, .hi = 1};
  }
  for (int i = 0; i < out->num_outputs; ++i) out->scales[i] = 1;
  return each_line(spec, apply_directive, &d);
}

/* ---- Shrinking ------------------------------------------------------------
 */

/* Removes nodes none of whose outputs is read or an output, until none is
 * left. */
static void remove_dead(gg_graph* g) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (int n = g->num_nodes - 1; n >= 0; --n) {
      gg_node* node = &g->nodes[n];
      if (node->removed) continue;
      bool needed = false;
      for (int i = 0; i < node->num_out && !needed; ++i) {
        const int t = node->out[i];
        needed = g->tensors[t].output || is_read(g, t);
      }
      if (!needed) {
        node->removed = true;
        changed = true;
      }
    }
  }
}

static int count_graph_inputs(const gg_graph* g) {
  int n = 0;
  for (int t = 0; t < g->num_tensors; ++t) n += is_graph_input(g, t);
  return n;
}

static bool finish_step(gg_graph* dst) {
  remove_dead(dst);
  if (gg_live_nodes(dst) == 0 || count_graph_inputs(dst) > GG_MAX_IO ||
      count_outputs(dst) == 0) {
    gg_free(dst);
    return false;
  }
  return true;
}

bool gg_shrink_cut(gg_graph* dst, const gg_graph* src, int n) {
  if (n < 0 || n >= src->num_nodes || src->nodes[n].removed) return false;
  /* Graph inputs are float32 (the runner fills float values). */
  for (int i = 0; i < src->nodes[n].num_out; ++i) {
    if (src->tensors[src->nodes[n].out[i]].is_int) return false;
  }
  if (!gg_copy(dst, src)) return false;
  gg_node* node = &dst->nodes[n];
  node->removed = true;
  for (int i = 0; i < node->num_out; ++i) {
    gg_tensor* t = &dst->tensors[node->out[i]];
    const float range = fmaxf(t->mag, 0.5f);
    t->producer = -1;
    /* Within what the readers were made for (SQRT's input stays
     * positive). */
    t->lo = t->lo_bound > -range ? t->lo_bound : -range;
    t->hi = range > t->lo ? range : t->lo + 1;
  }
  return finish_step(dst);
}

bool gg_shrink_drop_output(gg_graph* dst, const gg_graph* src, int t) {
  if (t < 0 || t >= src->num_tensors || !src->tensors[t].output ||
      count_outputs(src) < 2 || !gg_copy(dst, src)) {
    return false;
  }
  dst->tensors[t].output = false;
  return finish_step(dst);
}

/* The first tensor operand of node `n`, or -1. */
static int first_tensor_operand(const gg_node* node) {
  for (int i = 0; i < node->num_in; ++i) {
    if (!node->in[i].constant && node->in[i].index >= 0) {
      return node->in[i].index;
    }
  }
  return -1;
}

bool gg_shrink_bypass(gg_graph* dst, const gg_graph* src, int n) {
  if (n < 0 || n >= src->num_nodes || src->nodes[n].removed ||
      src->nodes[n].num_out != 1) {
    return false;
  }
  const int from = first_tensor_operand(&src->nodes[n]);
  const int out = src->nodes[n].out[0];
  /* Readers must not see larger values than before (their input limits
   * and the magnitudes after them were estimated from the old ones). */
  if (from < 0 ||
      !same_shape(src->tensors[from].shape, src->tensors[out].shape) ||
      src->tensors[from].is_int != src->tensors[out].is_int ||
      src->tensors[from].special != src->tensors[out].special ||
      src->tensors[from].mag > src->tensors[out].mag || !gg_copy(dst, src)) {
    return false;
  }
  dst->nodes[n].removed = true;
  for (int k = 0; k < dst->num_nodes; ++k) {
    gg_node* node = &dst->nodes[k];
    for (int i = 0; i < node->num_in; ++i) {
      if (!node->in[i].constant && node->in[i].index == out) {
        node->in[i].index = from;
      }
    }
  }
  if (dst->tensors[out].output) {
    dst->tensors[out].output = false;
    dst->tensors[from].output = true;
  }
  return finish_step(dst);
}
