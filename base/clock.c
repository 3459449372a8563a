/* See clock.h. */
#include "base/clock.h"

#include <time.h>

uint64_t lg_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

double lg_now_seconds(void) { return (double)lg_now_ns() * 1e-9; }
