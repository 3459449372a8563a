/* Keeps the Vulkan libraries a test process loads mapped until it exits,
 * so LeakSanitizer (which runs at exit) can see what they keep:
 *
 *   int main(void) {
 *     lg_test_hold_vulkan_libraries();
 *     ... run the tests ...
 *   }
 *
 * The Vulkan loader unloads the validation layer and the drivers (ICDs)
 * with the last instance that uses them. Memory that an unloaded library
 * still pointed at from its own globals is then reported as leaked from
 * an "<unknown module>", which no suppression can name. Two such cases:
 * the validation layer's per-submission blocks (tests/lsan_vulkan.supp
 * names the layer once it stays loaded), and Mesa's CPU detection in
 * lavapipe, which on AMD processors keeps one affinity mask per L3 cache
 * in a global it never frees (128 bytes; reachable while it stays
 * loaded). */
#ifndef LITEGPU_TESTS_SUPPORT_VULKAN_HOLD_H_
#define LITEGPU_TESTS_SUPPORT_VULKAN_HOLD_H_

/* Loads the Khronos validation layer (when installed) and creates one bare
 * VkInstance that is never destroyed, holding every driver the loader
 * found; a machine without Vulkan holds nothing. Call once, first. */
void lg_test_hold_vulkan_libraries(void);

#endif /* LITEGPU_TESTS_SUPPORT_VULKAN_HOLD_H_ */
