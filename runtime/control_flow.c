/* Control flow: IF, WHILE, CALL_ONCE, STABLEHLO_COMPOSITE and STABLEHLO_CASE,
 * kernels that run other subgraphs of the model (registered through the op
 * manifest, family "control").
 *
 * TFLite's semantics:
 *   IF     input 0 is a one-element BOOL condition; the other inputs go to
 *          the then or the else subgraph, whose outputs become the node's.
 *   WHILE  the node's inputs are the loop state; while the cond subgraph
 *          (state in, one BOOL out) gives true, the body subgraph (state in,
 *          state out) computes the next state; the node's outputs are the
 *          final state. The state may change shape across iterations.
 *   CALL_ONCE  runs the init subgraph (no inputs, no outputs) on the first
 *          Invoke of the interpreter, e.g. to initialize resource variables.
 *
 * Values cross between subgraphs by copy: a callee's inputs take the
 * shapes of the values fed to them (the callee is re-planned when a shape
 * changes) and the node's outputs are copied from the callee's. Outputs are
 * static when every branch (IF) or the body (WHILE) gives them a fixed
 * shape known in Prepare, and dynamic otherwise. A subgraph may be the
 * callee of several nodes; each feeds it its own shapes before running it.
 * A subgraph that calls itself, directly or through others, is an error
 * (TFLite has no recursion either). STRING values cross by the
 * interpreter's string writer (checked, shape included).
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/string_tensor.h"
#include "runtime/subgraph.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* ---- Subgraphs as callees ------------------------------------------------ */

/* The subgraph `index` that a node of op `op` names in its `role` field. */
static TfLiteStatus callee_at(TfLiteContext* context, const char* op,
                              const char* role, int index, lg_subgraph** out) {
  lg_subgraph* self = lg_subgraph_of_kernel(context, op);
  if (self == NULL) return kTfLiteError;
  const TfLiteInterpreter* ip = self->interpreter;
  if (index < 0 || index >= ip->num_subgraphs) {
    lg_kernel_log(context, op,
                  "%s subgraph index %d is out of range (the model has %d "
                  "subgraphs)",
                  role, index, ip->num_subgraphs);
    return kTfLiteError;
  }
  if (index == self->index) {
    lg_kernel_log(context, op,
                  "%s subgraph %d is the subgraph the node is in; recursion "
                  "is not supported",
                  role, index);
    return kTfLiteError;
  }
  *out = &ip->subgraphs[index];
  return kTfLiteOk;
}

/* Checks the callee takes `num_inputs` inputs and gives `num_outputs`. */
static TfLiteStatus check_arity(TfLiteContext* context, const char* op,
                                const char* role, const lg_subgraph* callee,
                                int num_inputs, int num_outputs) {
  if (callee->num_inputs == num_inputs && callee->num_outputs == num_outputs) {
    return kTfLiteOk;
  }
  lg_kernel_log(context, op,
                "%s subgraph %d has %d inputs and %d outputs; the node "
                "needs %d and %d",
                role, callee->index, callee->num_inputs, callee->num_outputs,
                num_inputs, num_outputs);
  return kTfLiteError;
}

static TfLiteTensor* callee_input(lg_subgraph* callee, int i) {
  return &callee->context.tensors[callee->inputs[i]];
}

static TfLiteTensor* callee_output(lg_subgraph* callee, int i) {
  return &callee->context.tensors[callee->outputs[i]];
}

/* Gives the callee's inputs the types and shapes of `values` and plans the
 * callee when a shape changed (or it was never planned). Data is not
 * copied. */
static TfLiteStatus shape_inputs(TfLiteContext* context, const char* op,
                                 lg_subgraph* callee,
                                 const TfLiteTensor* const* values, int n) {
  for (int i = 0; i < n; ++i) {
    const TfLiteTensor* in = callee_input(callee, i);
    if (in->type != values[i]->type) {
      lg_kernel_log(context, op,
                    "input %d of subgraph %d is %s, but the node passes %s", i,
                    callee->index, TfLiteTypeGetName(in->type),
                    TfLiteTypeGetName(values[i]->type));
      return kTfLiteError;
    }
    if (TfLiteIntArrayEqual(in->dims, values[i]->dims)) continue;
    TF_LITE_ENSURE_STATUS(lg_subgraph_resize_input(
        callee, i, values[i]->dims->data, values[i]->dims->size));
  }
  return lg_subgraph_allocate_tensors(callee);
}

/* Shapes the callee's inputs after `values`, then copies the values in. */
static TfLiteStatus feed_inputs(TfLiteContext* context, const char* op,
                                lg_subgraph* callee,
                                const TfLiteTensor* const* values, int n) {
  TF_LITE_ENSURE_STATUS(shape_inputs(context, op, callee, values, n));
  for (int i = 0; i < n; ++i) {
    TfLiteTensor* in = callee_input(callee, i);
    if (in->type == kTfLiteString) {
      TF_LITE_ENSURE_STATUS(
          lg_string_check_input(context, op, "value", values[i]));
      TF_LITE_ENSURE_STATUS(
          lg_string_copy(callee, callee->inputs[i], values[i]));
      continue;
    }
    if (in->bytes != values[i]->bytes || in->data.raw == NULL) {
      lg_kernel_log(context, op,
                    "input %d of subgraph %d holds %zu bytes, not the %zu "
                    "passed",
                    i, callee->index, in->bytes, values[i]->bytes);
      return kTfLiteError;
    }
    if (in->bytes > 0) {
      memcpy(in->data.raw, values[i]->data.raw_const, in->bytes);
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus run_callee(TfLiteContext* context, const char* op,
                               lg_subgraph* callee) {
  if (callee->invoking) {
    lg_kernel_log(context, op,
                  "subgraph %d is already running (the model's control flow "
                  "is recursive)",
                  callee->index);
    return kTfLiteError;
  }
  return lg_subgraph_invoke(callee);
}

/* Copies `src` into the node's output `dst`: a dynamic output takes src's
 * shape; a static one must already have it. */
static TfLiteStatus copy_out(TfLiteContext* context, const char* op,
                             TfLiteTensor* dst, const TfLiteTensor* src,
                             int index) {
  if (dst->type != src->type) {
    lg_kernel_log(context, op, "output %d is %s, but its value is %s", index,
                  TfLiteTypeGetName(dst->type), TfLiteTypeGetName(src->type));
    return kTfLiteError;
  }
  if (dst->type == kTfLiteString) {
    lg_subgraph* s = lg_subgraph_of_kernel(context, op);
    if (s == NULL) return kTfLiteError;
    TF_LITE_ENSURE_STATUS(lg_string_check_input(context, op, "value", src));
    return lg_string_copy(s, (int)(dst - context->tensors), src);
  }
  const bool same_shape = TfLiteIntArrayEqual(dst->dims, src->dims);
  const bool dynamic = dst->allocation_type == kTfLiteDynamic;
  if (!same_shape && !dynamic) {
    char want[64], got[64];
    lg_kernel_log(context, op,
                  "output %d has the static shape %s, but its value has "
                  "shape %s",
                  index, lg_kernel_format_shape(dst->dims, want, sizeof want),
                  lg_kernel_format_shape(src->dims, got, sizeof got));
    return kTfLiteError;
  }
  /* A dynamic output takes the shape, and gets memory the first time. */
  if (dynamic && (!same_shape || dst->data.raw == NULL)) {
    TfLiteIntArray* dims = TfLiteIntArrayCopy(src->dims);
    if (dims == NULL) return kTfLiteError;
    TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, dst, dims));
  }
  if (src->bytes > 0) memcpy(dst->data.raw, src->data.raw_const, src->bytes);
  return kTfLiteOk;
}

/* Whether the callee's output i has a shape fixed at Prepare. */
static bool output_is_static(lg_subgraph* callee, int i) {
  return callee_output(callee, i)->allocation_type != kTfLiteDynamic &&
         callee->first_unprepared == callee->execution_plan->size;
}

/* Gives every node output the shape in `shapes`, or makes them all dynamic
 * when `dynamic`. `shapes` borrows other tensors' dims, and a malformed
 * model may name one of those tensors as an output too (found by
 * fuzz_interpreter: resizing it freed a shape still to be read), so every
 * shape is copied before any output is resized. */
static TfLiteStatus shape_outputs(TfLiteContext* context, TfLiteNode* node,
                                  TfLiteIntArray* const* shapes, bool dynamic) {
  const int n = node->outputs->size;
  if (dynamic) {
    for (int i = 0; i < n; ++i) {
      lg_kernel_set_dynamic(&context->tensors[node->outputs->data[i]]);
    }
    return kTfLiteOk;
  }
  TfLiteIntArray** dims = calloc((size_t)n + 1, sizeof(*dims));
  TfLiteStatus status = dims != NULL ? kTfLiteOk : kTfLiteError;
  for (int i = 0; i < n && status == kTfLiteOk; ++i) {
    dims[i] = TfLiteIntArrayCopy(shapes[i]);
    if (dims[i] == NULL) status = kTfLiteError;
  }
  for (int i = 0; i < n && status == kTfLiteOk; ++i) {
    TfLiteTensor* out = &context->tensors[node->outputs->data[i]];
    /* ResizeTensor owns dims[i] from here on, also when it fails. */
    status = context->ResizeTensor(context, out, dims[i]);
    dims[i] = NULL;
  }
  for (int i = 0; dims != NULL && i < n; ++i) TfLiteIntArrayFree(dims[i]);
  free(dims);
  return status;
}

/* The node's tensors at `list` from `first` on, as an array. */
static const TfLiteTensor** tensors_of(TfLiteContext* context,
                                       const TfLiteIntArray* list, int first) {
  const int n = list->size - first;
  const TfLiteTensor** out = calloc((size_t)(n > 0 ? n : 1), sizeof(*out));
  for (int i = 0; out != NULL && i < n; ++i) {
    out[i] = &context->tensors[list->data[first + i]];
  }
  return out;
}

static TfLiteStatus check_no_optional(TfLiteContext* context, const char* op,
                                      const TfLiteNode* node) {
  const TfLiteIntArray* lists[2] = {node->inputs, node->outputs};
  for (int l = 0; l < 2; ++l) {
    for (int i = 0; i < lists[l]->size; ++i) {
      if (lists[l]->data[i] < 0 ||
          (size_t)lists[l]->data[i] >= context->tensors_size) {
        lg_kernel_log(context, op, "%s %d is not a tensor of the graph",
                      l == 0 ? "input" : "output", i);
        return kTfLiteError;
      }
    }
  }
  return kTfLiteOk;
}

/* ---- StableHLO regions computed by their kernels ------------------------- */

TfLiteStatus lg_kernel_region_binary(TfLiteContext* context, const char* op,
                                     const char* role, int index,
                                     TfLiteType type, bool allow_empty,
                                     int32_t* builtin_code) {
  lg_subgraph* body;
  TF_LITE_ENSURE_STATUS(callee_at(context, op, role, index, &body));
  TF_LITE_ENSURE_STATUS(check_arity(context, op, role, body, 2, 1));
  for (int i = 0; i < 3; ++i) {
    const TfLiteTensor* t =
        i < 2 ? callee_input(body, i) : callee_output(body, 0);
    if (t->type != type || lg_kernel_num_elements(t) != 1) {
      char shape[64];
      lg_kernel_log(context, op,
                    "%s subgraph %d: %s %d is %s %s, expected one %s element",
                    role, index, i < 2 ? "input" : "output", i < 2 ? i : 0,
                    TfLiteTypeGetName(t->type),
                    lg_kernel_format_shape(t->dims, shape, sizeof shape),
                    TfLiteTypeGetName(type));
      return kTfLiteError;
    }
  }
  const int out = body->outputs[0];
  if (body->num_model_nodes == 0 && allow_empty && out == body->inputs[1]) {
    *builtin_code = -1;
    return kTfLiteOk;
  }
  if (body->num_model_nodes == 1) {
    const lg_node* n = &body->nodes[0];
    const TfLiteIntArray* in = n->node.inputs;
    const int a = body->inputs[0], b = body->inputs[1];
    if (!n->unresolved &&
        n->registration.builtin_code != kTfLiteBuiltinCustom && in->size == 2 &&
        n->node.outputs->size == 1 && n->node.outputs->data[0] == out &&
        ((in->data[0] == a && in->data[1] == b) ||
         (in->data[0] == b && in->data[1] == a))) {
      *builtin_code = n->registration.builtin_code;
      return kTfLiteOk;
    }
  }
  lg_kernel_log(context, op,
                "%s subgraph %d must be one operator on its two inputs%s; it "
                "has %d operators",
                role, index, allow_empty ? " or return its second input" : "",
                body->num_model_nodes);
  return kTfLiteError;
}

/* ---- IF ------------------------------------------------------------------ */

static TfLiteStatus if_branches(TfLiteContext* context, const TfLiteNode* node,
                                lg_subgraph* branches[2]) {
  static const char kOp[] = "IF";
  const TfLiteIfParams* params = node->builtin_data;
  if (params == NULL) {
    lg_kernel_log(context, kOp, "the node has no IfOptions");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(callee_at(context, kOp, "then",
                                  params->then_subgraph_index, &branches[0]));
  TF_LITE_ENSURE_STATUS(callee_at(context, kOp, "else",
                                  params->else_subgraph_index, &branches[1]));
  return kTfLiteOk;
}

/* Input 0 of `op` as its one-element selector of `type` (IF's BOOL
 * condition, STABLEHLO_CASE's INT32 branch index). */
static TfLiteStatus scalar_selector(TfLiteContext* context,
                                    const TfLiteNode* node, const char* op,
                                    TfLiteType type, const char* what,
                                    const TfLiteTensor** selector) {
  if (node->inputs->size < 1) {
    lg_kernel_log(context, op, "the node has no %s input", what);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, selector));
  if ((*selector)->type != type || lg_kernel_num_elements(*selector) != 1) {
    char shape[64];
    lg_kernel_log(
        context, op, "the %s must be one %s element; it is %s %s", what,
        TfLiteTypeGetName(type), TfLiteTypeGetName((*selector)->type),
        lg_kernel_format_shape((*selector)->dims, shape, sizeof shape));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus if_condition(TfLiteContext* context, const TfLiteNode* node,
                                 const TfLiteTensor** cond) {
  return scalar_selector(context, node, "IF", kTfLiteBool, "condition", cond);
}

static TfLiteStatus if_prepare(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "IF";
  lg_subgraph* branches[2];
  const TfLiteTensor* cond;
  if (node->inputs->size < 1) {
    lg_kernel_log(context, kOp, "the node has no condition input");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(check_no_optional(context, kOp, node));
  TF_LITE_ENSURE_STATUS(if_condition(context, node, &cond));
  TF_LITE_ENSURE_STATUS(if_branches(context, node, branches));
  const int num_args = node->inputs->size - 1;
  const int num_outputs = node->outputs->size;
  const TfLiteTensor** args = tensors_of(context, node->inputs, 1);
  TfLiteIntArray** shapes = calloc((size_t)num_outputs + 1, sizeof(*shapes));
  TfLiteStatus status = args && shapes ? kTfLiteOk : kTfLiteError;
  bool dynamic = false;
  for (int b = 0; b < 2 && status == kTfLiteOk; ++b) {
    status = check_arity(context, kOp, b == 0 ? "then" : "else", branches[b],
                         num_args, num_outputs);
    if (status == kTfLiteOk) {
      status = shape_inputs(context, kOp, branches[b], args, num_args);
    }
    for (int i = 0; i < num_outputs && status == kTfLiteOk; ++i) {
      const TfLiteTensor* out = callee_output(branches[b], i);
      if (!output_is_static(branches[b], i)) dynamic = true;
      if (b == 0) shapes[i] = out->dims;
      if (b == 1 && !TfLiteIntArrayEqual(shapes[i], out->dims)) dynamic = true;
    }
  }
  if (status == kTfLiteOk) {
    status = shape_outputs(context, node, shapes, dynamic);
  }
  free(args);
  free(shapes);
  return status;
}

/* Runs `callee` on the node's inputs from `first_input` on and copies its
 * outputs into the node's (IF, STABLEHLO_COMPOSITE, STABLEHLO_CASE). */
static TfLiteStatus invoke_callee(TfLiteContext* context, const char* op,
                                  TfLiteNode* node, lg_subgraph* callee,
                                  int first_input) {
  const TfLiteTensor** args = tensors_of(context, node->inputs, first_input);
  if (args == NULL) return kTfLiteError;
  TfLiteStatus status =
      feed_inputs(context, op, callee, args, node->inputs->size - first_input);
  free(args);
  if (status == kTfLiteOk) status = run_callee(context, op, callee);
  for (int i = 0; i < node->outputs->size && status == kTfLiteOk; ++i) {
    status = copy_out(context, op, &context->tensors[node->outputs->data[i]],
                      callee_output(callee, i), i);
  }
  return status;
}

static TfLiteStatus if_invoke(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "IF";
  lg_subgraph* branches[2];
  const TfLiteTensor* cond;
  TF_LITE_ENSURE_STATUS(if_condition(context, node, &cond));
  TF_LITE_ENSURE_STATUS(if_branches(context, node, branches));
  lg_subgraph* branch = cond->data.b[0] ? branches[0] : branches[1];
  return invoke_callee(context, kOp, node, branch, 1);
}

LG_KERNEL_REGISTRATION(IF, NULL, NULL, if_prepare, if_invoke)

/* ---- STABLEHLO_COMPOSITE ------------------------------------------------- */
/* Runs its decomposition subgraph on the node's inputs, as IF runs a branch:
 * the node's outputs are the decomposition's (static when it gives them a
 * shape fixed at Prepare). The name, version and attributes are not read. */

static TfLiteStatus composite_callee(TfLiteContext* context,
                                     const TfLiteNode* node,
                                     lg_subgraph** callee) {
  static const char kOp[] = "STABLEHLO_COMPOSITE";
  const TfLiteStablehloCompositeParams* params = node->builtin_data;
  if (params == NULL) {
    lg_kernel_log(context, kOp, "the node has no StableHLOCompositeOptions");
    return kTfLiteError;
  }
  return callee_at(context, kOp, "decomposition", params->subgraph_index,
                   callee);
}

static TfLiteStatus composite_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  static const char kOp[] = "STABLEHLO_COMPOSITE";
  lg_subgraph* callee;
  TF_LITE_ENSURE_STATUS(check_no_optional(context, kOp, node));
  TF_LITE_ENSURE_STATUS(composite_callee(context, node, &callee));
  const int num_args = node->inputs->size;
  const int num_outputs = node->outputs->size;
  TF_LITE_ENSURE_STATUS(check_arity(context, kOp, "decomposition", callee,
                                    num_args, num_outputs));
  const TfLiteTensor** args = tensors_of(context, node->inputs, 0);
  TfLiteIntArray** shapes = calloc((size_t)num_outputs + 1, sizeof(*shapes));
  TfLiteStatus status = args && shapes ? kTfLiteOk : kTfLiteError;
  if (status == kTfLiteOk) {
    status = shape_inputs(context, kOp, callee, args, num_args);
  }
  bool dynamic = false;
  for (int i = 0; i < num_outputs && status == kTfLiteOk; ++i) {
    if (!output_is_static(callee, i)) dynamic = true;
    shapes[i] = callee_output(callee, i)->dims;
  }
  if (status == kTfLiteOk) {
    status = shape_outputs(context, node, shapes, dynamic);
  }
  free(args);
  free(shapes);
  return status;
}

static TfLiteStatus composite_invoke(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "STABLEHLO_COMPOSITE";
  lg_subgraph* callee;
  TF_LITE_ENSURE_STATUS(composite_callee(context, node, &callee));
  return invoke_callee(context, kOp, node, callee, 0);
}

LG_KERNEL_REGISTRATION(STABLEHLO_COMPOSITE, NULL, NULL, composite_prepare,
                       composite_invoke)

/* ---- STABLEHLO_CASE ------------------------------------------------------ */
/* Input 0, one INT32 element, picks one of branch_subgraph_indices (an index
 * outside [0, num_branches) picks the last branch, as StableHLO and LiteRT
 * do); the other inputs go to the branch, whose outputs become the node's,
 * as IF runs its branches. Outputs are static when every branch gives them
 * the same shape, fixed at Prepare. */

static TfLiteStatus case_branch(TfLiteContext* context, const TfLiteNode* node,
                                int b, lg_subgraph** branch) {
  static const char kOp[] = "STABLEHLO_CASE";
  const TfLiteStablehloCaseParams* params = node->builtin_data;
  if (params == NULL) {
    lg_kernel_log(context, kOp, "the node has no StablehloCaseOptions");
    return kTfLiteError;
  }
  const int n = (int)params->num_branches;
  if (n < 1 || n > TFLITE_STABLEHLO_CASE_PARAMS_MAX_BRANCHES_COUNT) {
    lg_kernel_log(context, kOp, "the node has %u branches (1 to %d)",
                  params->num_branches,
                  TFLITE_STABLEHLO_CASE_PARAMS_MAX_BRANCHES_COUNT);
    return kTfLiteError;
  }
  if (b < 0 || b >= n) b = n - 1;
  return callee_at(context, kOp, "branch", params->branch_subgraph_indices[b],
                   branch);
}

static TfLiteStatus case_index(TfLiteContext* context, const TfLiteNode* node,
                               const TfLiteTensor** index) {
  return scalar_selector(context, node, "STABLEHLO_CASE", kTfLiteInt32,
                         "branch index", index);
}

static TfLiteStatus case_prepare(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "STABLEHLO_CASE";
  const TfLiteTensor* index;
  TF_LITE_ENSURE_STATUS(check_no_optional(context, kOp, node));
  TF_LITE_ENSURE_STATUS(case_index(context, node, &index));
  lg_subgraph* first;
  TF_LITE_ENSURE_STATUS(case_branch(context, node, 0, &first));
  const TfLiteStablehloCaseParams* params = node->builtin_data;
  const int num_branches = (int)params->num_branches;
  const int num_args = node->inputs->size - 1;
  const int num_outputs = node->outputs->size;
  const TfLiteTensor** args = tensors_of(context, node->inputs, 1);
  TfLiteIntArray** shapes = calloc((size_t)num_outputs + 1, sizeof(*shapes));
  TfLiteStatus status = args && shapes ? kTfLiteOk : kTfLiteError;
  bool dynamic = false;
  for (int b = 0; b < num_branches && status == kTfLiteOk; ++b) {
    lg_subgraph* branch;
    status = case_branch(context, node, b, &branch);
    if (status == kTfLiteOk) {
      status =
          check_arity(context, kOp, "branch", branch, num_args, num_outputs);
    }
    if (status == kTfLiteOk) {
      status = shape_inputs(context, kOp, branch, args, num_args);
    }
    for (int i = 0; i < num_outputs && status == kTfLiteOk; ++i) {
      const TfLiteTensor* out = callee_output(branch, i);
      const TfLiteTensor* node_out = &context->tensors[node->outputs->data[i]];
      if (out->type != node_out->type) {
        lg_kernel_log(context, kOp,
                      "output %d of branch subgraph %d is %s, but the node's "
                      "is %s",
                      i, branch->index, TfLiteTypeGetName(out->type),
                      TfLiteTypeGetName(node_out->type));
        status = kTfLiteError;
        break;
      }
      if (!output_is_static(branch, i)) dynamic = true;
      if (b == 0) shapes[i] = out->dims;
      if (b > 0 && !TfLiteIntArrayEqual(shapes[i], out->dims)) dynamic = true;
    }
  }
  /* shapes[] borrow the first branch's dims: shape it again last, so that
   * a branch that is the first one too (a repeated index) left them as
   * they are read. */
  if (status == kTfLiteOk) {
    status = shape_inputs(context, kOp, first, args, num_args);
    for (int i = 0; i < num_outputs && status == kTfLiteOk; ++i) {
      shapes[i] = callee_output(first, i)->dims;
    }
  }
  if (status == kTfLiteOk) {
    status = shape_outputs(context, node, shapes, dynamic);
  }
  free(args);
  free(shapes);
  return status;
}

static TfLiteStatus case_invoke(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "STABLEHLO_CASE";
  const TfLiteTensor* index;
  TF_LITE_ENSURE_STATUS(case_index(context, node, &index));
  lg_subgraph* branch;
  TF_LITE_ENSURE_STATUS(
      case_branch(context, node, index->data.i32[0], &branch));
  return invoke_callee(context, kOp, node, branch, 1);
}

LG_KERNEL_REGISTRATION(STABLEHLO_CASE, NULL, NULL, case_prepare, case_invoke)

/* ---- WHILE --------------------------------------------------------------- */

static TfLiteStatus while_subgraphs(TfLiteContext* context,
                                    const TfLiteNode* node, lg_subgraph** cond,
                                    lg_subgraph** body) {
  static const char kOp[] = "WHILE";
  const TfLiteWhileParams* params = node->builtin_data;
  if (params == NULL) {
    lg_kernel_log(context, kOp, "the node has no WhileOptions");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      callee_at(context, kOp, "cond", params->cond_subgraph_index, cond));
  TF_LITE_ENSURE_STATUS(
      callee_at(context, kOp, "body", params->body_subgraph_index, body));
  return kTfLiteOk;
}

static TfLiteStatus check_cond_output(TfLiteContext* context,
                                      lg_subgraph* cond) {
  const TfLiteTensor* out = callee_output(cond, 0);
  if (out->type != kTfLiteBool) {
    lg_kernel_log(context, "WHILE", "cond subgraph %d gives %s, not BOOL",
                  cond->index, TfLiteTypeGetName(out->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus while_prepare(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "WHILE";
  lg_subgraph *cond, *body;
  TF_LITE_ENSURE_STATUS(check_no_optional(context, kOp, node));
  TF_LITE_ENSURE_STATUS(while_subgraphs(context, node, &cond, &body));
  const int n = node->inputs->size;
  if (node->outputs->size != n) {
    lg_kernel_log(context, kOp, "the node has %d inputs but %d outputs", n,
                  node->outputs->size);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(check_arity(context, kOp, "cond", cond, n, 1));
  TF_LITE_ENSURE_STATUS(check_arity(context, kOp, "body", body, n, n));
  const TfLiteTensor** state = tensors_of(context, node->inputs, 0);
  TfLiteIntArray** shapes = calloc((size_t)n + 1, sizeof(*shapes));
  TfLiteStatus status = state && shapes ? kTfLiteOk : kTfLiteError;
  if (status == kTfLiteOk) status = shape_inputs(context, kOp, cond, state, n);
  if (status == kTfLiteOk) status = check_cond_output(context, cond);
  if (status == kTfLiteOk) status = shape_inputs(context, kOp, body, state, n);
  /* The state keeps its shape when the body gives back what it was fed. */
  bool dynamic = false;
  for (int i = 0; i < n && status == kTfLiteOk; ++i) {
    const TfLiteTensor* out = callee_output(body, i);
    if (out->type != state[i]->type) {
      lg_kernel_log(context, kOp,
                    "body subgraph %d gives %s for loop variable %d, which "
                    "is %s",
                    body->index, TfLiteTypeGetName(out->type), i,
                    TfLiteTypeGetName(state[i]->type));
      status = kTfLiteError;
    }
    if (!output_is_static(body, i) ||
        !TfLiteIntArrayEqual(out->dims, state[i]->dims)) {
      dynamic = true;
    }
    shapes[i] = state[i]->dims;
  }
  if (status == kTfLiteOk) {
    status = shape_outputs(context, node, shapes, dynamic);
  }
  free(state);
  free(shapes);
  return status;
}

/* Whether the cond subgraph, fed the state, gives true. */
static TfLiteStatus while_test(TfLiteContext* context, lg_subgraph* cond,
                               const TfLiteTensor** state, int n,
                               bool* result) {
  static const char kOp[] = "WHILE";
  TF_LITE_ENSURE_STATUS(feed_inputs(context, kOp, cond, state, n));
  TF_LITE_ENSURE_STATUS(check_cond_output(context, cond));
  TF_LITE_ENSURE_STATUS(run_callee(context, kOp, cond));
  const TfLiteTensor* out = callee_output(cond, 0);
  if (lg_kernel_num_elements(out) < 1 || out->data.raw == NULL) {
    lg_kernel_log(context, kOp, "cond subgraph %d gives an empty condition",
                  cond->index);
    return kTfLiteError;
  }
  *result = out->data.b[0];
  return kTfLiteOk;
}

static TfLiteStatus while_invoke(TfLiteContext* context, TfLiteNode* node) {
  static const char kOp[] = "WHILE";
  lg_subgraph *cond, *body;
  TF_LITE_ENSURE_STATUS(while_subgraphs(context, node, &cond, &body));
  const int n = node->inputs->size;
  /* The node's outputs hold the state between iterations. */
  const TfLiteTensor** state = tensors_of(context, node->outputs, 0);
  if (state == NULL) return kTfLiteError;
  TfLiteStatus status = kTfLiteOk;
  for (int i = 0; i < n && status == kTfLiteOk; ++i) {
    status = copy_out(context, kOp, &context->tensors[node->outputs->data[i]],
                      &context->tensors[node->inputs->data[i]], i);
  }
  lg_subgraph* self = lg_subgraph_from_context(context);
  while (status == kTfLiteOk) {
    bool again = false;
    status = while_test(context, cond, state, n, &again);
    if (status != kTfLiteOk || !again) break;
    if (atomic_load(&self->interpreter->cancel_requested)) {
      status = kTfLiteCancelled;
      break;
    }
    status = feed_inputs(context, kOp, body, state, n);
    if (status == kTfLiteOk) status = run_callee(context, kOp, body);
    for (int i = 0; i < n && status == kTfLiteOk; ++i) {
      status = copy_out(context, kOp, &context->tensors[node->outputs->data[i]],
                        callee_output(body, i), i);
    }
  }
  free(state);
  return status;
}

LG_KERNEL_REGISTRATION(WHILE, NULL, NULL, while_prepare, while_invoke)

/* ---- CALL_ONCE ----------------------------------------------------------- */

typedef struct call_once_data {
  bool done; /* the init subgraph ran successfully */
} call_once_data;

static void* call_once_init(TfLiteContext* context, const char* buffer,
                            size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(call_once_data));
}

static TfLiteStatus call_once_subgraph(TfLiteContext* context,
                                       const TfLiteNode* node,
                                       lg_subgraph** init) {
  static const char kOp[] = "CALL_ONCE";
  const TfLiteCallOnceParams* params = node->builtin_data;
  if (params == NULL) {
    lg_kernel_log(context, kOp, "the node has no CallOnceOptions");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      callee_at(context, kOp, "init", params->init_subgraph_index, init));
  return check_arity(context, kOp, "init", *init, 0, 0);
}

static TfLiteStatus call_once_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  lg_subgraph* init;
  if (node->user_data == NULL) return kTfLiteError;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, "CALL_ONCE", 0, 0, 0));
  TF_LITE_ENSURE_STATUS(call_once_subgraph(context, node, &init));
  return lg_subgraph_allocate_tensors(init);
}

static TfLiteStatus call_once_invoke(TfLiteContext* context, TfLiteNode* node) {
  call_once_data* data = node->user_data;
  if (data->done) return kTfLiteOk;
  lg_subgraph* init;
  TF_LITE_ENSURE_STATUS(call_once_subgraph(context, node, &init));
  TF_LITE_ENSURE_STATUS(lg_subgraph_allocate_tensors(init));
  TF_LITE_ENSURE_STATUS(run_callee(context, "CALL_ONCE", init));
  data->done = true;
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(CALL_ONCE, call_once_init, lg_kernel_free_data,
                       call_once_prepare, call_once_invoke)
