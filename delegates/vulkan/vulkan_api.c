/* Run-time loading of the Vulkan loader (vulkan_api.h). */
#define LG_VK_API_DEFINITION
#include "delegates/vulkan/vulkan_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "delegates/backend/gpu_library.h"

lg_vk_functions lg_vk_fn;

static pthread_once_t lg_vk_once = PTHREAD_ONCE_INIT;
static bool lg_vk_loaded;
static char lg_vk_why[512];

static void lg_vk_load_once(void) {
  static const char* const kNames[] = {"libvulkan.so.1", "libvulkan.so"};
  void* handle = lg_gpu_library_open(
      "LITEGPU_VULKAN_TEST_LIBRARY", kNames, 2, "the Vulkan loader",
      "install it (Debian: libvulkan1) with a Vulkan driver", lg_vk_why,
      sizeof(lg_vk_why));
  if (handle == NULL) return;
#define LG_VK_RESOLVE(name)                                             \
  *(void**)&lg_vk_fn.name = dlsym(handle, #name);                       \
  if (lg_vk_fn.name == NULL) {                                          \
    snprintf(lg_vk_why, sizeof(lg_vk_why),                              \
             "the Vulkan loader has no %s (litegpu needs a Vulkan 1.1 " \
             "loader)",                                                 \
             #name);                                                    \
    return;                                                             \
  }
  LG_VK_FUNCTIONS(LG_VK_RESOLVE)
#undef LG_VK_RESOLVE
  lg_vk_loaded = true;
}

bool lg_vk_api_load(char* why, size_t why_size) {
  pthread_once(&lg_vk_once, lg_vk_load_once);
  if (!lg_vk_loaded && why != NULL && why_size > 0) {
    snprintf(why, why_size, "%s", lg_vk_why);
  }
  return lg_vk_loaded;
}
