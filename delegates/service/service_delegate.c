/* The service delegate (include/litegpu/service_delegate.h): the delegate
 * kit over the service's op list; each partition kernel is a prepared
 * model in the service, fed through a shared-memory pool per call or
 * through a burst. */
#include "litegpu/service_delegate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/service/partition_model.h"
#include "delegates/service/service_client.h"
#include "partition/delegate_kit.h"
#include "tensorflow/lite/builtin_ops.h"

#define LG_SERVICE_DELEGATE_NAME "LiteGpuServiceDelegate"
#define POOL_ALIGN 64u

typedef struct service_delegate {
  TfLiteDelegate base; /* first: the TfLiteDelegate* converts back */
  litegpu_service_delegate_options options;
  char* socket_path;
  lg_svc_client* client;
  lg_kit_op* ops;
  lg_delegate_kit kit;
} service_delegate;

typedef struct service_partition {
  service_delegate* sd;
  lg_svc_model_info info;
  bool prepared; /* the model exists in the service */
  lg_partition_model model;
  lg_svc_pool* pool;
  lg_svc_io in[LG_WIRE_MAX_IO];
  lg_svc_io out[LG_WIRE_MAX_IO];
  lg_svc_burst* burst;
} service_partition;

static service_delegate* from_base(const TfLiteDelegate* d) {
  return (service_delegate*)d;
}

/* ---- Partition kernel -----------------------------------------------------
 */

static void partition_free(service_partition* p) {
  if (p == NULL) return;
  lg_svc_client* c = p->sd->client;
  lg_svc_pool_destroy(p->pool); /* frees its slot in the burst */
  lg_svc_burst_destroy(p->burst);
  char ignored[256];
  if (p->prepared && lg_svc_client_alive(c)) {
    lg_svc_release_model(c, p->info.id, ignored, sizeof(ignored));
  }
  lg_partition_model_free(&p->model);
  free(p);
}

/* The service's view of the model must be the partition's: the same
 * inputs and outputs, of the same sizes. */
static int check_info(TfLiteContext* context, const service_partition* p,
                      char* error, size_t size) {
  const lg_partition_model* m = &p->model;
  if (p->info.num_inputs != (uint32_t)m->num_inputs ||
      p->info.num_outputs != (uint32_t)m->num_outputs) {
    snprintf(error, size,
             "the service sees %u inputs and %u outputs, the partition has "
             "%d and %d",
             p->info.num_inputs, p->info.num_outputs, m->num_inputs,
             m->num_outputs);
    return -1;
  }
  for (int i = 0; i < m->num_inputs + m->num_outputs; ++i) {
    const bool is_input = i < m->num_inputs;
    const int k = is_input ? i : i - m->num_inputs;
    const int t = is_input ? m->inputs[k] : m->outputs[k];
    const uint64_t theirs =
        is_input ? p->info.inputs[k].bytes : p->info.outputs[k].bytes;
    if (theirs != context->tensors[t].bytes) {
      snprintf(error, size, "%s %d: %llu bytes in the service, %zu here",
               is_input ? "input" : "output", k, (unsigned long long)theirs,
               context->tensors[t].bytes);
      return -1;
    }
  }
  return 0;
}

/* One pool holds every input and output, each 64-byte aligned. */
static int make_pool(TfLiteContext* context, service_partition* p, char* error,
                     size_t size) {
  const lg_partition_model* m = &p->model;
  uint64_t offset = 0;
  for (int i = 0; i < m->num_inputs + m->num_outputs; ++i) {
    const bool is_input = i < m->num_inputs;
    const int k = is_input ? i : i - m->num_inputs;
    const int t = is_input ? m->inputs[k] : m->outputs[k];
    lg_svc_io* io = is_input ? &p->in[k] : &p->out[k];
    io->offset = offset;
    io->length = context->tensors[t].bytes;
    offset += (io->length + POOL_ALIGN - 1) / POOL_ALIGN * POOL_ALIGN;
  }
  p->pool = lg_svc_pool_create(p->sd->client, (size_t)offset, error, size);
  if (p->pool == NULL) return -1;
  for (int i = 0; i < m->num_inputs; ++i) p->in[i].pool = p->pool;
  for (int i = 0; i < m->num_outputs; ++i) p->out[i].pool = p->pool;
  return 0;
}

static void* kernel_init(TfLiteContext* context, const char* buffer,
                         size_t length) {
  (void)length;
  const TfLiteDelegateParams* params = (const TfLiteDelegateParams*)buffer;
  service_delegate* sd = from_base(params->delegate);
  char error[512] = "";
  service_partition* p = calloc(1, sizeof(*p));
  if (p == NULL) {
    context->ReportError(context, "service delegate: out of memory");
    return NULL;
  }
  p->sd = sd;
  int rc = lg_partition_model_write(context, params, &p->model, error,
                                    sizeof(error));
  if (rc == 0 && (p->model.num_inputs > LG_WIRE_MAX_IO ||
                  p->model.num_outputs > LG_WIRE_MAX_IO)) {
    snprintf(error, sizeof(error), "a partition of %d inputs and %d outputs",
             p->model.num_inputs, p->model.num_outputs);
    rc = -1;
  }
  if (rc == 0) {
    rc = lg_svc_prepare(sd->client, p->model.data, p->model.size, &p->info,
                        error, sizeof(error));
    p->prepared = rc == 0;
  }
  if (rc == 0) rc = check_info(context, p, error, sizeof(error));
  if (rc == 0) rc = make_pool(context, p, error, sizeof(error));
  if (rc == 0 && sd->options.burst) {
    const uint64_t spin = (uint64_t)sd->options.burst_spin_us * 1000u;
    p->burst =
        lg_svc_burst_create(sd->client, p->info.id, spin, error, sizeof(error));
    rc = p->burst ? 0 : -1;
  }
  if (rc != 0) {
    context->ReportError(context, "service delegate: %s", error);
    partition_free(p);
    return NULL;
  }
  /* The .tflite is in the service now; keep only the tensor lists. */
  free(p->model.data);
  p->model.data = NULL;
  return p;
}

static void kernel_free(TfLiteContext* context, void* data) {
  (void)context;
  partition_free(data);
}

static TfLiteStatus kernel_prepare(TfLiteContext* context, TfLiteNode* node) {
  service_partition* p = node->user_data;
  if (p == NULL) {
    context->ReportError(context,
                         "service delegate: the partition kernel has no "
                         "state (Init failed)");
    return kTfLiteError;
  }
  char error[256];
  if (check_info(context, p, error, sizeof(error)) != 0) {
    context->ReportError(context, "service delegate: %s", error);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static bool same_shape(const lg_wire_shape* s, const TfLiteIntArray* dims) {
  if (dims == NULL || (int)s->rank != dims->size) return false;
  for (int i = 0; i < dims->size; ++i) {
    if (s->dims[i] != dims->data[i]) return false;
  }
  return true;
}

static TfLiteStatus kernel_invoke(TfLiteContext* context, TfLiteNode* node) {
  service_partition* p = node->user_data;
  const lg_partition_model* m = &p->model;
  uint8_t* pool = lg_svc_pool_data(p->pool);
  for (int i = 0; i < m->num_inputs; ++i) {
    const TfLiteTensor* t = &context->tensors[m->inputs[i]];
    if (t->bytes > 0) memcpy(pool + p->in[i].offset, t->data.raw, t->bytes);
  }
  char error[512];
  lg_svc_result result;
  const uint32_t ni = (uint32_t)m->num_inputs, no = (uint32_t)m->num_outputs;
  const int rc =
      p->burst ? lg_svc_burst_execute(p->burst, p->in, ni, p->out, no, false,
                                      &result, error, sizeof(error))
               : lg_svc_execute(p->sd->client, p->info.id, p->in, ni, p->out,
                                no, false, &result, error, sizeof(error));
  if (rc != 0) {
    context->ReportError(context, "service delegate: %s", error);
    return kTfLiteError;
  }
  for (int i = 0; i < m->num_outputs; ++i) {
    TfLiteTensor* t = &context->tensors[m->outputs[i]];
    if (!same_shape(&result.shapes[i], t->dims)) {
      context->ReportError(context,
                           "service delegate: output %d came back in another "
                           "shape (rank %u)",
                           i, result.shapes[i].rank);
      return kTfLiteError;
    }
    if (t->bytes > 0) memcpy(t->data.raw, pool + p->out[i].offset, t->bytes);
  }
  return kTfLiteOk;
}

/* ---- The delegate ---------------------------------------------------------
 */

static bool node_check(void* user_data, TfLiteContext* context,
                       const TfLiteNode* node,
                       const TfLiteRegistration* registration, char* reason,
                       size_t reason_size) {
  (void)user_data;
  return lg_partition_model_supports(context, node, registration, reason,
                                     reason_size);
}

static TfLiteStatus delegate_prepare(TfLiteContext* context,
                                     TfLiteDelegate* delegate) {
  service_delegate* sd = from_base(delegate);
  return lg_delegate_kit_prepare(&sd->kit, context, delegate);
}

/* The kit's table: every op the service lists, at its maximum version. */
static int build_ops(service_delegate* sd) {
  uint32_t count = 0;
  const lg_wire_op* ops = lg_svc_client_ops(sd->client, &count);
  sd->ops = calloc(count ? count : 1, sizeof(lg_kit_op));
  if (sd->ops == NULL) return -1;
  for (uint32_t i = 0; i < count; ++i) {
    sd->ops[i] = (lg_kit_op){ops[i].builtin_code,
                             ops[i].custom_name[0] ? ops[i].custom_name : NULL,
                             ops[i].max_version, NULL};
  }
  sd->kit.ops = sd->ops;
  sd->kit.num_ops = (int)count;
  return 0;
}

litegpu_service_delegate_options litegpu_service_delegate_options_default(
    void) {
  litegpu_service_delegate_options o;
  memset(&o, 0, sizeof(o));
  return o;
}

static void report(char* error, size_t size, const char* message) {
  if (error != NULL && size > 0) {
    snprintf(error, size, "%s", message);
  } else {
    fprintf(stderr, "service delegate: %s\n", message);
  }
}

TfLiteDelegate* litegpu_service_delegate_create(
    const litegpu_service_delegate_options* options, char* error,
    size_t error_size) {
  char why[512] = "";
  const litegpu_service_delegate_options o =
      options ? *options : litegpu_service_delegate_options_default();
  if (o.socket_path == NULL || o.socket_path[0] == '\0') {
    report(error, error_size, "service delegate: no socket_path");
    return NULL;
  }
  service_delegate* sd = calloc(1, sizeof(*sd));
  if (sd == NULL) {
    report(error, error_size, "service delegate: out of memory");
    return NULL;
  }
  sd->options = o;
  sd->socket_path = strdup(o.socket_path);
  sd->options.socket_path = sd->socket_path;
  sd->client = lg_svc_client_connect(o.socket_path, why, sizeof(why));
  if (sd->client == NULL || sd->socket_path == NULL || build_ops(sd) != 0) {
    report(error, error_size, why[0] ? why : "service delegate: out of memory");
    litegpu_service_delegate_delete(&sd->base);
    return NULL;
  }
  lg_svc_client_set_execute_timeout(sd->client, o.execute_timeout_ms);
  sd->base = TfLiteDelegateCreate();
  sd->base.data_ = sd;
  sd->base.Prepare = delegate_prepare;
  sd->kit.name = LG_SERVICE_DELEGATE_NAME;
  sd->kit.report_name = "service delegate";
  sd->kit.report_target = "litegpu service";
  sd->kit.node_check = node_check;
  sd->kit.max_delegated_partitions = o.max_delegated_partitions;
  sd->kit.min_nodes_per_partition = o.min_nodes_per_partition;
  sd->kit.kernel.init = kernel_init;
  sd->kit.kernel.free = kernel_free;
  sd->kit.kernel.prepare = kernel_prepare;
  sd->kit.kernel.invoke = kernel_invoke;
  sd->kit.kernel.version = 1;
  return &sd->base;
}

void litegpu_service_delegate_delete(TfLiteDelegate* delegate) {
  if (delegate == NULL) return;
  service_delegate* sd = from_base(delegate);
  lg_delegate_kit_release(&sd->kit);
  lg_svc_client_close(sd->client);
  free(sd->ops);
  free(sd->socket_path);
  free(sd);
}

int litegpu_service_delegate_num_partitions(const TfLiteDelegate* delegate) {
  return delegate == NULL ? -1 : from_base(delegate)->kit.num_partitions;
}

const char* litegpu_service_delegate_device(const TfLiteDelegate* delegate) {
  return delegate == NULL ? NULL
                          : lg_svc_client_device(from_base(delegate)->client);
}
