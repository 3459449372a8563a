/* bench_gpu_invoke: what one Invoke of a one-node model costs on the GPU
 * delegate, beside the driver's own round trip for the same work and the
 * CPU path, in one process.
 *
 * Usage: bench_gpu_invoke [--n=1000] [--runs=2000] [--backends=cl,vk]
 *
 * The model is one ADD of two [n] float32 inputs. For each backend
 * (OpenCL, Vulkan) three paths compute it on the same inputs:
 *   cpu       TfLiteInterpreterInvoke without a delegate (1 thread);
 *   delegate  TfLiteInterpreterInvoke with the GPU delegate forced to the
 *             backend (its per-Invoke overhead is delegate - cpu);
 *   driver    the same work written directly against the API, the plain
 *             way, with no litegpu code on the path: OpenCL: two
 *             non-blocking writes, the kernel, a blocking read; Vulkan:
 *             copies into host-visible coherent memory, one submit of a
 *             command buffer recorded once, vkWaitForFences, the copy
 *             out (the shader is litegpu's embedded `binary` SPIR-V, whose
 *             defaults are an add). It is the floor a delegate on that
 *             driver can reach, and it deliberately repeats device setup
 *             that the backends also do.
 * The paths take turns in blocks of 50 runs, after 200 warm-up runs each,
 * so a shared machine's noise falls on all of them; per path the mean,
 * p50, p90 and min in microseconds. Every path's output is checked
 * against a + b. Exit status: 0 when every backend asked for ran right, 1
 * on a wrong sum, 2 when one could not run (or on bad arguments).
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120 /* the OpenCL the backend targets */
#endif
#include <CL/cl.h>
#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "base/clock.h"
#include "delegates/vulkan/vulkan_shaders.h"
#include "litegpu/gpu_delegate.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/delegates/gpu/delegate.h"
#include "tools/tool_help.h"

#define WARMUP_RUNS 200
#define BLOCK_RUNS 50
#define LOCAL_SIZE 64

/* ---- The model and the interpreter paths -------------------------------- */

static void* build_add_model(int n, size_t* size) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  if (w == NULL) return NULL;
  const int32_t shape[1] = {n};
  lg_writer_tensor t = {
      .name = "a", .type = kTfLiteFloat32, .shape = shape, .num_dims = 1};
  int32_t io[3];
  io[0] = lg_model_writer_add_tensor(w, &t);
  t.name = "b";
  io[1] = lg_model_writer_add_tensor(w, &t);
  t.name = "sum";
  io[2] = lg_model_writer_add_tensor(w, &t);
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, io, 2, &io[2], 1, NULL);
  lg_model_writer_set_inputs(w, io, 2);
  lg_model_writer_set_outputs(w, &io[2], 1);
  void* data = NULL;
  if (lg_model_writer_finish(w, &data, size) != kTfLiteOk) data = NULL;
  lg_model_writer_destroy(w);
  return data;
}

typedef struct interpreter_path {
  TfLiteDelegate* delegate;
  TfLiteInterpreter* interpreter;
} interpreter_path;

static void interpreter_close(interpreter_path* p) {
  TfLiteInterpreterDelete(p->interpreter);
  if (p->delegate != NULL) TfLiteGpuDelegateV2Delete(p->delegate);
  memset(p, 0, sizeof(*p));
}

/* The interpreter on `model`, with the GPU delegate on `backend` when
 * `gpu` (else the CPU path); the inputs copied in once. */
static bool interpreter_open(interpreter_path* p, TfLiteModel* model,
                             litegpu_gpu_backend backend, bool gpu,
                             const float* a, const float* b, int n) {
  memset(p, 0, sizeof(*p));
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  if (gpu) {
    litegpu_gpu_delegate_options go = litegpu_gpu_delegate_options_default();
    go.backend = backend;
    go.tflite.is_precision_loss_allowed = 0;
    char why[512] = "";
    p->delegate = litegpu_gpu_delegate_create(&go, why, sizeof(why));
    if (p->delegate == NULL) {
      fprintf(stderr, "bench_gpu_invoke: no delegate: %s\n", why);
      TfLiteInterpreterOptionsDelete(o);
      return false;
    }
    TfLiteInterpreterOptionsAddDelegate(o, p->delegate);
  }
  p->interpreter = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  if (p->interpreter == NULL ||
      TfLiteInterpreterAllocateTensors(p->interpreter) != kTfLiteOk ||
      (gpu && litegpu_gpu_delegate_num_partitions(p->delegate) != 1)) {
    interpreter_close(p);
    return false;
  }
  memcpy(TfLiteTensorData(TfLiteInterpreterGetInputTensor(p->interpreter, 0)),
         a, sizeof(float) * (size_t)n);
  memcpy(TfLiteTensorData(TfLiteInterpreterGetInputTensor(p->interpreter, 1)),
         b, sizeof(float) * (size_t)n);
  return true;
}

static bool interpreter_run(interpreter_path* p, float* out, int n) {
  if (TfLiteInterpreterInvoke(p->interpreter) != kTfLiteOk) return false;
  memcpy(out,
         TfLiteTensorData(TfLiteInterpreterGetOutputTensor(p->interpreter, 0)),
         sizeof(float) * (size_t)n);
  return true;
}

/* ---- OpenCL, directly --------------------------------------------------- */

static const char* const kClAdd =
    "__kernel void add(__global const float* a, __global const float* b,\n"
    "                  __global float* c, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

typedef struct cl_path {
  cl_context context;
  cl_command_queue queue;
  cl_program program;
  cl_kernel kernel;
  cl_mem a, b, c;
  const float *host_a, *host_b;
  int n;
} cl_path;

static void cl_close(cl_path* p) {
  if (p->c) clReleaseMemObject(p->c);
  if (p->b) clReleaseMemObject(p->b);
  if (p->a) clReleaseMemObject(p->a);
  if (p->kernel) clReleaseKernel(p->kernel);
  if (p->program) clReleaseProgram(p->program);
  if (p->queue) clReleaseCommandQueue(p->queue);
  if (p->context) clReleaseContext(p->context);
  memset(p, 0, sizeof(*p));
}

/* The first GPU of any platform, else the first device (as the delegate
 * picks). */
static bool cl_pick_device(cl_device_id* out) {
  cl_platform_id platforms[8];
  cl_uint count = 0;
  if (clGetPlatformIDs(8, platforms, &count) != CL_SUCCESS || count == 0) {
    return false;
  }
  if (count > 8) count = 8;
  const cl_device_type types[2] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ALL};
  for (int t = 0; t < 2; ++t) {
    for (cl_uint i = 0; i < count; ++i) {
      cl_uint devices = 0;
      if (clGetDeviceIDs(platforms[i], types[t], 1, out, &devices) ==
              CL_SUCCESS &&
          devices > 0) {
        return true;
      }
    }
  }
  return false;
}

static bool cl_open(cl_path* p, const float* a, const float* b, int n) {
  memset(p, 0, sizeof(*p));
  cl_device_id device;
  cl_int err = CL_SUCCESS;
  if (!cl_pick_device(&device)) return false;
  p->context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  if (err != CL_SUCCESS) goto fail;
  p->queue = clCreateCommandQueue(p->context, device, 0, &err);
  if (err != CL_SUCCESS) goto fail;
  const char* source = kClAdd;
  p->program = clCreateProgramWithSource(p->context, 1, &source, NULL, &err);
  if (err != CL_SUCCESS ||
      clBuildProgram(p->program, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
    goto fail;
  }
  p->kernel = clCreateKernel(p->program, "add", &err);
  if (err != CL_SUCCESS) goto fail;
  const size_t bytes = sizeof(float) * (size_t)n;
  p->a = clCreateBuffer(p->context, CL_MEM_READ_ONLY, bytes, NULL, &err);
  if (err != CL_SUCCESS) goto fail;
  p->b = clCreateBuffer(p->context, CL_MEM_READ_ONLY, bytes, NULL, &err);
  if (err != CL_SUCCESS) goto fail;
  p->c = clCreateBuffer(p->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
  if (err != CL_SUCCESS) goto fail;
  const cl_int count = n;
  if (clSetKernelArg(p->kernel, 0, sizeof(cl_mem), &p->a) != CL_SUCCESS ||
      clSetKernelArg(p->kernel, 1, sizeof(cl_mem), &p->b) != CL_SUCCESS ||
      clSetKernelArg(p->kernel, 2, sizeof(cl_mem), &p->c) != CL_SUCCESS ||
      clSetKernelArg(p->kernel, 3, sizeof(cl_int), &count) != CL_SUCCESS) {
    goto fail;
  }
  p->host_a = a;
  p->host_b = b;
  p->n = n;
  return true;
fail:
  cl_close(p);
  return false;
}

static bool cl_run(cl_path* p, float* out) {
  const size_t bytes = sizeof(float) * (size_t)p->n;
  const size_t global = (size_t)p->n;
  return clEnqueueWriteBuffer(p->queue, p->a, CL_FALSE, 0, bytes, p->host_a, 0,
                              NULL, NULL) == CL_SUCCESS &&
         clEnqueueWriteBuffer(p->queue, p->b, CL_FALSE, 0, bytes, p->host_b, 0,
                              NULL, NULL) == CL_SUCCESS &&
         clEnqueueNDRangeKernel(p->queue, p->kernel, 1, NULL, &global, NULL, 0,
                                NULL, NULL) == CL_SUCCESS &&
         clEnqueueReadBuffer(p->queue, p->c, CL_TRUE, 0, bytes, out, 0, NULL,
                             NULL) == CL_SUCCESS;
}

/* ---- Vulkan, directly --------------------------------------------------- */

typedef struct vk_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  void* mapped;
} vk_buffer;

typedef struct vk_path {
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  uint32_t family;
  vk_buffer io[3]; /* a, b, sum */
  VkShaderModule module;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  VkDescriptorPool pool;
  VkCommandPool commands;
  VkCommandBuffer cmd;
  VkFence fence;
  const float *host_a, *host_b;
  int n;
} vk_path;

static void vk_close(vk_path* p) {
  if (p->device != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(p->device);
    vkDestroyFence(p->device, p->fence, NULL);
    vkDestroyCommandPool(p->device, p->commands, NULL);
    vkDestroyDescriptorPool(p->device, p->pool, NULL);
    vkDestroyPipeline(p->device, p->pipeline, NULL);
    vkDestroyPipelineLayout(p->device, p->layout, NULL);
    vkDestroyDescriptorSetLayout(p->device, p->set_layout, NULL);
    vkDestroyShaderModule(p->device, p->module, NULL);
    for (int i = 0; i < 3; ++i) {
      vkDestroyBuffer(p->device, p->io[i].buffer, NULL);
      vkFreeMemory(p->device, p->io[i].memory, NULL);
    }
    vkDestroyDevice(p->device, NULL);
  }
  if (p->instance != VK_NULL_HANDLE) vkDestroyInstance(p->instance, NULL);
  memset(p, 0, sizeof(*p));
}

/* A GPU with a compute queue, else any device with one (as the delegate
 * picks); its queue family in p->family. */
static bool vk_pick_device(vk_path* p) {
  VkPhysicalDevice devices[16];
  uint32_t count = 16;
  if (vkEnumeratePhysicalDevices(p->instance, &count, devices) < 0) {
    return false;
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t d = 0; d < count; ++d) {
      VkPhysicalDeviceProperties props;
      vkGetPhysicalDeviceProperties(devices[d], &props);
      const bool gpu =
          props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
          props.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
      if (pass == 0 && !gpu) continue;
      VkQueueFamilyProperties families[16];
      uint32_t family_count = 16;
      vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &family_count,
                                               families);
      for (uint32_t f = 0; f < family_count; ++f) {
        if (families[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
          p->physical = devices[d];
          p->family = f;
          return true;
        }
      }
    }
  }
  return false;
}

static bool vk_make_buffer(vk_path* p, size_t bytes, vk_buffer* out) {
  const VkBufferCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = bytes,
      .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
  };
  if (vkCreateBuffer(p->device, &info, NULL, &out->buffer) != VK_SUCCESS) {
    return false;
  }
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(p->device, out->buffer, &req);
  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(p->physical, &mem);
  const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t t = 0; t < mem.memoryTypeCount; ++t) {
    if (!(req.memoryTypeBits & (1u << t)) ||
        (mem.memoryTypes[t].propertyFlags & want) != want) {
      continue;
    }
    const VkMemoryAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = t,
    };
    return vkAllocateMemory(p->device, &alloc, NULL, &out->memory) ==
               VK_SUCCESS &&
           vkBindBufferMemory(p->device, out->buffer, out->memory, 0) ==
               VK_SUCCESS &&
           vkMapMemory(p->device, out->memory, 0, bytes, 0, &out->mapped) ==
               VK_SUCCESS;
  }
  return false;
}

static bool vk_make_pipeline(vk_path* p) {
  const lg_vk_shader* s = lg_vulkan_shader_find("binary");
  if (s == NULL || s->buffer_count != 3) return false;
  const VkShaderModuleCreateInfo module = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = s->words * sizeof(uint32_t),
      .pCode = s->code,
  };
  VkDescriptorSetLayoutBinding bindings[3];
  for (uint32_t i = 0; i < 3; ++i) {
    bindings[i] =
        (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                       VK_SHADER_STAGE_COMPUTE_BIT, NULL};
  }
  const VkDescriptorSetLayoutCreateInfo set_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = 3,
      .pBindings = bindings,
  };
  const VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                    (uint32_t)strlen(s->push) * 4u};
  if (vkCreateShaderModule(p->device, &module, NULL, &p->module) !=
          VK_SUCCESS ||
      vkCreateDescriptorSetLayout(p->device, &set_info, NULL, &p->set_layout) !=
          VK_SUCCESS) {
    return false;
  }
  const VkPipelineLayoutCreateInfo layout_info = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1,
      .pSetLayouts = &p->set_layout,
      .pushConstantRangeCount = 1,
      .pPushConstantRanges = &push,
  };
  if (vkCreatePipelineLayout(p->device, &layout_info, NULL, &p->layout) !=
      VK_SUCCESS) {
    return false;
  }
  const uint32_t local[3] = {LOCAL_SIZE, 1, 1};
  const VkSpecializationMapEntry entries[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
  const VkSpecializationInfo spec = {3, entries, sizeof(local), local};
  const VkComputePipelineCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = p->module,
                .pName = "main",
                .pSpecializationInfo = &spec},
      .layout = p->layout,
  };
  return vkCreateComputePipelines(p->device, VK_NULL_HANDLE, 1, &info, NULL,
                                  &p->pipeline) == VK_SUCCESS;
}

/* binary.lgk's push constants for a same-shape add of n floats: n, na,
 * nb, lo, hi, then the (unused) broadcast dims and strides. */
static void vk_push_values(int n, uint32_t words[16]) {
  const float lo = -FLT_MAX, hi = FLT_MAX;
  memset(words, 0, 16 * sizeof(uint32_t));
  words[0] = words[1] = words[2] = (uint32_t)n;
  memcpy(&words[3], &lo, 4);
  memcpy(&words[4], &hi, 4);
  words[5] = words[6] = 1;
  words[7] = (uint32_t)n;
}

/* The descriptor set and the command buffer, recorded once: the dispatch
 * and a barrier that makes its writes visible to the host. */
static bool vk_record(vk_path* p) {
  const VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
  const VkDescriptorPoolCreateInfo pool_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
      .maxSets = 1,
      .poolSizeCount = 1,
      .pPoolSizes = &size,
  };
  VkDescriptorSet set;
  const VkDescriptorSetAllocateInfo set_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
      .descriptorSetCount = 1,
      .pSetLayouts = &p->set_layout,
  };
  if (vkCreateDescriptorPool(p->device, &pool_info, NULL, &p->pool) !=
      VK_SUCCESS) {
    return false;
  }
  VkDescriptorSetAllocateInfo alloc = set_info;
  alloc.descriptorPool = p->pool;
  if (vkAllocateDescriptorSets(p->device, &alloc, &set) != VK_SUCCESS) {
    return false;
  }
  VkDescriptorBufferInfo buffers[3];
  VkWriteDescriptorSet writes[3];
  for (uint32_t i = 0; i < 3; ++i) {
    buffers[i] = (VkDescriptorBufferInfo){p->io[i].buffer, 0, VK_WHOLE_SIZE};
    writes[i] = (VkWriteDescriptorSet){
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstSet = set,
        .dstBinding = i,
        .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .pBufferInfo = &buffers[i],
    };
  }
  vkUpdateDescriptorSets(p->device, 3, writes, 0, NULL);
  const VkCommandPoolCreateInfo pool = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .queueFamilyIndex = p->family,
  };
  const VkFenceCreateInfo fence = {.sType =
                                       VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (vkCreateCommandPool(p->device, &pool, NULL, &p->commands) != VK_SUCCESS ||
      vkCreateFence(p->device, &fence, NULL, &p->fence) != VK_SUCCESS) {
    return false;
  }
  const VkCommandBufferAllocateInfo cmd_info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = p->commands,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
  };
  const VkCommandBufferBeginInfo begin = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  if (vkAllocateCommandBuffers(p->device, &cmd_info, &p->cmd) != VK_SUCCESS ||
      vkBeginCommandBuffer(p->cmd, &begin) != VK_SUCCESS) {
    return false;
  }
  uint32_t words[16];
  vk_push_values(p->n, words);
  vkCmdBindPipeline(p->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
  vkCmdBindDescriptorSets(p->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0,
                          1, &set, 0, NULL);
  vkCmdPushConstants(p->cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                     sizeof(words), words);
  vkCmdDispatch(p->cmd, ((uint32_t)p->n + LOCAL_SIZE - 1) / LOCAL_SIZE, 1, 1);
  const VkMemoryBarrier to_host = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
  };
  vkCmdPipelineBarrier(p->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL, 0,
                       NULL);
  return vkEndCommandBuffer(p->cmd) == VK_SUCCESS;
}

static bool vk_open(vk_path* p, const float* a, const float* b, int n) {
  memset(p, 0, sizeof(*p));
  p->host_a = a;
  p->host_b = b;
  p->n = n;
  const VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                 .pApplicationName = "bench_gpu_invoke",
                                 .apiVersion = VK_API_VERSION_1_1};
  const VkInstanceCreateInfo instance = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app};
  if (vkCreateInstance(&instance, NULL, &p->instance) != VK_SUCCESS) {
    p->instance = VK_NULL_HANDLE;
    return false;
  }
  const float priority = 1.0f;
  const VkDeviceQueueCreateInfo queue = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueCount = 1,
      .pQueuePriorities = &priority};
  VkDeviceCreateInfo device = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                               .queueCreateInfoCount = 1,
                               .pQueueCreateInfos = &queue};
  if (!vk_pick_device(p)) goto fail;
  VkDeviceQueueCreateInfo chosen = queue;
  chosen.queueFamilyIndex = p->family;
  device.pQueueCreateInfos = &chosen;
  if (vkCreateDevice(p->physical, &device, NULL, &p->device) != VK_SUCCESS) {
    p->device = VK_NULL_HANDLE;
    goto fail;
  }
  vkGetDeviceQueue(p->device, p->family, 0, &p->queue);
  for (int i = 0; i < 3; ++i) {
    if (!vk_make_buffer(p, sizeof(float) * (size_t)n, &p->io[i])) goto fail;
  }
  if (vk_make_pipeline(p) && vk_record(p)) return true;
fail:
  vk_close(p);
  return false;
}

static bool vk_run(vk_path* p, float* out) {
  const size_t bytes = sizeof(float) * (size_t)p->n;
  memcpy(p->io[0].mapped, p->host_a, bytes);
  memcpy(p->io[1].mapped, p->host_b, bytes);
  const VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                               .commandBufferCount = 1,
                               .pCommandBuffers = &p->cmd};
  if (vkQueueSubmit(p->queue, 1, &submit, p->fence) != VK_SUCCESS ||
      vkWaitForFences(p->device, 1, &p->fence, VK_TRUE, UINT64_MAX) !=
          VK_SUCCESS ||
      vkResetFences(p->device, 1, &p->fence) != VK_SUCCESS) {
    return false;
  }
  memcpy(out, p->io[2].mapped, bytes);
  return true;
}

/* ---- Timing ------------------------------------------------------------- */

enum { PATH_CPU, PATH_DELEGATE, PATH_DRIVER, PATH_COUNT };
static const char* const kPathNames[PATH_COUNT] = {"cpu", "delegate", "driver"};

typedef struct paths {
  interpreter_path interp[2]; /* cpu, delegate */
  bool vulkan;
  cl_path cl;
  vk_path vk;
} paths;

static bool run_path(paths* ps, int path, float* out, int n) {
  if (path < PATH_DRIVER) return interpreter_run(&ps->interp[path], out, n);
  return ps->vulkan ? vk_run(&ps->vk, out) : cl_run(&ps->cl, out);
}

static int compare_doubles(const void* x, const void* y) {
  const double a = *(const double*)x, b = *(const double*)y;
  return a < b ? -1 : a > b;
}

/* Times `runs` runs of every path in turns of BLOCK_RUNS; false when a
 * run fails or gives a wrong sum. */
static bool time_paths(paths* ps, const float* a, const float* b, int n,
                       int runs, double* times[PATH_COUNT]) {
  float* out = malloc(sizeof(float) * (size_t)n);
  if (out == NULL) return false;
  bool ok = true;
  for (int path = 0; path < PATH_COUNT && ok; ++path) {
    for (int r = 0; r < WARMUP_RUNS && ok; ++r) ok = run_path(ps, path, out, n);
  }
  for (int done = 0; done < runs && ok; done += BLOCK_RUNS) {
    for (int path = 0; path < PATH_COUNT && ok; ++path) {
      for (int r = done; r < done + BLOCK_RUNS && r < runs && ok; ++r) {
        const uint64_t start = lg_now_ns();
        ok = run_path(ps, path, out, n);
        times[path][r] = (double)(lg_now_ns() - start) * 1e-3;
        for (int i = 0; i < n && ok; ++i) {
          if (out[i] != a[i] + b[i]) {
            fprintf(stderr, "bench_gpu_invoke: %s: element %d is %g, want %g\n",
                    kPathNames[path], i, (double)out[i], (double)(a[i] + b[i]));
            ok = false;
          }
        }
      }
    }
  }
  free(out);
  return ok;
}

static void report(const char* backend, double* times[PATH_COUNT], int runs) {
  double mean[PATH_COUNT], p50[PATH_COUNT];
  printf("%s (runs %d):\n  path          mean       p50       p90       min\n",
         backend, runs);
  for (int path = 0; path < PATH_COUNT; ++path) {
    double* t = times[path];
    double sum = 0;
    for (int r = 0; r < runs; ++r) sum += t[r];
    qsort(t, (size_t)runs, sizeof(double), compare_doubles);
    mean[path] = sum / runs;
    p50[path] = t[runs / 2];
    printf("  %-9s %9.1f %9.1f %9.1f %9.1f\n", kPathNames[path], mean[path],
           p50[path], t[runs * 9 / 10], t[0]);
  }
  printf(
      "  delegate - cpu: %.1f us mean, %.1f us p50; delegate / driver: "
      "%.2fx mean, %.2fx p50\n",
      mean[PATH_DELEGATE] - mean[PATH_CPU], p50[PATH_DELEGATE] - p50[PATH_CPU],
      mean[PATH_DELEGATE] / mean[PATH_DRIVER],
      p50[PATH_DELEGATE] / p50[PATH_DRIVER]);
}

/* One backend's three paths; 0 measured, 1 wrong result, 2 unavailable. */
static int bench_backend(TfLiteModel* model, bool vulkan, const float* a,
                         const float* b, int n, int runs) {
  const char* name = vulkan ? "Vulkan" : "OpenCL";
  paths ps;
  memset(&ps, 0, sizeof(ps));
  ps.vulkan = vulkan;
  const litegpu_gpu_backend backend =
      vulkan ? LITEGPU_GPU_BACKEND_VULKAN : LITEGPU_GPU_BACKEND_OPENCL;
  const bool opened =
      interpreter_open(&ps.interp[PATH_CPU], model, backend, false, a, b, n) &&
      interpreter_open(&ps.interp[PATH_DELEGATE], model, backend, true, a, b,
                       n) &&
      (vulkan ? vk_open(&ps.vk, a, b, n) : cl_open(&ps.cl, a, b, n));
  int status = opened ? 0 : 2;
  double* times[PATH_COUNT] = {NULL, NULL, NULL};
  for (int path = 0; path < PATH_COUNT && status == 0; ++path) {
    times[path] = malloc(sizeof(double) * (size_t)runs);
    if (times[path] == NULL) status = 2;
  }
  if (status == 0) {
    status = time_paths(&ps, a, b, n, runs, times) ? 0 : 1;
    if (status == 0) report(name, times, runs);
  }
  if (status == 2) printf("%s: not available\n", name);
  for (int path = 0; path < PATH_COUNT; ++path) free(times[path]);
  interpreter_close(&ps.interp[PATH_CPU]);
  interpreter_close(&ps.interp[PATH_DELEGATE]);
  if (vulkan) {
    vk_close(&ps.vk);
  } else {
    cl_close(&ps.cl);
  }
  return status;
}

/* ---- Main --------------------------------------------------------------- */

static bool parse_int(const char* arg, const char* flag, int* out) {
  const size_t len = strlen(flag);
  if (strncmp(arg, flag, len) != 0) return false;
  char* end = NULL;
  const long v = strtol(arg + len, &end, 10);
  if (end == arg + len || *end != '\0' || v < 1 || v > 100000000) {
    fprintf(stderr, "bench_gpu_invoke: bad value in '%s'\n", arg);
    exit(2);
  }
  *out = (int)v;
  return true;
}

/* A comma-separated list of "cl" and "vk", at least one. */
static bool valid_backends(const char* list) {
  if (*list == '\0') return false;
  for (const char* p = list; *p != '\0';) {
    if (strncmp(p, "cl", 2) != 0 && strncmp(p, "vk", 2) != 0) return false;
    p += 2;
    if (*p == ',')
      ++p;
    else if (*p != '\0')
      return false;
  }
  return true;
}

static const char kUsage[] =
    "usage: bench_gpu_invoke [--n=1000] [--runs=2000] [--backends=cl,vk]\n";

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    fputs(kUsage, stdout);
    return 0;
  }
  int n = 1000, runs = 2000;
  const char* backends = "cl,vk";
  for (int i = 1; i < argc; ++i) {
    if (parse_int(argv[i], "--n=", &n) ||
        parse_int(argv[i], "--runs=", &runs)) {
      continue;
    }
    if (strncmp(argv[i], "--backends=", 11) == 0 &&
        valid_backends(argv[i] + 11)) {
      backends = argv[i] + 11;
      continue;
    }
    fputs(kUsage, stderr);
    return 2;
  }
  size_t size = 0;
  void* data = build_add_model(n, &size);
  TfLiteModel* model = data != NULL ? TfLiteModelCreate(data, size) : NULL;
  float* a = malloc(sizeof(float) * (size_t)n);
  float* b = malloc(sizeof(float) * (size_t)n);
  if (model == NULL || a == NULL || b == NULL) {
    fprintf(stderr, "bench_gpu_invoke: out of memory\n");
    return 2;
  }
  for (int i = 0; i < n; ++i) {
    a[i] = (float)(i % 17) * 0.25f - 2.0f;
    b[i] = (float)(i % 5) * 1.5f;
  }
  printf("ADD of %d floats per Invoke, times in us\n", n);
  /* The worst outcome: 1 (a wrong sum) over 2 (a backend that cannot run)
   * over 0. */
  int worst = 0;
  for (int vulkan = 0; vulkan < 2; ++vulkan) {
    if (strstr(backends, vulkan ? "vk" : "cl") == NULL) continue;
    const int s = bench_backend(model, vulkan != 0, a, b, n, runs);
    if (s == 1 || (s == 2 && worst == 0)) worst = s;
  }
  free(b);
  free(a);
  TfLiteModelDelete(model);
  free(data);
  return worst;
}
