/* VkResult names, error messages, fault injection, object accounting,
 * hashing and the shader registry lookup for the Vulkan backend (see
 * vulkan_internal.h). */
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "delegates/vulkan/vulkan_internal.h"
#include "delegates/vulkan/vulkan_shaders.h"

/* ---- Result names ------------------------------------------------------- */

typedef struct lg_vk_result_entry {
  VkResult result;
  const char* name;
} lg_vk_result_entry;

#define LG_VK_RESULT(r) \
  { r, #r }

/* Codes of the core API up to the headers' version, and the extension codes
 * a compute-only application can still meet. */
static const lg_vk_result_entry lg_vk_results[] = {
    LG_VK_RESULT(VK_SUCCESS),
    LG_VK_RESULT(VK_NOT_READY),
    LG_VK_RESULT(VK_TIMEOUT),
    LG_VK_RESULT(VK_EVENT_SET),
    LG_VK_RESULT(VK_EVENT_RESET),
    LG_VK_RESULT(VK_INCOMPLETE),
    LG_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY),
    LG_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY),
    LG_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED),
    LG_VK_RESULT(VK_ERROR_DEVICE_LOST),
    LG_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED),
    LG_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT),
    LG_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT),
    LG_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT),
    LG_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER),
    LG_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS),
    LG_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED),
    LG_VK_RESULT(VK_ERROR_FRAGMENTED_POOL),
    LG_VK_RESULT(VK_ERROR_UNKNOWN),
    LG_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY),
    LG_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE),
#ifdef VK_VERSION_1_2
    LG_VK_RESULT(VK_ERROR_FRAGMENTATION),
    LG_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS),
#endif
#ifdef VK_VERSION_1_3
    LG_VK_RESULT(VK_PIPELINE_COMPILE_REQUIRED),
#endif
    LG_VK_RESULT(VK_ERROR_VALIDATION_FAILED_EXT),
    LG_VK_RESULT(VK_ERROR_INVALID_SHADER_NV),
};

const char* lg_vk_result_name(VkResult result) {
  for (size_t i = 0; i < sizeof(lg_vk_results) / sizeof(lg_vk_results[0]);
       ++i) {
    if (lg_vk_results[i].result == result) return lg_vk_results[i].name;
  }
  return "unknown VkResult";
}

/* ---- Messages ----------------------------------------------------------- */

void lg_vk_fail(lg_gpu_error* error, const char* call, VkResult result,
                const char* detail_format, ...) {
  va_list args;
  va_start(args, detail_format);
  lg_gpu_error_call(error, call, lg_vk_result_name(result), (int)result,
                    detail_format, args);
  va_end(args);
}

/* ---- Fault injection ---------------------------------------------------- */

static lg_gpu_fault lg_vk_fault;

void lg_vulkan_fail_call(const char* call_name, int nth) {
  lg_gpu_fault_arm(&lg_vk_fault, call_name, nth);
}

bool lg_vulkan_fail_fired(void) { return lg_vk_fault.fired; }

bool lg_vk_inject(const char* call_name) {
  return lg_gpu_fault_hit(&lg_vk_fault, call_name);
}

/* ---- Object accounting -------------------------------------------------- */

static atomic_long lg_vk_live = 0;

void lg_vk_object_created(void) { atomic_fetch_add(&lg_vk_live, 1); }
void lg_vk_object_released(void) { atomic_fetch_sub(&lg_vk_live, 1); }
long lg_vulkan_live_objects(void) { return atomic_load(&lg_vk_live); }

static atomic_long lg_vk_layer_error_count = 0;

void lg_vk_layer_error_reported(void) {
  atomic_fetch_add(&lg_vk_layer_error_count, 1);
}
long lg_vulkan_layer_errors(void) {
  return atomic_load(&lg_vk_layer_error_count);
}

static bool lg_vk_force_staging_flag = false;

void lg_vulkan_force_staging(bool on) { lg_vk_force_staging_flag = on; }
bool lg_vk_staging_forced(void) { return lg_vk_force_staging_flag; }

static bool lg_vk_hide_fp16_flag = false;

void lg_vulkan_hide_fp16(bool on) { lg_vk_hide_fp16_flag = on; }
bool lg_vk_fp16_hidden(void) { return lg_vk_hide_fp16_flag; }

static bool lg_vk_hide_timeline_flag = false;

void lg_vulkan_hide_timeline(bool on) { lg_vk_hide_timeline_flag = on; }
bool lg_vk_timeline_hidden(void) { return lg_vk_hide_timeline_flag; }

static bool lg_vk_hide_texel_reads_flag = false;

void lg_vulkan_hide_texel_reads(bool on) { lg_vk_hide_texel_reads_flag = on; }
bool lg_vk_texel_reads_hidden(void) {
  const char* env = getenv("LITEGPU_VULKAN_TEST_NO_TEXEL_READS");
  return lg_vk_hide_texel_reads_flag || (env != NULL && strcmp(env, "1") == 0);
}

/* ---- Waiting ------------------------------------------------------------ */

/* How long a wait polls before it blocks. A thread blocked in
 * vkWaitForFences wakes tens of microseconds after the fence signals (a
 * futex wake-up through the driver's queue thread on lavapipe), which is
 * most of a small Invoke; polling for a short while answers at once when
 * the work is that small and costs a larger Invoke nothing noticeable.
 * Each poll that finds the fence unsignalled yields the core, as the
 * OpenCL backend's does (a CPU driver's threads need it). */
#define LG_VK_SPIN_NS UINT64_C(100000)

VkResult lg_vk_wait_fences(VkDevice device, uint32_t count,
                           const VkFence* fences) {
  const uint64_t start = lg_now_ns();
  for (;;) {
    const VkResult r = LG_VK_TRY(vkWaitForFences, VK_ERROR_DEVICE_LOST, device,
                                 count, fences, VK_TRUE, 0);
    if (r != VK_TIMEOUT) return r;
    if (lg_now_ns() - start >= LG_VK_SPIN_NS) break;
    sched_yield();
  }
  return LG_VK_TRY(vkWaitForFences, VK_ERROR_DEVICE_LOST, device, count, fences,
                   VK_TRUE, LG_VK_FENCE_TIMEOUT_NS);
}

/* ---- The shader registry ----------------------------------------------- */

const lg_vk_shader* lg_vulkan_shader_find(const char* name) {
  if (name == NULL) return NULL;
  for (size_t i = 0; i < lg_vulkan_shader_count; ++i) {
    if (strcmp(lg_vulkan_shaders[i].name, name) == 0) {
      return &lg_vulkan_shaders[i];
    }
  }
  return NULL;
}
