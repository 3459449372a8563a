/* The Vulkan entry points the backend calls, loaded at run time from the
 * Vulkan loader (libvulkan.so.1, else libvulkan.so) instead of linked: a
 * device without Vulkan still loads liblitegpu and runs on the CPU or
 * OpenCL, and the Vulkan backend says why it cannot start.
 *
 * Every file that includes this header calls vkFoo(...) as usual: a macro
 * turns the name into the loaded pointer (lg_vk_fn.vkFoo). These are the
 * loader's exported commands (core Vulkan 1.0 and 1.1), which dispatch to
 * any instance or device as linked calls do; extension commands still come
 * from vkGetInstanceProcAddr. Call sites run only after lg_vk_api_load
 * succeeded (instance creation loads it first). Test hook:
 * LITEGPU_VULKAN_TEST_LIBRARY=PATH loads PATH instead (a path that does not
 * exist plays a machine without Vulkan). */
#ifndef LITEGPU_DELEGATES_VULKAN_VULKAN_API_H_
#define LITEGPU_DELEGATES_VULKAN_VULKAN_API_H_

#include <stdbool.h>
#include <stddef.h>

#include <vulkan/vulkan.h>

/* The commands the backend uses; adding a call adds it here and below. */
#define LG_VK_FUNCTIONS(X)                    \
  X(vkAllocateCommandBuffers)                 \
  X(vkAllocateDescriptorSets)                 \
  X(vkAllocateMemory)                         \
  X(vkBeginCommandBuffer)                     \
  X(vkBindBufferMemory)                       \
  X(vkCmdBindDescriptorSets)                  \
  X(vkCmdBindPipeline)                        \
  X(vkCmdCopyBuffer)                          \
  X(vkCmdDispatch)                            \
  X(vkCmdDispatchBase)                        \
  X(vkCmdPipelineBarrier)                     \
  X(vkCmdPushConstants)                       \
  X(vkCmdResetQueryPool)                      \
  X(vkCmdWriteTimestamp)                      \
  X(vkCreateBuffer)                           \
  X(vkCreateBufferView)                       \
  X(vkCreateCommandPool)                      \
  X(vkCreateComputePipelines)                 \
  X(vkCreateDescriptorPool)                   \
  X(vkCreateDescriptorSetLayout)              \
  X(vkCreateDevice)                           \
  X(vkCreateFence)                            \
  X(vkCreateInstance)                         \
  X(vkCreatePipelineCache)                    \
  X(vkCreatePipelineLayout)                   \
  X(vkCreateQueryPool)                        \
  X(vkCreateShaderModule)                     \
  X(vkDestroyBuffer)                          \
  X(vkDestroyBufferView)                      \
  X(vkDestroyCommandPool)                     \
  X(vkDestroyDescriptorPool)                  \
  X(vkDestroyDescriptorSetLayout)             \
  X(vkDestroyDevice)                          \
  X(vkDestroyFence)                           \
  X(vkDestroyInstance)                        \
  X(vkDestroyPipeline)                        \
  X(vkDestroyPipelineCache)                   \
  X(vkDestroyPipelineLayout)                  \
  X(vkDestroyQueryPool)                       \
  X(vkDestroyShaderModule)                    \
  X(vkDeviceWaitIdle)                         \
  X(vkEndCommandBuffer)                       \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkEnumerateInstanceExtensionProperties)   \
  X(vkEnumerateInstanceLayerProperties)       \
  X(vkEnumerateInstanceVersion)               \
  X(vkEnumeratePhysicalDevices)               \
  X(vkFreeCommandBuffers)                     \
  X(vkFreeMemory)                             \
  X(vkGetBufferMemoryRequirements)            \
  X(vkGetDeviceProcAddr)                      \
  X(vkGetFenceStatus)                         \
  X(vkGetDeviceQueue)                         \
  X(vkGetInstanceProcAddr)                    \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceFormatProperties)      \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPipelineCacheData)                   \
  X(vkGetQueryPoolResults)                    \
  X(vkMapMemory)                              \
  X(vkQueueSubmit)                            \
  X(vkResetCommandPool)                       \
  X(vkResetDescriptorPool)                    \
  X(vkResetFences)                            \
  X(vkUnmapMemory)                            \
  X(vkUpdateDescriptorSets)                   \
  X(vkWaitForFences)

#define LG_VK_POINTER(name) PFN_##name name;
typedef struct lg_vk_functions {
  LG_VK_FUNCTIONS(LG_VK_POINTER)
} lg_vk_functions;
#undef LG_VK_POINTER

extern lg_vk_functions lg_vk_fn;

/* Loads the Vulkan loader and every command once per process
 * (thread-safe). False, with the reason in `why` (e.g. "cannot load the
 * Vulkan loader (libvulkan.so.1: cannot open shared object file: ...)"),
 * when it cannot; later calls give the same answer. */
bool lg_vk_api_load(char* why, size_t why_size);

#ifndef LG_VK_API_DEFINITION
#define vkAllocateCommandBuffers lg_vk_fn.vkAllocateCommandBuffers
#define vkAllocateDescriptorSets lg_vk_fn.vkAllocateDescriptorSets
#define vkAllocateMemory lg_vk_fn.vkAllocateMemory
#define vkBeginCommandBuffer lg_vk_fn.vkBeginCommandBuffer
#define vkBindBufferMemory lg_vk_fn.vkBindBufferMemory
#define vkCmdBindDescriptorSets lg_vk_fn.vkCmdBindDescriptorSets
#define vkCmdBindPipeline lg_vk_fn.vkCmdBindPipeline
#define vkCmdCopyBuffer lg_vk_fn.vkCmdCopyBuffer
#define vkCmdDispatch lg_vk_fn.vkCmdDispatch
#define vkCmdDispatchBase lg_vk_fn.vkCmdDispatchBase
#define vkCmdPipelineBarrier lg_vk_fn.vkCmdPipelineBarrier
#define vkCmdPushConstants lg_vk_fn.vkCmdPushConstants
#define vkCmdResetQueryPool lg_vk_fn.vkCmdResetQueryPool
#define vkCmdWriteTimestamp lg_vk_fn.vkCmdWriteTimestamp
#define vkCreateBuffer lg_vk_fn.vkCreateBuffer
#define vkCreateBufferView lg_vk_fn.vkCreateBufferView
#define vkCreateCommandPool lg_vk_fn.vkCreateCommandPool
#define vkCreateComputePipelines lg_vk_fn.vkCreateComputePipelines
#define vkCreateDescriptorPool lg_vk_fn.vkCreateDescriptorPool
#define vkCreateDescriptorSetLayout lg_vk_fn.vkCreateDescriptorSetLayout
#define vkCreateDevice lg_vk_fn.vkCreateDevice
#define vkCreateFence lg_vk_fn.vkCreateFence
#define vkCreateInstance lg_vk_fn.vkCreateInstance
#define vkCreatePipelineCache lg_vk_fn.vkCreatePipelineCache
#define vkCreatePipelineLayout lg_vk_fn.vkCreatePipelineLayout
#define vkCreateQueryPool lg_vk_fn.vkCreateQueryPool
#define vkCreateShaderModule lg_vk_fn.vkCreateShaderModule
#define vkDestroyBuffer lg_vk_fn.vkDestroyBuffer
#define vkDestroyBufferView lg_vk_fn.vkDestroyBufferView
#define vkDestroyCommandPool lg_vk_fn.vkDestroyCommandPool
#define vkDestroyDescriptorPool lg_vk_fn.vkDestroyDescriptorPool
#define vkDestroyDescriptorSetLayout lg_vk_fn.vkDestroyDescriptorSetLayout
#define vkDestroyDevice lg_vk_fn.vkDestroyDevice
#define vkDestroyFence lg_vk_fn.vkDestroyFence
#define vkDestroyInstance lg_vk_fn.vkDestroyInstance
#define vkDestroyPipeline lg_vk_fn.vkDestroyPipeline
#define vkDestroyPipelineCache lg_vk_fn.vkDestroyPipelineCache
#define vkDestroyPipelineLayout lg_vk_fn.vkDestroyPipelineLayout
#define vkDestroyQueryPool lg_vk_fn.vkDestroyQueryPool
#define vkDestroyShaderModule lg_vk_fn.vkDestroyShaderModule
#define vkDeviceWaitIdle lg_vk_fn.vkDeviceWaitIdle
#define vkEndCommandBuffer lg_vk_fn.vkEndCommandBuffer
#define vkEnumerateDeviceExtensionProperties \
  lg_vk_fn.vkEnumerateDeviceExtensionProperties
#define vkEnumerateInstanceExtensionProperties \
  lg_vk_fn.vkEnumerateInstanceExtensionProperties
#define vkEnumerateInstanceLayerProperties \
  lg_vk_fn.vkEnumerateInstanceLayerProperties
#define vkEnumerateInstanceVersion lg_vk_fn.vkEnumerateInstanceVersion
#define vkEnumeratePhysicalDevices lg_vk_fn.vkEnumeratePhysicalDevices
#define vkFreeCommandBuffers lg_vk_fn.vkFreeCommandBuffers
#define vkFreeMemory lg_vk_fn.vkFreeMemory
#define vkGetBufferMemoryRequirements lg_vk_fn.vkGetBufferMemoryRequirements
#define vkGetDeviceProcAddr lg_vk_fn.vkGetDeviceProcAddr
#define vkGetFenceStatus lg_vk_fn.vkGetFenceStatus
#define vkGetDeviceQueue lg_vk_fn.vkGetDeviceQueue
#define vkGetInstanceProcAddr lg_vk_fn.vkGetInstanceProcAddr
#define vkGetPhysicalDeviceFeatures2 lg_vk_fn.vkGetPhysicalDeviceFeatures2
#define vkGetPhysicalDeviceFormatProperties \
  lg_vk_fn.vkGetPhysicalDeviceFormatProperties
#define vkGetPhysicalDeviceMemoryProperties \
  lg_vk_fn.vkGetPhysicalDeviceMemoryProperties
#define vkGetPhysicalDeviceProperties lg_vk_fn.vkGetPhysicalDeviceProperties
#define vkGetPhysicalDeviceProperties2 lg_vk_fn.vkGetPhysicalDeviceProperties2
#define vkGetPhysicalDeviceQueueFamilyProperties \
  lg_vk_fn.vkGetPhysicalDeviceQueueFamilyProperties
#define vkGetPipelineCacheData lg_vk_fn.vkGetPipelineCacheData
#define vkGetQueryPoolResults lg_vk_fn.vkGetQueryPoolResults
#define vkMapMemory lg_vk_fn.vkMapMemory
#define vkQueueSubmit lg_vk_fn.vkQueueSubmit
#define vkResetCommandPool lg_vk_fn.vkResetCommandPool
#define vkResetDescriptorPool lg_vk_fn.vkResetDescriptorPool
#define vkResetFences lg_vk_fn.vkResetFences
#define vkUnmapMemory lg_vk_fn.vkUnmapMemory
#define vkUpdateDescriptorSets lg_vk_fn.vkUpdateDescriptorSets
#define vkWaitForFences lg_vk_fn.vkWaitForFences
#endif

#endif /* LITEGPU_DELEGATES_VULKAN_VULKAN_API_H_ */
