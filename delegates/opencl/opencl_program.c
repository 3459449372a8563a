/* Program building for the OpenCL backend: embedded source lookup, build
 * options, the on-disk binary cache (delegates/backend/cache_file.h), kernels.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/backend/cache_file.h"
#include "delegates/opencl/opencl_impl.h"
#include "delegates/opencl/opencl_internal.h"
#include "delegates/opencl/opencl_sources.h"

/* Compiled program binaries: "litegpu-cl-*.bin" (format in cache_file.h). */
static const lg_cache_file_format kProgramCache = {"cl", "LGCLPRG", 1u};

/* printf into a fresh malloc'ed string; NULL when out of memory. */
__attribute__((format(printf, 1, 2))) static char* lg_strdup_printf(
    const char* format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(NULL, 0, format, args);
  va_end(args);
  if (n < 0) return NULL;
  char* text = malloc((size_t)n + 1);
  if (text == NULL) return NULL;
  va_start(args, format);
  vsnprintf(text, (size_t)n + 1, format, args);
  va_end(args);
  return text;
}

/* Restarts line numbers after the preamble, so that build logs give the
 * kernel file's own lines. */
static const char kKernelStart[] = "#line 1\n";

/* The lines a program is built from: the preamble sources
 * (lg_opencl_preamble), kKernelStart, then the kernel's own lines (the
 * preamble is part of every build). */
typedef struct lg_program_text {
  const char** lines; /* malloc'ed array; the strings are static */
  size_t count;
} lg_program_text;

static TfLiteStatus lg_program_text_make(const lg_embedded_source* src,
                                         lg_program_text* text,
                                         lg_gpu_error* error) {
  const lg_embedded_source* pre[LG_OPENCL_PREAMBLE_COUNT];
  size_t pre_count = 0;
  for (size_t p = 0; p < LG_OPENCL_PREAMBLE_COUNT; ++p) {
    pre[p] = lg_opencl_source_find(lg_opencl_preamble[p]);
    pre_count += pre[p] != NULL ? pre[p]->line_count : 0;
  }
  text->count = pre_count + 1 + src->line_count;
  text->lines = malloc(text->count * sizeof(*text->lines));
  if (text->lines == NULL) {
    lg_gpu_error_set(error, "kernel_create: out of host memory");
    return kTfLiteError;
  }
  size_t n = 0;
  for (size_t p = 0; p < LG_OPENCL_PREAMBLE_COUNT; ++p) {
    for (size_t i = 0; pre[p] != NULL && i < pre[p]->line_count; ++i) {
      text->lines[n++] = pre[p]->lines[i];
    }
  }
  text->lines[n++] = kKernelStart;
  for (size_t i = 0; i < src->line_count; ++i) {
    text->lines[n++] = src->lines[i];
  }
  return kTfLiteOk;
}

static uint64_t lg_source_hash(const lg_program_text* text) {
  uint64_t h = LG_FNV1A64_INIT;
  for (size_t i = 0; i < text->count; ++i) {
    h = lg_fnv1a64(h, text->lines[i], strlen(text->lines[i]));
  }
  return h;
}

/* Fills `error` with the failed build and the driver's build log (trimmed
 * to fit the message). */
static void lg_build_failure(lg_gpu_error* error, cl_program program,
                             cl_device_id device, cl_int err, const char* name,
                             const char* options) {
  char* log = NULL;
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                            &size) == CL_SUCCESS &&
      size > 0) {
    log = calloc(size + 1, 1);
    if (log != NULL &&
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log,
                              NULL) != CL_SUCCESS) {
      log[0] = '\0';
    }
  }
  lg_cl_fail(error, "clBuildProgram", err,
             "kernel '%s' options '%s'; build "
             "log:\n%s",
             name, options, log != NULL && log[0] != '\0' ? log : "(empty)");
  free(log);
}

/* Builds `*program` from the preamble and the embedded source. */
static TfLiteStatus lg_build_from_source(lg_cl_impl* impl,
                                         const lg_embedded_source* src,
                                         const lg_program_text* text,
                                         const char* options,
                                         cl_program* program,
                                         lg_gpu_error* error) {
  cl_int err = CL_SUCCESS;
  *program =
      lg_cl_inject("clCreateProgramWithSource")
          ? (err = CL_OUT_OF_HOST_MEMORY, NULL)
          : clCreateProgramWithSource(impl->context, (cl_uint)text->count,
                                      text->lines, NULL, &err);
  if (*program == NULL || err != CL_SUCCESS) {
    *program = NULL;
    lg_cl_fail(error, "clCreateProgramWithSource", err, "kernel '%s'",
               src->name);
    goto fail;
  }
  lg_cl_object_created();
  err = lg_cl_inject("clBuildProgram")
            ? CL_BUILD_PROGRAM_FAILURE
            : clBuildProgram(*program, 1, &impl->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    lg_build_failure(error, *program, impl->device, err, src->name, options);
    goto fail;
  }
  impl->stats.source_builds++;
  return kTfLiteOk;
fail:
  if (*program != NULL) {
    clReleaseProgram(*program);
    lg_cl_object_released();
    *program = NULL;
  }
  return kTfLiteError;
}

/* Tries the cache entry `payload`; NULL program when the driver refuses it
 * (the caller rebuilds from source). */
static cl_program lg_load_binary(lg_cl_impl* impl, const unsigned char* payload,
                                 size_t bytes, const char* options) {
  cl_int err = CL_SUCCESS, status = CL_SUCCESS;
  cl_program program =
      lg_cl_inject("clCreateProgramWithBinary")
          ? (err = CL_INVALID_BINARY, NULL)
          : clCreateProgramWithBinary(impl->context, 1, &impl->device, &bytes,
                                      &payload, &status, &err);
  if (program == NULL || err != CL_SUCCESS || status != CL_SUCCESS) {
    if (program != NULL) clReleaseProgram(program);
    return NULL;
  }
  lg_cl_object_created();
  /* A binary still needs clBuildProgram, but it only links/finalizes. */
  err = lg_cl_inject("clBuildProgram")
            ? CL_BUILD_PROGRAM_FAILURE
            : clBuildProgram(program, 1, &impl->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    clReleaseProgram(program);
    lg_cl_object_released();
    return NULL;
  }
  return program;
}

/* Writes the program's binary to the cache; failures only skip caching. */
static void lg_store_binary(lg_cl_impl* impl, cl_program program,
                            const char* key) {
  size_t size = 0;
  unsigned char* binary = NULL;
  cl_int err = lg_cl_inject("clGetProgramInfo")
                   ? CL_OUT_OF_RESOURCES
                   : clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES,
                                      sizeof(size), &size, NULL);
  if (err != CL_SUCCESS || size == 0) goto fail;
  binary = malloc(size);
  if (binary == NULL) goto fail;
  err = clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(binary), &binary,
                         NULL);
  if (err != CL_SUCCESS) goto fail;
  if (lg_cache_file_store(&kProgramCache, impl->cache_dir, key, binary, size)) {
    impl->stats.cache_writes++;
  }
fail:
  free(binary);
}

/* The program for `src` with `options`: from the cache when a valid entry
 * exists, else compiled (and cached). */
static TfLiteStatus lg_get_program(lg_gpu_backend* be,
                                   const lg_embedded_source* src,
                                   const char* options, cl_program* program,
                                   lg_gpu_error* error) {
  lg_cl_impl* impl = be->impl;
  char* key = NULL;
  unsigned char* payload = NULL;
  size_t bytes = 0;
  lg_program_text text = {NULL, 0};
  *program = NULL;
  if (lg_program_text_make(src, &text, error) != kTfLiteOk) goto fail;
  lg_cl_observe(src->name, options, text.lines, text.count);
  if (impl->cache_dir != NULL) {
    key = lg_strdup_printf(
        "litegpu OpenCL program\nmodel=%016llx\ndevice=%s\nvendor=%s\n"
        "driver=%s\nversion=%s\noptions=%s\nsource=%016llx\nkernel=%s\n",
        (unsigned long long)impl->cache_namespace, be->device.name,
        be->device.vendor, be->device.driver_version, be->device.api_version,
        options, (unsigned long long)lg_source_hash(&text), src->name);
    if (key == NULL) {
      lg_gpu_error_set(error, "kernel_create: out of host memory");
      goto fail;
    }
    lg_cache_result found = lg_cache_file_load(&kProgramCache, impl->cache_dir,
                                               key, &payload, &bytes);
    if (found == LG_CACHE_HIT) {
      *program = lg_load_binary(impl, payload, bytes, options);
      if (*program == NULL) found = LG_CACHE_REJECT;
    }
    if (found == LG_CACHE_REJECT) impl->stats.cache_rejects++;
    if (*program != NULL) impl->stats.binary_loads++;
  }
  if (*program == NULL) {
    if (lg_build_from_source(impl, src, &text, options, program, error) !=
        kTfLiteOk) {
      goto fail;
    }
    if (key != NULL) lg_store_binary(impl, *program, key);
  }
  free(text.lines);
  free(payload);
  free(key);
  return kTfLiteOk;
fail:
  free(text.lines);
  free(payload);
  free(key);
  return kTfLiteError;
}

TfLiteStatus lg_cl_kernel_create(lg_gpu_backend* be, const char* name,
                                 const char* defines, lg_gpu_kernel** out,
                                 lg_gpu_error* error) {
  lg_cl_impl* impl = be->impl;
  lg_gpu_kernel* kernel = NULL;
  char* options = NULL;
  cl_int err = CL_SUCCESS;
  *out = NULL;
  const lg_embedded_source* src = lg_opencl_kernel_find(name);
  if (src == NULL || strlen(name) >= sizeof(kernel->name)) {
    lg_gpu_error_set(error,
                     "kernel_create: no embedded OpenCL source named "
                     "'%s' (expected shaders/kernels/%s.lgk)",
                     name != NULL ? name : "(null)",
                     name != NULL ? name : "(null)");
    goto fail;
  }
  /* Half storage where the program stores tensors as half; half
   * arithmetic only where the device also has cl_khr_fp16
   * (shaders/opencl/lg_types.cl). */
  const bool fp16 = be->fp16_storage;
  options = lg_strdup_printf("%s%s%s%s", defines != NULL ? defines : "",
                             defines != NULL && fp16 ? " " : "",
                             fp16 ? "-DLG_FP16" : "",
                             fp16 && impl->half_math ? " -DLG_HALF_MATH" : "");
  kernel = calloc(1, sizeof(*kernel));
  if (options == NULL || kernel == NULL) {
    lg_gpu_error_set(error, "kernel_create: out of host memory");
    goto fail;
  }
  snprintf(kernel->name, sizeof(kernel->name), "%s", name);
  if (lg_get_program(be, src, options, &kernel->program, error) != kTfLiteOk) {
    goto fail;
  }
  kernel->kernel = lg_cl_inject("clCreateKernel")
                       ? (err = CL_INVALID_KERNEL_NAME, NULL)
                       : clCreateKernel(kernel->program, name, &err);
  if (kernel->kernel == NULL || err != CL_SUCCESS) {
    kernel->kernel = NULL;
    lg_cl_fail(error, "clCreateKernel", err,
               "kernel '%s' (the file must "
               "define a __kernel of that name)",
               name);
    goto fail;
  }
  lg_cl_object_created();
  err = lg_cl_inject("clGetKernelWorkGroupInfo")
            ? CL_INVALID_KERNEL
            : clGetKernelWorkGroupInfo(kernel->kernel, impl->device,
                                       CL_KERNEL_WORK_GROUP_SIZE,
                                       sizeof(kernel->max_work_group_size),
                                       &kernel->max_work_group_size, NULL);
  if (err == CL_SUCCESS) {
    err = lg_cl_inject("clGetKernelWorkGroupInfo")
              ? CL_INVALID_KERNEL
              : clGetKernelWorkGroupInfo(
                    kernel->kernel, impl->device,
                    CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                    sizeof(kernel->preferred_multiple),
                    &kernel->preferred_multiple, NULL);
  }
  if (err != CL_SUCCESS) {
    lg_cl_fail(error, "clGetKernelWorkGroupInfo", err, "kernel '%s'", name);
    goto fail;
  }
  free(options);
  *out = kernel;
  return kTfLiteOk;
fail:
  lg_cl_kernel_release(be, kernel);
  free(options);
  return kTfLiteError;
}

void lg_cl_kernel_release(lg_gpu_backend* be, lg_gpu_kernel* kernel) {
  (void)be;
  if (kernel == NULL) return;
  if (kernel->kernel != NULL) {
    clReleaseKernel(kernel->kernel);
    lg_cl_object_released();
  }
  if (kernel->program != NULL) {
    clReleaseProgram(kernel->program);
    lg_cl_object_released();
  }
  free(kernel);
}

size_t lg_cl_kernel_max_work_group_size(lg_gpu_backend* be,
                                        const lg_gpu_kernel* kernel) {
  (void)be;
  return kernel != NULL ? kernel->max_work_group_size : 0;
}
