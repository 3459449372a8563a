/* Internals shared by the Vulkan backend's files: VkResult names, error
 * messages, fault injection, object accounting and hashing.
 *
 * Fault injection (tests): lg_vulkan_fail_call("vkAllocateMemory", 2) makes
 * the 2nd use of vkAllocateMemory from now on fail (once) with a VkResult
 * that call can return; lg_vulkan_fail_call(NULL, 0) disarms. Every
 * fallible Vk call goes through LG_VK_TRY, which costs one load and a
 * branch while nothing is armed; an injected failure skips the real call.
 * Process-wide and not thread-safe: for tests only.
 *
 * Object accounting: every Vk object the backend creates is counted while
 * alive, so tests can prove that failure paths leak nothing even where the
 * driver hides its allocations from LeakSanitizer. */
#ifndef LITEGPU_DELEGATES_VULKAN_VULKAN_INTERNAL_H_
#define LITEGPU_DELEGATES_VULKAN_VULKAN_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "delegates/backend/gpu_backend.h"
#include "delegates/backend/gpu_error.h"
#include "delegates/vulkan/vulkan_api.h" /* vulkan.h, the loaded calls */

/* ---- Test hooks --------------------------------------------------------- */

/* Arms a failure of the `nth` (1-based) next use of `call_name`; NULL or
 * nth < 1 disarms. */
void lg_vulkan_fail_call(const char* call_name, int nth);
/* Whether the armed failure has fired since the last lg_vulkan_fail_call. */
bool lg_vulkan_fail_fired(void);
/* Vk objects created by any Vulkan backend and not yet destroyed. */
long lg_vulkan_live_objects(void);
/* Error messages layers reported to any backend's messenger so far
 * (process-wide, so errors reported while a backend is destroyed count). */
long lg_vulkan_layer_errors(void);
/* When on, device buffers are never host-mapped: uploads and downloads
 * take the staging path, as on a discrete GPU. */
void lg_vulkan_force_staging(bool on);
/* When on, backends created afterwards see a device without shaderFloat16
 * and 16-bit storage (device.fp16 false), so allow_fp16 must give float32
 * as on such a device. */
void lg_vulkan_hide_fp16(bool on);
/* When on, backends created afterwards bind read-only tensors as storage
 * buffers even where texel buffers would do (texel_reads false), as on a
 * device with a small maxTexelBufferElements. The environment variable
 * LITEGPU_VULKAN_TEST_NO_TEXEL_READS=1 does the same for a whole process
 * (the conformance runs of the storage-buffer builds). */
void lg_vulkan_hide_texel_reads(bool on);
/* When on, backends created afterwards see a device without timeline
 * semaphores, which refuse the async kernel's timeline points. */
void lg_vulkan_hide_timeline(bool on);

/* ---- Used by the backend ------------------------------------------------ */

/* `fn(args...)`, or `fail` without calling it when the armed failure is
 * for fn and this is its nth use. */
#define LG_VK_TRY(fn, fail, ...) (lg_vk_inject(#fn) ? (fail) : fn(__VA_ARGS__))

/* True when the armed failure is for `call_name` and this is its nth use. */
bool lg_vk_inject(const char* call_name);

/* The name of a VkResult ("VK_ERROR_OUT_OF_DEVICE_MEMORY"), or
 * "unknown VkResult". */
const char* lg_vk_result_name(VkResult result);

/* Fills `error` (may be NULL) with "<call> failed: <NAME> (<code>)" and an
 * optional printf-style detail after ": ". */
void lg_vk_fail(lg_gpu_error* error, const char* call, VkResult result,
                const char* detail_format, ...)
    __attribute__((format(printf, 4, 5)));
/* Free-form messages: lg_gpu_error_set (delegates/backend/gpu_error.h). */

void lg_vk_object_created(void);
void lg_vk_object_released(void);
void lg_vk_layer_error_reported(void);
bool lg_vk_staging_forced(void);
bool lg_vk_fp16_hidden(void);
bool lg_vk_texel_reads_hidden(void);
bool lg_vk_timeline_hidden(void);

/* A fence wait longer than this is reported as a failure (a hung or lost
 * device), not waited for forever. */
#define LG_VK_FENCE_TIMEOUT_NS (UINT64_C(60) * 1000000000u)

/* vkWaitForFences on all of `fences` with that limit, polling them first
 * for up to LG_VK_SPIN_NS. */
VkResult lg_vk_wait_fences(VkDevice device, uint32_t count,
                           const VkFence* fences);

#endif /* LITEGPU_DELEGATES_VULKAN_VULKAN_INTERNAL_H_ */
