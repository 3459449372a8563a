#include "tests/support/vulkan_hold.h"

#include <dlfcn.h>
#include <stddef.h>
#include <vulkan/vulkan.h>

/* Reachable from this global until exit, so neither the instance nor the
 * libraries it holds are reported. */
static VkInstance held_instance = VK_NULL_HANDLE;

void lg_test_hold_vulkan_libraries(void) {
  if (held_instance != VK_NULL_HANDLE) return;
  /* dlopen's own reference: the loader's dlclose no longer unloads it. */
  (void)dlopen("libVkLayer_khronos_validation.so", RTLD_NOW);
  const VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "litegpu tests (holds the Vulkan drivers)",
      .apiVersion = VK_API_VERSION_1_1,
  };
  const VkInstanceCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
  };
  if (vkCreateInstance(&info, NULL, &held_instance) != VK_SUCCESS) {
    held_instance = VK_NULL_HANDLE; /* no Vulkan: the tests say so */
  }
}
