/* OpenCL device discovery and device info for the OpenCL backend. The
 * choice rule is documented in opencl_backend.h. */
#include "delegates/opencl/opencl_device.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/opencl/opencl_internal.h"

/* clGetDeviceInfo through the fault-injection hook. */
static cl_int lg_device_info(cl_device_id device, cl_device_info param,
                             size_t size, void* value, size_t* size_ret) {
  if (lg_cl_inject("clGetDeviceInfo")) return CL_INVALID_DEVICE;
  return clGetDeviceInfo(device, param, size, value, size_ret);
}

/* Parses "OpenCL <major>.<minor> ..." into major * 10 + minor; 0 if not. */
static int lg_parse_cl_version(const char* text) {
  int major = 0, minor = 0;
  if (sscanf(text, "OpenCL %d.%d", &major, &minor) != 2) return 0;
  return major * 10 + minor;
}

/* Appends the devices of one platform to `list` (grown as needed). */
static TfLiteStatus lg_list_platform_devices(cl_platform_id platform,
                                             lg_cl_device_entry** list,
                                             size_t* count,
                                             lg_gpu_error* error) {
  cl_device_id* ids = NULL;
  cl_uint n = 0;
  const char* call = "clGetDeviceIDs";
  cl_int err = lg_cl_inject("clGetDeviceIDs")
                   ? CL_INVALID_PLATFORM
                   : clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
  if (err == CL_DEVICE_NOT_FOUND) return kTfLiteOk; /* an empty platform */
  if (err != CL_SUCCESS) goto fail;
  if (n == 0) return kTfLiteOk;
  ids = calloc(n, sizeof(*ids));
  lg_cl_device_entry* grown = realloc(*list, (*count + n) * sizeof(**list));
  if (ids == NULL || grown == NULL) {
    if (grown != NULL) *list = grown;
    call = "calloc";
    err = CL_OUT_OF_HOST_MEMORY;
    goto fail;
  }
  *list = grown;
  err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, ids, NULL);
  if (err != CL_SUCCESS) goto fail;
  for (cl_uint i = 0; i < n; ++i) {
    cl_device_type type = 0;
    char version[128] = {0};
    call = "clGetDeviceInfo";
    err = lg_device_info(ids[i], CL_DEVICE_TYPE, sizeof(type), &type, NULL);
    if (err != CL_SUCCESS) goto fail;
    err = lg_device_info(ids[i], CL_DEVICE_VERSION, sizeof(version) - 1,
                         version, NULL);
    if (err != CL_SUCCESS) goto fail;
    if (lg_parse_cl_version(version) < 12) continue; /* needs OpenCL 1.2 */
    (*list)[*count].platform = platform;
    (*list)[*count].device = ids[i];
    (*list)[*count].is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    ++*count;
  }
  free(ids);
  return kTfLiteOk;
fail:
  free(ids);
  lg_cl_fail(error, call, err, "listing OpenCL devices");
  return kTfLiteError;
}

static TfLiteStatus lg_cl_pick_device_locked(int device_index,
                                             cl_platform_id* platform,
                                             cl_device_id* device,
                                             lg_gpu_error* error) {
  cl_platform_id* platforms = NULL;
  lg_cl_device_entry* list = NULL;
  size_t count = 0;
  cl_uint num_platforms = 0;
  char why[512];
  if (!lg_cl_api_load(why, sizeof(why))) {
    lg_gpu_error_set(error, "%s", why);
    return kTfLiteError;
  }
  cl_int err = lg_cl_inject("clGetPlatformIDs")
                   ? CL_OUT_OF_HOST_MEMORY
                   : clGetPlatformIDs(0, NULL, &num_platforms);
  if (err == CL_PLATFORM_NOT_FOUND_KHR ||
      (err == CL_SUCCESS && num_platforms == 0)) {
    lg_gpu_error_set(error,
                     "clGetPlatformIDs found no OpenCL platform (is an "
                     "ICD such as pocl-opencl-icd or a GPU driver installed?)");
    goto fail;
  }
  if (err != CL_SUCCESS) {
    lg_cl_fail(error, "clGetPlatformIDs", err, NULL);
    goto fail;
  }
  platforms = calloc(num_platforms, sizeof(*platforms));
  if (platforms == NULL) {
    lg_gpu_error_set(error, "out of host memory listing OpenCL platforms");
    goto fail;
  }
  err = clGetPlatformIDs(num_platforms, platforms, NULL);
  if (err != CL_SUCCESS) {
    lg_cl_fail(error, "clGetPlatformIDs", err, NULL);
    goto fail;
  }
  for (cl_uint p = 0; p < num_platforms; ++p) {
    if (lg_list_platform_devices(platforms[p], &list, &count, error) !=
        kTfLiteOk) {
      goto fail;
    }
  }
  /* GPUs when there are any, otherwise every device (CPU drivers). */
  size_t gpus = 0;
  for (size_t i = 0; i < count; ++i) gpus += list[i].is_gpu ? 1 : 0;
  size_t candidates = gpus > 0 ? gpus : count;
  if (device_index < 0 || (size_t)device_index >= candidates) {
    lg_gpu_error_set(error,
                     "OpenCL device_index %d out of range: %zu %s "
                     "device(s) of OpenCL 1.2 or later found",
                     device_index, candidates,
                     gpus > 0 ? "GPU" : "CPU/accelerator");
    goto fail;
  }
  size_t seen = 0;
  for (size_t i = 0; i < count; ++i) {
    if (gpus > 0 && !list[i].is_gpu) continue;
    if (seen++ == (size_t)device_index) {
      *platform = list[i].platform;
      *device = list[i].device;
      break;
    }
  }
  free(list);
  free(platforms);
  return kTfLiteOk;
fail:
  free(list);
  free(platforms);
  return kTfLiteError;
}

/* Device discovery runs one thread at a time in the process. PoCL (3.1
 * here) initializes its devices inside the first clGetDeviceIDs, and a
 * second thread calling while that runs gets CL_DEVICE_NOT_FOUND: two
 * delegates created at once found 0 devices in 6 of 8 runs. */
static pthread_mutex_t lg_cl_discovery_lock = PTHREAD_MUTEX_INITIALIZER;

TfLiteStatus lg_cl_pick_device(int device_index, cl_platform_id* platform,
                               cl_device_id* device, lg_gpu_error* error) {
  pthread_mutex_lock(&lg_cl_discovery_lock);
  TfLiteStatus status =
      lg_cl_pick_device_locked(device_index, platform, device, error);
  pthread_mutex_unlock(&lg_cl_discovery_lock);
  return status;
}

/* Reads a string property into `out` (truncated to fit). */
static cl_int lg_info_string(cl_device_id device, cl_device_info param,
                             char* out, size_t size) {
  size_t needed = 0;
  cl_int err = lg_device_info(device, param, 0, NULL, &needed);
  if (err != CL_SUCCESS) return err;
  char* text = malloc(needed + 1);
  if (text == NULL) return CL_OUT_OF_HOST_MEMORY;
  err = lg_device_info(device, param, needed, text, NULL);
  if (err == CL_SUCCESS) {
    text[needed] = '\0';
    snprintf(out, size, "%s", text);
  }
  free(text);
  return err;
}

/* Whether the extension list names `ext` as a whole word. */
static bool lg_has_extension(const char* list, const char* ext) {
  size_t len = strlen(ext);
  for (const char* p = strstr(list, ext); p != NULL; p = strstr(p + 1, ext)) {
    bool start = p == list || p[-1] == ' ';
    bool end = p[len] == '\0' || p[len] == ' ';
    if (start && end) return true;
  }
  return false;
}

/* One device property read into a variable of its exact size. */
typedef struct lg_cl_property {
  cl_device_info param;
  const char* name;
  void* value;
  size_t size;
} lg_cl_property;

TfLiteStatus lg_cl_read_device_info(cl_device_id device,
                                    lg_gpu_device_info* info,
                                    lg_gpu_error* error) {
  char* extensions = NULL;
  const char* what = "CL_DEVICE_NAME";
  cl_ulong global = 0, max_alloc = 0;
  size_t wg = 0, items[16] = {0};
  cl_uint units = 0, align_bits = 0, item_dims = 0;
  cl_int err = CL_SUCCESS;
  memset(info, 0, sizeof(*info));
  const lg_cl_property strings[] = {
      {CL_DEVICE_NAME, "CL_DEVICE_NAME", info->name, sizeof(info->name)},
      {CL_DEVICE_VENDOR, "CL_DEVICE_VENDOR", info->vendor,
       sizeof(info->vendor)},
      {CL_DRIVER_VERSION, "CL_DRIVER_VERSION", info->driver_version,
       sizeof(info->driver_version)},
      {CL_DEVICE_VERSION, "CL_DEVICE_VERSION", info->api_version,
       sizeof(info->api_version)},
  };
  const lg_cl_property scalars[] = {
      {CL_DEVICE_GLOBAL_MEM_SIZE, "CL_DEVICE_GLOBAL_MEM_SIZE", &global,
       sizeof(global)},
      {CL_DEVICE_MAX_MEM_ALLOC_SIZE, "CL_DEVICE_MAX_MEM_ALLOC_SIZE", &max_alloc,
       sizeof(max_alloc)},
      {CL_DEVICE_MAX_WORK_GROUP_SIZE, "CL_DEVICE_MAX_WORK_GROUP_SIZE", &wg,
       sizeof(wg)},
      {CL_DEVICE_MAX_COMPUTE_UNITS, "CL_DEVICE_MAX_COMPUTE_UNITS", &units,
       sizeof(units)},
      {CL_DEVICE_MEM_BASE_ADDR_ALIGN, "CL_DEVICE_MEM_BASE_ADDR_ALIGN",
       &align_bits, sizeof(align_bits)},
      {CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, "CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS",
       &item_dims, sizeof(item_dims)},
  };
  for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); ++i) {
    what = strings[i].name;
    err = lg_info_string(device, strings[i].param, strings[i].value,
                         strings[i].size);
    if (err != CL_SUCCESS) goto fail;
  }
  for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); ++i) {
    what = scalars[i].name;
    err = lg_device_info(device, scalars[i].param, scalars[i].size,
                         scalars[i].value, NULL);
    if (err != CL_SUCCESS) goto fail;
  }
  what = "CL_DEVICE_MAX_WORK_ITEM_SIZES";
  if (item_dims < 3) item_dims = 3; /* the spec's minimum; be forgiving */
  if (item_dims > 16) item_dims = 16;
  err = lg_device_info(device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                       sizeof(size_t) * item_dims, items, NULL);
  if (err != CL_SUCCESS) goto fail;
  what = "CL_DEVICE_EXTENSIONS";
  size_t ext_size = 0;
  err = lg_device_info(device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size);
  if (err != CL_SUCCESS) goto fail;
  extensions = calloc(ext_size + 1, 1);
  err = extensions == NULL ? CL_OUT_OF_HOST_MEMORY
                           : lg_device_info(device, CL_DEVICE_EXTENSIONS,
                                            ext_size, extensions, NULL);
  if (err != CL_SUCCESS) goto fail;
  info->global_memory_bytes = global;
  info->max_buffer_bytes = max_alloc;
  info->max_work_group_size = wg;
  memcpy(info->max_work_item_sizes, items, sizeof(info->max_work_item_sizes));
  info->max_compute_units = units;
  info->buffer_alignment = align_bits / 8; /* reported in bits */
  info->fp16 = lg_has_extension(extensions, "cl_khr_fp16");
  free(extensions);
  return kTfLiteOk;
fail:
  free(extensions);
  lg_cl_fail(error, "clGetDeviceInfo", err, "reading %s", what);
  return kTfLiteError;
}
