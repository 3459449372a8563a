/* Random graphs for the GPU conformance suite: a seeded generator of
 * float32 DAGs over the ops the GPU delegate claims, their text form (a
 * model spec, runtime/writer/model_spec.h) and the steps that shrink a
 * failing graph.
 *
 * A graph is a list of nodes in execution order over a list of tensors.
 * Each tensor knows its shape, the node that produces it (or that it is a
 * graph input, with the range its values are drawn from) and `mag`, an
 * estimate of the largest magnitude its values reach. The generator uses
 * the estimate to keep values finite in float16 (no op whose estimated
 * output exceeds GG_MAX_MAG is added) and the comparison uses the largest
 * estimate on a tensor's path as its error scale: a value computed from
 * values near 3000 carries their rounding error, however small it is
 * itself.
 *
 * Shapes are NHWC with channel counts that are rarely multiples of 4; the
 * generator makes branches and joins (residual ADDs, concatenations,
 * broadcasts of a reduced tensor, 1x1 projections of another branch),
 * channel PADs, shape changes, and several graph outputs (some of them
 * also read by later nodes), from every op the GPU delegate claims:
 * convolutions with float16 weights behind a DEQUANTIZE, CAST through
 * int32 and back, MediaPipe's custom ops; ops with a restricted domain
 * (SQRT, RSQRT, LOG, POW) read tensors with a known positive lower bound
 * (some graph inputs are positive), ops with a jump (FLOOR, CAST,
 * MaxPoolingWithArgmax2D) read only values that are the same on both
 * sides. A fifth of the graphs feed values of
 * magnitude 15000 and a fifth of magnitude 8, so saturating and
 * large-argument paths run too.
 *
 * Constants (weights, biases, paddings, axes, ...) are part of the node,
 * so a shrunk graph keeps them exactly.
 */
#ifndef LITEGPU_TESTS_CONFORMANCE_GRAPH_GEN_H_
#define LITEGPU_TESTS_CONFORMANCE_GRAPH_GEN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/conformance/conformance.h"

#define GG_MAX_NODES 48
#define GG_MAX_TENSORS 128
#define GG_MAX_NODE_INPUTS 3
#define GG_MAX_NODE_OUTPUTS 3
#define GG_MAX_CONSTS 3
#define GG_MAX_PARAMS 8
#define GG_MAX_IO CONF_MAX_IO
/* No value is allowed to grow past this (float16 ends at 65504). */
#define GG_MAX_MAG 20000.0f

typedef struct gg_tensor {
  conf_shape shape;
  float mag;      /* estimated largest |value| */
  float path_mag; /* largest mag over this tensor and everything before it */
  float lo_bound; /* a lower bound of its values (-inf: none known) */
  int producer;   /* node index, -1 for a graph input */
  float lo, hi;   /* graph inputs: the range their values are drawn from */
  bool output;    /* a graph output */
  /* The same values on the CPU and the delegate (graph inputs, and integer
   * results of them): what ops with a discontinuity (FLOOR, CAST, an
   * argmax) may read without a rounding difference becoming a jump. */
  bool exact;
  bool is_int; /* int32 (between a CAST and its way back), else float32 */
  /* Not an activation: dequantized weights, or an argmax's positions
   * (read only by the node made for them). */
  bool special;
} gg_tensor;

/* A constant operand: float32, float16 (`half`: values already rounded,
 * written as FLOAT16) or int32 data of `shape`. */
typedef struct gg_const {
  bool is_int;
  bool half;
  conf_shape shape;
  float* f;
  int32_t* i;
} gg_const;

/* Where a node's operand comes from, in the op's input order. */
typedef struct gg_operand {
  bool constant; /* consts[index] when set, else tensors[index] */
  int index;     /* -1: an omitted optional input */
} gg_operand;

typedef struct gg_node {
  int op; /* index into the generator's op table */
  gg_operand in[GG_MAX_NODE_INPUTS + GG_MAX_CONSTS];
  int num_in;
  int out[GG_MAX_NODE_OUTPUTS];
  int num_out;
  gg_const consts[GG_MAX_CONSTS];
  int num_consts;
  int p[GG_MAX_PARAMS]; /* the op's options, as the op's entry reads them */
  float alpha;          /* a float option (LEAKY_RELU alpha, SOFTMAX beta) */
  bool removed;         /* dropped by a shrinking step */
} gg_node;

typedef struct gg_graph {
  gg_tensor tensors[GG_MAX_TENSORS];
  int num_tensors;
  gg_node nodes[GG_MAX_NODES];
  int num_nodes;
} gg_graph;

/* Fills `g` with a graph of at most `max_nodes` nodes (at least 2) drawn
 * from `seed`; the same seed gives the same graph. */
void gg_generate(gg_graph* g, uint32_t seed, int max_nodes);

/* A deep copy; false when out of memory (dst is then empty). */
bool gg_copy(gg_graph* dst, const gg_graph* src);

/* Frees the constants. */
void gg_free(gg_graph* g);

/* Nodes not removed. */
int gg_live_nodes(const gg_graph* g);

/* The builtin code of node `n`'s op. */
int32_t gg_node_builtin(const gg_graph* g, int n);

/* The graph as a model spec (malloc'd text, NULL when out of memory),
 * graph inputs in tensor order. Its header comment holds `title` and the
 * directives gg_parse_directives reads back: "# range NAME LO HI" per
 * graph input and "# scale NAME S" per graph output. */
char* gg_to_spec(const gg_graph* g, const char* title);

/* What a spec (generated or written by hand) tells the runner besides the
 * model: the range of each graph input (in the order of its "inputs"
 * statement; default [-1, 1]) and each graph output's error scale (in the
 * order of "outputs"; default 1). False with `why` on a malformed or
 * dangling directive or more than GG_MAX_IO inputs or outputs. */
typedef struct gg_directives {
  conf_input_spec inputs[GG_MAX_IO];
  int num_inputs;
  double scales[GG_MAX_IO];
  int num_outputs;
} gg_directives;

bool gg_parse_directives(const char* spec, gg_directives* out, char* why,
                         size_t why_size);

/* ---- Shrinking steps: each writes a smaller graph into `dst` (a copy of
 * `src` with one change) and returns false when the step does not apply.
 * Nodes whose outputs nothing reads and that are not graph outputs are
 * removed afterwards, and tensors no node or output uses are dropped. */

/* Node `n` is removed and its outputs become graph inputs (drawn from the
 * range of their estimated magnitude). */
bool gg_shrink_cut(gg_graph* dst, const gg_graph* src, int n);

/* Graph output `t` (a tensor index) stops being an output. */
bool gg_shrink_drop_output(gg_graph* dst, const gg_graph* src, int t);

/* Node `n`, whose first tensor operand has its output's shape, is removed
 * and its readers read that operand instead. */
bool gg_shrink_bypass(gg_graph* dst, const gg_graph* src, int n);

#endif /* LITEGPU_TESTS_CONFORMANCE_GRAPH_GEN_H_ */
