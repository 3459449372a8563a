/* The delegate API: a test delegate claims ADD nodes (up to its kMaxVersion)
 * and runs them in its own kernels; every failure path must leave a correct
 * CPU run (with fallback) or a clear error (without), as in TFLite.
 *
 * Model: x[1,5] -ADD(c)-> t1 -Scale2-> t2 -ADD(c)-> t3 -ADD(c)-> y, with
 * c = [1,2,3,4,5] and Scale2 a CPU custom op (y = 2x). For x = 10..50:
 * t1 = 11 22 33 44 55, t2 = 22 44 66 88 110, y = t2 + 2c = 24 48 72 96 120.
 * Claiming the ADDs (nodes 0, 2, 3) yields two partitions: {0} and {2, 3}.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/c/common.h"

static const float kX[5] = {10, 20, 30, 40, 50};
static const float kY[5] = {24, 48, 72, 96, 120};
static const float kC[5] = {1, 2, 3, 4, 5};

/* ---- Messages ------------------------------------------------------------ */

typedef struct capture {
  char text[16384];
  size_t length;
} capture;

static void capture_report(void* user_data, const char* format, va_list args) {
  capture* c = user_data;
  if (c->length >= sizeof(c->text) - 2) return;
  int n =
      vsnprintf(c->text + c->length, sizeof(c->text) - c->length, format, args);
  if (n > 0) c->length += (size_t)n;
  if (c->length > sizeof(c->text) - 2) c->length = sizeof(c->text) - 2;
  c->text[c->length++] = '\n';
  c->text[c->length] = '\0';
}

/* ---- The CPU custom op -----------------------------------------------------
 */

static TfLiteStatus same_shape_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  const TfLiteTensor* in = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* out = &context->tensors[node->outputs->data[0]];
  return context->ResizeTensor(context, out, TfLiteIntArrayCopy(in->dims));
}

static TfLiteStatus scale2_invoke(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* out = &context->tensors[node->outputs->data[0]];
  for (size_t i = 0; i < in->bytes / sizeof(float); ++i) {
    out->data.f[i] = 2 * in->data.f[i];
  }
  return kTfLiteOk;
}

/* A custom op whose output shape is only known at Invoke. */
static TfLiteStatus dynamic_prepare(TfLiteContext* context, TfLiteNode* node) {
  context->tensors[node->outputs->data[0]].allocation_type = kTfLiteDynamic;
  return kTfLiteOk;
}

static TfLiteStatus dynamic_invoke(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* out = &context->tensors[node->outputs->data[0]];
  TF_LITE_ENSURE_STATUS(
      context->ResizeTensor(context, out, TfLiteIntArrayCopy(in->dims)));
  for (size_t i = 0; i < in->bytes / sizeof(float); ++i) {
    out->data.f[i] = 2 * in->data.f[i];
  }
  return kTfLiteOk;
}

/* ---- The test delegate
 * --------------------------------------------------------- */

typedef struct test_delegate {
  TfLiteDelegate base;
  const char* name;
  int max_add_version;
  int max_claims; /* claim at most this many ADDs (plan order); 0 = all */
  const char* claim_custom; /* also claim custom ops of this name: x + x */
  bool fail_prepare, fail_kernel_prepare, fail_kernel_invoke;
  int bad_replace; /* 1: out-of-range node, 2: replace twice */
  bool use_buffer_handles;
  bool check_preview;
  int preview_partitions;
  int kernels_inited, kernels_freed, invokes;
  int copies_from_handle, handles_freed;
} test_delegate;

/* One ADD the kernel runs: tensor indices captured at Init. */
typedef struct inner_add {
  int a, b, out;
} inner_add;

typedef struct kernel {
  test_delegate* delegate;
  inner_add adds[8];
  float* scratch[8]; /* the result of each add, in the delegate's memory */
  int num_adds;
  TfLiteIntArray* outputs; /* partition outputs */
  float* shadow[8];        /* delegate-side copies of the outputs */
} kernel;

static void* kernel_init(TfLiteContext* context, const char* buffer,
                         size_t length) {
  (void)length;
  const TfLiteDelegateParams* params = (const TfLiteDelegateParams*)buffer;
  kernel* k = calloc(1, sizeof(*k));
  k->delegate = (test_delegate*)params->delegate;
  k->delegate->kernels_inited++;
  k->outputs = TfLiteIntArrayCopy(params->output_tensors);
  for (int i = 0; i < params->nodes_to_replace->size && i < 8; ++i) {
    TfLiteNode* node = NULL;
    TfLiteRegistration* reg = NULL;
    /* Allowed here: Init runs inside the delegate's Prepare. */
    if (context->GetNodeAndRegistration(context,
                                        params->nodes_to_replace->data[i],
                                        &node, &reg) == kTfLiteOk) {
      /* A one-input custom node the delegate claims doubles its input. */
      const int b = node->inputs->data[node->inputs->size > 1 ? 1 : 0];
      k->adds[k->num_adds++] =
          (inner_add){node->inputs->data[0], b, node->outputs->data[0]};
    }
  }
  return k;
}

static void kernel_free(TfLiteContext* context, void* data) {
  (void)context;
  kernel* k = data;
  k->delegate->kernels_freed++;
  for (int i = 0; i < 8; ++i) {
    free(k->shadow[i]);
    free(k->scratch[i]);
  }
  TfLiteIntArrayFree(k->outputs);
  free(k);
}

static TfLiteStatus kernel_prepare(TfLiteContext* context, TfLiteNode* node) {
  kernel* k = node->user_data;
  TF_LITE_ENSURE(context, !k->delegate->fail_kernel_prepare);
  for (int i = 0; i < k->num_adds; ++i) {
    const TfLiteTensor* a = &context->tensors[k->adds[i].a];
    TF_LITE_ENSURE_STATUS(
        context->ResizeTensor(context, &context->tensors[k->adds[i].out],
                              TfLiteIntArrayCopy(a->dims)));
    free(k->scratch[i]);
    k->scratch[i] = malloc(a->bytes);
  }
  for (int i = 0; i < k->outputs->size && i < 8; ++i) {
    free(k->shadow[i]);
    k->shadow[i] = malloc(context->tensors[k->outputs->data[i]].bytes);
  }
  return kTfLiteOk;
}

/* Where tensor t's values are: an earlier add's scratch, or the context. */
static const float* source(TfLiteContext* context, const kernel* k, int t) {
  for (int i = 0; i < k->num_adds; ++i) {
    if (k->adds[i].out == t) return k->scratch[i];
  }
  return context->tensors[t].data.f;
}

static TfLiteStatus kernel_invoke(TfLiteContext* context, TfLiteNode* node) {
  kernel* k = node->user_data;
  k->delegate->invokes++;
  TF_LITE_ENSURE(context, !k->delegate->fail_kernel_invoke);
  /* Tensors inside the partition live only in the delegate's memory (the
   * runtime allocates none for them); partition inputs are read from, and
   * partition outputs written to, the context's tensors. */
  for (int i = 0; i < k->num_adds; ++i) {
    const float* a = source(context, k, k->adds[i].a);
    const float* b = source(context, k, k->adds[i].b);
    const size_t nb = context->tensors[k->adds[i].b].bytes / sizeof(float);
    const size_t n = context->tensors[k->adds[i].out].bytes / sizeof(float);
    for (size_t e = 0; e < n; ++e) k->scratch[i][e] = a[e] + b[e % nb];
    for (int o = 0; o < k->outputs->size; ++o) {
      if (k->outputs->data[o] == k->adds[i].out) {
        memcpy(context->tensors[k->adds[i].out].data.raw, k->scratch[i],
               n * sizeof(float));
      }
    }
  }
  if (!k->delegate->use_buffer_handles) return kTfLiteOk;
  /* Keep the outputs "on the device": the CPU copy is poisoned and stale
   * until the runtime asks for it through CopyFromBufferHandle. */
  for (int i = 0; i < k->outputs->size; ++i) {
    TfLiteTensor* t = &context->tensors[k->outputs->data[i]];
    memcpy(k->shadow[i], t->data.raw, t->bytes);
    for (size_t e = 0; e < t->bytes / sizeof(float); ++e) t->data.f[e] = NAN;
    t->buffer_handle = i + 1;
    t->data_is_stale = true;
  }
  return kTfLiteOk;
}

/* The kernel that owns buffer handle `handle` of tensor `t`. */
static kernel* g_last_kernel[4];

static TfLiteStatus copy_from_handle(TfLiteContext* context,
                                     TfLiteDelegate* delegate,
                                     TfLiteBufferHandle handle,
                                     TfLiteTensor* tensor) {
  test_delegate* d = (test_delegate*)delegate;
  d->copies_from_handle++;
  for (int k = 0; k < 4; ++k) {
    kernel* kern = g_last_kernel[k];
    if (kern == NULL || kern->delegate != d) continue;
    for (int i = 0; i < kern->outputs->size; ++i) {
      if (&context->tensors[kern->outputs->data[i]] == tensor &&
          handle == i + 1) {
        memcpy(tensor->data.raw, kern->shadow[i], tensor->bytes);
        return kTfLiteOk;
      }
    }
  }
  return kTfLiteError;
}

static void free_handle(TfLiteContext* context, TfLiteDelegate* delegate,
                        TfLiteBufferHandle* handle) {
  (void)context;
  ((test_delegate*)delegate)->handles_freed++;
  *handle = kTfLiteNullBufferHandle;
}

static void* tracking_init(TfLiteContext* context, const char* buffer,
                           size_t length) {
  kernel* k = kernel_init(context, buffer, length);
  for (int i = 0; i < 4; ++i) {
    if (g_last_kernel[i] == NULL) {
      g_last_kernel[i] = k;
      break;
    }
  }
  return k;
}

static void tracking_free(TfLiteContext* context, void* data) {
  for (int i = 0; i < 4; ++i) {
    if (g_last_kernel[i] == data) g_last_kernel[i] = NULL;
  }
  kernel_free(context, data);
}

static TfLiteStatus delegate_prepare(TfLiteContext* context,
                                     TfLiteDelegate* delegate) {
  test_delegate* d = (test_delegate*)delegate;
  if (d->fail_prepare) return kTfLiteError;
  TfLiteIntArray* plan = NULL;
  TF_LITE_ENSURE_STATUS(context->GetExecutionPlan(context, &plan));
  TfLiteIntArray* claimed = TfLiteIntArrayCreate(plan->size);
  claimed->size = 0;
  for (int i = 0; i < plan->size; ++i) {
    TfLiteNode* node = NULL;
    TfLiteRegistration* reg = NULL;
    TF_LITE_ENSURE_STATUS(
        context->GetNodeAndRegistration(context, plan->data[i], &node, &reg));
    const bool custom = reg->builtin_code == kTfLiteBuiltinCustom &&
                        d->claim_custom != NULL && reg->custom_name != NULL &&
                        strcmp(reg->custom_name, d->claim_custom) == 0;
    if ((custom || (reg->builtin_code == kTfLiteBuiltinAdd &&
                    reg->version <= d->max_add_version)) &&
        (d->max_claims == 0 || claimed->size < d->max_claims)) {
      claimed->data[claimed->size++] = plan->data[i];
    }
  }
  if (d->check_preview) {
    TfLiteDelegateParams* params = NULL;
    int n = 0;
    TF_LITE_ENSURE_STATUS(
        context->PreviewDelegatePartitioning(context, claimed, &params, &n));
    d->preview_partitions = n;
    TF_LITE_ENSURE_EQ(context, params[n - 1].nodes_to_replace->size, 2);
  }
  TfLiteRegistration reg = {0};
  reg.init = d->use_buffer_handles ? tracking_init : kernel_init;
  reg.free = d->use_buffer_handles ? tracking_free : kernel_free;
  reg.prepare = kernel_prepare;
  reg.invoke = kernel_invoke;
  reg.custom_name = d->name;
  reg.version = 1;
  if (d->bad_replace == 1) claimed->data[claimed->size++] = 99;
  TfLiteStatus s = context->ReplaceNodeSubsetsWithDelegateKernels(
      context, reg, claimed, delegate);
  if (d->bad_replace == 2 && s == kTfLiteOk) {
    s = context->ReplaceNodeSubsetsWithDelegateKernels(context, reg, claimed,
                                                       delegate);
  }
  TfLiteIntArrayFree(claimed);
  return s;
}

static void init_delegate(test_delegate* d, const char* name) {
  memset(d, 0, sizeof(*d));
  d->base = TfLiteDelegateCreate();
  d->base.Prepare = delegate_prepare;
  d->base.CopyFromBufferHandle = copy_from_handle;
  d->base.FreeBufferHandle = free_handle;
  d->base.data_ = d;
  d->name = name;
  d->max_add_version = 1;
}

/* ---- Models and runs
 * -------------------------------------------------------------- */

typedef struct built_model {
  void* data;
  size_t size;
  TfLiteModel* model;
} built_model;

static int32_t add_float(lg_model_writer* w, const char* name) {
  const int32_t shape[2] = {1, 5};
  lg_writer_tensor t = {
      .name = name, .type = kTfLiteFloat32, .shape = shape, .num_dims = 2};
  return lg_model_writer_add_tensor(w, &t);
}

static void build_model(built_model* m, int add_version,
                        const char* middle_op) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t cshape[1] = {5};
  int32_t x = add_float(w, "x");
  int32_t c = lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32, cshape,
                                               1, kC, sizeof(kC));
  int32_t t1 = add_float(w, "t1"), t2 = add_float(w, "t2");
  int32_t t3 = add_float(w, "t3"), y = add_float(w, "y");
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, add_version,
                               (int32_t[]){x, c}, 2, &t1, 1, NULL);
  lg_model_writer_add_custom_operator(w, middle_op, 1, &t1, 1, &t2, 1, NULL, 0);
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, add_version,
                               (int32_t[]){t2, c}, 2, &t3, 1, NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, add_version,
                               (int32_t[]){t3, c}, 2, &y, 1, NULL);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  assert_int_equal(lg_model_writer_finish(w, &m->data, &m->size), kTfLiteOk);
  lg_model_writer_destroy(w);
  m->model = TfLiteModelCreate(m->data, m->size);
  assert_non_null(m->model);
}

static void free_model(built_model* m) {
  TfLiteModelDelete(m->model);
  free(m->data);
}

static TfLiteInterpreterOptions* make_options(capture* c, bool fallback) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  memset(c, 0, sizeof(*c));
  TfLiteInterpreterOptionsSetErrorReporter(o, capture_report, c);
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetEnableDelegateFallback(o, fallback);
  TfLiteRegistration scale = {0};
  scale.prepare = same_shape_prepare;
  scale.invoke = scale2_invoke;
  TfLiteInterpreterOptionsAddCustomOp(o, "Scale2", &scale, 1, 1);
  TfLiteRegistration dyn = {0};
  dyn.prepare = dynamic_prepare;
  dyn.invoke = dynamic_invoke;
  TfLiteInterpreterOptionsAddCustomOp(o, "Dynamic2", &dyn, 1, 1);
  return o;
}

/* Runs x through the interpreter and checks y; returns Invoke's status. */
static TfLiteStatus run_and_check(TfLiteInterpreter* ip) {
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  assert_int_equal(TfLiteTensorCopyFromBuffer(
                       TfLiteInterpreterGetInputTensor(ip, 0), kX, sizeof(kX)),
                   kTfLiteOk);
  TfLiteStatus status = TfLiteInterpreterInvoke(ip);
  if (status != kTfLiteOk && status != kTfLiteDelegateError) return status;
  float y[5];
  assert_int_equal(TfLiteTensorCopyToBuffer(
                       TfLiteInterpreterGetOutputTensor(ip, 0), y, sizeof(y)),
                   kTfLiteOk);
  for (int i = 0; i < 5; ++i) {
    if (y[i] != kY[i]) fail_msg("y[%d] = %g, expected %g", i, y[i], kY[i]);
  }
  return status;
}

/* ---- Tests
 * ------------------------------------------------------------------------- */

static void test_claims_two_partitions(void** state) {
  (void)state;
  built_model m;
  build_model(&m, 1, "Scale2");
  capture c;
  TfLiteInterpreterOptions* o = make_options(&c, false);
  test_delegate d;
  init_delegate(&d, "TestDelegate");
  d.check_preview = true;
  TfLiteInterpreterOptionsAddDelegate(o, &d.base);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_non_null(strstr(c.text,
                         "Replacing 3 out of 4 node(s) with delegate "
                         "(TestDelegate) node, yielding 2 partitions for the "
                         "whole graph."));
  assert_int_equal(d.preview_partitions, 2);
  assert_int_equal(d.kernels_inited, 2);
  for (int run = 0; run < 3; ++run) {
    assert_int_equal(run_and_check(ip), kTfLiteOk);
  }
  assert_int_equal(d.invokes, 6);
  TfLiteInterpreterDelete(ip);
  assert_int_equal(d.kernels_freed, 2);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

static void test_version_above_max_stays_on_cpu(void** state) {
  (void)state;
  built_model m;
  build_model(&m, 2, "Scale2"); /* ADD version 2; the delegate takes 1 */
  capture c;
  TfLiteInterpreterOptions* o = make_options(&c, false);
  test_delegate d;
  init_delegate(&d, "TestDelegate");
  TfLiteInterpreterOptionsAddDelegate(o, &d.base);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_non_null(strstr(c.text, "Replacing 0 out of 4 node(s)"));
  assert_int_equal(run_and_check(ip), kTfLiteOk);
  assert_int_equal(d.invokes, 0);
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

/* A delegate failing in `field` fails creation without fallback and runs
 * correctly on the CPU with it. */
static void check_failure(void (*configure)(test_delegate*),
                          const char* expected) {
  built_model m;
  build_model(&m, 1, "Scale2");
  for (int fallback = 0; fallback < 2; ++fallback) {
    capture c;
    TfLiteInterpreterOptions* o = make_options(&c, fallback);
    test_delegate d;
    init_delegate(&d, "TestDelegate");
    configure(&d);
    TfLiteInterpreterOptionsAddDelegate(o, &d.base);
    TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
    assert_non_null(strstr(c.text, expected));
    assert_non_null(strstr(c.text,
                           "Restored original execution plan after "
                           "delegate application failure."));
    if (!fallback) {
      assert_null(ip);
    } else {
      assert_non_null(ip);
      assert_int_equal(run_and_check(ip), kTfLiteOk);
      assert_int_equal(d.invokes, 0);
      TfLiteInterpreterDelete(ip);
    }
    assert_int_equal(d.kernels_freed, d.kernels_inited);
    TfLiteInterpreterOptionsDelete(o);
  }
  free_model(&m);
}

static void fail_prepare(test_delegate* d) { d->fail_prepare = true; }
static void fail_kernel_prepare(test_delegate* d) {
  d->fail_kernel_prepare = true;
}
static void replace_out_of_range(test_delegate* d) { d->bad_replace = 1; }
static void replace_twice(test_delegate* d) { d->bad_replace = 2; }

static void test_delegate_prepare_fails(void** state) {
  (void)state;
  check_failure(fail_prepare, "Restored");
}

static void test_kernel_prepare_fails(void** state) {
  (void)state;
  check_failure(fail_kernel_prepare, "was not true.");
}

static void test_bad_replacements(void** state) {
  (void)state;
  check_failure(replace_out_of_range, "node 99 is out of range");
  check_failure(replace_twice,
                "is not in the execution plan (already replaced?)");
}

static void test_invoke_failure_and_fallback(void** state) {
  (void)state;
  built_model m;
  build_model(&m, 1, "Scale2");
  for (int fallback = 0; fallback < 2; ++fallback) {
    capture c;
    TfLiteInterpreterOptions* o = make_options(&c, fallback);
    test_delegate d;
    init_delegate(&d, "TestDelegate");
    d.fail_kernel_invoke = true;
    TfLiteInterpreterOptionsAddDelegate(o, &d.base);
    TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
    assert_non_null(ip);
    TfLiteStatus s = run_and_check(ip);
    assert_non_null(strstr(c.text, "failed to invoke."));
    if (fallback) {
      assert_int_equal(s, kTfLiteDelegateError); /* valid outputs, CPU */
      assert_non_null(strstr(c.text,
                             "Invoke() failed in the presence of "
                             "delegation. Retrying without."));
      assert_int_equal(run_and_check(ip), kTfLiteOk); /* stays on the CPU */
    } else {
      assert_int_equal(s, kTfLiteError);
    }
    TfLiteInterpreterDelete(ip);
    assert_int_equal(d.kernels_freed, d.kernels_inited);
    TfLiteInterpreterOptionsDelete(o);
  }
  free_model(&m);
}

static void test_static_delegate_makes_graph_immutable(void** state) {
  (void)state;
  built_model m;
  build_model(&m, 1, "Scale2");
  capture c;
  TfLiteInterpreterOptions* o = make_options(&c, false);
  test_delegate d;
  init_delegate(&d, "TestDelegate");
  TfLiteInterpreterOptionsAddDelegate(o, &d.base);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  const int same[2] = {1, 5}, bigger[2] = {2, 5};
  assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 0, same, 2),
                   kTfLiteOk);
  assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 0, bigger, 2),
                   kTfLiteError);
  assert_non_null(strstr(
      c.text, "ResizeInputTensor is disallowed when graph is immutable."));
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

static void test_dynamic_tensors_need_the_flag(void** state) {
  (void)state;
  built_model m;
  build_model(&m, 1, "Dynamic2");
  capture c;
  TfLiteInterpreterOptions* o = make_options(&c, false);
  test_delegate d;
  init_delegate(&d, "TestDelegate");
  TfLiteInterpreterOptionsAddDelegate(o, &d.base);
  assert_null(TfLiteInterpreterCreate(m.model, o));
  assert_non_null(strstr(c.text,
                         "Attempting to use a delegate that only supports "
                         "static-sized tensors with a graph that has "
                         "dynamic-sized tensors (tensor#"));
  TfLiteInterpreterOptionsDelete(o);
  /* With the flag, only the first ADD (before the dynamic tensor) can be
   * claimed safely, but claiming all three works too: the kernels resize. */
  o = make_options(&c, false);
  d.base.flags = kTfLiteDelegateFlagsAllowDynamicTensors;
  d.max_claims = 1;
  TfLiteInterpreterOptionsAddDelegate(o, &d.base);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_int_equal(run_and_check(ip), kTfLiteOk);
  assert_int_equal(d.invokes, 1);
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

static void test_buffer_handles(void** state) {
  (void)state;
  built_model m;
  build_model(&m, 1, "Scale2");
  capture c;
  TfLiteInterpreterOptions* o = make_options(&c, false);
  test_delegate d;
  init_delegate(&d, "TestDelegate");
  d.use_buffer_handles = true;
  TfLiteInterpreterOptionsAddDelegate(o, &d.base);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  /* Partition outputs t1 (read by Scale2 on the CPU) and y (a graph output)
   * are stale after each delegate kernel: both are copied back. */
  assert_int_equal(run_and_check(ip), kTfLiteOk);
  assert_int_equal(d.copies_from_handle, 2);
  assert_int_equal(run_and_check(ip), kTfLiteOk);
  assert_int_equal(d.copies_from_handle, 4);
  TfLiteInterpreterDelete(ip);
  assert_int_equal(d.handles_freed, 2);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

static void test_two_delegates_in_order(void** state) {
  (void)state;
  built_model m;
  build_model(&m, 1, "Scale2");
  capture c;
  TfLiteInterpreterOptions* o = make_options(&c, false);
  test_delegate first, second;
  init_delegate(&first, "First");
  first.max_claims = 1; /* node 0 only */
  init_delegate(&second, "Second");
  TfLiteInterpreterOptionsAddDelegate(o, &first.base);
  TfLiteInterpreterOptionsAddDelegate(o, &second.base);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_non_null(strstr(c.text,
                         "Replacing 1 out of 4 node(s) with delegate "
                         "(First) node, yielding 1 partitions"));
  /* The second sees First's kernel node, which it does not claim. */
  assert_non_null(strstr(c.text,
                         "Replacing 2 out of 4 node(s) with delegate "
                         "(Second) node, yielding 1 partitions"));
  assert_int_equal(run_and_check(ip), kTfLiteOk);
  assert_int_equal(first.invokes, 1);
  assert_int_equal(second.invokes, 1);
  TfLiteInterpreterDelete(ip);
  assert_int_equal(first.kernels_freed, 1);
  assert_int_equal(second.kernels_freed, 1);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

static void test_null_and_opaque_delegates(void** state) {
  (void)state;
  built_model m;
  build_model(&m, 1, "Scale2");
  capture c;
  TfLiteInterpreterOptions* o = make_options(&c, false);
  TfLiteDelegate empty = TfLiteDelegateCreate(); /* no Prepare */
  TfLiteInterpreterOptionsAddDelegate(o, &empty);
  assert_null(TfLiteInterpreterCreate(m.model, o));
  assert_non_null(strstr(c.text, "Delegate has no Prepare function"));
  TfLiteInterpreterOptionsAddDelegate(o, NULL); /* refused, not added */
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

/* TfLiteInterpreterModifyGraphWithDelegate after a resize: the delegate
 * sees the resized shapes, runs a batch of 2 (x and x + 1: y + 2 for the
 * second row, y = 2 * (x + c) + 2c), and the graph is immutable after. */
static void test_modify_graph_after_resize(void** state) {
  (void)state;
  built_model m;
  build_model(&m, 1, "Scale2");
  capture c;
  TfLiteInterpreterOptions* o = make_options(&c, false);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  const int batch2[2] = {2, 5}, batch3[2] = {3, 5};
  assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 0, batch2, 2),
                   kTfLiteOk);
  test_delegate d;
  init_delegate(&d, "TestDelegate");
  assert_int_equal(TfLiteInterpreterModifyGraphWithDelegate(ip, &d.base),
                   kTfLiteOk);
  assert_non_null(strstr(c.text,
                         "Replacing 3 out of 4 node(s) with delegate "
                         "(TestDelegate) node, yielding 2 partitions"));
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  float x[10], y[10];
  for (int i = 0; i < 5; ++i) {
    x[i] = kX[i];
    x[5 + i] = kX[i] + 1;
  }
  TfLiteTensor* in = TfLiteInterpreterGetInputTensor(ip, 0);
  assert_int_equal(TfLiteTensorCopyFromBuffer(in, x, sizeof(x)), kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  assert_int_equal(d.invokes, 2);
  const TfLiteTensor* out = TfLiteInterpreterGetOutputTensor(ip, 0);
  assert_int_equal(TfLiteTensorDim(out, 0), 2);
  assert_int_equal(TfLiteTensorCopyToBuffer(out, y, sizeof(y)), kTfLiteOk);
  for (int i = 0; i < 5; ++i) {
    assert_float_equal(y[i], kY[i], 0);
    assert_float_equal(y[5 + i], kY[i] + 2, 0);
  }
  assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 0, batch3, 2),
                   kTfLiteError);
  assert_non_null(strstr(
      c.text, "ResizeInputTensor is disallowed when graph is immutable."));
  TfLiteInterpreterDelete(ip);
  assert_int_equal(d.kernels_freed, 2);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

/* A delegate that fails under ModifyGraphWithDelegate takes every delegate
 * with it (TFLite's contract) and leaves a graph that runs on the CPU; NULL
 * arguments are refused. */
static void test_modify_graph_failures(void** state) {
  (void)state;
  built_model m;
  build_model(&m, 1, "Scale2");
  capture c;
  TfLiteInterpreterOptions* o = make_options(&c, false);
  test_delegate first, failing;
  init_delegate(&first, "First");
  first.max_claims = 1;
  init_delegate(&failing, "Failing");
  failing.fail_kernel_prepare = true;
  TfLiteInterpreterOptionsAddDelegate(o, &first.base);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterModifyGraphWithDelegate(ip, &failing.base),
                   kTfLiteDelegateError);
  assert_non_null(strstr(c.text,
                         "Restored original execution plan after delegate "
                         "application failure."));
  assert_int_equal(first.kernels_freed, first.kernels_inited);
  assert_int_equal(failing.kernels_freed, failing.kernels_inited);
  assert_int_equal(run_and_check(ip), kTfLiteOk);
  assert_int_equal(first.invokes + failing.invokes, 0);
  /* Not immutable any more: the delegates are gone. */
  const int batch2[2] = {2, 5};
  assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 0, batch2, 2),
                   kTfLiteOk);
  assert_int_equal(TfLiteInterpreterModifyGraphWithDelegate(ip, NULL),
                   kTfLiteDelegateError);
  assert_non_null(strstr(c.text, "Null delegate."));
  assert_int_equal(TfLiteInterpreterModifyGraphWithDelegate(NULL, &first.base),
                   kTfLiteError);
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

/* A custom op no registration resolves ("Double", unregistered) gets a
 * placeholder, as in TFLite: the interpreter is created, a delegate may
 * claim the node, and the op is reported where the placeholder is prepared
 * outside delegation. */
static void test_delegate_claims_unresolved_custom_op(void** state) {
  (void)state;
  built_model m;
  build_model(&m, 1, "Double");
  capture c;
  TfLiteInterpreterOptions* o = make_options(&c, false);
  test_delegate d;
  init_delegate(&d, "Claimer");
  d.claim_custom = "Double";
  TfLiteInterpreterOptionsAddDelegate(o, &d.base);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_int_equal(run_and_check(ip), kTfLiteOk);
  assert_int_equal(d.invokes, 1);
  assert_null(strstr(c.text, "unresolved"));
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

static void expect_unresolved_report(const capture* c) {
  assert_non_null(strstr(c->text,
                         "Encountered unresolved custom op: Double.\nSee "
                         "instructions: https://www.tensorflow.org/lite/guide/"
                         "ops_custom "));
  assert_non_null(strstr(c->text, "Node number 1 (Double) failed to prepare."));
}

static void test_unresolved_custom_op_nobody_claims(void** state) {
  (void)state;
  built_model m;
  build_model(&m, 1, "Double");
  capture c;
  TfLiteInterpreterOptions* o = make_options(&c, false);
  /* Without a delegate: created, and AllocateTensors reports the op. */
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteUnresolvedOps);
  expect_unresolved_report(&c);
  assert_int_not_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  /* A delegate applied later may still take it. */
  test_delegate later;
  init_delegate(&later, "Later");
  later.claim_custom = "Double";
  assert_int_equal(TfLiteInterpreterModifyGraphWithDelegate(ip, &later.base),
                   kTfLiteOk);
  assert_int_equal(run_and_check(ip), kTfLiteOk);
  TfLiteInterpreterDelete(ip);
  /* A delegate that takes only the ADDs leaves it: creation fails with the
   * op's report, not as a delegate failure. */
  test_delegate adds_only;
  init_delegate(&adds_only, "AddsOnly");
  memset(&c, 0, sizeof(c));
  TfLiteInterpreterOptionsAddDelegate(o, &adds_only.base);
  assert_null(TfLiteInterpreterCreate(m.model, o));
  expect_unresolved_report(&c);
  assert_null(strstr(c.text, "Restored original execution plan"));
  assert_int_equal(adds_only.kernels_freed, adds_only.kernels_inited);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_delegate_claims_unresolved_custom_op),
      cmocka_unit_test(test_unresolved_custom_op_nobody_claims),
      cmocka_unit_test(test_claims_two_partitions),
      cmocka_unit_test(test_version_above_max_stays_on_cpu),
      cmocka_unit_test(test_delegate_prepare_fails),
      cmocka_unit_test(test_kernel_prepare_fails),
      cmocka_unit_test(test_bad_replacements),
      cmocka_unit_test(test_invoke_failure_and_fallback),
      cmocka_unit_test(test_static_delegate_makes_graph_immutable),
      cmocka_unit_test(test_dynamic_tensors_need_the_flag),
      cmocka_unit_test(test_buffer_handles),
      cmocka_unit_test(test_two_delegates_in_order),
      cmocka_unit_test(test_null_and_opaque_delegates),
      cmocka_unit_test(test_modify_graph_after_resize),
      cmocka_unit_test(test_modify_graph_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
