/* Run-time loading of the Vulkan loader (vulkan_api.h). */
#define LG_VK_API_DEFINITION
#include "delegates/vulkan/vulkan_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

lg_vk_functions lg_vk_fn;

static pthread_once_t lg_vk_once = PTHREAD_ONCE_INIT;
static bool lg_vk_loaded;
static char lg_vk_why[512];

/* dlopen's message for the first name that does not open: the one a user
 * can act on. The handle is kept for the life of the process, as a linked
 * library would be. */
static void* lg_vk_open(void) {
  const char* forced = getenv("LITEGPU_VULKAN_TEST_LIBRARY");
  static const char* const kNames[] = {"libvulkan.so.1", "libvulkan.so"};
  char first[256] = "";
  for (size_t i = 0; i < (forced ? 1u : 2u); ++i) {
    const char* name = forced ? forced : kNames[i];
    void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle != NULL) return handle;
    if (first[0] == '\0') {
      const char* message = dlerror();
      snprintf(first, sizeof(first), "%s", message ? message : name);
    }
  }
  snprintf(lg_vk_why, sizeof(lg_vk_why),
           "cannot load the Vulkan loader (%s); install it (Debian: "
           "libvulkan1) with a Vulkan driver",
           first);
  return NULL;
}

static void lg_vk_load_once(void) {
  void* handle = lg_vk_open();
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
