/* Resource variables (resource_variables.h). */
#include "runtime/resource_variables.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/subgraph.h"
#include "tensorflow/lite/c/builtin_op_data.h"

void lg_resources_release(lg_resources* r) {
  for (int32_t i = 0; i < r->num_variables; ++i) {
    TfLiteIntArrayFree(r->variables[i].dims);
    free(r->variables[i].data);
  }
  free(r->variables);
  lg_hashtables_release(r);
  free(r->containers);
  free(r->shared_names);
  memset(r, 0, sizeof(*r));
}

static bool same_string(const char* a, const char* b) {
  return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The id of (container, shared_name), made on first use. */
static TfLiteStatus resource_id(lg_resources* r, const char* container,
                                const char* shared_name, int32_t* id) {
  for (int32_t i = 0; i < r->num_ids; ++i) {
    if (same_string(r->containers[i], container) &&
        same_string(r->shared_names[i], shared_name)) {
      *id = i;
      return kTfLiteOk;
    }
  }
  if (r->num_ids == r->ids_capacity) {
    const int32_t capacity = r->ids_capacity ? 2 * r->ids_capacity : 4;
    const char** c = realloc(r->containers, sizeof(char*) * (size_t)capacity);
    if (c == NULL) return kTfLiteError;
    r->containers = c;
    const char** n = realloc(r->shared_names, sizeof(char*) * (size_t)capacity);
    if (n == NULL) return kTfLiteError;
    r->shared_names = n;
    r->ids_capacity = capacity;
  }
  r->containers[r->num_ids] = container;
  r->shared_names[r->num_ids] = shared_name;
  *id = r->num_ids++;
  return kTfLiteOk;
}

static lg_resource_variable* find_variable(lg_resources* r, int32_t id) {
  for (int32_t i = 0; i < r->num_variables; ++i) {
    if (r->variables[i].id == id) return &r->variables[i];
  }
  return NULL;
}

static lg_resource_variable* add_variable(lg_resources* r, int32_t id) {
  if (r->num_variables == r->variables_capacity) {
    const int32_t capacity =
        r->variables_capacity ? 2 * r->variables_capacity : 4;
    lg_resource_variable* v =
        realloc(r->variables, sizeof(*v) * (size_t)capacity);
    if (v == NULL) return NULL;
    r->variables = v;
    r->variables_capacity = capacity;
  }
  lg_resource_variable* v = &r->variables[r->num_variables++];
  memset(v, 0, sizeof(*v));
  v->id = id;
  return v;
}

lg_resources* lg_resources_of_kernel(TfLiteContext* context, const char* op) {
  lg_subgraph* s = lg_subgraph_of_kernel(context, op);
  return s != NULL ? &s->interpreter->resources : NULL;
}

TfLiteStatus lg_resource_read_id(TfLiteContext* context, const TfLiteNode* node,
                                 const char* op, int32_t* id) {
  const TfLiteTensor* handle;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &handle));
  if (handle->data.raw_const == NULL || handle->bytes < sizeof(int32_t)) {
    lg_kernel_log(context, op, "its resource input holds no resource id");
    return kTfLiteError;
  }
  memcpy(id, handle->data.raw_const, sizeof(*id));
  return kTfLiteOk;
}

TfLiteStatus lg_resource_check_input(TfLiteContext* context,
                                     const TfLiteNode* node, const char* op) {
  const TfLiteTensor* handle;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &handle));
  if (handle->type != kTfLiteResource) {
    lg_kernel_log(context, op, "input 0 is %s, expected a RESOURCE tensor",
                  TfLiteTypeGetName(handle->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* ---- VAR_HANDLE ---------------------------------------------------------- */

static TfLiteStatus var_handle_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  static const char kOp[] = "VAR_HANDLE";
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, kOp, 0, 0, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, kOp, 0, &output));
  if (output->type != kTfLiteResource) {
    lg_kernel_log(context, kOp, "output is %s, expected a RESOURCE tensor",
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  if (node->builtin_data == NULL) {
    lg_kernel_log(context, kOp, "the node has no VarHandleOptions");
    return kTfLiteError;
  }
  return context->ResizeTensor(context, output, TfLiteIntArrayCreate(0));
}

static TfLiteStatus var_handle_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  const TfLiteVarHandleParams* params = node->builtin_data;
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  int32_t id = 0;
  lg_resources* r = lg_resources_of_kernel(context, "VAR_HANDLE");
  if (r == NULL) return kTfLiteError;
  if (resource_id(r, params->container, params->shared_name, &id) !=
      kTfLiteOk) {
    lg_kernel_log(context, "VAR_HANDLE", "out of memory");
    return kTfLiteError;
  }
  memcpy(output->data.raw, &id, sizeof(id));
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(VAR_HANDLE, NULL, NULL, var_handle_prepare,
                       var_handle_invoke)

/* ---- ASSIGN_VARIABLE ----------------------------------------------------- */

static TfLiteStatus assign_variable_prepare(TfLiteContext* context,
                                            TfLiteNode* node) {
  static const char kOp[] = "ASSIGN_VARIABLE";
  const TfLiteTensor* value;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, kOp, 2, 2, 0));
  TF_LITE_ENSURE_STATUS(lg_resource_check_input(context, node, kOp));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, kOp, 1, &value));
  if (value->type == kTfLiteString || value->type == kTfLiteResource ||
      value->type == kTfLiteVariant) {
    lg_kernel_log(context, kOp, "a value of type %s cannot be assigned",
                  TfLiteTypeGetName(value->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus assign_variable_invoke(TfLiteContext* context,
                                           TfLiteNode* node) {
  static const char kOp[] = "ASSIGN_VARIABLE";
  int32_t id = 0;
  TF_LITE_ENSURE_STATUS(lg_resource_read_id(context, node, kOp, &id));
  const TfLiteTensor* value = &context->tensors[node->inputs->data[1]];
  lg_resources* r = lg_resources_of_kernel(context, kOp);
  if (r == NULL) return kTfLiteError;
  lg_resource_variable* v = find_variable(r, id);
  if (v == NULL) v = add_variable(r, id);
  TfLiteIntArray* dims = TfLiteIntArrayCopy(value->dims);
  void* data = v != NULL && dims != NULL
                   ? realloc(v->data, value->bytes ? value->bytes : 1)
                   : NULL;
  if (data == NULL) {
    TfLiteIntArrayFree(dims);
    lg_kernel_log(context, kOp, "out of memory for a %zu-byte variable",
                  value->bytes);
    return kTfLiteError;
  }
  if (value->bytes > 0) memcpy(data, value->data.raw_const, value->bytes);
  TfLiteIntArrayFree(v->dims);
  v->dims = dims;
  v->data = data;
  v->bytes = value->bytes;
  v->type = value->type;
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(ASSIGN_VARIABLE, NULL, NULL, assign_variable_prepare,
                       assign_variable_invoke)

/* ---- READ_VARIABLE ------------------------------------------------------- */

static TfLiteStatus read_variable_prepare(TfLiteContext* context,
                                          TfLiteNode* node) {
  static const char kOp[] = "READ_VARIABLE";
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, kOp, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_resource_check_input(context, node, kOp));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, kOp, 0, &output));
  /* The shape is the variable's, known when it is read. */
  lg_kernel_set_dynamic(output);
  return kTfLiteOk;
}

static TfLiteStatus read_variable_invoke(TfLiteContext* context,
                                         TfLiteNode* node) {
  static const char kOp[] = "READ_VARIABLE";
  int32_t id = 0;
  TF_LITE_ENSURE_STATUS(lg_resource_read_id(context, node, kOp, &id));
  lg_resources* r = lg_resources_of_kernel(context, kOp);
  if (r == NULL) return kTfLiteError;
  const lg_resource_variable* v = find_variable(r, id);
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  if (v == NULL) {
    lg_kernel_log(context, kOp,
                  "resource variable %d is read before any ASSIGN_VARIABLE "
                  "gave it a value",
                  (int)id);
    return kTfLiteError;
  }
  if (v->type != output->type) {
    lg_kernel_log(context, kOp,
                  "resource variable %d holds %s, the output is %s", (int)id,
                  TfLiteTypeGetName(v->type), TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  TfLiteIntArray* dims = TfLiteIntArrayCopy(v->dims);
  if (dims == NULL) return kTfLiteError;
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, dims));
  if (v->bytes > 0) memcpy(output->data.raw, v->data, v->bytes);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(READ_VARIABLE, NULL, NULL, read_variable_prepare,
                       read_variable_invoke)
