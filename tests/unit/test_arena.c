/* Arena planner: hand-derived plans and a seeded property check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "runtime/arena.h"

static void test_chain_reuses_memory(void** state) {
  (void)state;
  /* A -> B -> C, each 100 bytes (128 aligned). A and C never live together,
   * so C takes A's place: offsets 0, 128, 0; 256 bytes in all. */
  lg_arena_request r[3] = {{100, 0, 1, 99}, {100, 1, 2, 99}, {100, 2, 3, 99}};
  size_t total = 0;
  assert_int_equal(lg_arena_plan(r, 3, 64, &total), kTfLiteOk);
  assert_int_equal(r[0].offset, 0);
  assert_int_equal(r[1].offset, 128);
  assert_int_equal(r[2].offset, 0);
  assert_int_equal(total, 256);
}

static void test_all_live_together_stack_up(void** state) {
  (void)state;
  /* Sizes 10, 200, 70 all alive at step 0: placed largest first: 200 at 0,
   * 70 at 256, 10 at 384; total 448. */
  lg_arena_request r[3] = {{10, 0, 0, 0}, {200, 0, 0, 0}, {70, 0, 0, 0}};
  size_t total = 0;
  assert_int_equal(lg_arena_plan(r, 3, 64, &total), kTfLiteOk);
  assert_int_equal(r[1].offset, 0);
  assert_int_equal(r[2].offset, 256);
  assert_int_equal(r[0].offset, 384);
  assert_int_equal(total, 448);
}

static void test_small_request_fills_gap(void** state) {
  (void)state;
  /* X [0,0] 1000 at 0; Y [1,2] 1000 at 0 (X is dead by then);
   * W [0,2] 64 overlaps both: goes to 1024. V [2,2] 64 overlaps Y and W
   * only: first free aligned slot after them is 1088. */
  lg_arena_request r[4] = {
      {1000, 0, 0, 0}, {1000, 1, 2, 0}, {64, 0, 2, 0}, {64, 2, 2, 0}};
  size_t total = 0;
  assert_int_equal(lg_arena_plan(r, 4, 64, &total), kTfLiteOk);
  assert_int_equal(r[0].offset, 0);
  assert_int_equal(r[1].offset, 0);
  assert_int_equal(r[2].offset, 1024);
  assert_int_equal(r[3].offset, 1088);
  assert_int_equal(total, 1152);
}

static void test_empty_and_zero_sized(void** state) {
  (void)state;
  size_t total = 99;
  assert_int_equal(lg_arena_plan(NULL, 0, 64, &total), kTfLiteOk);
  assert_int_equal(total, 0);
  lg_arena_request r[2] = {{0, 0, 5, 7}, {64, 0, 5, 7}};
  assert_int_equal(lg_arena_plan(r, 2, 64, &total), kTfLiteOk);
  assert_int_equal(r[0].offset, 0);
  assert_int_equal(r[1].offset, 0);
  assert_int_equal(total, 64);
}

static int overlaps(const lg_arena_request* a, const lg_arena_request* b) {
  int live = a->first_use <= b->last_use && b->first_use <= a->last_use;
  int mem =
      a->offset < b->offset + b->bytes && b->offset < a->offset + a->bytes;
  return live && mem && a->bytes > 0 && b->bytes > 0;
}

static void test_random_plans_never_overlap(void** state) {
  (void)state;
  uint32_t seed = 7;
  for (int trial = 0; trial < 200; ++trial) {
    enum { kMax = 40 };
    lg_arena_request r[kMax];
    int n = 1 + (int)(seed % kMax);
    for (int i = 0; i < n; ++i) {
      seed = seed * 1664525u + 1013904223u;
      int first = (int)((seed >> 8) % 20);
      r[i].first_use = first;
      r[i].last_use = first + (int)((seed >> 16) % 6);
      r[i].bytes = (seed >> 4) % 5000;
    }
    size_t total = 0;
    assert_int_equal(lg_arena_plan(r, n, 64, &total), kTfLiteOk);
    size_t peak_live = 0;
    for (int step = 0; step < 26; ++step) {
      size_t live = 0;
      for (int i = 0; i < n; ++i) {
        if (r[i].first_use <= step && step <= r[i].last_use) live += r[i].bytes;
      }
      if (live > peak_live) peak_live = live;
    }
    assert_true(total >= peak_live);
    for (int i = 0; i < n; ++i) {
      assert_int_equal(r[i].offset % 64, 0);
      assert_true(r[i].offset + r[i].bytes <= total || r[i].bytes == 0);
      for (int j = i + 1; j < n; ++j) {
        if (overlaps(&r[i], &r[j])) {
          fail_msg("trial %d: requests %d and %d overlap", trial, i, j);
        }
      }
    }
  }
}

static void test_reserve_grows_aligned(void** state) {
  (void)state;
  lg_arena arena = {0};
  assert_int_equal(lg_arena_reserve(&arena, 100), kTfLiteOk);
  assert_non_null(arena.base);
  assert_int_equal((uintptr_t)arena.base % LG_ARENA_ALIGNMENT, 0);
  void* first = arena.base;
  assert_int_equal(lg_arena_reserve(&arena, 50), kTfLiteOk);
  assert_ptr_equal(arena.base, first); /* smaller plans keep the block */
  assert_int_equal(arena.planned, 50);
  assert_int_equal(lg_arena_reserve(&arena, 100000), kTfLiteOk);
  assert_true(arena.capacity >= 100000);
  lg_arena_release(&arena);
  lg_arena_release(&arena); /* twice is harmless */
  assert_null(arena.base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain_reuses_memory),
      cmocka_unit_test(test_all_live_together_stack_up),
      cmocka_unit_test(test_small_request_fills_gap),
      cmocka_unit_test(test_empty_and_zero_sized),
      cmocka_unit_test(test_random_plans_never_overlap),
      cmocka_unit_test(test_reserve_grows_aligned),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
