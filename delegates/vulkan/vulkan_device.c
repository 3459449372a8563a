/* Instance, validation messenger, physical device choice, device info and
 * the logical device for the Vulkan backend. The choice rule is documented
 * in vulkan_backend.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/vulkan/vulkan_impl.h"
#include "delegates/vulkan/vulkan_internal.h"

#define LG_VK_VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

/* ---- Instance ----------------------------------------------------------- */

/* Counts (and, in validation mode, prints) what the layers report. */
static VKAPI_ATTR VkBool32 VKAPI_CALL lg_vk_debug_callback(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity,
    VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  (void)types;
  lg_vk_impl* impl = user;
  const char* text =
      data != NULL && data->pMessage != NULL ? data->pMessage : "(none)";
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    lg_vk_layer_error_reported();
    if (impl->stats.validation_errors++ == 0) {
      snprintf(impl->stats.first_validation_error,
               sizeof(impl->stats.first_validation_error), "%s", text);
    }
    fprintf(stderr, "litegpu vulkan: layer error: %s\n", text);
  } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    impl->stats.validation_warnings++;
  }
  return VK_FALSE;
}

static bool lg_vk_has_layer(const char* name, lg_gpu_error* error,
                            VkResult* result) {
  uint32_t count = 0;
  VkLayerProperties* layers = NULL;
  bool found = false;
  *result = LG_VK_TRY(vkEnumerateInstanceLayerProperties,
                      VK_ERROR_OUT_OF_HOST_MEMORY, &count, NULL);
  if (*result == VK_SUCCESS && count > 0) {
    layers = calloc(count, sizeof(*layers));
    if (layers == NULL) {
      *result = VK_ERROR_OUT_OF_HOST_MEMORY;
    } else {
      *result = vkEnumerateInstanceLayerProperties(&count, layers);
      if (*result == VK_INCOMPLETE) *result = VK_SUCCESS;
    }
  }
  for (uint32_t i = 0; *result == VK_SUCCESS && i < count; ++i) {
    if (strcmp(layers[i].layerName, name) == 0) found = true;
  }
  if (*result != VK_SUCCESS) {
    lg_vk_fail(error, "vkEnumerateInstanceLayerProperties", *result, NULL);
  }
  free(layers);
  return found;
}

/* Whether the loader (or `layer`, when not NULL) offers instance extension
 * `name`; enumeration failures count as "no". */
static bool lg_vk_has_instance_extension(const char* layer, const char* name) {
  uint32_t count = 0;
  VkExtensionProperties* props = NULL;
  bool found = false;
  VkResult r = vkEnumerateInstanceExtensionProperties(layer, &count, NULL);
  if (r == VK_SUCCESS && count > 0) {
    props = calloc(count, sizeof(*props));
    r = props == NULL
            ? VK_ERROR_OUT_OF_HOST_MEMORY
            : vkEnumerateInstanceExtensionProperties(layer, &count, props);
  }
  for (uint32_t i = 0; (r == VK_SUCCESS || r == VK_INCOMPLETE) && i < count;
       ++i) {
    if (strcmp(props[i].extensionName, name) == 0) found = true;
  }
  free(props);
  return found;
}

TfLiteStatus lg_vk_instance_create(lg_vk_impl* impl, bool validation,
                                   lg_gpu_error* error) {
  const char* env = getenv("LITEGPU_VULKAN_VALIDATION");
  if (env != NULL && strcmp(env, "1") == 0) {
    validation = true;
    impl->fail_on_validation_error = true;
  }
  char why[512];
  if (!lg_vk_api_load(why, sizeof(why))) {
    lg_gpu_error_set(error, "%s", why);
    return kTfLiteError;
  }
  uint32_t loader_version = VK_API_VERSION_1_0;
  VkResult r = LG_VK_TRY(vkEnumerateInstanceVersion,
                         VK_ERROR_OUT_OF_HOST_MEMORY, &loader_version);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkEnumerateInstanceVersion", r, NULL);
    return kTfLiteError;
  }
  if (loader_version < VK_API_VERSION_1_1) {
    lg_gpu_error_set(error,
                     "the Vulkan loader is version %u.%u; litegpu needs "
                     "Vulkan 1.1",
                     VK_API_VERSION_MAJOR(loader_version),
                     VK_API_VERSION_MINOR(loader_version));
    return kTfLiteError;
  }
  const char* layers[1] = {LG_VK_VALIDATION_LAYER};
  if (validation) {
    if (!lg_vk_has_layer(LG_VK_VALIDATION_LAYER, error, &r)) {
      if (r == VK_SUCCESS) {
        lg_gpu_error_set(error,
                         "Vulkan validation was requested but %s is not "
                         "installed (Debian: vulkan-validationlayers)",
                         LG_VK_VALIDATION_LAYER);
      }
      return kTfLiteError;
    }
  }
  const char* debug_ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  bool debug = lg_vk_has_instance_extension(NULL, debug_ext) ||
               (validation && lg_vk_has_instance_extension(
                                  LG_VK_VALIDATION_LAYER, debug_ext));
  VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
      .pfnUserCallback = lg_vk_debug_callback,
      .pUserData = impl,
  };
  /* With validation, synchronization validation too: it checks the
   * barriers between dispatches and copies. */
  const char* features_ext = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
  const bool sync_validation =
      validation &&
      lg_vk_has_instance_extension(LG_VK_VALIDATION_LAYER, features_ext);
  const VkValidationFeatureEnableEXT enables[1] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  const VkValidationFeaturesEXT features = {
      .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
      .pNext = debug ? &messenger_info : NULL,
      .enabledValidationFeatureCount = 1,
      .pEnabledValidationFeatures = enables,
  };
  const char* extensions[2];
  uint32_t extension_count = 0;
  if (debug) extensions[extension_count++] = debug_ext;
  if (sync_validation) extensions[extension_count++] = features_ext;
  const VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "litegpu",
      .pEngineName = "litegpu",
      .apiVersion = VK_API_VERSION_1_1,
  };
  const VkInstanceCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      /* Chained here too, so instance creation and destruction are
       * reported. */
      .pNext = sync_validation ? (const void*)&features
               : debug         ? (const void*)&messenger_info
                               : NULL,
      .pApplicationInfo = &app,
      .enabledLayerCount = validation ? 1u : 0u,
      .ppEnabledLayerNames = layers,
      .enabledExtensionCount = extension_count,
      .ppEnabledExtensionNames = extensions,
  };
  r = LG_VK_TRY(vkCreateInstance, VK_ERROR_INITIALIZATION_FAILED, &info, NULL,
                &impl->instance);
  if (r != VK_SUCCESS) {
    impl->instance = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkCreateInstance", r, "%s",
               r == VK_ERROR_INCOMPATIBLE_DRIVER
                   ? "no Vulkan driver (is an ICD such as "
                     "mesa-vulkan-drivers or a GPU driver installed?)"
                   : "Vulkan 1.1 instance");
    return kTfLiteError;
  }
  lg_vk_object_created();
  if (!debug) return kTfLiteOk;
  PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
      (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
          impl->instance, "vkCreateDebugUtilsMessengerEXT");
  impl->destroy_messenger =
      (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
          impl->instance, "vkDestroyDebugUtilsMessengerEXT");
  if (create_messenger == NULL || impl->destroy_messenger == NULL) {
    lg_gpu_error_set(error,
                     "vkGetInstanceProcAddr found no "
                     "vkCreateDebugUtilsMessengerEXT though %s is enabled",
                     debug_ext);
    return kTfLiteError;
  }
  r = lg_vk_inject("vkCreateDebugUtilsMessengerEXT")
          ? VK_ERROR_OUT_OF_HOST_MEMORY
          : create_messenger(impl->instance, &messenger_info, NULL,
                             &impl->messenger);
  if (r != VK_SUCCESS) {
    impl->messenger = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkCreateDebugUtilsMessengerEXT", r, NULL);
    return kTfLiteError;
  }
  lg_vk_object_created();
  return kTfLiteOk;
}

/* ---- Device choice ------------------------------------------------------ */

/* GPUs first: discrete 0, integrated 1, virtual 2; anything else 3. */
static int lg_vk_type_rank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    default:
      return 3;
  }
}

/* The first queue family with compute, or UINT32_MAX; *timestamp_bits
 * (when not NULL) gets its timestampValidBits (0: it writes no
 * timestamps). */
static uint32_t lg_vk_compute_family(VkPhysicalDevice device,
                                     uint32_t* timestamp_bits) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, NULL);
  VkQueueFamilyProperties* families =
      calloc(count ? count : 1, sizeof(*families));
  uint32_t found = UINT32_MAX;
  if (timestamp_bits != NULL) *timestamp_bits = 0;
  if (families == NULL) return found;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families);
  for (uint32_t i = 0; i < count && found == UINT32_MAX; ++i) {
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
        families[i].queueCount > 0) {
      found = i;
      if (timestamp_bits != NULL) {
        *timestamp_bits = families[i].timestampValidBits;
      }
    }
  }
  free(families);
  return found;
}

/* Lists the usable devices, sorted by rank (stable); *gpus of them are
 * GPUs. */
static TfLiteStatus lg_vk_list_devices(lg_vk_impl* impl, VkPhysicalDevice** out,
                                       uint32_t* count, uint32_t* gpus,
                                       lg_gpu_error* error) {
  uint32_t n = 0;
  VkPhysicalDevice* all = NULL;
  VkResult r =
      LG_VK_TRY(vkEnumeratePhysicalDevices, VK_ERROR_INITIALIZATION_FAILED,
                impl->instance, &n, NULL);
  if (r == VK_SUCCESS && n > 0) {
    all = calloc(n, sizeof(*all));
    r = all == NULL ? VK_ERROR_OUT_OF_HOST_MEMORY
                    : vkEnumeratePhysicalDevices(impl->instance, &n, all);
    if (r == VK_INCOMPLETE) r = VK_SUCCESS;
  }
  if (r != VK_SUCCESS) {
    free(all);
    lg_vk_fail(error, "vkEnumeratePhysicalDevices", r, NULL);
    return kTfLiteError;
  }
  VkPhysicalDevice* sorted = calloc(n > 0 ? n : 1, sizeof(*sorted));
  if (sorted == NULL) {
    free(all);
    lg_gpu_error_set(error, "out of host memory listing Vulkan devices");
    return kTfLiteError;
  }
  uint32_t kept = 0;
  *gpus = 0;
  for (int rank = 0; rank <= 3; ++rank) {
    for (uint32_t i = 0; i < n; ++i) {
      VkPhysicalDeviceProperties props;
      vkGetPhysicalDeviceProperties(all[i], &props);
      if (lg_vk_type_rank(props.deviceType) != rank) continue;
      if (props.apiVersion < VK_API_VERSION_1_1) continue;
      if (lg_vk_compute_family(all[i], NULL) == UINT32_MAX) continue;
      if (rank < 3) ++*gpus;
      sorted[kept++] = all[i];
    }
  }
  free(all);
  all = sorted;
  *out = all;
  *count = kept;
  return kTfLiteOk;
}

static bool lg_vk_has_device_extension(const VkExtensionProperties* props,
                                       uint32_t count, const char* name) {
  for (uint32_t i = 0; i < count; ++i) {
    if (strcmp(props[i].extensionName, name) == 0) return true;
  }
  return false;
}

static const char* lg_vk_vendor_name(uint32_t id) {
  switch (id) {
    case 0x1002:
      return "AMD";
    case 0x1010:
      return "Imagination";
    case 0x106B:
      return "Apple";
    case 0x10DE:
      return "NVIDIA";
    case 0x13B5:
      return "ARM";
    case 0x14E4:
      return "Broadcom";
    case 0x5143:
      return "Qualcomm";
    case 0x8086:
      return "Intel";
    case 0x10005:
      return "Mesa";
    default:
      return "unknown vendor";
  }
}

/* Reads properties, limits, features and memory into impl and `info`. */
static TfLiteStatus lg_vk_read_device(lg_vk_impl* impl,
                                      lg_gpu_device_info* info,
                                      lg_gpu_error* error) {
  uint32_t count = 0;
  VkExtensionProperties* exts = NULL;
  VkResult r = LG_VK_TRY(vkEnumerateDeviceExtensionProperties,
                         VK_ERROR_OUT_OF_HOST_MEMORY, impl->physical, NULL,
                         &count, NULL);
  if (r == VK_SUCCESS && count > 0) {
    exts = calloc(count, sizeof(*exts));
    r = exts == NULL ? VK_ERROR_OUT_OF_HOST_MEMORY
                     : vkEnumerateDeviceExtensionProperties(impl->physical,
                                                            NULL, &count, exts);
    if (r == VK_INCOMPLETE) r = VK_SUCCESS;
  }
  if (r != VK_SUCCESS) {
    free(exts);
    lg_vk_fail(error, "vkEnumerateDeviceExtensionProperties", r, NULL);
    return kTfLiteError;
  }
  bool has_driver = lg_vk_has_device_extension(
      exts, count, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  bool has_f16 = lg_vk_has_device_extension(
      exts, count, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  impl->creation_feedback = lg_vk_has_device_extension(
      exts, count, VK_EXT_PIPELINE_CREATION_FEEDBACK_EXTENSION_NAME);
  const bool has_timeline = lg_vk_has_device_extension(
      exts, count, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
  free(exts);

  /* Physical-device queries of an extension's structs only need the
   * device to support it. */
  VkPhysicalDeviceDriverPropertiesKHR driver = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES_KHR};
  VkPhysicalDeviceSubgroupProperties subgroup = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
      .pNext = has_driver ? &driver : NULL};
  VkPhysicalDeviceMaintenance3Properties maint3 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
      .pNext = &subgroup};
  VkPhysicalDeviceProperties2 props2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
      .pNext = &maint3};
  vkGetPhysicalDeviceProperties2(impl->physical, &props2);
  impl->properties = props2.properties;
  impl->max_allocation = maint3.maxMemoryAllocationSize;
  if (has_driver) {
    snprintf(impl->driver_text, sizeof(impl->driver_text), "%.100s %.140s",
             driver.driverName, driver.driverInfo);
  }

  VkPhysicalDeviceShaderFloat16Int8FeaturesKHR f16 = {
      .sType =
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR};
  VkPhysicalDevice16BitStorageFeatures storage16 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
      .pNext = has_f16 ? &f16 : NULL};
  VkPhysicalDeviceTimelineSemaphoreFeaturesKHR timeline = {
      .sType =
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES_KHR,
      .pNext = &storage16};
  VkPhysicalDeviceFeatures2 features = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
      .pNext = has_timeline ? (void*)&timeline : (void*)&storage16};
  vkGetPhysicalDeviceFeatures2(impl->physical, &features);
  impl->timeline =
      has_timeline && timeline.timelineSemaphore && !lg_vk_timeline_hidden();
  vkGetPhysicalDeviceMemoryProperties(impl->physical, &impl->memory);

  const VkPhysicalDeviceProperties* p = &impl->properties;
  const VkPhysicalDeviceLimits* l = &p->limits;
  memset(info, 0, sizeof(*info));
  snprintf(info->name, sizeof(info->name), "%s", p->deviceName);
  snprintf(info->vendor, sizeof(info->vendor), "%s (0x%04x)",
           lg_vk_vendor_name(p->vendorID), p->vendorID);
  snprintf(info->driver_version, sizeof(info->driver_version),
           "%.200s%sdriverVersion 0x%x", impl->driver_text,
           impl->driver_text[0] != '\0' ? ", " : "", p->driverVersion);
  snprintf(info->api_version, sizeof(info->api_version), "Vulkan %u.%u.%u",
           VK_API_VERSION_MAJOR(p->apiVersion),
           VK_API_VERSION_MINOR(p->apiVersion),
           VK_API_VERSION_PATCH(p->apiVersion));
  uint64_t device_local = 0, largest = 0;
  for (uint32_t h = 0; h < impl->memory.memoryHeapCount; ++h) {
    const VkMemoryHeap* heap = &impl->memory.memoryHeaps[h];
    if (!(heap->flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)) continue;
    device_local += heap->size;
    if (heap->size > largest) largest = heap->size;
  }
  info->global_memory_bytes = device_local;
  /* A buffer is bound whole as one storage buffer, so it is limited by
   * the binding range as well as by one allocation. Whole words only. */
  uint64_t max_buffer = l->maxStorageBufferRange;
  if (impl->max_allocation > 0 && impl->max_allocation < max_buffer) {
    max_buffer = impl->max_allocation;
  }
  if (largest > 0 && largest < max_buffer) max_buffer = largest;
  info->max_buffer_bytes = max_buffer & ~(uint64_t)3;
  info->max_work_group_size = l->maxComputeWorkGroupInvocations;
  for (int d = 0; d < 3; ++d) {
    info->max_work_item_sizes[d] = l->maxComputeWorkGroupSize[d];
  }
  info->max_compute_units = 1; /* Vulkan has no such query */
  info->simd_width = subgroup.subgroupSize;
  /* gallivm's LP_MAX_TGSI_LOOP_ITERATIONS, one counter per shader. */
  if (has_driver && driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE) {
    info->max_loop_iterations = 65535;
  }
  info->fp16 = has_f16 && f16.shaderFloat16 &&
               storage16.storageBuffer16BitAccess && !lg_vk_fp16_hidden();
  info->buffer_alignment = (uint32_t)l->minStorageBufferOffsetAlignment;

  char uuid[2 * VK_UUID_SIZE + 1];
  for (unsigned i = 0; i < VK_UUID_SIZE; ++i) {
    snprintf(uuid + 2 * i, 3, "%02x", p->pipelineCacheUUID[i]);
  }
  snprintf(impl->cache_device_key, sizeof(impl->cache_device_key),
           "device=%s\nvendor=0x%x\ndevice_id=0x%x\ndriver=0x%x %s\n"
           "api=0x%x\nuuid=%s\n",
           p->deviceName, p->vendorID, p->deviceID, p->driverVersion,
           impl->driver_text, p->apiVersion, uuid);
  return kTfLiteOk;
}

TfLiteStatus lg_vk_pick_device(lg_vk_impl* impl, int device_index,
                               lg_gpu_device_info* info, lg_gpu_error* error) {
  VkPhysicalDevice* list = NULL;
  uint32_t count = 0, gpus = 0;
  if (lg_vk_list_devices(impl, &list, &count, &gpus, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  uint32_t candidates = gpus > 0 ? gpus : count;
  if (device_index < 0 || (uint32_t)device_index >= candidates) {
    lg_gpu_error_set(error,
                     "Vulkan device_index %d out of range: %u %s "
                     "device(s) of Vulkan 1.1 or later with a compute queue "
                     "found",
                     device_index, candidates, gpus > 0 ? "GPU" : "CPU/other");
    free(list);
    return kTfLiteError;
  }
  impl->physical = list[device_index];
  free(list);
  impl->queue_family =
      lg_vk_compute_family(impl->physical, &impl->timestamp_bits);
  if (impl->queue_family == UINT32_MAX) {
    lg_gpu_error_set(error, "out of host memory reading Vulkan queue families");
    return kTfLiteError;
  }
  return lg_vk_read_device(impl, info, error);
}

/* ---- Texel reads -------------------------------------------------------- */

/* The smallest buffer a texel view must cover for texel reads to be worth
 * their cap on buffer sizes: a device whose maxTexelBufferElements is the
 * Vulkan minimum (65536 texels, 1 MiB of float32 quads) keeps storage
 * buffers, one with 2^27 texels (NVIDIA, lavapipe) uses texels and caps
 * buffers at 2 GiB. */
#define LG_VK_MIN_TEXEL_BUFFER_BYTES (UINT64_C(64) << 20)

/* Decides impl->texel_reads once impl->fp16 is known: the 4-channel
 * format of the precision must support uniform texel buffers, and a view
 * must cover buffers of LG_VK_MIN_TEXEL_BUFFER_BYTES; max_buffer_bytes is
 * then lowered to what one view covers, so every buffer can be viewed
 * whole. */
void lg_vk_choose_texel_reads(lg_vk_impl* impl, lg_gpu_device_info* info) {
  const VkFormat format = impl->fp16 ? VK_FORMAT_R16G16B16A16_SFLOAT
                                     : VK_FORMAT_R32G32B32A32_SFLOAT;
  const uint64_t texel_bytes = impl->fp16 ? 8u : 16u;
  VkFormatProperties props;
  vkGetPhysicalDeviceFormatProperties(impl->physical, format, &props);
  const uint64_t covered =
      (uint64_t)impl->properties.limits.maxTexelBufferElements * texel_bytes;
  impl->texel_reads =
      (props.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT) &&
      covered >= LG_VK_MIN_TEXEL_BUFFER_BYTES && !lg_vk_texel_reads_hidden();
  impl->texel_format = format;
  impl->stats.texel_reads = impl->texel_reads;
  if (impl->texel_reads && covered < info->max_buffer_bytes) {
    info->max_buffer_bytes = covered;
  }
  /* Whole texels: a view covers every byte of a buffer. */
  if (impl->texel_reads) info->max_buffer_bytes &= ~(uint64_t)15;
}

/* ---- Logical device ----------------------------------------------------- */

TfLiteStatus lg_vk_device_create(lg_vk_impl* impl, lg_gpu_error* error) {
  const float priority = 1.0f;
  const VkDeviceQueueCreateInfo queue = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = impl->queue_family,
      .queueCount = 1,
      .pQueuePriorities = &priority,
  };
  const char* extensions[3];
  uint32_t extension_count = 0;
  if (impl->creation_feedback) {
    extensions[extension_count++] =
        VK_EXT_PIPELINE_CREATION_FEEDBACK_EXTENSION_NAME;
  }
  /* Half precision (impl->fp16, only when the device reported both
   * features): shaderFloat16 comes from VK_KHR_shader_float16_int8 (the
   * instance asks for Vulkan 1.1, where it is an extension) and
   * storageBuffer16BitAccess from the 16-bit storage features (core). */
  VkPhysicalDeviceShaderFloat16Int8FeaturesKHR f16 = {
      .sType =
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR,
      .shaderFloat16 = VK_TRUE};
  VkPhysicalDevice16BitStorageFeatures storage16 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
      .pNext = &f16,
      .storageBuffer16BitAccess = VK_TRUE};
  if (impl->fp16) {
    extensions[extension_count++] = VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME;
  }
  /* Timeline semaphores (the async kernel's caller sync objects): an
   * extension at Vulkan 1.1, enabled when the device has the feature. */
  VkPhysicalDeviceTimelineSemaphoreFeaturesKHR timeline = {
      .sType =
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES_KHR,
      .pNext = impl->fp16 ? &storage16 : NULL,
      .timelineSemaphore = VK_TRUE};
  if (impl->timeline) {
    extensions[extension_count++] = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;
  }
  const void* chain = impl->timeline ? (const void*)&timeline
                      : impl->fp16   ? (const void*)&storage16
                                     : NULL;
  const VkDeviceCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .pNext = chain,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &queue,
      .enabledExtensionCount = extension_count,
      .ppEnabledExtensionNames = extensions,
  };
  VkResult r = LG_VK_TRY(vkCreateDevice, VK_ERROR_OUT_OF_HOST_MEMORY,
                         impl->physical, &info, NULL, &impl->device);
  if (r != VK_SUCCESS) {
    impl->device = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkCreateDevice", r, "device '%s'",
               impl->properties.deviceName);
    return kTfLiteError;
  }
  lg_vk_object_created();
  vkGetDeviceQueue(impl->device, impl->queue_family, 0, &impl->queue);
  if (impl->timeline) {
    const PFN_vkVoidFunction wait =
        vkGetDeviceProcAddr(impl->device, "vkWaitSemaphoresKHR");
    memcpy(&impl->wait_semaphores, &wait, sizeof(wait));
    impl->timeline = impl->wait_semaphores != NULL;
  }
  impl->stats.creation_feedback = impl->creation_feedback;
  return kTfLiteOk;
}
