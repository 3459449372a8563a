/* Kernels for the Vulkan backend: embedded SPIR-V lookup, defines turned
 * into specialization constants, descriptor set and pipeline layouts, and
 * one compute pipeline per work-group size (created through the kernel's
 * VkPipelineCache, vulkan_pipeline_cache.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/thread_pool.h"
#include "delegates/vulkan/vulkan_impl.h"
#include "delegates/vulkan/vulkan_internal.h"

/* ---- Defines ------------------------------------------------------------ */

/* The shader's declared names, space-separated, for messages. */
static void lg_vk_constant_names(const lg_vk_shader* s, char* out,
                                 size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < s->constant_count && used + 1 < size; ++i) {
    int n = snprintf(out + used, size - used, "%s%s", i > 0 ? " " : "",
                     s->constants[i].name);
    if (n < 0) break;
    used += (size_t)n;
  }
  if (s->constant_count == 0) snprintf(out, size, "(none)");
}

/* Parses one define's value: an integer (C syntax) or one of the shader's
 * value words. */
static bool lg_vk_define_value(const lg_vk_shader* s, const char* text,
                               size_t len, int32_t* value) {
  char buf[64];
  if (len == 0) {
    *value = 1; /* -DNAME means 1, as for the C preprocessor */
    return true;
  }
  if (len >= sizeof(buf)) return false;
  memcpy(buf, text, len);
  buf[len] = '\0';
  char* end = NULL;
  errno = 0;
  long v = strtol(buf, &end, 0);
  if (end != buf && *end == '\0' && errno == 0 && v >= INT32_MIN &&
      v <= INT32_MAX) {
    *value = (int32_t)v;
    return true;
  }
  for (size_t i = 0; i < s->value_count; ++i) {
    if (strcmp(s->values[i].name, buf) == 0) {
      *value = s->values[i].value;
      return true;
    }
  }
  return false;
}

/* Sets the kernel's specialization constants from "-DNAME[=VALUE] ...";
 * a later define of the same name wins. */
static TfLiteStatus lg_vk_parse_defines(lg_gpu_kernel* k, const char* defines,
                                        lg_gpu_error* error) {
  const lg_vk_shader* s = k->shader;
  char names[512];
  const char* p = defines != NULL ? defines : "";
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n') ++p;
    if (*p == '\0') return kTfLiteOk;
    const char* start = p;
    while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n') ++p;
    const int token_len = (int)(p - start);
    if (token_len < 3 || start[0] != '-' || start[1] != 'D') {
      lg_gpu_error_set(error,
                       "kernel_create: '%.*s' in the defines of kernel "
                       "'%s' is not a -DNAME[=VALUE] define",
                       token_len, start, k->name);
      return kTfLiteError;
    }
    const char* name = start + 2;
    const char* eq = memchr(name, '=', (size_t)(p - name));
    const size_t name_len = (size_t)((eq != NULL ? eq : p) - name);
    const lg_vk_spec_constant* c = NULL;
    for (size_t i = 0; i < s->constant_count && c == NULL; ++i) {
      if (strlen(s->constants[i].name) == name_len &&
          memcmp(s->constants[i].name, name, name_len) == 0) {
        c = &s->constants[i];
      }
    }
    if (c == NULL) {
      lg_vk_constant_names(s, names, sizeof(names));
      lg_gpu_error_set(error,
                       "kernel_create: %s has no "
                       "specialization constant named '%.*s' (from define "
                       "'%.*s'); it declares: %s",
                       s->source, (int)name_len, name, token_len, start, names);
      return kTfLiteError;
    }
    int32_t value = 0;
    const char* value_text = eq != NULL ? eq + 1 : p;
    if (!lg_vk_define_value(s, value_text, (size_t)(p - value_text), &value)) {
      lg_gpu_error_set(error,
                       "kernel_create: define '%.*s' of kernel '%s' has "
                       "a value that is neither an int nor one of the shader's "
                       "value words",
                       token_len, start, k->name);
      return kTfLiteError;
    }
    uint32_t slot = 0;
    while (slot < k->spec_count && k->spec_ids[slot] != c->id) ++slot;
    if (slot == LG_VK_MAX_SPEC) {
      lg_gpu_error_set(error, "kernel_create: more than %d defines",
                       LG_VK_MAX_SPEC);
      return kTfLiteError;
    }
    if (slot == k->spec_count) k->spec_count++;
    k->spec_ids[slot] = c->id;
    k->spec_values[slot] = value;
  }
}

/* ---- Pipelines ---------------------------------------------------------- */

void lg_vk_default_local_size(const lg_gpu_device_info* device, int dims,
                              uint32_t local[3]) {
  static const uint32_t targets[3][3] = {{256, 1, 1}, {16, 16, 1}, {8, 8, 4}};
  const uint32_t* t = targets[dims >= 1 && dims <= 3 ? dims - 1 : 0];
  uint64_t product = 1;
  for (int d = 0; d < 3; ++d) {
    size_t limit = device->max_work_item_sizes[d];
    local[d] = t[d] <= limit ? t[d] : (limit > 0 ? (uint32_t)limit : 1);
    product *= local[d];
  }
  size_t max =
      device->max_work_group_size > 0 ? device->max_work_group_size : 1;
  while (product > max) {
    int largest = 0;
    for (int d = 1; d < 3; ++d) {
      if (local[d] > local[largest]) largest = d;
    }
    product /= local[largest];
    local[largest] = local[largest] / 2 > 0 ? local[largest] / 2 : 1;
    product *= local[largest];
    if (local[0] == 1 && local[1] == 1 && local[2] == 1) break;
  }
}

/* One pipeline to create: what a thread needs (it writes only its own
 * job) and what it reports back. */
typedef struct lg_vk_pipeline_job {
  lg_gpu_kernel* kernel;
  uint32_t local[3];
  bool inject; /* the test hook's verdict, taken on the calling thread */
  VkResult result;
  VkPipeline pipeline;
  bool cache_hit;
} lg_vk_pipeline_job;

/* Creates the job's pipeline (thread-safe: Vulkan synchronizes pipeline
 * caches internally, and nothing else here is shared). */
static void lg_vk_run_pipeline_job(const lg_vk_impl* impl,
                                   lg_vk_pipeline_job* job) {
  const lg_gpu_kernel* kernel = job->kernel;
  VkSpecializationMapEntry entries[3 + LG_VK_MAX_SPEC];
  uint32_t data[3 + LG_VK_MAX_SPEC];
  uint32_t count = 0;
  for (uint32_t d = 0; d < 3; ++d, ++count) {
    entries[count] = (VkSpecializationMapEntry){d, count * 4u, 4};
    data[count] = job->local[d];
  }
  for (uint32_t i = 0; i < kernel->spec_count; ++i, ++count) {
    entries[count] =
        (VkSpecializationMapEntry){kernel->spec_ids[i], count * 4u, 4};
    memcpy(&data[count], &kernel->spec_values[i], 4);
  }
  const VkSpecializationInfo spec = {count, entries, count * 4u, data};
  VkPipelineCreationFeedbackEXT feedback = {0}, stage_feedback = {0};
  const VkPipelineCreationFeedbackCreateInfoEXT feedback_info = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO_EXT,
      .pPipelineCreationFeedback = &feedback,
      .pipelineStageCreationFeedbackCount = 1,
      .pPipelineStageCreationFeedbacks = &stage_feedback,
  };
  const VkComputePipelineCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .pNext = impl->creation_feedback ? &feedback_info : NULL,
      /* vkCmdDispatchBase splits grids past maxComputeWorkGroupCount. */
      .flags = VK_PIPELINE_CREATE_DISPATCH_BASE_BIT,
      .stage =
          {
              .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
              .stage = VK_SHADER_STAGE_COMPUTE_BIT,
              .module = kernel->module,
              .pName = "main",
              .pSpecializationInfo = &spec,
          },
      .layout = kernel->layout,
  };
  job->pipeline = VK_NULL_HANDLE;
  job->result = job->inject
                    ? VK_ERROR_OUT_OF_DEVICE_MEMORY
                    : vkCreateComputePipelines(impl->device, kernel->cache, 1,
                                               &info, NULL, &job->pipeline);
  if (job->result != VK_SUCCESS) job->pipeline = VK_NULL_HANDLE;
  job->cache_hit =
      (feedback.flags & VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT_EXT) &&
      (feedback.flags &
       VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT_EXT);
}

/* On the calling thread: the job's pipeline joins its kernel (a failure
 * fills `error`). */
static TfLiteStatus lg_vk_finish_pipeline_job(lg_vk_impl* impl,
                                              lg_vk_pipeline_job* job,
                                              lg_gpu_error* error) {
  lg_gpu_kernel* kernel = job->kernel;
  if (job->result != VK_SUCCESS) {
    lg_vk_fail(error, "vkCreateComputePipelines", job->result,
               "kernel '%s', local size %ux%ux%u", kernel->name, job->local[0],
               job->local[1], job->local[2]);
    return kTfLiteError;
  }
  lg_vk_object_created();
  lg_vk_pipeline* grown =
      realloc(kernel->pipelines, (kernel->pipeline_count + 1) * sizeof(*grown));
  if (grown == NULL) {
    vkDestroyPipeline(impl->device, job->pipeline, NULL);
    lg_vk_object_released();
    lg_gpu_error_set(error, "out of host memory for a pipeline");
    return kTfLiteError;
  }
  kernel->pipelines = grown;
  grown[kernel->pipeline_count].pipeline = job->pipeline;
  memcpy(grown[kernel->pipeline_count].local, job->local, sizeof(job->local));
  kernel->pipeline_count++;
  kernel->cache_dirty = true;
  impl->stats.pipelines_created++;
  if (job->cache_hit) impl->stats.pipeline_cache_hits++;
  return kTfLiteOk;
}

/* The kernel's pipeline for `local`, or VK_NULL_HANDLE. */
static VkPipeline lg_vk_find_pipeline(const lg_gpu_kernel* kernel,
                                      const uint32_t local[3]) {
  for (size_t i = 0; i < kernel->pipeline_count; ++i) {
    const uint32_t* l = kernel->pipelines[i].local;
    if (l[0] == local[0] && l[1] == local[1] && l[2] == local[2]) {
      return kernel->pipelines[i].pipeline;
    }
  }
  return VK_NULL_HANDLE;
}

TfLiteStatus lg_vk_kernel_pipeline(lg_gpu_backend* be, lg_gpu_kernel* kernel,
                                   const uint32_t local[3],
                                   VkPipeline* pipeline, lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  *pipeline = lg_vk_find_pipeline(kernel, local);
  if (*pipeline != VK_NULL_HANDLE) return kTfLiteOk;
  lg_vk_pipeline_job job = {.kernel = kernel};
  memcpy(job.local, local, sizeof(job.local));
  job.inject = lg_vk_inject("vkCreateComputePipelines");
  const uint64_t start = lg_now_ns();
  lg_vk_run_pipeline_job(impl, &job);
  impl->stats.pipeline_create_ns += lg_now_ns() - start;
  if (lg_vk_finish_pipeline_job(impl, &job, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  *pipeline = job.pipeline;
  return kTfLiteOk;
}

TfLiteStatus lg_vk_choose_local(const lg_gpu_backend* be,
                                const lg_gpu_kernel* kernel, int dims,
                                const size_t* local, uint32_t chosen[3],
                                lg_gpu_error* error) {
  chosen[0] = chosen[1] = chosen[2] = 1;
  if (local == NULL) {
    lg_vk_default_local_size(&be->device, dims, chosen);
    return kTfLiteOk;
  }
  size_t product = 1;
  for (int d = 0; d < dims; ++d) {
    if (local[d] == 0 || local[d] > be->device.max_work_item_sizes[d]) {
      lg_gpu_error_set(error,
                       "dispatch: kernel '%s' local size %zu in "
                       "dimension %d is outside 1..%zu "
                       "(maxComputeWorkGroupSize)",
                       kernel->name, local[d], d,
                       be->device.max_work_item_sizes[d]);
      return kTfLiteError;
    }
    product *= local[d];
    chosen[d] = (uint32_t)local[d];
  }
  if (product > be->device.max_work_group_size) {
    lg_gpu_error_set(error,
                     "dispatch: kernel '%s' work group of %zu exceeds "
                     "maxComputeWorkGroupInvocations %zu",
                     kernel->name, product, be->device.max_work_group_size);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* ---- Pipelines ahead of the dispatches ---------------------------------- */

/* At most this many threads create pipelines at once (drivers compile on
 * the calling thread; more threads than cores only add switching). */
#define LG_VK_PIPELINE_THREADS 8

typedef struct lg_vk_pipeline_batch {
  const lg_vk_impl* impl;
  lg_vk_pipeline_job* jobs;
} lg_vk_pipeline_batch;

static void lg_vk_pipeline_task(void* ctx, int index) {
  lg_vk_pipeline_batch* batch = ctx;
  lg_vk_run_pipeline_job(batch->impl, &batch->jobs[index]);
}

/* Whether an earlier job of the batch already creates this one. */
static bool lg_vk_job_queued(const lg_vk_pipeline_job* jobs, int count,
                             const lg_vk_pipeline_job* job) {
  for (int i = 0; i < count; ++i) {
    if (jobs[i].kernel == job->kernel &&
        memcmp(jobs[i].local, job->local, sizeof(job->local)) == 0) {
      return true;
    }
  }
  return false;
}

/* Runs the jobs on up to LG_VK_PIPELINE_THREADS threads (one per online
 * core), or on the caller when one thread would do or none can start. */
static void lg_vk_run_pipeline_jobs(const lg_vk_impl* impl,
                                    lg_vk_pipeline_job* jobs, int count) {
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = cores > 0 && cores < count ? (int)cores : count;
  if (threads > LG_VK_PIPELINE_THREADS) threads = LG_VK_PIPELINE_THREADS;
  lg_thread_pool* pool = threads > 1 ? lg_thread_pool_create(threads) : NULL;
  lg_vk_pipeline_batch batch = {impl, jobs};
  if (pool == NULL) {
    for (int i = 0; i < count; ++i) lg_vk_pipeline_task(&batch, i);
    return;
  }
  lg_thread_pool_run(pool, lg_vk_pipeline_task, &batch, count);
  lg_thread_pool_destroy(pool);
}

TfLiteStatus lg_vk_kernels_prepare(lg_gpu_backend* be,
                                   const lg_gpu_kernel_use* uses, int count,
                                   lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  if (count <= 0) return kTfLiteOk;
  lg_vk_pipeline_job* jobs = calloc((size_t)count, sizeof(*jobs));
  if (jobs == NULL) {
    lg_gpu_error_set(error, "kernels_prepare: out of host memory");
    return kTfLiteError;
  }
  int queued = 0;
  for (int i = 0; i < count; ++i) {
    lg_vk_pipeline_job* job = &jobs[queued];
    job->kernel = uses[i].kernel;
    if (lg_vk_choose_local(be, job->kernel, uses[i].dims, uses[i].local,
                           job->local, error) != kTfLiteOk) {
      free(jobs);
      return kTfLiteError;
    }
    if (lg_vk_find_pipeline(job->kernel, job->local) == VK_NULL_HANDLE &&
        !lg_vk_job_queued(jobs, queued, job)) {
      job->inject = lg_vk_inject("vkCreateComputePipelines");
      ++queued;
    }
  }
  const uint64_t start = lg_now_ns();
  lg_vk_run_pipeline_jobs(impl, jobs, queued);
  impl->stats.pipeline_create_ns += lg_now_ns() - start;
  /* Every created pipeline joins its kernel (released with it), even
   * after a failure; the first failure is reported. */
  TfLiteStatus status = kTfLiteOk;
  for (int i = 0; i < queued; ++i) {
    lg_gpu_error job_error = {{0}};
    if (lg_vk_finish_pipeline_job(impl, &jobs[i], &job_error) != kTfLiteOk &&
        status == kTfLiteOk) {
      status = kTfLiteError;
      if (error != NULL) *error = job_error;
    }
  }
  for (int i = 0; i < queued; ++i)
    lg_vk_pipeline_cache_save(be, jobs[i].kernel);
  free(jobs);
  return status;
}

/* ---- Kernels ------------------------------------------------------------ */

/* Frees everything the kernel holds (its commands must be done). */
static void lg_vk_kernel_free(lg_vk_impl* impl, lg_gpu_kernel* kernel) {
  for (size_t i = 0; i < kernel->pipeline_count; ++i) {
    vkDestroyPipeline(impl->device, kernel->pipelines[i].pipeline, NULL);
    lg_vk_object_released();
  }
  free(kernel->pipelines);
  if (kernel->cache != VK_NULL_HANDLE) {
    vkDestroyPipelineCache(impl->device, kernel->cache, NULL);
    lg_vk_object_released();
  }
  if (kernel->layout != VK_NULL_HANDLE) {
    vkDestroyPipelineLayout(impl->device, kernel->layout, NULL);
    lg_vk_object_released();
  }
  if (kernel->set_layout != VK_NULL_HANDLE) {
    vkDestroyDescriptorSetLayout(impl->device, kernel->set_layout, NULL);
    lg_vk_object_released();
  }
  if (kernel->module != VK_NULL_HANDLE) {
    vkDestroyShaderModule(impl->device, kernel->module, NULL);
    lg_vk_object_released();
  }
  free(kernel->cache_key);
  free(kernel);
}

/* The shader module, descriptor set layout (bindings 0..k-1) and pipeline
 * layout (one push-constant range) of a kernel. */
static TfLiteStatus lg_vk_kernel_layouts(lg_vk_impl* impl,
                                         lg_gpu_kernel* kernel,
                                         lg_gpu_error* error) {
  const lg_vk_shader* s = kernel->shader;
  const VkShaderModuleCreateInfo module = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = kernel->words * sizeof(uint32_t),
      .pCode = kernel->code,
  };
  VkResult r = LG_VK_TRY(vkCreateShaderModule, VK_ERROR_OUT_OF_HOST_MEMORY,
                         impl->device, &module, NULL, &kernel->module);
  if (r != VK_SUCCESS) {
    kernel->module = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkCreateShaderModule", r, "kernel '%s'", s->name);
    return kTfLiteError;
  }
  lg_vk_object_created();
  VkDescriptorSetLayoutBinding bindings[LG_VK_MAX_BUFFER_ARGS];
  for (uint32_t i = 0; i < s->buffer_count; ++i) {
    bindings[i] = (VkDescriptorSetLayoutBinding){
        i, lg_vk_binding_type(kernel, i), 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
  }
  const VkDescriptorSetLayoutCreateInfo set_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = s->buffer_count,
      .pBindings = bindings,
  };
  r = LG_VK_TRY(vkCreateDescriptorSetLayout, VK_ERROR_OUT_OF_HOST_MEMORY,
                impl->device, &set_info, NULL, &kernel->set_layout);
  if (r != VK_SUCCESS) {
    kernel->set_layout = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkCreateDescriptorSetLayout", r, "kernel '%s'", s->name);
    return kTfLiteError;
  }
  lg_vk_object_created();
  const VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                    (uint32_t)strlen(s->push) * 4u};
  const VkPipelineLayoutCreateInfo layout_info = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1,
      .pSetLayouts = &kernel->set_layout,
      .pushConstantRangeCount = push.size > 0 ? 1u : 0u,
      .pPushConstantRanges = &push,
  };
  r = LG_VK_TRY(vkCreatePipelineLayout, VK_ERROR_OUT_OF_HOST_MEMORY,
                impl->device, &layout_info, NULL, &kernel->layout);
  if (r != VK_SUCCESS) {
    kernel->layout = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkCreatePipelineLayout", r, "kernel '%s'", s->name);
    return kTfLiteError;
  }
  lg_vk_object_created();
  return kTfLiteOk;
}

/* Whether the device can run the shader's interface. */
static TfLiteStatus lg_vk_check_interface(const lg_vk_impl* impl,
                                          const lg_vk_shader* s,
                                          lg_gpu_error* error) {
  const VkPhysicalDeviceLimits* l = &impl->properties.limits;
  const uint32_t push_bytes = (uint32_t)strlen(s->push) * 4u;
  uint32_t texels = 0;
  for (const char* k = s->kinds; *k != '\0'; ++k) texels += *k == 't';
  const uint32_t storage =
      impl->texel_reads ? s->buffer_count - texels : s->buffer_count;
  if (s->buffer_count > LG_VK_MAX_BUFFER_ARGS ||
      storage > l->maxPerStageDescriptorStorageBuffers) {
    lg_gpu_error_set(error,
                     "kernel_create: %s binds %u "
                     "storage buffers; the device allows %u per stage (and "
                     "litegpu %u)",
                     s->source, storage, l->maxPerStageDescriptorStorageBuffers,
                     LG_VK_MAX_BUFFER_ARGS);
    return kTfLiteError;
  }
  if (impl->texel_reads && texels > l->maxPerStageDescriptorSampledImages) {
    lg_gpu_error_set(error,
                     "kernel_create: %s binds %u "
                     "texel buffers; the device allows %u per stage",
                     s->source, texels, l->maxPerStageDescriptorSampledImages);
    return kTfLiteError;
  }
  if (push_bytes > l->maxPushConstantsSize ||
      push_bytes > LG_VK_MAX_PUSH_WORDS * 4u) {
    lg_gpu_error_set(error,
                     "kernel_create: %s has %u bytes "
                     "of push constants; maxPushConstantsSize is %u",
                     s->source, push_bytes, l->maxPushConstantsSize);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_vk_kernel_create(lg_gpu_backend* be, const char* name,
                                 const char* defines, lg_gpu_kernel** out,
                                 lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  lg_gpu_kernel* kernel = NULL;
  *out = NULL;
  const lg_vk_shader* shader = lg_vulkan_shader_find(name);
  if (shader == NULL || strlen(name) >= sizeof(kernel->name)) {
    lg_gpu_error_set(error,
                     "kernel_create: no embedded Vulkan shader named "
                     "'%s' (expected shaders/kernels/%s.lgk)",
                     name != NULL ? name : "(null)",
                     name != NULL ? name : "(null)");
    return kTfLiteError;
  }
  if (lg_vk_check_interface(impl, shader, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  kernel = calloc(1, sizeof(*kernel));
  if (kernel == NULL) {
    lg_gpu_error_set(error, "kernel_create: out of host memory");
    return kTfLiteError;
  }
  snprintf(kernel->name, sizeof(kernel->name), "%s", name);
  kernel->shader = shader;
  /* Half precision runs the shader's -DLG_FP16 build (float16 buffers),
   * texel reads its -DLG_TEXEL build. */
  kernel->texel = impl->texel_reads && strchr(shader->kinds, 't') != NULL;
  if (kernel->texel) {
    kernel->code = impl->fp16 ? shader->code_texel_fp16 : shader->code_texel;
    kernel->words = impl->fp16 ? shader->words_texel_fp16 : shader->words_texel;
  } else {
    kernel->code = impl->fp16 ? shader->code_fp16 : shader->code;
    kernel->words = impl->fp16 ? shader->words_fp16 : shader->words;
  }
  /* Pipelines come per work-group size: kernels_prepare, or the first
   * dispatch. */
  if (lg_vk_parse_defines(kernel, defines, error) != kTfLiteOk ||
      lg_vk_kernel_layouts(impl, kernel, error) != kTfLiteOk ||
      lg_vk_pipeline_cache_open(be, kernel, error) != kTfLiteOk) {
    lg_vk_kernel_free(impl, kernel);
    return kTfLiteError;
  }
  *out = kernel;
  return kTfLiteOk;
}

void lg_vk_kernel_release(lg_gpu_backend* be, lg_gpu_kernel* kernel) {
  lg_vk_impl* impl = be->impl;
  if (kernel == NULL) return;
  /* Commands that use its pipelines must be done first. */
  if (lg_vk_busy(impl) && lg_vk_finish(be, NULL) != kTfLiteOk) {
    vkDeviceWaitIdle(impl->device);
  }
  lg_vk_pipeline_cache_save(be, kernel);
  lg_vk_kernel_free(impl, kernel);
}

size_t lg_vk_kernel_max_work_group_size(lg_gpu_backend* be,
                                        const lg_gpu_kernel* kernel) {
  /* Vulkan has no per-pipeline limit; the shaders use no shared memory. */
  return kernel != NULL ? be->device.max_work_group_size : 0;
}
