/* The one monotonic clock litegpu times things with (operator profiles,
 * the thread pool's spin limit, GPU dispatch profiles, Vulkan waits).
 *
 *   const uint64_t start = lg_now_ns();
 *   ...
 *   const uint64_t elapsed = lg_now_ns() - start;
 *
 * CLOCK_MONOTONIC: never jumps with the wall clock. Safe from any thread.
 */
#ifndef LITEGPU_BASE_CLOCK_H_
#define LITEGPU_BASE_CLOCK_H_

#include <stdint.h>

/* Nanoseconds since an arbitrary fixed point. */
uint64_t lg_now_ns(void);

/* The same clock in seconds (for reports and test timings). */
double lg_now_seconds(void);

#endif /* LITEGPU_BASE_CLOCK_H_ */
