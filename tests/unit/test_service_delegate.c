/* The litegpu service across processes (delegates/service/,
 * include/litegpu/service_delegate.h): a service forked on a socket in a
 * temporary folder; the op list; the test models run through the service
 * delegate, per call and in bursts, match the CPU within 1e-5 (the CPU
 * service) or 1e-4 (the GPU service); the burst's memory-slot cache and
 * its callback; corrupt burst requests get error results; bad operands
 * are refused. test_service_peers.c covers dead peers and growth. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "delegates/service/fmq.h"
#include "delegates/service/service_client.h"
#include "delegates/service/service_server.h"
#include "litegpu/mediapipe_ops.h"
#include "litegpu/service_delegate.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"

static char g_dir[64];
static char g_socket[128];
static pid_t g_service_pid = -1; /* killed by the teardown if a test fails */

static int make_dir(void** state) {
  (void)state;
  snprintf(g_dir, sizeof(g_dir), "/tmp/litegpu-service-XXXXXX");
  if (mkdtemp(g_dir) == NULL) return -1;
  snprintf(g_socket, sizeof(g_socket), "%s/service.sock", g_dir);
  return 0;
}

static int remove_dir(void** state) {
  (void)state;
  if (g_service_pid > 0) {
    kill(g_service_pid, SIGKILL);
    waitpid(g_service_pid, NULL, 0);
    g_service_pid = -1;
  }
  unlink(g_socket);
  rmdir(g_dir);
  return 0;
}

static pid_t start_service(lg_service_kind kind) {
  lg_service_options o = lg_service_options_default();
  o.socket_path = g_socket;
  o.kind = kind;
  o.listener_spin_ns = 20000;
  char error[1024] = "";
  const pid_t pid = lg_service_spawn(&o, 60000, error, sizeof(error));
  if (pid < 0) fail_msg("service: %s", error);
  g_service_pid = pid;
  return pid;
}

static void stop_service(pid_t pid) {
  assert_int_equal(kill(pid, SIGTERM), 0);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  g_service_pid = -1;
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  assert_int_not_equal(access(g_socket, F_OK), 0); /* the file is gone */
}

/* y = x + c over [1, n] floats, c[i] = i / 2. */
static void* add_model(int n, size_t* size) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  int32_t shape[2] = {1, n};
  float* c = malloc(sizeof(float) * (size_t)n);
  for (int i = 0; i < n; ++i) c[i] = (float)i * 0.5f;
  lg_writer_tensor x = {
      .name = "x", .type = kTfLiteFloat32, .shape = shape, .num_dims = 2};
  int32_t in = lg_model_writer_add_tensor(w, &x);
  int32_t k = lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32, shape, 2,
                                               c, sizeof(float) * (size_t)n);
  x.name = "y";
  int32_t out = lg_model_writer_add_tensor(w, &x);
  int32_t ins[2] = {in, k};
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, ins, 2, &out, 1, NULL);
  lg_model_writer_set_inputs(w, &in, 1);
  lg_model_writer_set_outputs(w, &out, 1);
  void* data = NULL;
  assert_int_equal(lg_model_writer_finish(w, &data, size), kTfLiteOk);
  lg_model_writer_destroy(w);
  free(c);
  return data;
}

/* ---- Running models --------------------------------------------------------
 */

typedef struct messages {
  char text[2048];
} messages;

static void collect(void* user_data, const char* format, va_list args) {
  messages* m = user_data;
  const size_t used = strlen(m->text);
  if (used + 2 >= sizeof(m->text)) return;
  vsnprintf(m->text + used, sizeof(m->text) - used, format, args);
  strncat(m->text, "\n", sizeof(m->text) - strlen(m->text) - 1);
}

static TfLiteInterpreter* interpreter(TfLiteModel* model,
                                      TfLiteDelegate* delegate, messages* log) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  litegpu_add_mediapipe_ops(o);
  if (log != NULL) TfLiteInterpreterOptionsSetErrorReporter(o, collect, log);
  if (delegate != NULL) {
    TfLiteInterpreterOptionsAddDelegate(o, delegate);
    /* A model the delegate cannot take (dynamic tensors) runs on the CPU. */
    TfLiteInterpreterOptionsSetEnableDelegateFallback(o, true);
  }
  TfLiteInterpreter* it = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  if (it != NULL && TfLiteInterpreterAllocateTensors(it) != kTfLiteOk) {
    TfLiteInterpreterDelete(it);
    return NULL;
  }
  return it;
}

static uint32_t g_seed;
static uint32_t next_random(void) {
  g_seed = g_seed * 1664525u + 1013904223u;
  return g_seed >> 8;
}

/* Seeded inputs: floats in [-0.5, 0.5], integers over their range (small
 * ones for int32/int64, which often index), booleans 0/1. */
static void fill_inputs(TfLiteInterpreter* it, uint32_t seed) {
  g_seed = seed;
  for (int i = 0; i < TfLiteInterpreterGetInputTensorCount(it); ++i) {
    TfLiteTensor* t = TfLiteInterpreterGetInputTensor(it, i);
    uint8_t* p = TfLiteTensorData(t);
    const size_t bytes = TfLiteTensorByteSize(t);
    switch (TfLiteTensorType(t)) {
      case kTfLiteFloat32:
        for (size_t k = 0; k < bytes / 4; ++k) {
          ((float*)p)[k] = (float)(next_random() % 100001) / 100000.0f - 0.5f;
        }
        break;
      case kTfLiteInt32:
        for (size_t k = 0; k < bytes / 4; ++k) {
          ((int32_t*)p)[k] = (int32_t)(next_random() % 3);
        }
        break;
      case kTfLiteInt64:
        for (size_t k = 0; k < bytes / 8; ++k) {
          ((int64_t*)p)[k] = (int64_t)(next_random() % 3);
        }
        break;
      case kTfLiteBool:
        for (size_t k = 0; k < bytes; ++k) p[k] = (uint8_t)(next_random() % 2);
        break;
      default:
        for (size_t k = 0; k < bytes; ++k) p[k] = (uint8_t)next_random();
        break;
    }
  }
}

/* The largest output difference relative to max(1, |reference|); -1 when
 * a non-float output differs. */
static double output_error(TfLiteInterpreter* ref, TfLiteInterpreter* got) {
  double worst = 0.0;
  const int n = TfLiteInterpreterGetOutputTensorCount(ref);
  assert_int_equal(n, TfLiteInterpreterGetOutputTensorCount(got));
  for (int i = 0; i < n; ++i) {
    const TfLiteTensor* a = TfLiteInterpreterGetOutputTensor(ref, i);
    const TfLiteTensor* b = TfLiteInterpreterGetOutputTensor(got, i);
    const size_t bytes = TfLiteTensorByteSize(a);
    assert_int_equal(bytes, TfLiteTensorByteSize(b));
    if (TfLiteTensorType(a) != kTfLiteFloat32) {
      if (memcmp(TfLiteTensorData(a), TfLiteTensorData(b), bytes) != 0) {
        return -1.0;
      }
      continue;
    }
    const float* x = TfLiteTensorData(a);
    const float* y = TfLiteTensorData(b);
    double scale = 1.0, diff = 0.0;
    for (size_t k = 0; k < bytes / 4; ++k) {
      if (isnan(x[k]) && isnan(y[k])) continue; /* NaN in both: the same */
      if (fabs(x[k]) > scale) scale = fabs(x[k]);
      const double d = fabs((double)x[k] - (double)y[k]);
      if (d > diff || isnan(d)) diff = isnan(d) ? INFINITY : d;
    }
    if (diff / scale > worst) worst = diff / scale;
  }
  return worst;
}

/* Runs `path` on the CPU and through the service delegate (3 Invokes with
 * different inputs); returns the worst error and the partitions. */
static double run_model(const char* path, TfLiteDelegate* delegate,
                        int* partitions) {
  TfLiteModel* model = TfLiteModelCreateFromFile(path);
  if (model == NULL) fail_msg("cannot load %s", path);
  messages log = {""};
  TfLiteInterpreter* cpu = interpreter(model, NULL, NULL);
  TfLiteInterpreter* svc = interpreter(model, delegate, &log);
  if (cpu == NULL || svc == NULL) {
    fail_msg("%s: interpreter failed: %s", path, log.text);
  }
  *partitions = litegpu_service_delegate_num_partitions(delegate);
  double worst = 0.0;
  for (uint32_t round = 0; round < 3; ++round) {
    fill_inputs(cpu, 17 + round);
    fill_inputs(svc, 17 + round);
    const TfLiteStatus a = TfLiteInterpreterInvoke(cpu);
    const TfLiteStatus b = TfLiteInterpreterInvoke(svc);
    if (a != b) fail_msg("%s: CPU %d, service %d: %s", path, a, b, log.text);
    if (a != kTfLiteOk) continue; /* both refuse these inputs */
    const double e = output_error(cpu, svc);
    if (e < 0.0) fail_msg("%s: an integer output differs", path);
    if (e > worst) worst = e;
  }
  TfLiteInterpreterDelete(svc);
  TfLiteInterpreterDelete(cpu);
  TfLiteModelDelete(model);
  return worst;
}

static const char* const kModels[] = {
    LITEGPU_SOURCE_DIR "/tests/models/all_ops.tflite",
    LITEGPU_SOURCE_DIR "/tests/models/all_ops_dynamic.tflite",
    LITEGPU_SOURCE_DIR "/tests/models/all_ops_extra.tflite",
    LITEGPU_SOURCE_DIR "/tests/models/all_ops_fp16w.tflite",
    LITEGPU_SOURCE_DIR "/tests/models/all_ops_jax.tflite",
    LITEGPU_SOURCE_DIR "/tests/models/kws_cnn.tflite",
    LITEGPU_SOURCE_DIR "/tests/models/mobilenet_v2.tflite",
    LITEGPU_SOURCE_DIR "/tests/models/mobilenet_v3_small.tflite",
    LITEGPU_SOURCE_DIR "/tests/models/small_unet.tflite",
    LITEGPU_SOURCE_DIR "/tests/models/tiny_transformer.tflite",
    LITEGPU_SHARED_DIR "/models/tflite-micro/hello_world_float.tflite",
    LITEGPU_SHARED_DIR "/models/tflite-micro/hello_world_int8.tflite",
    LITEGPU_SHARED_DIR "/models/tflite-micro/person_detect.tflite",
};
#define NUM_MODELS ((int)(sizeof(kModels) / sizeof(kModels[0])))

static void models_match(lg_service_kind kind, bool burst, double bound,
                         const char* const* models, int count) {
  const pid_t pid = start_service(kind);
  litegpu_service_delegate_options o =
      litegpu_service_delegate_options_default();
  o.socket_path = g_socket;
  o.burst = burst;
  char error[512] = "";
  TfLiteDelegate* d = litegpu_service_delegate_create(&o, error, sizeof(error));
  if (d == NULL) fail_msg("delegate: %s", error);
  int delegated = 0;
  for (int i = 0; i < count; ++i) {
    int partitions = 0;
    const double e = run_model(models[i], d, &partitions);
    printf("  %-28s %s %s: %d partition(s), max error %.3g\n",
           strrchr(models[i], '/') + 1, kind == LG_SERVICE_CPU ? "cpu" : "gpu",
           burst ? "burst" : "per-call", partitions, e);
    if (e > bound) fail_msg("%s: error %g above %g", models[i], e, bound);
    if (partitions > 0) ++delegated;
  }
  assert_int_equal(delegated, count); /* every model has a partition */
  litegpu_service_delegate_delete(d);
  stop_service(pid);
}

static void cpu_service_per_call_matches_the_cpu(void** state) {
  (void)state;
  models_match(LG_SERVICE_CPU, false, 1e-5, kModels, NUM_MODELS);
}

static void cpu_service_burst_matches_the_cpu(void** state) {
  (void)state;
  models_match(LG_SERVICE_CPU, true, 1e-5, kModels, NUM_MODELS);
}

static void gpu_service_matches_the_cpu(void** state) {
  (void)state;
  static const char* const models[] = {
      LITEGPU_SOURCE_DIR "/tests/models/kws_cnn.tflite",
      LITEGPU_SHARED_DIR "/models/tflite-micro/hello_world_float.tflite",
  };
  models_match(LG_SERVICE_GPU, true, 1e-4, models, 2);
}

/* ---- The op list and the delegate's refusals ------------------------------
 */

static void op_list_and_unreachable_service(void** state) {
  (void)state;
  char error[512] = "";
  litegpu_service_delegate_options o =
      litegpu_service_delegate_options_default();
  o.socket_path = g_socket;
  assert_null(litegpu_service_delegate_create(&o, error, sizeof(error)));
  assert_non_null(strstr(error, "cannot reach the litegpu service at"));
  o.socket_path = NULL;
  assert_null(litegpu_service_delegate_create(&o, error, sizeof(error)));
  const pid_t pid = start_service(LG_SERVICE_CPU);
  lg_svc_client* c = lg_svc_client_connect(g_socket, error, sizeof(error));
  assert_non_null(c);
  assert_string_equal(lg_svc_client_device(c), "cpu");
  uint32_t count = 0;
  const lg_wire_op* ops = lg_svc_client_ops(c, &count);
  assert_true(count > 50);
  bool add = false, mediapipe = false, control = false;
  for (uint32_t i = 0; i < count; ++i) {
    if (ops[i].builtin_code == kTfLiteBuiltinAdd && ops[i].max_version >= 1) {
      add = true;
    }
    if (strcmp(ops[i].custom_name, "MaxUnpooling2D") == 0) mediapipe = true;
    if (ops[i].builtin_code == kTfLiteBuiltinWhile) control = true;
  }
  assert_true(add);
  assert_true(mediapipe);
  assert_false(control); /* control flow stays with the interpreter */
  /* A model the service cannot load is refused with its reason. */
  lg_svc_model_info info;
  assert_int_equal(
      lg_svc_prepare(c, "not a model", 11, &info, error, sizeof(error)), -1);
  assert_non_null(strstr(error, "cannot prepare the model"));
  lg_svc_client_close(c);
  stop_service(pid);
}

/* ---- The memory-slot cache --------------------------------------------------
 */

static void set_floats(lg_svc_pool* pool, uint64_t offset, int n, float v) {
  float* p = (float*)((uint8_t*)lg_svc_pool_data(pool) + offset);
  for (int i = 0; i < n; ++i) p[i] = v + (float)i;
}

static void check_sum(lg_svc_pool* pool, uint64_t offset, int n, float v) {
  const float* p = (const float*)((uint8_t*)lg_svc_pool_data(pool) + offset);
  for (int i = 0; i < n; ++i) {
    const float want = v + (float)i + (float)i * 0.5f;
    if (p[i] != want) fail_msg("element %d: %g, expected %g", i, p[i], want);
  }
}

static void slot_cache_and_callback(void** state) {
  (void)state;
  const pid_t pid = start_service(LG_SERVICE_CPU);
  char error[512] = "";
  lg_svc_client* c = lg_svc_client_connect(g_socket, error, sizeof(error));
  assert_non_null(c);
  size_t size = 0;
  void* model = add_model(16, &size);
  lg_svc_model_info info;
  assert_int_equal(lg_svc_prepare(c, model, size, &info, error, sizeof(error)),
                   0);
  assert_int_equal(info.num_inputs, 1);
  assert_int_equal(info.outputs[0].bytes, 64);
  lg_svc_burst* b = lg_svc_burst_create(c, info.id, 0, error, sizeof(error));
  assert_non_null(b);
  lg_svc_pool* a = lg_svc_pool_create(c, 4096, error, sizeof(error));
  lg_svc_pool* other = lg_svc_pool_create(c, 128, error, sizeof(error));
  assert_non_null(a);
  assert_non_null(other);
  lg_svc_io in = {a, 0, 64}, out = {a, 1024, 64};
  lg_svc_result result;
  /* The first use of a pool makes the service ask for it, once. */
  for (int i = 0; i < 5; ++i) {
    set_floats(a, 0, 16, (float)i);
    assert_int_equal(lg_svc_burst_execute(b, &in, 1, &out, 1, true, &result,
                                          error, sizeof(error)),
                     0);
    check_sum(a, 1024, 16, (float)i);
  }
  assert_int_equal(lg_svc_burst_slot_requests(b), 1);
  assert_true(result.has_timing);
  assert_true(result.timing.service_ns >= result.timing.device_ns);
  assert_int_equal(result.shapes[0].rank, 2);
  assert_int_equal(result.shapes[0].dims[1], 16);
  /* A second pool gets its own slot: input in one, output in the other. */
  lg_svc_io out2 = {other, 64, 64};
  assert_int_equal(lg_svc_burst_execute(b, &in, 1, &out2, 1, false, &result,
                                        error, sizeof(error)),
                   0);
  check_sum(other, 64, 16, 4.0f);
  assert_int_equal(lg_svc_burst_slot_requests(b), 2);
  /* Freeing a pool frees its slot; a new pool takes the slot again and
   * the service asks for it anew (it must not use the old mapping). */
  lg_svc_pool_destroy(a);
  lg_svc_pool* fresh = lg_svc_pool_create(c, 256, error, sizeof(error));
  lg_svc_io in3 = {fresh, 0, 64}, out3 = {fresh, 128, 64};
  set_floats(fresh, 0, 16, 10.0f);
  assert_int_equal(lg_svc_burst_execute(b, &in3, 1, &out3, 1, false, &result,
                                        error, sizeof(error)),
                   0);
  check_sum(fresh, 128, 16, 10.0f);
  assert_int_equal(lg_svc_burst_slot_requests(b), 3);
  /* Operands outside their pool, or of the wrong length: an error result,
   * and the burst goes on. */
  lg_svc_io beyond = {fresh, 250, 64}, short_in = {fresh, 0, 60};
  assert_int_equal(lg_svc_burst_execute(b, &beyond, 1, &out3, 1, false, &result,
                                        error, sizeof(error)),
                   -1);
  assert_non_null(strstr(error, "slot"));
  assert_int_equal(lg_svc_burst_execute(b, &short_in, 1, &out3, 1, false,
                                        &result, error, sizeof(error)),
                   -1);
  assert_int_equal(lg_svc_burst_execute(b, &in3, 1, &out3, 0, false, &result,
                                        error, sizeof(error)),
                   -1);
  assert_non_null(strstr(error, "outputs"));
  assert_int_equal(lg_svc_burst_execute(b, &in3, 1, &out3, 1, false, &result,
                                        error, sizeof(error)),
                   0);
  /* The per-call path over the same model. */
  set_floats(fresh, 0, 16, 20.0f);
  assert_int_equal(lg_svc_execute(c, info.id, &in3, 1, &out3, 1, true, &result,
                                  error, sizeof(error)),
                   0);
  check_sum(fresh, 128, 16, 20.0f);
  assert_true(result.has_timing);
  assert_int_equal(lg_svc_execute(c, info.id, &beyond, 1, &out3, 1, false,
                                  &result, error, sizeof(error)),
                   -1);
  assert_non_null(strstr(error, "pool of 256 bytes"));
  assert_int_equal(lg_svc_execute(c, 999, &in3, 1, &out3, 1, false, &result,
                                  error, sizeof(error)),
                   -1);
  assert_non_null(strstr(error, "no model 999"));
  /* Releasing the model while the burst lives keeps it for the burst. */
  assert_int_equal(lg_svc_release_model(c, info.id, error, sizeof(error)), 0);
  assert_int_equal(lg_svc_burst_execute(b, &in3, 1, &out3, 1, false, &result,
                                        error, sizeof(error)),
                   0);
  assert_int_equal(lg_svc_release_model(c, info.id, error, sizeof(error)), -1);
  lg_svc_burst_destroy(b);
  lg_svc_pool_destroy(fresh);
  lg_svc_pool_destroy(other);
  lg_svc_client_close(c);
  free(model);
  stop_service(pid);
}

/* Garbage written straight into a burst's request queue: each message
 * gets an error result naming the problem, and the next real request
 * works. */
static void corrupt_burst_requests_get_error_results(void** state) {
  (void)state;
  const pid_t pid = start_service(LG_SERVICE_CPU);
  char error[512] = "";
  lg_svc_client* c = lg_svc_client_connect(g_socket, error, sizeof(error));
  size_t size = 0;
  void* model = add_model(4, &size);
  lg_svc_model_info info;
  assert_int_equal(lg_svc_prepare(c, model, size, &info, error, sizeof(error)),
                   0);
  lg_svc_burst* b = lg_svc_burst_create(c, info.id, 0, error, sizeof(error));
  lg_svc_pool* pool = lg_svc_pool_create(c, 64, error, sizeof(error));
  lg_svc_io in = {pool, 0, 16}, out = {pool, 32, 16};
  lg_svc_result result;
  assert_int_equal(lg_svc_burst_execute(b, &in, 1, &out, 1, false, &result,
                                        error, sizeof(error)),
                   0);
  lg_fmq* requests = lg_svc_burst_request_queue(b);
  lg_burst_request good = {.serial = 1000, .num_inputs = 1, .num_outputs = 1};
  good.operands[0] = (lg_burst_operand){0, 0, 16};
  good.operands[1] = (lg_burst_operand){0, 32, 16};
  for (int variant = 0; variant < 6; ++variant) {
    lg_burst_datum d[8];
    const int n = lg_burst_request_encode(&good, d, 8);
    assert_int_equal(n, 3);
    uint32_t count = 3;
    switch (variant) {
      case 0:
        d[0].tag = 0x12345678u;
        break; /* not a request */
      case 1:
        d[0].w[0] = 100000;
        break; /* longer than the ring */
      case 2:
        d[1].tag = LG_BURST_TAG_RESULT;
        break; /* not an operand */
      case 3:
        d[2].w[1] = 40;
        break; /* an unknown slot */
      case 4:
        d[1].w[2] = 60;
        break; /* beyond the pool */
      case 5:
        d[0].w[2] = 2;
        d[0].w[0] = 4;
        d[3] = d[2];
        d[3].w[0] = 2;
        count = 4;
        break; /* 2 inputs */
    }
    assert_int_equal(lg_fmq_write(requests, d, count), LG_FMQ_OK);
    /* The next real execution sees the error result first (a stale
     * serial, dropped), then its own. */
    assert_int_equal(lg_svc_burst_execute(b, &in, 1, &out, 1, false, &result,
                                          error, sizeof(error)),
                     0);
  }
  lg_svc_burst_destroy(b);
  lg_svc_pool_destroy(pool);
  lg_svc_client_close(c);
  free(model);
  stop_service(pid);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(op_list_and_unreachable_service, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(slot_cache_and_callback, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(corrupt_burst_requests_get_error_results,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(cpu_service_per_call_matches_the_cpu,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(cpu_service_burst_matches_the_cpu,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(gpu_service_matches_the_cpu, make_dir,
                                      remove_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
