/* The service's prepared models (service_internal.h): a .tflite from a
 * sealed memfd, mapped read-only, and its interpreter on the GPU delegate
 * (CPU kernels for what the GPU leaves) or on the CPU kernels. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "delegates/service/service_internal.h"
#include "delegates/service/shm.h"
#include "litegpu/gpu_delegate.h"
#include "litegpu/mediapipe_ops.h"
#include "tensorflow/lite/c/c_api_experimental.h"

void svc_log(const lg_service_options* options, const char* format, ...) {
  if (options == NULL || !options->verbose) return;
  va_list args;
  va_start(args, format);
  fprintf(stderr, "litegpu_service: ");
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
}

/* The interpreter's messages during one call, joined with "; ". */
static void collect(void* user_data, const char* format, va_list args) {
  svc_model* m = user_data;
  size_t used = strlen(m->messages);
  if (used + 3 >= sizeof(m->messages)) return;
  if (used > 0) {
    memcpy(m->messages + used, "; ", 3);
    used += 2;
  }
  vsnprintf(m->messages + used, sizeof(m->messages) - used, format, args);
}

static void reason(svc_model* m, char* error, size_t size, const char* what) {
  snprintf(error, size, "%s%s%s", what, m->messages[0] ? ": " : "",
           m->messages);
}

static int describe(const TfLiteTensor* t, lg_wire_tensor* out, char* error,
                    size_t size) {
  memset(out, 0, sizeof(*out));
  const int rank = t->dims ? t->dims->size : 0;
  if (rank > LG_WIRE_MAX_RANK) {
    snprintf(error, size, "tensor %s has rank %d, above %d",
             t->name ? t->name : "", rank, LG_WIRE_MAX_RANK);
    return -1;
  }
  out->type = (int32_t)t->type;
  out->rank = (uint32_t)rank;
  for (int i = 0; i < rank; ++i) out->dims[i] = t->dims->data[i];
  out->bytes = t->bytes;
  return 0;
}

static int32_t build(const lg_service_options* o, svc_model* m, char* error,
                     size_t size) {
  m->model = TfLiteModelCreateWithErrorReporter(m->map, m->size, collect, m);
  if (m->model == NULL) {
    reason(m, error, size, "the model does not load");
    return LG_WIRE_UNSUPPORTED;
  }
  TfLiteInterpreterOptions* opts = TfLiteInterpreterOptionsCreate();
  if (opts == NULL) return LG_WIRE_OUT_OF_MEMORY;
  TfLiteInterpreterOptionsSetErrorReporter(opts, collect, m);
  TfLiteInterpreterOptionsSetNumThreads(opts, o->num_threads);
  litegpu_add_mediapipe_ops(opts);
  if (o->kind == LG_SERVICE_GPU) {
    litegpu_gpu_delegate_options g = litegpu_gpu_delegate_options_default();
    g.backend = (litegpu_gpu_backend)o->gpu_backend;
    char why[512] = "";
    m->gpu = litegpu_gpu_delegate_create(&g, why, sizeof(why));
    if (m->gpu == NULL) {
      TfLiteInterpreterOptionsDelete(opts);
      snprintf(error, size, "the GPU delegate: %s", why);
      return LG_WIRE_DEVICE_ERROR;
    }
    TfLiteInterpreterOptionsAddDelegate(opts, m->gpu);
    /* What the GPU cannot take runs on the service's CPU kernels. */
    TfLiteInterpreterOptionsSetEnableDelegateFallback(opts, true);
  }
  m->interpreter = TfLiteInterpreterCreate(m->model, opts);
  TfLiteInterpreterOptionsDelete(opts);
  if (m->interpreter == NULL) {
    reason(m, error, size, "the interpreter cannot be created");
    return LG_WIRE_UNSUPPORTED;
  }
  if (TfLiteInterpreterAllocateTensors(m->interpreter) != kTfLiteOk) {
    reason(m, error, size, "AllocateTensors failed");
    return LG_WIRE_UNSUPPORTED;
  }
  const int32_t ni = TfLiteInterpreterGetInputTensorCount(m->interpreter);
  const int32_t no = TfLiteInterpreterGetOutputTensorCount(m->interpreter);
  if (ni > LG_WIRE_MAX_IO || no > LG_WIRE_MAX_IO) {
    snprintf(error, size, "%d inputs and %d outputs: at most %d each", ni, no,
             LG_WIRE_MAX_IO);
    return LG_WIRE_UNSUPPORTED;
  }
  m->num_inputs = (uint32_t)ni;
  m->num_outputs = (uint32_t)no;
  for (int32_t i = 0; i < ni; ++i) {
    if (describe(TfLiteInterpreterGetInputTensor(m->interpreter, i),
                 &m->inputs[i], error, size) != 0) {
      return LG_WIRE_UNSUPPORTED;
    }
  }
  for (int32_t i = 0; i < no; ++i) {
    if (describe(TfLiteInterpreterGetOutputTensor(m->interpreter, i),
                 &m->outputs[i], error, size) != 0) {
      return LG_WIRE_UNSUPPORTED;
    }
  }
  return LG_WIRE_OK;
}

int32_t svc_model_create(const lg_service_options* o, int fd, uint64_t size,
                         svc_model** out, char* error, size_t error_size) {
  *out = NULL;
  size_t real = 0;
  /* Sealed against writes too: the model is verified once, then read in
   * place for its life. */
  if (lg_shm_check(fd, (size_t)size, true, &real, error, error_size) != 0) {
    return LG_WIRE_INVALID_ARGUMENT;
  }
  svc_model* m = calloc(1, sizeof(*m));
  if (m == NULL) return LG_WIRE_OUT_OF_MEMORY;
  pthread_mutex_init(&m->run_lock, NULL);
  m->delay_ms = o->test_execute_delay_ms;
  m->size = (size_t)size;
  m->map = lg_shm_map(fd, m->size, false, error, error_size);
  if (m->map == NULL) {
    svc_model_destroy(m);
    return LG_WIRE_OUT_OF_MEMORY;
  }
  const int32_t status = build(o, m, error, error_size);
  if (status != LG_WIRE_OK) {
    svc_model_destroy(m);
    return status;
  }
  m->messages[0] = '\0';
  *out = m;
  return LG_WIRE_OK;
}

void svc_model_destroy(svc_model* m) {
  if (m == NULL) return;
  TfLiteInterpreterDelete(m->interpreter);
  if (m->gpu != NULL) TfLiteGpuDelegateV2Delete(m->gpu);
  TfLiteModelDelete(m->model);
  lg_shm_unmap(m->map, m->size);
  pthread_mutex_destroy(&m->run_lock);
  free(m);
}

int32_t svc_model_check_counts(const svc_model* m, uint32_t num_inputs,
                               uint32_t num_outputs, char* error,
                               size_t error_size) {
  if (num_inputs != m->num_inputs || num_outputs != m->num_outputs) {
    snprintf(error, error_size,
             "the request has %u inputs and %u outputs; model %u has %u "
             "and %u",
             num_inputs, num_outputs, m->id, m->num_inputs, m->num_outputs);
    return LG_WIRE_INVALID_ARGUMENT;
  }
  return LG_WIRE_OK;
}

int32_t svc_model_run(svc_model* m, const uint8_t* const* inputs,
                      uint8_t* const* outputs, lg_wire_shape* shapes,
                      uint64_t* device_ns, char* error, size_t error_size) {
  pthread_mutex_lock(&m->run_lock);
  m->messages[0] = '\0';
  if (m->delay_ms > 0) usleep(m->delay_ms * 1000u);
  for (uint32_t i = 0; i < m->num_inputs; ++i) {
    TfLiteTensor* t = TfLiteInterpreterGetInputTensor(m->interpreter, (int)i);
    if (t->bytes > 0) memcpy(t->data.raw, inputs[i], t->bytes);
  }
  const uint64_t start = lg_now_ns();
  const TfLiteStatus s = TfLiteInterpreterInvoke(m->interpreter);
  *device_ns = lg_now_ns() - start;
  int32_t status = LG_WIRE_OK;
  if (s != kTfLiteOk) {
    reason(m, error, error_size, "Invoke failed");
    status = LG_WIRE_DEVICE_ERROR;
  }
  for (uint32_t i = 0; i < m->num_outputs && status == LG_WIRE_OK; ++i) {
    const TfLiteTensor* t =
        TfLiteInterpreterGetOutputTensor(m->interpreter, (int)i);
    if (t->bytes != m->outputs[i].bytes) {
      snprintf(error, error_size,
               "output %u changed size (%zu bytes, prepared %llu)", i, t->bytes,
               (unsigned long long)m->outputs[i].bytes);
      status = LG_WIRE_DEVICE_ERROR;
      break;
    }
    if (t->bytes > 0) memcpy(outputs[i], t->data.raw, t->bytes);
    lg_wire_tensor now;
    if (describe(t, &now, error, error_size) != 0) {
      status = LG_WIRE_DEVICE_ERROR;
      break;
    }
    shapes[i].rank = now.rank;
    memcpy(shapes[i].dims, now.dims, sizeof(shapes[i].dims));
  }
  pthread_mutex_unlock(&m->run_lock);
  return status;
}
