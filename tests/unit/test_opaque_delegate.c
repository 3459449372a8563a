/* Opaque delegates (TfLiteOpaqueDelegateBuilder, TfLiteOpaqueDelegateCreate)
 * through the public C API, on models written as specs
 * (runtime/writer/model_spec.h).
 *
 * The "add delegate" below is written only against the opaque API, as a
 * stable-ABI delegate would be: its Prepare walks the plan with
 * TfLiteOpaqueContextGetExecutionPlan and GetNodeAndRegistration, claims
 * the float ADD nodes whose operands have one shape, and replaces them with
 * a kernel whose TfLiteOperator callbacks compute the sums themselves
 * (intermediate results of a partition in the kernel's own buffers). The
 * tests look behind the API only to check the plan the runtime built.
 * Expected values are derived by hand in each test's comment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/interpreter.h"
#include "runtime/writer/model_spec.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/c/c_api_opaque.h"
#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/core/c/operator.h"
#include "tests/support/spec_model.h"

/* ---- Helpers ------------------------------------------------------------- */

typedef struct fixture {
  void* data;
  TfLiteModel* model;
  TfLiteInterpreter* interpreter;
  lg_test_capture errors;
} fixture;

static void load(fixture* f, const char* spec) {
  memset(f, 0, sizeof(*f));
  f->model = lg_test_model_from_spec(spec, &f->data);
  assert_non_null(f->model);
}

/* Creates the interpreter with `delegate` (NULL: none) in the options;
 * leaves f->interpreter NULL when creation fails. */
static void create(fixture* f, TfLiteOpaqueDelegate* delegate, bool fallback) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetErrorReporter(o, lg_test_capture_report,
                                           &f->errors);
  TfLiteInterpreterOptionsSetEnableDelegateFallback(o, fallback);
  if (delegate != NULL) TfLiteInterpreterOptionsAddDelegate(o, delegate);
  f->interpreter = TfLiteInterpreterCreate(f->model, o);
  TfLiteInterpreterOptionsDelete(o);
}

static void release(fixture* f) {
  TfLiteInterpreterDelete(f->interpreter);
  TfLiteModelDelete(f->model);
  free(f->data);
}

static void set_input(fixture* f, int index, const float* values, int n) {
  TfLiteTensor* t = TfLiteInterpreterGetInputTensor(f->interpreter, index);
  assert_non_null(t);
  assert_int_equal(
      TfLiteTensorCopyFromBuffer(t, values, sizeof(float) * (size_t)n),
      kTfLiteOk);
}

static void expect_output(fixture* f, int index, const float* want, int n) {
  const TfLiteTensor* t =
      TfLiteInterpreterGetOutputTensor(f->interpreter, index);
  assert_non_null(t);
  assert_int_equal(TfLiteTensorByteSize(t), sizeof(float) * (size_t)n);
  const float* got = TfLiteTensorData(t);
  for (int i = 0; i < n; ++i) assert_true(got[i] == want[i]);
}

static const lg_subgraph* main_graph(const fixture* f) {
  return &f->interpreter->subgraphs[0];
}

/* c = a + b, d = c * b, e = d + a, f = e + e. Tensors a..f are 0..5; nodes
 * 0 (ADD), 1 (MUL), 2 (ADD), 3 (ADD). The delegate claims 0, 2 and 3: two
 * partitions, {0} and {2, 3} (e stays inside the second), with MUL on the
 * CPU between them. With a = (1, 2, 3, 4) and b = (10, 20, 30, 40):
 * c = (11, 22, 33, 44), d = (110, 440, 990, 1760),
 * e = (111, 442, 993, 1764), f = (222, 884, 1986, 3528). */
static const char kAddMulSpec[] =
    "tensor a FLOAT32 4\n"
    "tensor b FLOAT32 4\n"
    "tensor c FLOAT32 4\n"
    "tensor d FLOAT32 4\n"
    "tensor e FLOAT32 4\n"
    "tensor f FLOAT32 4\n"
    "op ADD 1 in=a,b out=c\n"
    "op MUL 1 in=c,b out=d\n"
    "op ADD 1 in=d,a out=e\n"
    "op ADD 1 in=e,e out=f\n"
    "inputs a,b\n"
    "outputs f\n";

static const float kA[4] = {1, 2, 3, 4};
static const float kB[4] = {10, 20, 30, 40};
static const float kF[4] = {222, 884, 1986, 3528};

static void run_add_mul(fixture* f) {
  assert_int_equal(TfLiteInterpreterAllocateTensors(f->interpreter), kTfLiteOk);
  set_input(f, 0, kA, 4);
  set_input(f, 1, kB, 4);
  assert_int_equal(TfLiteInterpreterInvoke(f->interpreter), kTfLiteOk);
  expect_output(f, 0, kF, 4);
}

/* ---- The add delegate ---------------------------------------------------- */

#define MAX_PARTITIONS 4
#define MAX_HANDLES 16

typedef struct add_delegate {
  /* What the test asks of it. */
  TfLiteBuiltinOperator kernel_code; /* the kernel operator's code */
  bool fail_prepare;                 /* replace, then report a failure */
  bool replace_without_operator;     /* pass NULL as the kernel operator */
  bool use_buffer_handles;           /* keep partition outputs "on device" */
  bool reuse_kernel_op; /* hand the same operator to every Replace */
  bool legacy;          /* applied as a legacy TfLiteDelegate */
  /* What it saw. */
  int prepare_calls;
  TfLiteOperator* kernel_op; /* the last operator handed over */
  int inits, frees, prepares, invokes;
  int partitions;
  int nodes_per_partition[MAX_PARTITIONS];
  TfLiteOpaqueDelegate* params_delegate;
  void* params_data;
  /* Its "device": one buffer per handle (the handle is the tensor index). */
  float device[MAX_HANDLES][4];
  int copies_from_handle;
  int freed_handles;
} add_delegate;

static bool same_shape(const TfLiteOpaqueTensor* x,
                       const TfLiteOpaqueTensor* y) {
  if (TfLiteOpaqueTensorNumDims(x) != TfLiteOpaqueTensorNumDims(y)) {
    return false;
  }
  for (int i = 0; i < TfLiteOpaqueTensorNumDims(x); ++i) {
    if (TfLiteOpaqueTensorDim(x, i) != TfLiteOpaqueTensorDim(y, i)) {
      return false;
    }
  }
  return true;
}

static bool supported(TfLiteOpaqueContext* context, TfLiteOpaqueNode* node,
                      const TfLiteOperator* op) {
  if (TfLiteOperatorGetBuiltInCode(op) != kTfLiteBuiltinAdd ||
      TfLiteOpaqueNodeNumberOfInputs(node) != 2 ||
      TfLiteOpaqueNodeNumberOfOutputs(node) != 1) {
    return false;
  }
  const TfLiteOpaqueTensor* x = TfLiteOpaqueNodeGetInput(context, node, 0);
  const TfLiteOpaqueTensor* y = TfLiteOpaqueNodeGetInput(context, node, 1);
  const TfLiteOpaqueTensor* z = TfLiteOpaqueNodeGetOutput(context, node, 0);
  return x != NULL && y != NULL && z != NULL &&
         TfLiteOpaqueTensorType(x) == kTfLiteFloat32 &&
         TfLiteOpaqueTensorType(y) == kTfLiteFloat32 &&
         TfLiteOpaqueTensorType(z) == kTfLiteFloat32 && same_shape(x, y) &&
         same_shape(x, z);
}

/* One partition's kernel: its ADD nodes in order, as tensor indices, with
 * a private buffer for each result that does not leave the partition. */
typedef struct add_kernel {
  int num_nodes;
  int io[8][3]; /* operand, operand, result */
  TfLiteIntArray* outputs;
  float* scratch[8];
} add_kernel;

static void* kernel_init(void* user_data, TfLiteOpaqueContext* context,
                         const char* buffer, size_t length) {
  add_delegate* d = user_data;
  ++d->inits;
  const TfLiteOpaqueDelegateParams* params =
      (const TfLiteOpaqueDelegateParams*)(const void*)buffer;
  if (params == NULL || length != 0) return NULL;
  /* A legacy delegate's kernel gets TfLiteDelegateParams. */
  TfLiteOpaqueDelegateParams from_legacy;
  if (d->legacy) {
    const TfLiteDelegateParams* p =
        (const TfLiteDelegateParams*)(const void*)buffer;
    from_legacy.delegate = p->delegate;
    from_legacy.delegate_data = NULL;
    from_legacy.nodes_to_replace = p->nodes_to_replace;
    from_legacy.input_tensors = p->input_tensors;
    from_legacy.output_tensors = p->output_tensors;
    params = &from_legacy;
  }
  d->params_delegate = params->delegate;
  d->params_data = params->delegate_data;
  if (d->partitions < MAX_PARTITIONS) {
    d->nodes_per_partition[d->partitions] = params->nodes_to_replace->size;
  }
  ++d->partitions;
  add_kernel* k = calloc(1, sizeof(*k));
  if (k == NULL || params->nodes_to_replace->size > 8) {
    free(k);
    return NULL;
  }
  k->num_nodes = params->nodes_to_replace->size;
  for (int i = 0; i < k->num_nodes; ++i) {
    TfLiteOpaqueNode* node = NULL;
    TfLiteOperator* op = NULL;
    if (TfLiteOpaqueContextGetNodeAndRegistration(
            context, params->nodes_to_replace->data[i], &node, &op) !=
        kTfLiteOk) {
      free(k);
      return NULL;
    }
    k->io[i][0] = TfLiteOpaqueNodeGetInputTensorIndex(node, 0);
    k->io[i][1] = TfLiteOpaqueNodeGetInputTensorIndex(node, 1);
    k->io[i][2] = TfLiteOpaqueNodeGetOutputTensorIndex(node, 0);
  }
  k->outputs = TfLiteIntArrayCopy(params->output_tensors);
  return k;
}

static void free_scratch(add_kernel* k) {
  for (int i = 0; i < 8; ++i) {
    free(k->scratch[i]);
    k->scratch[i] = NULL;
  }
}

static void kernel_free(void* user_data, TfLiteOpaqueContext* context,
                        void* data) {
  add_delegate* d = user_data;
  ++d->frees;
  add_kernel* k = data;
  if (k == NULL) return;
  free_scratch(k);
  TfLiteIntArrayFree(k->outputs);
  free(k);
}

static bool leaves_partition(const add_kernel* k, int tensor) {
  for (int i = 0; i < k->outputs->size; ++i) {
    if (k->outputs->data[i] == tensor) return true;
  }
  return false;
}

static TfLiteStatus kernel_prepare(void* user_data,
                                   TfLiteOpaqueContext* context,
                                   TfLiteOpaqueNode* node) {
  add_delegate* d = user_data;
  ++d->prepares;
  add_kernel* k = TfLiteOpaqueNodeGetUserData(node);
  if (k == NULL) return kTfLiteError;
  free_scratch(k);
  /* Each sum takes its first operand's shape (shapes may have changed). */
  for (int i = 0; i < k->num_nodes; ++i) {
    const TfLiteOpaqueTensor* x =
        TfLiteOpaqueContextGetOpaqueTensor(context, k->io[i][0]);
    TfLiteIntArray* dims = TfLiteIntArrayCreate(TfLiteOpaqueTensorNumDims(x));
    if (dims == NULL) return kTfLiteError;
    for (int j = 0; j < dims->size; ++j) {
      dims->data[j] = TfLiteOpaqueTensorDim(x, j);
    }
    TF_LITE_ENSURE_STATUS(TfLiteOpaqueContextResizeTensor(
        context, TfLiteOpaqueContextGetOpaqueTensor(context, k->io[i][2]),
        dims));
  }
  for (int i = 0; i < k->num_nodes; ++i) {
    if (leaves_partition(k, k->io[i][2])) continue;
    const TfLiteOpaqueTensor* t =
        TfLiteOpaqueContextGetOpaqueTensor(context, k->io[i][2]);
    k->scratch[i] = malloc(TfLiteOpaqueTensorByteSize(t));
    if (k->scratch[i] == NULL) return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Where tensor `index` lives for this kernel: a private buffer for a result
 * inside the partition, else the tensor's data. */
static float* data_of(add_kernel* k, TfLiteOpaqueContext* context, int index) {
  for (int i = 0; i < k->num_nodes; ++i) {
    if (k->io[i][2] == index && k->scratch[i] != NULL) return k->scratch[i];
  }
  return TfLiteOpaqueTensorData(
      TfLiteOpaqueContextGetOpaqueTensor(context, index));
}

static TfLiteStatus kernel_invoke(void* user_data, TfLiteOpaqueContext* context,
                                  TfLiteOpaqueNode* node) {
  add_delegate* d = user_data;
  ++d->invokes;
  add_kernel* k = TfLiteOpaqueNodeGetUserData(node);
  for (int i = 0; i < k->num_nodes; ++i) {
    const float* x = data_of(k, context, k->io[i][0]);
    const float* y = data_of(k, context, k->io[i][1]);
    float* z = data_of(k, context, k->io[i][2]);
    const size_t n =
        TfLiteOpaqueTensorByteSize(
            TfLiteOpaqueContextGetOpaqueTensor(context, k->io[i][2])) /
        sizeof(float);
    for (size_t j = 0; j < n; ++j) z[j] = x[j] + y[j];
  }
  if (!d->use_buffer_handles) return kTfLiteOk;
  /* Move each result that leaves the partition to the "device" and leave
   * the CPU copy stale (and wrong): the runtime must ask for it back. The
   * opaque API of 2.17 has no setter for buffer handles, so this looks
   * behind the opaque tensor, as TFLite's own delegates do. */
  for (int i = 0; i < k->outputs->size; ++i) {
    const int index = k->outputs->data[i];
    TfLiteTensor* t =
        (TfLiteTensor*)TfLiteOpaqueContextGetOpaqueTensor(context, index);
    if (index >= MAX_HANDLES || t->bytes != sizeof(d->device[0])) {
      return kTfLiteError;
    }
    memcpy(d->device[index], t->data.raw, t->bytes);
    memset(t->data.raw, 0, t->bytes);
    t->buffer_handle = index;
    t->data_is_stale = true;
  }
  return kTfLiteOk;
}

static TfLiteOperator* make_kernel_operator(add_delegate* d) {
  TfLiteOperator* op =
      TfLiteOperatorCreateWithData(d->kernel_code, "OpaqueAddDelegate", 1, d);
  if (op == NULL) return NULL;
  TfLiteOperatorSetInitWithData(op, kernel_init);
  TfLiteOperatorSetFreeWithData(op, kernel_free);
  TfLiteOperatorSetPrepareWithData(op, kernel_prepare);
  TfLiteOperatorSetInvokeWithData(op, kernel_invoke);
  return op;
}

static TfLiteStatus add_delegate_prepare(TfLiteOpaqueContext* context,
                                         TfLiteOpaqueDelegate* delegate,
                                         void* data) {
  add_delegate* d = data;
  ++d->prepare_calls;
  TfLiteIntArray* plan = NULL;
  TF_LITE_ENSURE_STATUS(TfLiteOpaqueContextGetExecutionPlan(context, &plan));
  TfLiteIntArray* claimed = TfLiteIntArrayCreate(plan->size);
  if (claimed == NULL) return kTfLiteError;
  claimed->size = 0;
  for (int p = 0; p < plan->size; ++p) {
    TfLiteOpaqueNode* node = NULL;
    TfLiteOperator* op = NULL;
    if (TfLiteOpaqueContextGetNodeAndRegistration(context, plan->data[p], &node,
                                                  &op) != kTfLiteOk) {
      TfLiteIntArrayFree(claimed);
      return kTfLiteError;
    }
    if (supported(context, node, op)) {
      claimed->data[claimed->size++] = plan->data[p];
    }
  }
  if (d->replace_without_operator) {
    d->kernel_op = NULL;
  } else if (!d->reuse_kernel_op || d->kernel_op == NULL) {
    d->kernel_op = make_kernel_operator(d);
  }
  /* The operator is the runtime's from here on. */
  const TfLiteStatus status =
      TfLiteOpaqueContextReplaceNodeSubsetsWithDelegateKernels(
          context, d->kernel_op, claimed, delegate);
  TfLiteIntArrayFree(claimed);
  if (status != kTfLiteOk) return status;
  return d->fail_prepare ? kTfLiteError : kTfLiteOk;
}

static TfLiteStatus copy_from_handle(TfLiteOpaqueContext* context,
                                     TfLiteOpaqueDelegate* delegate, void* data,
                                     TfLiteBufferHandle buffer_handle,
                                     TfLiteOpaqueTensor* tensor) {
  add_delegate* d = data;
  if (buffer_handle < 0 || buffer_handle >= MAX_HANDLES ||
      TfLiteOpaqueTensorByteSize(tensor) != sizeof(d->device[0])) {
    return kTfLiteError;
  }
  ++d->copies_from_handle;
  memcpy(TfLiteOpaqueTensorData(tensor), d->device[buffer_handle],
         sizeof(d->device[0]));
  return kTfLiteOk;
}

static void free_handle(TfLiteOpaqueContext* context,
                        TfLiteOpaqueDelegate* delegate, void* data,
                        TfLiteBufferHandle* buffer_handle) {
  add_delegate* d = data;
  ++d->freed_handles;
  *buffer_handle = kTfLiteNullBufferHandle;
}

static void init_add_delegate(add_delegate* d) {
  memset(d, 0, sizeof(*d));
  d->kernel_code = kTfLiteBuiltinDelegate;
}

static TfLiteOpaqueDelegate* new_add_delegate(add_delegate* d) {
  init_add_delegate(d);
  TfLiteOpaqueDelegateBuilder builder;
  memset(&builder, 0, sizeof(builder));
  builder.data = d;
  builder.Prepare = add_delegate_prepare;
  builder.CopyFromBufferHandle = copy_from_handle;
  builder.FreeBufferHandle = free_handle;
  builder.flags = kTfLiteDelegateFlagsNone;
  TfLiteOpaqueDelegate* delegate = TfLiteOpaqueDelegateCreate(&builder);
  assert_non_null(delegate);
  return delegate;
}

/* The plan of kAddMulSpec after the add delegate: kernel, MUL, kernel. */
static void expect_delegated_plan(const fixture* f,
                                  const TfLiteOpaqueDelegate* delegate) {
  const lg_subgraph* s = main_graph(f);
  assert_int_equal(s->execution_plan->size, 3);
  assert_int_equal(s->execution_plan->data[1], 1);
  const int expect_nodes[2][2] = {{0, -1}, {2, 3}};
  for (int k = 0; k < 2; ++k) {
    const lg_node* n = &s->nodes[s->execution_plan->data[2 * k]];
    assert_true(n->is_delegate_kernel);
    assert_ptr_equal(n->node.delegate, delegate);
    assert_int_equal(n->registration.builtin_code, kTfLiteBuiltinDelegate);
    assert_string_equal(n->registration.custom_name, "OpaqueAddDelegate");
    assert_non_null(n->registration.registration_external);
    const TfLiteOpaqueDelegateParams* p = n->node.builtin_data;
    assert_ptr_equal(p->delegate, delegate);
    assert_ptr_equal(p->delegate_data, TfLiteOpaqueDelegateGetData(delegate));
    assert_int_equal(p->nodes_to_replace->size, k == 0 ? 1 : 2);
    for (int i = 0; i < p->nodes_to_replace->size; ++i) {
      assert_int_equal(p->nodes_to_replace->data[i], expect_nodes[k][i]);
    }
  }
}

/* ---- Tests ----------------------------------------------------------------
 */

static void test_create_get_data_delete(void** state) {
  (void)state;
  assert_null(TfLiteOpaqueDelegateCreate(NULL));
  int token = 0;
  TfLiteOpaqueDelegateBuilder builder;
  memset(&builder, 0, sizeof(builder));
  builder.data = &token;
  builder.Prepare = add_delegate_prepare;
  builder.flags = kTfLiteDelegateFlagsAllowDynamicTensors;
  TfLiteOpaqueDelegate* delegate = TfLiteOpaqueDelegateCreate(&builder);
  assert_non_null(delegate);
  /* The delegate holds a copy: changing the builder afterwards is fine. */
  builder.data = NULL;
  builder.Prepare = NULL;
  assert_ptr_equal(TfLiteOpaqueDelegateGetData(delegate), &token);
  const TfLiteDelegate* d = delegate;
  assert_null(d->Prepare);
  assert_null(d->data_);
  assert_int_equal(d->flags, kTfLiteDelegateFlagsNone);
  assert_non_null(d->opaque_delegate_builder);
  assert_ptr_equal(d->opaque_delegate_builder->Prepare, add_delegate_prepare);
  assert_int_equal(d->opaque_delegate_builder->flags,
                   kTfLiteDelegateFlagsAllowDynamicTensors);
  /* A legacy delegate's data is its data_. */
  TfLiteDelegate legacy = TfLiteDelegateCreate();
  legacy.data_ = &legacy;
  assert_ptr_equal(TfLiteOpaqueDelegateGetData(&legacy), &legacy);
  assert_null(TfLiteOpaqueDelegateGetData(NULL));
  TfLiteOpaqueDelegateDelete(delegate);
  TfLiteOpaqueDelegateDelete(NULL);
}

/* Through the options: two partitions, the sums computed by the kernels. */
static void test_add_delegate_at_creation(void** state) {
  (void)state;
  add_delegate d;
  TfLiteOpaqueDelegate* delegate = new_add_delegate(&d);
  fixture f;
  load(&f, kAddMulSpec);
  create(&f, delegate, false);
  assert_non_null(f.interpreter);
  assert_int_equal(d.prepare_calls, 1);
  assert_non_null(strstr(f.errors.text,
                         "Replacing 3 out of 4 node(s) with delegate "
                         "(OpaqueAddDelegate) node, yielding 2 partitions for "
                         "the whole graph."));
  expect_delegated_plan(&f, delegate);
  assert_int_equal(d.partitions, 2);
  assert_int_equal(d.nodes_per_partition[0], 1);
  assert_int_equal(d.nodes_per_partition[1], 2);
  assert_ptr_equal(d.params_delegate, delegate);
  assert_ptr_equal(d.params_data, &d);
  assert_int_equal(d.inits, 2);
  assert_int_equal(d.prepares, 2); /* the allocation after delegation */
  run_add_mul(&f);
  assert_int_equal(d.invokes, 2);
  /* Other inputs, same kernels: f = 2 * ((a + b) * b + a). a = b = 1
   * gives 2 * (2 + 1) = 6. */
  const float ones[4] = {1, 1, 1, 1};
  set_input(&f, 0, ones, 4);
  set_input(&f, 1, ones, 4);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  expect_output(&f, 0, (const float[]){6, 6, 6, 6}, 4);
  assert_int_equal(d.invokes, 4);
  release(&f);
  assert_int_equal(d.frees, d.inits);
  TfLiteOpaqueDelegateDelete(delegate);
}

/* The builder's flags stand for the delegate's: without
 * kTfLiteDelegateFlagsAllowDynamicTensors the delegated graph is immutable;
 * with it, inputs can be resized and the kernels prepared again. With a
 * and b of 8 elements, f = 2 * ((a + b) * b + a) element by element. */
static void test_builder_flags(void** state) {
  (void)state;
  const int eight[1] = {8};
  add_delegate d;
  TfLiteOpaqueDelegate* delegate = new_add_delegate(&d);
  fixture f;
  load(&f, kAddMulSpec);
  create(&f, delegate, false);
  assert_non_null(f.interpreter);
  assert_int_equal(
      TfLiteInterpreterResizeInputTensor(f.interpreter, 0, eight, 1),
      kTfLiteError);
  assert_non_null(strstr(f.errors.text,
                         "ResizeInputTensor is disallowed when graph is "
                         "immutable."));
  release(&f);

  delegate->opaque_delegate_builder->flags =
      kTfLiteDelegateFlagsAllowDynamicTensors;
  load(&f, kAddMulSpec);
  create(&f, delegate, false);
  assert_non_null(f.interpreter);
  assert_int_equal(
      TfLiteInterpreterResizeInputTensor(f.interpreter, 0, eight, 1),
      kTfLiteOk);
  assert_int_equal(
      TfLiteInterpreterResizeInputTensor(f.interpreter, 1, eight, 1),
      kTfLiteOk);
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  float a[8], b[8], want[8];
  for (int i = 0; i < 8; ++i) {
    a[i] = (float)(i + 1);
    b[i] = (float)(10 * (i + 1));
    want[i] = 2 * ((a[i] + b[i]) * b[i] + a[i]);
  }
  set_input(&f, 0, a, 8);
  set_input(&f, 1, b, 8);
  const int invokes = d.invokes;
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  expect_output(&f, 0, want, 8);
  assert_int_equal(d.invokes, invokes + 2);
  release(&f);
  TfLiteOpaqueDelegateDelete(delegate);
}

/* Applied to a running interpreter: the CPU result, then the delegate's. */
static void test_modify_graph_with_delegate(void** state) {
  (void)state;
  add_delegate d;
  TfLiteOpaqueDelegate* delegate = new_add_delegate(&d);
  fixture f;
  load(&f, kAddMulSpec);
  create(&f, NULL, false);
  assert_non_null(f.interpreter);
  run_add_mul(&f);
  assert_int_equal(
      TfLiteInterpreterModifyGraphWithDelegate(f.interpreter, delegate),
      kTfLiteOk);
  expect_delegated_plan(&f, delegate);
  run_add_mul(&f);
  assert_int_equal(d.invokes, 2);
  /* The kernel's operator was created as a delegate kernel; one named as a
   * custom op becomes one too when it replaces nodes (TFLite). */
  release(&f);
  assert_int_equal(d.frees, d.inits);

  d.kernel_code = kTfLiteBuiltinCustom;
  load(&f, kAddMulSpec);
  create(&f, NULL, false);
  assert_int_equal(
      TfLiteInterpreterModifyGraphWithDelegate(f.interpreter, delegate),
      kTfLiteOk);
  assert_non_null(d.kernel_op);
  assert_int_equal(TfLiteOperatorGetBuiltInCode(d.kernel_op),
                   kTfLiteBuiltinDelegate);
  run_add_mul(&f);
  release(&f);
  TfLiteOpaqueDelegateDelete(delegate);
}

/* A Prepare that fails after replacing: creation fails, or (fallback) runs
 * on the CPU; applied later, the graph is restored and still runs. */
static void test_prepare_failure(void** state) {
  (void)state;
  add_delegate d;
  TfLiteOpaqueDelegate* delegate = new_add_delegate(&d);
  d.fail_prepare = true;
  fixture f;
  load(&f, kAddMulSpec);
  create(&f, delegate, false);
  assert_null(f.interpreter);
  assert_non_null(strstr(f.errors.text,
                         "Restored original execution plan after delegate "
                         "application failure."));
  /* The kernels made by the failed Replace were freed with the undo. */
  assert_int_equal(d.inits, 2);
  assert_int_equal(d.frees, 2);
  release(&f);

  load(&f, kAddMulSpec);
  create(&f, delegate, true);
  assert_non_null(f.interpreter);
  assert_int_equal(main_graph(&f)->execution_plan->size, 4);
  run_add_mul(&f);
  release(&f);

  load(&f, kAddMulSpec);
  create(&f, NULL, false);
  assert_int_equal(
      TfLiteInterpreterModifyGraphWithDelegate(f.interpreter, delegate),
      kTfLiteDelegateError);
  assert_int_equal(main_graph(&f)->execution_plan->size, 4);
  run_add_mul(&f);
  release(&f);
  assert_int_equal(d.frees, d.inits);
  TfLiteOpaqueDelegateDelete(delegate);
}

/* An opaque delegate must give its kernel as a TfLiteOperator. */
static void test_replace_without_operator(void** state) {
  (void)state;
  add_delegate d;
  TfLiteOpaqueDelegate* delegate = new_add_delegate(&d);
  d.replace_without_operator = true;
  fixture f;
  load(&f, kAddMulSpec);
  create(&f, NULL, false);
  assert_int_equal(
      TfLiteInterpreterModifyGraphWithDelegate(f.interpreter, delegate),
      kTfLiteDelegateError);
  assert_non_null(
      strstr(f.errors.text, "must have the 'registration_external' field set"));
  assert_int_equal(d.inits, 0);
  assert_int_equal(main_graph(&f)->execution_plan->size, 4);
  run_add_mul(&f);
  release(&f);
  TfLiteOpaqueDelegateDelete(delegate);
}

/* A builder without Prepare cannot be applied; a NULL delegate neither. */
static void test_builder_without_prepare(void** state) {
  (void)state;
  TfLiteOpaqueDelegateBuilder builder;
  memset(&builder, 0, sizeof(builder));
  TfLiteOpaqueDelegate* delegate = TfLiteOpaqueDelegateCreate(&builder);
  assert_non_null(delegate);
  fixture f;
  load(&f, kAddMulSpec);
  create(&f, NULL, false);
  assert_int_equal(
      TfLiteInterpreterModifyGraphWithDelegate(f.interpreter, delegate),
      kTfLiteDelegateError);
  assert_non_null(
      strstr(f.errors.text, "Opaque delegate builder has no Prepare function"));
  assert_int_equal(
      TfLiteInterpreterModifyGraphWithDelegate(f.interpreter, NULL),
      kTfLiteDelegateError);
  run_add_mul(&f);
  release(&f);
  TfLiteOpaqueDelegateDelete(delegate);
}

/* Partition outputs left on the delegate's "device": the runtime copies c
 * back before MUL reads it and f after Invoke, through the builder's
 * CopyFromBufferHandle, and frees the handles through FreeBufferHandle.
 * TfLiteInterpreterEnsureTensorDataIsReadable copies a stale tensor back. */
static void test_buffer_handles(void** state) {
  (void)state;
  add_delegate d;
  TfLiteOpaqueDelegate* delegate = new_add_delegate(&d);
  d.use_buffer_handles = true;
  fixture f;
  load(&f, kAddMulSpec);
  create(&f, delegate, false);
  assert_non_null(f.interpreter);
  run_add_mul(&f);
  assert_int_equal(d.copies_from_handle, 2);
  /* f (tensor 5) goes stale again; reading it back restores it. */
  TfLiteTensor* t = TfLiteInterpreterGetTensor(f.interpreter, 5);
  assert_non_null(t);
  assert_int_equal(t->buffer_handle, 5);
  memset(t->data.raw, 0, t->bytes);
  t->data_is_stale = true;
  assert_int_equal(
      TfLiteInterpreterEnsureTensorDataIsReadable(f.interpreter, 5), kTfLiteOk);
  assert_int_equal(d.copies_from_handle, 3);
  assert_false(t->data_is_stale);
  expect_output(&f, 0, kF, 4);
  /* Current data needs no copy; an index out of range is an error. */
  assert_int_equal(
      TfLiteInterpreterEnsureTensorDataIsReadable(f.interpreter, 0), kTfLiteOk);
  assert_int_equal(d.copies_from_handle, 3);
  assert_int_equal(
      TfLiteInterpreterEnsureTensorDataIsReadable(f.interpreter, 99),
      kTfLiteError);
  assert_int_equal(
      TfLiteInterpreterEnsureTensorDataIsReadable(f.interpreter, -1),
      kTfLiteError);
  assert_int_equal(d.freed_handles, 0);
  release(&f);
  assert_int_equal(d.freed_handles, 2); /* c and f */
  TfLiteOpaqueDelegateDelete(delegate);
}

/* A legacy delegate (TfLiteDelegate.Prepare) may use the opaque functions
 * too: its kernel gets TfLiteDelegateParams, and its operator stays its
 * own (deleted by the test after the interpreter; ASan checks). */
static TfLiteStatus legacy_prepare(TfLiteContext* context,
                                   TfLiteDelegate* delegate) {
  return add_delegate_prepare((TfLiteOpaqueContext*)context, delegate,
                              delegate->data_);
}

static void test_legacy_delegate_with_operator(void** state) {
  (void)state;
  add_delegate d;
  init_add_delegate(&d);
  d.legacy = true;
  TfLiteDelegate delegate = TfLiteDelegateCreate();
  delegate.data_ = &d;
  delegate.Prepare = legacy_prepare;
  fixture f;
  load(&f, kAddMulSpec);
  create(&f, &delegate, false);
  assert_non_null(f.interpreter);
  assert_int_equal(d.inits, 2);
  assert_ptr_equal(d.params_delegate, &delegate);
  assert_null(d.params_data);
  const lg_subgraph* s = main_graph(&f);
  assert_int_equal(s->execution_plan->size, 3);
  const lg_node* kernel = &s->nodes[s->execution_plan->data[0]];
  assert_ptr_equal(kernel->registration.registration_external, d.kernel_op);
  assert_string_equal(kernel->registration.custom_name, "OpaqueAddDelegate");
  const TfLiteDelegateParams* p = kernel->node.builtin_data;
  assert_ptr_equal(p->delegate, &delegate);
  assert_int_equal(p->nodes_to_replace->size, 1);
  assert_int_equal(f.interpreter->num_operators, 2); /* derived: ADD, MUL */
  run_add_mul(&f);
  assert_int_equal(d.invokes, 2);
  release(&f);
  assert_int_equal(d.frees, 2);
  TfLiteOperatorDelete(d.kernel_op);
}

/* One kernel operator handed to the Replace of every subgraph (TFLite needs
 * a fresh one per call): owned once, deleted once, after the kernels of
 * every subgraph are freed (ASan checks). The main graph's ADD and the then
 * branch's run on the delegate: with c true and x = (3, 4), the branch
 * gives y = x + x = (6, 8) and the main graph z = y + y = (12, 16). */
static void test_operator_shared_by_subgraphs(void** state) {
  (void)state;
  static const char kSpec[] =
      "tensor c BOOL 1\n"
      "tensor x FLOAT32 2\n"
      "tensor y FLOAT32 2\n"
      "tensor z FLOAT32 2\n"
      "op IF 1 in=c,x out=y then_subgraph_index=1 else_subgraph_index=2\n"
      "op ADD 1 in=y,y out=z\n"
      "inputs c,x\n"
      "outputs z\n"
      "subgraph then\n"
      "tensor a FLOAT32 2\n"
      "tensor b FLOAT32 2\n"
      "op ADD 1 in=a,a out=b\n"
      "inputs a\n"
      "outputs b\n"
      "subgraph else\n"
      "tensor a FLOAT32 2\n"
      "tensor b FLOAT32 2\n"
      "op MUL 1 in=a,a out=b\n"
      "inputs a\n"
      "outputs b\n";
  add_delegate d;
  TfLiteOpaqueDelegate* delegate = new_add_delegate(&d);
  d.reuse_kernel_op = true;
  fixture f;
  load(&f, kSpec);
  create(&f, delegate, false);
  assert_non_null(f.interpreter);
  assert_int_equal(d.prepare_calls, 3);
  assert_int_equal(d.inits, 2); /* the then branch and the main graph */
  assert_true(f.interpreter->subgraphs[1].nodes[1].is_delegate_kernel);
  assert_true(f.interpreter->subgraphs[0].nodes[2].is_delegate_kernel);
  /* Owned once; the others describe ADD, MUL and IF nodes. */
  int owned = 0;
  for (int i = 0; i < f.interpreter->num_operators; ++i) {
    if (!f.interpreter->operators[i].derived) {
      assert_ptr_equal(f.interpreter->operators[i].op, d.kernel_op);
      ++owned;
    }
  }
  assert_int_equal(owned, 1);
  assert_int_equal(f.interpreter->num_operators, 4);
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  const bool yes = true;
  TfLiteTensor* c = TfLiteInterpreterGetInputTensor(f.interpreter, 0);
  assert_int_equal(TfLiteTensorCopyFromBuffer(c, &yes, 1), kTfLiteOk);
  set_input(&f, 1, (const float[]){3, 4}, 2);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  expect_output(&f, 0, (const float[]){12, 16}, 2);
  assert_int_equal(d.invokes, 2);
  release(&f);
  assert_int_equal(d.frees, 2);
  TfLiteOpaqueDelegateDelete(delegate);
}

/* ---- An inspecting delegate ---------------------------------------------- */

/* Claims nothing; records what the opaque context shows in subgraph 0. */
typedef struct inspector {
  int prepare_calls;
  TfLiteOpaqueContext* main_context;
  /* Per node of subgraph 0 (at most 8): its operator's code, version,
   * custom name and pointer. */
  int num_nodes;
  int codes[8];
  int versions[8];
  const char* names[8];
  const TfLiteOperator* ops[8];
  /* Variables of subgraph 0. */
  int num_variables;
  int variables[8];
  /* Acquiring subgraph 1 from subgraph 0's Prepare. */
  TfLiteStatus acquire_status;
  bool acquired_is_other;
  int acquired_plan_size;
  int acquired_code;
  TfLiteStatus replace_in_acquired;
  TfLiteStatus plan_after_release;
  TfLiteStatus acquire_out_of_range;
} inspector;

static TfLiteStatus inspect_acquired(inspector* in,
                                     TfLiteOpaqueContext* context,
                                     TfLiteOpaqueDelegate* delegate) {
  TfLiteOpaqueContext* other = NULL;
  in->acquire_status =
      TfLiteOpaqueContextAcquireSubgraphContext(context, 1, &other);
  if (in->acquire_status != kTfLiteOk) return kTfLiteOk;
  in->acquired_is_other = other != NULL && other != context;
  TfLiteIntArray* plan = NULL;
  if (TfLiteOpaqueContextGetExecutionPlan(other, &plan) == kTfLiteOk) {
    in->acquired_plan_size = plan->size;
    TfLiteOpaqueNode* node = NULL;
    TfLiteOperator* op = NULL;
    if (plan->size > 0 && TfLiteOpaqueContextGetNodeAndRegistration(
                              other, plan->data[0], &node, &op) == kTfLiteOk) {
      in->acquired_code = (int)TfLiteOperatorGetBuiltInCode(op);
    }
    /* An acquired subgraph can be read, not changed. The operator is the
     * runtime's all the same. */
    TfLiteOperator* kernel =
        TfLiteOperatorCreate(kTfLiteBuiltinDelegate, "Inspector", 1);
    in->replace_in_acquired =
        TfLiteOpaqueContextReplaceNodeSubsetsWithDelegateKernels(
            other, kernel, plan, delegate);
  }
  TfLiteOpaqueContextReleaseSubgraphContext(context, 1);
  in->plan_after_release = TfLiteOpaqueContextGetExecutionPlan(other, &plan);
  in->acquire_out_of_range =
      TfLiteOpaqueContextAcquireSubgraphContext(context, 99, &other);
  return kTfLiteOk;
}

static TfLiteStatus inspector_prepare(TfLiteOpaqueContext* context,
                                      TfLiteOpaqueDelegate* delegate,
                                      void* data) {
  inspector* in = data;
  ++in->prepare_calls;
  /* Acquiring subgraph 0 tells whether this is its Prepare. */
  TfLiteOpaqueContext* primary = NULL;
  TF_LITE_ENSURE_STATUS(
      TfLiteOpaqueContextAcquireSubgraphContext(context, 0, &primary));
  TF_LITE_ENSURE_STATUS(TfLiteOpaqueContextReleaseSubgraphContext(context, 0));
  if (primary != context) return kTfLiteOk;
  in->main_context = context;
  TfLiteIntArray* plan = NULL;
  TF_LITE_ENSURE_STATUS(TfLiteOpaqueContextGetExecutionPlan(context, &plan));
  in->num_nodes = plan->size < 8 ? plan->size : 8;
  for (int p = 0; p < in->num_nodes; ++p) {
    TfLiteOpaqueNode* node = NULL;
    TfLiteOperator* op = NULL;
    TF_LITE_ENSURE_STATUS(TfLiteOpaqueContextGetNodeAndRegistration(
        context, plan->data[p], &node, &op));
    in->codes[p] = (int)TfLiteOperatorGetBuiltInCode(op);
    in->versions[p] = TfLiteOperatorGetVersion(op);
    in->names[p] = TfLiteOperatorGetCustomName(op);
    in->ops[p] = op;
  }
  const int* variables = NULL;
  TF_LITE_ENSURE_STATUS(
      TfLiteOpaqueContextGetVariables(context, &variables, &in->num_variables));
  for (int i = 0; i < in->num_variables && i < 8; ++i) {
    in->variables[i] = variables[i];
  }
  return inspect_acquired(in, context, delegate);
}

static TfLiteOpaqueDelegate* new_inspector(inspector* in) {
  memset(in, 0, sizeof(*in));
  in->acquire_status = kTfLiteError;
  TfLiteOpaqueDelegateBuilder builder;
  memset(&builder, 0, sizeof(builder));
  builder.data = in;
  builder.Prepare = inspector_prepare;
  TfLiteOpaqueDelegate* delegate = TfLiteOpaqueDelegateCreate(&builder);
  assert_non_null(delegate);
  return delegate;
}

/* A custom op behind a TfLiteOperator: y = x. */
static TfLiteStatus copy_invoke(TfLiteOpaqueContext* context,
                                TfLiteOpaqueNode* node) {
  const TfLiteOpaqueTensor* x = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* y = TfLiteOpaqueNodeGetOutput(context, node, 0);
  return TfLiteOpaqueTensorCopyFromBuffer(y, TfLiteOpaqueTensorData(x),
                                          TfLiteOpaqueTensorByteSize(x));
}

/* GetNodeAndRegistration: a node resolved to a TfLiteOperator gives that
 * operator; builtin nodes give operators the runtime makes, one per (code,
 * name, version), so the two ADD v1 nodes share one. Outside Prepare the
 * delegate functions are forbidden. */
static void test_node_operators(void** state) {
  (void)state;
  static const char kSpec[] =
      "tensor x FLOAT32 2\n"
      "tensor y FLOAT32 2\n"
      "tensor z FLOAT32 2\n"
      "tensor u FLOAT32 2\n"
      "tensor w FLOAT32 2\n"
      "op ADD 1 in=x,x out=y\n"
      "custom Copy 1 in=y out=z\n"
      "op ADD 1 in=z,y out=u\n"
      "op MUL 2 in=u,u out=w\n"
      "inputs x\n"
      "outputs w\n";
  TfLiteOperator* copy = TfLiteOperatorCreate(kTfLiteBuiltinCustom, "Copy", 1);
  TfLiteOperatorSetInvoke(copy, copy_invoke);
  inspector in;
  TfLiteOpaqueDelegate* delegate = new_inspector(&in);
  fixture f;
  load(&f, kSpec);
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetErrorReporter(o, lg_test_capture_report,
                                           &f.errors);
  TfLiteInterpreterOptionsAddOperator(o, copy);
  TfLiteInterpreterOptionsAddDelegate(o, delegate);
  f.interpreter = TfLiteInterpreterCreate(f.model, o);
  TfLiteInterpreterOptionsDelete(o);
  assert_non_null(f.interpreter);
  assert_int_equal(in.prepare_calls, 1);
  assert_int_equal(in.num_nodes, 4);
  assert_int_equal(in.codes[0], kTfLiteBuiltinAdd);
  assert_int_equal(in.versions[0], 1);
  assert_null(in.names[0]);
  assert_ptr_equal(in.ops[1], copy);
  assert_int_equal(in.codes[1], kTfLiteBuiltinCustom);
  assert_string_equal(in.names[1], "Copy");
  assert_ptr_equal(in.ops[2], in.ops[0]);
  assert_int_equal(in.codes[3], kTfLiteBuiltinMul);
  assert_int_equal(in.versions[3], 2);
  assert_ptr_not_equal(in.ops[3], in.ops[0]);
  /* No acquiring in a one-subgraph model: index 1 is out of range. */
  assert_int_equal(in.acquire_status, kTfLiteError);
  assert_non_null(strstr(f.errors.text,
                         "AcquireSubgraphContext: subgraph index 1 out of "
                         "range [0, 1)"));
  /* After Prepare, the context no longer lends the delegate functions. */
  TfLiteIntArray* plan = NULL;
  assert_int_equal(TfLiteOpaqueContextGetExecutionPlan(in.main_context, &plan),
                   kTfLiteError);
  TfLiteOpaqueNode* node = NULL;
  TfLiteOperator* op = NULL;
  assert_int_equal(
      TfLiteOpaqueContextGetNodeAndRegistration(in.main_context, 0, &node, &op),
      kTfLiteError);
  assert_non_null(strstr(f.errors.text,
                         "The function is forbidden if not calling in "
                         "delegate."));
  /* y = 2x, z = y, u = 4x, w = 16x^2: x = (1, 2) gives (16, 64). */
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  set_input(&f, 0, (const float[]){1, 2}, 2);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  expect_output(&f, 0, (const float[]){16, 64}, 2);
  release(&f);
  TfLiteOpaqueDelegateDelete(delegate);
  TfLiteOperatorDelete(copy);
}

/* Subgraph 0's Prepare acquires subgraph 1 (the IF's then branch, one ADD):
 * its plan and nodes can be read until it is released, not replaced. */
static void test_acquire_subgraph_context(void** state) {
  (void)state;
  static const char kIfSpec[] =
      "tensor c BOOL 1\n"
      "tensor x FLOAT32 2\n"
      "tensor y FLOAT32 2\n"
      "op IF 1 in=c,x out=y then_subgraph_index=1 else_subgraph_index=2\n"
      "inputs c,x\n"
      "outputs y\n"
      "subgraph then\n"
      "tensor a FLOAT32 2\n"
      "tensor b FLOAT32 2\n"
      "op ADD 1 in=a,a out=b\n"
      "inputs a\n"
      "outputs b\n"
      "subgraph else\n"
      "tensor a FLOAT32 2\n"
      "tensor b FLOAT32 2\n"
      "op MUL 1 in=a,a out=b\n"
      "inputs a\n"
      "outputs b\n";
  inspector in;
  TfLiteOpaqueDelegate* delegate = new_inspector(&in);
  fixture f;
  load(&f, kIfSpec);
  create(&f, delegate, false);
  assert_non_null(f.interpreter);
  assert_int_equal(in.prepare_calls, 3); /* every subgraph */
  assert_int_equal(in.num_nodes, 1);
  assert_int_equal(in.codes[0], kTfLiteBuiltinIf);
  assert_int_equal(in.acquire_status, kTfLiteOk);
  assert_true(in.acquired_is_other);
  assert_int_equal(in.acquired_plan_size, 1);
  assert_int_equal(in.acquired_code, kTfLiteBuiltinAdd);
  assert_int_equal(in.replace_in_acquired, kTfLiteError);
  assert_non_null(strstr(f.errors.text, "subgraph 1 is only acquired"));
  assert_int_equal(in.plan_after_release, kTfLiteError);
  assert_int_equal(in.acquire_out_of_range, kTfLiteError);
  assert_int_equal(f.interpreter->subgraphs[1].acquired, 0);
  assert_int_equal(f.interpreter->subgraphs[1].execution_plan->size, 1);
  assert_false(f.interpreter->subgraphs[1].nodes[0].is_delegate_kernel);
  /* then: y = x + x. */
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  const bool yes = true;
  TfLiteTensor* c = TfLiteInterpreterGetInputTensor(f.interpreter, 0);
  assert_int_equal(TfLiteTensorCopyFromBuffer(c, &yes, 1), kTfLiteOk);
  set_input(&f, 1, (const float[]){3, 4}, 2);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  expect_output(&f, 0, (const float[]){6, 8}, 2);
  release(&f);
  TfLiteOpaqueDelegateDelete(delegate);
}

/* Variable tensors: v (1) and w (2) of subgraph 0, in index order, through
 * the interpreter and the opaque context. v starts at zero, so y = x. */
static void test_variables(void** state) {
  (void)state;
  static const char kSpec[] =
      "tensor x FLOAT32 2\n"
      "tensor v FLOAT32 2 variable\n"
      "tensor w FLOAT32 2 variable\n"
      "tensor y FLOAT32 2\n"
      "tensor z FLOAT32 2\n"
      "op ADD 1 in=x,v out=y\n"
      "op ADD 1 in=y,w out=z\n"
      "inputs x\n"
      "outputs z\n";
  inspector in;
  TfLiteOpaqueDelegate* delegate = new_inspector(&in);
  fixture f;
  load(&f, kSpec);
  create(&f, delegate, false);
  assert_non_null(f.interpreter);
  assert_int_equal(in.num_variables, 2);
  assert_int_equal(in.variables[0], 1);
  assert_int_equal(in.variables[1], 2);
  assert_int_equal(TfLiteInterpreterGetVariableTensorCount(f.interpreter), 2);
  const TfLiteTensor* v = TfLiteInterpreterGetVariableTensor(f.interpreter, 0);
  const TfLiteTensor* w = TfLiteInterpreterGetVariableTensor(f.interpreter, 1);
  assert_non_null(v);
  assert_non_null(w);
  assert_string_equal(TfLiteTensorName(v), "v");
  assert_string_equal(TfLiteTensorName(w), "w");
  assert_ptr_equal(v, TfLiteInterpreterGetTensor(f.interpreter, 1));
  assert_null(TfLiteInterpreterGetVariableTensor(f.interpreter, 2));
  assert_null(TfLiteInterpreterGetVariableTensor(f.interpreter, -1));
  assert_non_null(strstr(f.errors.text,
                         "TfLiteInterpreterGetVariableTensor: index 2 out of "
                         "range [0, 2)"));
  assert_int_equal(TfLiteInterpreterGetVariableTensorCount(NULL), 0);
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  set_input(&f, 0, (const float[]){5, -7}, 2);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  expect_output(&f, 0, (const float[]){5, -7}, 2);
  release(&f);
  TfLiteOpaqueDelegateDelete(delegate);

  /* A graph without variables has none. */
  load(&f, kAddMulSpec);
  create(&f, NULL, false);
  assert_int_equal(TfLiteInterpreterGetVariableTensorCount(f.interpreter), 0);
  assert_null(TfLiteInterpreterGetVariableTensor(f.interpreter, 0));
  release(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_get_data_delete),
      cmocka_unit_test(test_add_delegate_at_creation),
      cmocka_unit_test(test_builder_flags),
      cmocka_unit_test(test_modify_graph_with_delegate),
      cmocka_unit_test(test_prepare_failure),
      cmocka_unit_test(test_replace_without_operator),
      cmocka_unit_test(test_builder_without_prepare),
      cmocka_unit_test(test_buffer_handles),
      cmocka_unit_test(test_operator_shared_by_subgraphs),
      cmocka_unit_test(test_legacy_delegate_with_operator),
      cmocka_unit_test(test_node_operators),
      cmocka_unit_test(test_acquire_subgraph_context),
      cmocka_unit_test(test_variables),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
