/* The reference delegate on the delegate kit: claims, kMaxVersion
 * rejections with reasons, partition limits, faults at every step, and
 * outputs identical (bit for bit) to CPU-only runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "litegpu/reference_delegate.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"

typedef struct capture {
  char text[32768];
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

typedef struct built_model {
  void* data;
  size_t size;
  TfLiteModel* model;
} built_model;

static void finish_model(lg_model_writer* w, built_model* m) {
  assert_int_equal(lg_model_writer_finish(w, &m->data, &m->size), kTfLiteOk);
  lg_model_writer_destroy(w);
  m->model = TfLiteModelCreate(m->data, m->size);
  assert_non_null(m->model);
}

static void free_model(built_model* m) {
  TfLiteModelDelete(m->model);
  free(m->data);
}

static int32_t tensor5(lg_model_writer* w, const char* name) {
  const int32_t shape[2] = {1, 5};
  lg_writer_tensor t = {
      .name = name, .type = kTfLiteFloat32, .shape = shape, .num_dims = 2};
  return lg_model_writer_add_tensor(w, &t);
}

/* A chain over x[1,5]: 'A' = ADD of a constant (version add_version), 'F' =
 * FULLY_CONNECTED with a constant 5x5 matrix and bias. */
static void build_chain(built_model* m, const char* ops, int add_version) {
  static const float c[5] = {0.5f, -1.25f, 2, 3.75f, -4};
  static float weights[25];
  static const float bias[5] = {0.25f, 0, -0.5f, 1, 2};
  for (int i = 0; i < 25; ++i) weights[i] = (float)((i * 7) % 11) / 8 - 0.5f;
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t s1[1] = {5}, s2[2] = {5, 5};
  int32_t cst = lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32, s1, 1,
                                                 c, sizeof(c));
  int32_t wt = lg_model_writer_add_const_tensor(w, "w", kTfLiteFloat32, s2, 2,
                                                weights, sizeof(weights));
  int32_t b = lg_model_writer_add_const_tensor(w, "b", kTfLiteFloat32, s1, 1,
                                               bias, sizeof(bias));
  int32_t x = tensor5(w, "x"), prev = x;
  for (const char* op = ops; *op; ++op) {
    int32_t next = tensor5(w, op[1] ? "t" : "y");
    if (*op == 'A') {
      lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, add_version,
                                   (int32_t[]){prev, cst}, 2, &next, 1, NULL);
    } else {
      lg_model_writer_add_operator(w, kTfLiteBuiltinFullyConnected, 1,
                                   (int32_t[]){prev, wt, b}, 3, &next, 1, NULL);
    }
    prev = next;
  }
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &prev, 1);
  finish_model(w, m);
}

/* x -A-> t1; t1 -F-> t2; t1 -A-> t3; ADD(t2, t3) -> y: a diamond. */
static void build_diamond(built_model* m) {
  static const float c[5] = {1, 2, 3, 4, 5};
  static float weights[25];
  for (int i = 0; i < 25; ++i) weights[i] = (i % 6 == 0) ? 1.0f : 0.125f;
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t s1[1] = {5}, s2[2] = {5, 5};
  int32_t cst = lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32, s1, 1,
                                                 c, sizeof(c));
  int32_t wt = lg_model_writer_add_const_tensor(w, "w", kTfLiteFloat32, s2, 2,
                                                weights, sizeof(weights));
  int32_t x = tensor5(w, "x"), t1 = tensor5(w, "t1"), t2 = tensor5(w, "t2");
  int32_t t3 = tensor5(w, "t3"), y = tensor5(w, "y");
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, (int32_t[]){x, cst}, 2,
                               &t1, 1, NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinFullyConnected, 1,
                               (int32_t[]){t1, wt, -1}, 3, &t2, 1, NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, (int32_t[]){t1, cst}, 2,
                               &t3, 1, NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, (int32_t[]){t2, t3}, 2,
                               &y, 1, NULL);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  finish_model(w, m);
}

/* Runs the model on seeded inputs; output 0's bytes into out (malloc'd). */
static TfLiteStatus run(TfLiteModel* model, TfLiteDelegate* delegate,
                        bool fallback, capture* c, void** out, size_t* bytes,
                        TfLiteInterpreter** keep) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetErrorReporter(o, capture_report, c);
  TfLiteInterpreterOptionsSetEnableDelegateFallback(o, fallback);
  if (delegate) TfLiteInterpreterOptionsAddDelegate(o, delegate);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  if (ip == NULL) return kTfLiteError;
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  uint32_t seed = 5;
  for (int i = 0; i < TfLiteInterpreterGetInputTensorCount(ip); ++i) {
    TfLiteTensor* t = TfLiteInterpreterGetInputTensor(ip, i);
    float* v = TfLiteTensorData(t);
    for (size_t k = 0; k < TfLiteTensorByteSize(t) / sizeof(float); ++k) {
      seed = seed * 1664525u + 1013904223u;
      v[k] = (float)(seed >> 8) / 16777216.0f * 6 - 3;
    }
  }
  TfLiteStatus status = TfLiteInterpreterInvoke(ip);
  const TfLiteTensor* y = TfLiteInterpreterGetOutputTensor(ip, 0);
  *bytes = TfLiteTensorByteSize(y);
  *out = malloc(*bytes);
  memcpy(*out, TfLiteTensorData(y), *bytes);
  if (keep != NULL) {
    *keep = ip;
  } else {
    TfLiteInterpreterDelete(ip);
  }
  return status;
}

static void expect_same_as_cpu(TfLiteModel* model, TfLiteDelegate* delegate,
                               bool fallback, TfLiteStatus expected_status,
                               capture* c) {
  void *cpu = NULL, *del = NULL;
  size_t cpu_bytes = 0, del_bytes = 0;
  capture ignored = {{0}, 0};
  assert_int_equal(run(model, NULL, false, &ignored, &cpu, &cpu_bytes, NULL),
                   kTfLiteOk);
  assert_int_equal(run(model, delegate, fallback, c, &del, &del_bytes, NULL),
                   expected_status);
  assert_int_equal(cpu_bytes, del_bytes);
  assert_memory_equal(cpu, del, cpu_bytes);
  free(cpu);
  free(del);
}

static void test_whole_chain_is_one_partition(void** state) {
  (void)state;
  built_model m;
  build_chain(&m, "AFAFA", 1);
  TfLiteDelegate* d = litegpu_reference_delegate_create(NULL);
  capture c = {{0}, 0};
  expect_same_as_cpu(m.model, d, false, kTfLiteOk, &c);
  assert_non_null(strstr(c.text,
                         "Replacing 5 out of 5 node(s) with delegate "
                         "(LiteGpuReferenceDelegate) node, yielding 1 "
                         "partitions for the whole graph."));
  assert_int_equal(litegpu_reference_delegate_num_partitions(d), 1);
  litegpu_reference_delegate_delete(d);
  free_model(&m);
}

static void test_max_version_rejection_has_reason(void** state) {
  (void)state;
  built_model m;
  build_chain(&m, "AFA", 2); /* ADD version 2 */
  const litegpu_reference_op_limit limits[1] = {{kTfLiteBuiltinAdd, 1}};
  litegpu_reference_delegate_options o =
      litegpu_reference_delegate_options_default();
  o.op_limits = limits;
  o.num_op_limits = 1;
  TfLiteDelegate* d = litegpu_reference_delegate_create(&o);
  capture c = {{0}, 0};
  expect_same_as_cpu(m.model, d, false, kTfLiteOk, &c);
  assert_non_null(strstr(c.text,
                         "ADD: Max version supported: 1. Requested "
                         "version 2."));
  assert_non_null(strstr(c.text,
                         "1 operations will run on the delegate, and "
                         "the remaining 2 operations will run on the "
                         "CPU."));
  litegpu_delegate_decision dec[3];
  assert_int_equal(litegpu_reference_delegate_decisions(d, dec, 3), 3);
  assert_false(dec[0].claimed);
  assert_string_equal(dec[0].op_name, "ADD");
  assert_int_equal(dec[0].version, 2);
  assert_string_equal(dec[0].reason,
                      "Max version supported: 1. Requested version 2.");
  assert_true(dec[1].claimed);
  assert_string_equal(dec[1].reason, "");
  litegpu_reference_delegate_delete(d);
  free_model(&m);
}

static void test_partition_limits(void** state) {
  (void)state;
  /* Only ADD supported: "AAFAFA" gives partitions {0,1}, {3}, {5}. */
  built_model m;
  build_chain(&m, "AAFAFA", 1);
  const int32_t add_only[1] = {kTfLiteBuiltinAdd};
  litegpu_reference_delegate_options o =
      litegpu_reference_delegate_options_default();
  o.supported_ops = add_only;
  o.num_supported_ops = 1;
  TfLiteDelegate* d = litegpu_reference_delegate_create(&o);
  capture c = {{0}, 0};
  expect_same_as_cpu(m.model, d, false, kTfLiteOk, &c);
  assert_int_equal(litegpu_reference_delegate_num_partitions(d), 3);
  assert_non_null(strstr(c.text,
                         "FULLY_CONNECTED: Operation is not "
                         "supported."));
  litegpu_reference_delegate_delete(d);

  /* max_delegated_partitions = 2: the largest ({0,1}) and, of the two equal
   * ones, the first ({3}); node 5 stays with a reason. */
  o.max_delegated_partitions = 2;
  d = litegpu_reference_delegate_create(&o);
  c.length = 0;
  expect_same_as_cpu(m.model, d, false, kTfLiteOk, &c);
  assert_int_equal(litegpu_reference_delegate_num_partitions(d), 2);
  litegpu_delegate_decision dec[6];
  assert_int_equal(litegpu_reference_delegate_decisions(d, dec, 6), 6);
  assert_true(dec[0].claimed && dec[1].claimed && dec[3].claimed);
  assert_false(dec[5].claimed);
  assert_non_null(strstr(dec[5].reason, "outside the 2 largest"));
  int nodes[4];
  assert_int_equal(litegpu_reference_delegate_partition_nodes(d, 0, nodes, 4),
                   2);
  assert_int_equal(nodes[0], 0);
  assert_int_equal(nodes[1], 1);
  assert_int_equal(litegpu_reference_delegate_partition_nodes(d, 1, nodes, 4),
                   1);
  assert_int_equal(nodes[0], 3);
  assert_int_equal(litegpu_reference_delegate_partition_nodes(d, 2, nodes, 4),
                   -1);
  litegpu_reference_delegate_delete(d);

  /* min_nodes_per_partition = 2: only {0,1}. */
  o.max_delegated_partitions = 0;
  o.min_nodes_per_partition = 2;
  d = litegpu_reference_delegate_create(&o);
  c.length = 0;
  expect_same_as_cpu(m.model, d, false, kTfLiteOk, &c);
  assert_int_equal(litegpu_reference_delegate_num_partitions(d), 1);
  assert_int_equal(litegpu_reference_delegate_decisions(d, dec, 6), 6);
  assert_non_null(strstr(dec[3].reason, "fewer than min_nodes_per_partition"));
  litegpu_reference_delegate_delete(d);
  free_model(&m);
}

static void test_diamond_and_shared_model(void** state) {
  (void)state;
  built_model m;
  build_diamond(&m);
  /* ADD only, claimed {0, 2, 3}: nodes 0 and 2 both need only x and t1, so
   * they form one partition; node 3 needs the CPU's FULLY_CONNECTED output
   * t2 and forms a second: subsets {0, 2}, {1} (CPU), {3}. */
  const int32_t add_only[1] = {kTfLiteBuiltinAdd};
  litegpu_reference_delegate_options o =
      litegpu_reference_delegate_options_default();
  o.supported_ops = add_only;
  o.num_supported_ops = 1;
  TfLiteDelegate* d = litegpu_reference_delegate_create(&o);
  capture c = {{0}, 0};
  expect_same_as_cpu(m.model, d, false, kTfLiteOk, &c);
  assert_int_equal(litegpu_reference_delegate_num_partitions(d), 2);
  litegpu_reference_delegate_delete(d);
  free_model(&m);

  /* A real model: hello_world (three FULLY_CONNECTED). */
  TfLiteModel* hello = TfLiteModelCreateFromFile(
      LITEGPU_SHARED_DIR "/models/tflite-micro/hello_world_float.tflite");
  assert_non_null(hello);
  d = litegpu_reference_delegate_create(NULL);
  c.length = 0;
  expect_same_as_cpu(hello, d, false, kTfLiteOk, &c);
  assert_int_equal(litegpu_reference_delegate_num_partitions(d), 1);
  litegpu_reference_delegate_delete(d);
  TfLiteModelDelete(hello);
}

static void check_fault(litegpu_reference_fault fault, const char* message) {
  built_model m;
  build_chain(&m, "AFA", 1);
  litegpu_reference_delegate_options o =
      litegpu_reference_delegate_options_default();
  o.fault = fault;
  TfLiteDelegate* d = litegpu_reference_delegate_create(&o);
  /* Without fallback, creation fails as in TFLite. */
  capture c = {{0}, 0};
  void* out = NULL;
  size_t bytes = 0;
  TfLiteInterpreter* ip = NULL;
  if (fault != LITEGPU_REFERENCE_FAULT_KERNEL_INVOKE) {
    assert_int_equal(run(m.model, d, false, &c, &out, &bytes, NULL),
                     kTfLiteError);
    assert_non_null(strstr(c.text, message));
    assert_non_null(strstr(c.text, "Restored original execution plan"));
    /* With fallback, a correct CPU run. */
    c.length = 0;
    expect_same_as_cpu(m.model, d, true, kTfLiteOk, &c);
  } else {
    assert_int_equal(run(m.model, d, false, &c, &out, &bytes, &ip),
                     kTfLiteError);
    free(out);
    TfLiteInterpreterDelete(ip);
    assert_non_null(strstr(c.text, message));
    c.length = 0;
    expect_same_as_cpu(m.model, d, true, kTfLiteDelegateError, &c);
    assert_non_null(strstr(c.text, "Retrying without."));
  }
  litegpu_reference_delegate_delete(d);
  free_model(&m);
}

static void test_faults_leave_correct_cpu_runs(void** state) {
  (void)state;
  check_fault(LITEGPU_REFERENCE_FAULT_PREPARE, "injected delegate Prepare");
  check_fault(LITEGPU_REFERENCE_FAULT_KERNEL_INIT, "injected Init fault");
  check_fault(LITEGPU_REFERENCE_FAULT_KERNEL_PREPARE, "injected Prepare");
  check_fault(LITEGPU_REFERENCE_FAULT_KERNEL_INVOKE, "injected Invoke");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_whole_chain_is_one_partition),
      cmocka_unit_test(test_max_version_rejection_has_reason),
      cmocka_unit_test(test_partition_limits),
      cmocka_unit_test(test_diamond_and_shared_model),
      cmocka_unit_test(test_faults_leave_correct_cpu_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
