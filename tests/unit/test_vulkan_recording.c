/* Recordings on the Vulkan backend (recording_begin/end/run), on the
 * machine's Vulkan device (lavapipe here) with the Khronos validation
 * layer and its synchronization validation on: recorded once, run over
 * rounds of new inputs, direct and staged; misuse; injected failures of
 * every call the recording path makes; timing against plain dispatch +
 * submit. Device, buffers and shaders are in test_vulkan_backend.c, the
 * pipeline cache, the main fault sweep and fp16 in
 * test_vulkan_cache_faults.c; shared helpers in vulkan_test_support.{h,c}.
 *
 * No Vulkan device is a FAILURE, not a skip: CI installs lavapipe and the
 * validation layer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strdup, setenv */
#endif
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/clock.h"
#include "delegates/vulkan/vulkan_backend.h"
#include "delegates/vulkan/vulkan_impl.h"
#include "delegates/vulkan/vulkan_internal.h"
#include "tests/support/vulkan_hold.h"
#include "tests/unit/vulkan_test_support.h"

/* ---- Recordings --------------------------------------------------------- */

/* A validated backend that also runs the layer's synchronization
 * validation (read from the environment at instance creation), so a
 * missing or wrong barrier in a recording is a validation error. */
static lg_gpu_backend* create_backend_sync(void) {
  static const char kName[] = "VK_LAYER_ENABLES";
  char* saved = getenv(kName) != NULL ? strdup(getenv(kName)) : NULL;
  setenv(kName, "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT",
         1);
  lg_gpu_backend* be = create_backend(NULL);
  if (saved != NULL) {
    setenv(kName, saved, 1);
    free(saved);
  } else {
    unsetenv(kName);
  }
  return be;
}

/* Two dependent dispatches: t = a - b (binary LG_OP=1), out = t * t
 * (unary LG_OP=9, square). Both are exact in float, so the expected
 * output is (a - b) * (a - b) computed here in float. kRecN is not a
 * multiple of the work-group size. */
enum { kRecN = 1003 };
typedef struct rec_job {
  lg_gpu_buffer *a, *b, *t, *out;
  lg_gpu_kernel *sub, *square;
  lg_gpu_arg sub_args[19];
  lg_gpu_arg square_args[4];
} rec_job;

/* Creates the job's buffers and kernels (no recording yet); with `be`
 * from create_backend this never fails (fail_msg otherwise). */
static void rec_job_make(lg_gpu_backend* be, rec_job* j) {
  memset(j, 0, sizeof(*j));
  j->a = make_buffer(be, NULL, kRecN * sizeof(float));
  j->b = make_buffer(be, NULL, kRecN * sizeof(float));
  j->t = make_buffer(be, NULL, kRecN * sizeof(float));
  j->out = make_buffer(be, NULL, kRecN * sizeof(float));
  j->sub = make_kernel(be, "binary", "-DLG_OP=1 -DLG_BCAST=0");
  j->square = make_kernel(be, "unary", "-DLG_OP=9");
  binary_flat_args(j->a, j->b, j->t, kRecN, j->sub_args);
  j->square_args[0] = LG_GPU_ARG_BUFFER(j->t);
  j->square_args[1] = LG_GPU_ARG_BUFFER(j->out);
  j->square_args[2] = LG_GPU_ARG_INT(kRecN);
  j->square_args[3] = LG_GPU_ARG_FLOAT(0.0f);
}

static void rec_job_free(lg_gpu_backend* be, rec_job* j) {
  be->ops->kernel_release(be, j->square);
  be->ops->kernel_release(be, j->sub);
  be->ops->buffer_release(be, j->out);
  be->ops->buffer_release(be, j->t);
  be->ops->buffer_release(be, j->b);
  be->ops->buffer_release(be, j->a);
}

/* Captures the two dispatches, into a recording timed for `timed`
 * dispatches when not 0; returns the first failure. */
static TfLiteStatus rec_job_record_timed(lg_gpu_backend* be, rec_job* j,
                                         int timed, lg_gpu_recording** out,
                                         lg_gpu_error* error) {
  const size_t global[1] = {kRecN};
  const lg_gpu_backend_ops* ops = be->ops;
  *out = NULL;
  TfLiteStatus status = timed > 0 ? ops->recording_begin_timed(be, timed, error)
                                  : ops->recording_begin(be, error);
  if (status != kTfLiteOk) return status;
  status = lg_gpu_dispatch(be, j->sub, j->sub_args, 19, 1, global, NULL, error);
  if (status == kTfLiteOk) {
    status = lg_gpu_dispatch(be, j->square, j->square_args, 4, 1, global, NULL,
                             error);
  }
  /* Always closed, as the GPU program does; a failed dispatch makes the
   * end fail too, and the dispatch's error is the one kept. */
  lg_gpu_error end_error = {{0}};
  const TfLiteStatus ended = ops->recording_end(be, out, &end_error);
  if (status == kTfLiteOk && ended != kTfLiteOk) {
    *error = end_error;
    status = ended;
  }
  if (status != kTfLiteOk) {
    ops->recording_release(be, *out);
    *out = NULL;
  }
  return status;
}

static TfLiteStatus rec_job_record(lg_gpu_backend* be, rec_job* j,
                                   lg_gpu_recording** out,
                                   lg_gpu_error* error) {
  return rec_job_record_timed(be, j, 0, out, error);
}

/* Inputs of round `round` and the expected output. */
static void rec_round_values(int round, float* a, float* b, float* want) {
  fill_values(a, kRecN, 40u + (uint32_t)round, -8.0f, 8.0f);
  fill_values(b, kRecN, 50u + (uint32_t)round, -4.0f, 4.0f);
  for (int i = 0; i < kRecN; ++i) {
    const float d = a[i] - b[i];
    want[i] = d * d;
  }
}

static void expect_floats(const float* got, const float* want, int n,
                          const char* label, int round) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      fail_msg("%s round %d: index %d got %.9g want %.9g", label, round, i,
               (double)got[i], (double)want[i]);
    }
  }
}

/* Records once, then per round: upload new inputs, run, download. */
static void recording_rounds(bool staged) {
  long errors = lg_vulkan_layer_errors();
  lg_vulkan_force_staging(staged);
  lg_gpu_backend* be = create_backend_sync();
  const lg_gpu_backend_ops* ops = be->ops;
  assert_non_null(ops->recording_begin);
  lg_gpu_error error = {{0}};
  rec_job j;
  rec_job_make(be, &j);
  lg_gpu_recording* rec = NULL;
  if (rec_job_record(be, &j, &rec, &error) != kTfLiteOk) {
    fail_msg("recording: %s", error.message);
  }
  assert_non_null(rec);
  const lg_vulkan_stats recorded = stats_of(be);
  assert_int_equal(recorded.recording_runs, 0);
  float a[kRecN], b[kRecN], want[kRecN], got[kRecN];
  for (int round = 0; round < 3; ++round) {
    rec_round_values(round, a, b, want);
    assert_int_equal(lg_gpu_buffer_upload(be, j.a, 0, a, sizeof(a), &error),
                     kTfLiteOk);
    assert_int_equal(lg_gpu_buffer_upload(be, j.b, 0, b, sizeof(b), &error),
                     kTfLiteOk);
    if (ops->recording_run(be, rec, &error) != kTfLiteOk) {
      fail_msg("recording_run round %d: %s", round, error.message);
    }
    memset(got, 0, sizeof(got));
    download(be, j.out, got, sizeof(got));
    expect_floats(got, want, kRecN, staged ? "staged" : "direct", round);
  }
  lg_vulkan_stats s = stats_of(be);
  /* Run, not re-recorded: no vkCmdDispatch since the capture. */
  assert_int_equal(s.dispatches, recorded.dispatches);
  assert_int_equal(s.recording_runs, 3);
  if (staged) {
    assert_int_equal(s.staged_uploads - recorded.staged_uploads, 6);
    /* Per round: the uploads' copies and the recording in one batch, then
     * the download's copy. */
    assert_int_equal(s.submits - recorded.submits, 6);
  } else if (s.direct_memory) {
    assert_int_equal(s.direct_uploads - recorded.direct_uploads, 6);
    assert_int_equal(s.submits - recorded.submits, 3);
  }

  /* Run, upload while that run is pending (staged even on mapped memory:
   * the run still reads `a`), run again, and back to back without a
   * download: the last inputs win. */
  rec_round_values(7, a, b, want);
  assert_int_equal(ops->recording_run(be, rec, &error), kTfLiteOk);
  assert_int_equal(lg_gpu_buffer_upload(be, j.a, 0, a, sizeof(a), &error),
                   kTfLiteOk);
  assert_int_equal(lg_gpu_buffer_upload(be, j.b, 0, b, sizeof(b), &error),
                   kTfLiteOk);
  assert_int_equal(ops->recording_run(be, rec, &error), kTfLiteOk);
  assert_int_equal(ops->recording_run(be, rec, &error), kTfLiteOk);
  download(be, j.out, got, sizeof(got));
  expect_floats(got, want, kRecN, "pending upload", 7);
  /* The intermediate is there too: t = a - b. */
  download(be, j.t, got, sizeof(got));
  for (int i = 0; i < kRecN; ++i) want[i] = a[i] - b[i];
  expect_floats(got, want, kRecN, "intermediate", 7);
  s = stats_of(be);
  assert_int_equal(s.recording_runs, 6);
  assert_true(s.staged_uploads >= 2);
  ops->recording_release(be, rec);
  rec_job_free(be, &j);
  destroy_clean(be, errors);
  lg_vulkan_force_staging(false);
}

static void test_recording_rounds(void** state) {
  (void)state;
  recording_rounds(false);
  recording_rounds(true);
}

static void expect_error(TfLiteStatus status, const lg_gpu_error* error,
                         const char* needle, const char* what) {
  if (status != kTfLiteError) fail_msg("%s: succeeded", what);
  if (strstr(error->message, needle) == NULL) {
    fail_msg("%s: '%s' lacks '%s'", what, error->message, needle);
  }
}

static void test_recording_errors(void** state) {
  (void)state;
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend_sync();
  const lg_gpu_backend_ops* ops = be->ops;
  assert_true(ops->has_kernel(be, "binary"));
  assert_true(ops->has_kernel(be, "unary"));
  assert_false(ops->has_kernel(be, "nope"));
  assert_false(ops->has_kernel(be, "lg_math")); /* an include, not a kernel */
  assert_false(ops->has_kernel(be, NULL));
  lg_gpu_error error = {{0}};
  rec_job j;
  rec_job_make(be, &j);
  const size_t global[1] = {kRecN};
  lg_gpu_recording* rec = (lg_gpu_recording*)&error;

  expect_error(ops->recording_end(be, &rec, &error), &error,
               "no recording is being captured", "end without begin");
  assert_null(rec);
  /* Nested begin: refused, the open capture stays usable. */
  assert_int_equal(ops->recording_begin(be, &error), kTfLiteOk);
  expect_error(ops->recording_begin(be, &error), &error, "do not nest",
               "nested begin");
  expect_error(ops->recording_end(be, NULL, &error), &error, "NULL out",
               "end with NULL out");
  assert_int_equal(
      lg_gpu_dispatch(be, j.sub, j.sub_args, 19, 1, global, NULL, &error),
      kTfLiteOk);
  assert_int_equal(ops->recording_end(be, &rec, &error), kTfLiteOk);
  assert_non_null(rec);

  /* Recording while work is pending: a plain dispatch not yet finished,
   * then a run not yet waited for. */
  assert_int_equal(
      lg_gpu_dispatch(be, j.square, j.square_args, 4, 1, global, NULL, &error),
      kTfLiteOk);
  expect_error(ops->recording_begin(be, &error), &error, "work is pending",
               "begin with a dispatch pending");
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);
  assert_int_equal(ops->recording_run(be, rec, &error), kTfLiteOk);
  expect_error(ops->recording_begin(be, &error), &error, "call finish first",
               "begin with a run pending");
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);

  /* Run during a capture; a capture with a failed dispatch cannot end. */
  assert_int_equal(ops->recording_begin(be, &error), kTfLiteOk);
  expect_error(ops->recording_run(be, rec, &error), &error,
               "a recording is being captured", "run during a capture");
  expect_error(
      lg_gpu_dispatch(be, j.sub, j.sub_args, 3, 1, global, NULL, &error),
      &error, "takes 3 buffers", "bad dispatch while recording");
  lg_gpu_recording* incomplete = (lg_gpu_recording*)&error;
  expect_error(ops->recording_end(be, &incomplete, &error), &error,
               "incomplete", "end after a failed dispatch");
  assert_null(incomplete);
  assert_non_null(strstr(error.message, "takes 3 buffers"));

  /* An empty recording runs (and does nothing). */
  lg_gpu_recording* empty = NULL;
  assert_int_equal(ops->recording_begin(be, &error), kTfLiteOk);
  assert_int_equal(ops->recording_end(be, &empty, &error), kTfLiteOk);
  assert_int_equal(ops->recording_run(be, empty, &error), kTfLiteOk);

  /* Released (here while its run may be pending): refused by run, ignored
   * by release; NULL likewise. */
  assert_int_equal(ops->recording_run(be, rec, &error), kTfLiteOk);
  ops->recording_release(be, rec);
  expect_error(ops->recording_run(be, rec, &error), &error,
               "not a live recording", "run after release");
  ops->recording_release(be, rec);
  ops->recording_release(be, NULL);
  expect_error(ops->recording_run(be, NULL, &error), &error,
               "not a live recording", "run of NULL");
  /* A recording from another backend. */
  lg_gpu_backend* other = create_backend(NULL);
  expect_error(other->ops->recording_run(other, empty, &error), &error,
               "not a live recording", "run on another backend");
  lg_gpu_backend_destroy(other);
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);

  /* Destroy with a live recording and an open capture frees both. */
  assert_int_equal(ops->recording_begin(be, &error), kTfLiteOk);
  assert_int_equal(
      lg_gpu_dispatch(be, j.sub, j.sub_args, 19, 1, global, NULL, &error),
      kTfLiteOk);
  rec_job_free(be, &j);
  destroy_clean(be, errors);
}

/* The recording job under an armed failure of `call` (armed after the
 * setup, so it hits the capture, the runs and their transfers). */
static TfLiteStatus rec_scenario(const char* call, int nth,
                                 lg_gpu_error* error) {
  lg_gpu_backend* be = create_backend_sync();
  const lg_gpu_backend_ops* ops = be->ops;
  rec_job j;
  rec_job_make(be, &j);
  assert_int_equal(ops->finish(be, error), kTfLiteOk);
  lg_vulkan_fail_call(call, nth);
  lg_gpu_recording* rec = NULL;
  TfLiteStatus status = rec_job_record(be, &j, &rec, error);
  float a[kRecN], b[kRecN], want[kRecN], got[kRecN];
  for (int round = 0; round < 2 && status == kTfLiteOk; ++round) {
    rec_round_values(round, a, b, want);
    status = lg_gpu_buffer_upload(be, j.a, 0, a, sizeof(a), error);
    if (status == kTfLiteOk)
      status = lg_gpu_buffer_upload(be, j.b, 0, b, sizeof(b), error);
    if (status == kTfLiteOk) status = ops->recording_run(be, rec, error);
    if (status == kTfLiteOk)
      status = lg_gpu_buffer_download(be, j.out, 0, got, sizeof(got), error);
    if (status == kTfLiteOk) expect_floats(got, want, kRecN, call, round);
  }
  ops->recording_release(be, rec);
  rec_job_free(be, &j);
  lg_gpu_backend_destroy(be);
  return status;
}

/* Timed recordings (dispatch profiling): a run gives the right output and
 * a device time for each of its two dispatches; refused, naming the
 * problem: 0 dispatches, more dispatches than begun for, a count other
 * than the recording's, a recording that is not timed; a failed
 * vkCreateQueryPool names the call and leaks nothing. */
static void test_timed_recording(void** state) {
  (void)state;
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend_sync();
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_error error = {{0}};
  rec_job j;
  rec_job_make(be, &j);
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);
  expect_error(ops->recording_begin_timed(be, 0, &error), &error,
               "recording_begin_timed: 0 dispatches", "0 dispatches");
  lg_gpu_recording* rec = NULL;
  expect_error(rec_job_record_timed(be, &j, 1, &rec, &error), &error,
               "more dispatches than the timed recording was begun for (1)",
               "a second dispatch in a recording timed for one");
  const long live = lg_vulkan_live_objects();
  lg_vulkan_fail_call("vkCreateQueryPool", 1);
  expect_error(rec_job_record_timed(be, &j, 2, &rec, &error), &error,
               "vkCreateQueryPool", "failed query pool");
  lg_vulkan_fail_call(NULL, 0);
  assert_int_equal(lg_vulkan_live_objects(), live);

  if (rec_job_record_timed(be, &j, 2, &rec, &error) != kTfLiteOk) {
    fail_msg("timed recording: %s", error.message);
  }
  float a[kRecN], b[kRecN], want[kRecN], got[kRecN];
  rec_round_values(1, a, b, want);
  assert_int_equal(lg_gpu_buffer_upload(be, j.a, 0, a, sizeof(a), &error),
                   kTfLiteOk);
  assert_int_equal(lg_gpu_buffer_upload(be, j.b, 0, b, sizeof(b), &error),
                   kTfLiteOk);
  assert_int_equal(ops->recording_run(be, rec, &error), kTfLiteOk);
  download(be, j.out, got, sizeof(got));
  expect_floats(got, want, kRecN, "timed", 1);
  uint64_t ns[3] = {0, 0, 0};
  if (ops->recording_times(be, rec, ns, 2, &error) != kTfLiteOk) {
    fail_msg("recording_times: %s", error.message);
  }
  assert_true(ns[0] > 0 && ns[1] > 0);
  expect_error(ops->recording_times(be, rec, ns, 3, &error), &error,
               "the recording has 2 dispatches, not 3", "wrong count");
  lg_gpu_recording* plain = NULL;
  assert_int_equal(rec_job_record(be, &j, &plain, &error), kTfLiteOk);
  expect_error(ops->recording_times(be, plain, ns, 2, &error), &error,
               "is not a live timed recording", "untimed recording");
  ops->recording_release(be, plain);
  ops->recording_release(be, rec);
  rec_job_free(be, &j);
  lg_gpu_backend_destroy(be);
  assert_int_equal(lg_vulkan_layer_errors(), errors);
}

/* Every call the recording path makes, failed at every use: an error
 * naming the call, no leak, no validation error, clean destroy. */
static void test_recording_faults(void** state) {
  (void)state;
  static const char* const calls[] = {
      "vkCreateCommandPool",      "vkCreateFence",
      "vkAllocateCommandBuffers", "vkBeginCommandBuffer",
      "vkEndCommandBuffer",       "vkQueueSubmit",
      "vkWaitForFences",          "vkResetFences",
      "vkCreateDescriptorPool",   "vkAllocateDescriptorSets",
  };
  enum { kRecCalls = sizeof(calls) / sizeof(calls[0]) };
  int failures[kRecCalls] = {0};
  lg_gpu_error error;
  for (int staged = 0; staged < 2; ++staged) {
    lg_vulkan_force_staging(staged != 0);
    for (int c = 0; c < kRecCalls; ++c) {
      for (int nth = 1; nth < 50; ++nth) {
        long layer_errors = lg_vulkan_layer_errors();
        memset(&error, 0, sizeof(error));
        TfLiteStatus status = rec_scenario(calls[c], nth, &error);
        bool hit = lg_vulkan_fail_fired();
        lg_vulkan_fail_call(NULL, 0);
        assert_int_equal(lg_vulkan_live_objects(), 0);
        if (lg_vulkan_layer_errors() != layer_errors) {
          fail_msg("%s #%d: validation errors on the failure path", calls[c],
                   nth);
        }
        if (!hit) {
          if (status != kTfLiteOk) {
            fail_msg("clean run failed: %s", error.message);
          }
          break;
        }
        if (status == kTfLiteOk) {
          fail_msg("%s #%d failed but the job succeeded", calls[c], nth);
        }
        if (strstr(error.message, calls[c]) == NULL ||
            strstr(error.message, "VK_") == NULL) {
          fail_msg("%s #%d: message does not name the call: '%s'", calls[c],
                   nth, error.message);
        }
        ++failures[c];
      }
    }
  }
  lg_vulkan_force_staging(false);
  int total = 0;
  for (int c = 0; c < kRecCalls; ++c) {
    if (failures[c] == 0) fail_msg("%s never failed the job", calls[c]);
    total += failures[c];
  }
  print_message(
      "recording faults: %d injected over %d calls, each named, no leak, "
      "no validation error\n",
      total, (int)kRecCalls);
}

/* ---- Timing ------------------------------------------------------------- */

/* Median microseconds of upload 4 KB + one binary add + download 4 KB,
 * the add either recorded once and run each time, or dispatched and
 * submitted each time. */
static double add_round_trip_us(bool recorded, bool staged) {
  enum { kN = 1024, kRuns = 500, kWarm = 50 };
  lg_vulkan_force_staging(staged);
  lg_gpu_backend* be = create_backend_with(NULL, false);
  const lg_gpu_backend_ops* ops = be->ops;
  float a[kN], b[kN], out[kN];
  fill_values(a, kN, 9, -1.0f, 1.0f);
  fill_values(b, kN, 10, -1.0f, 1.0f);
  lg_gpu_buffer* ba = make_buffer(be, a, sizeof(a));
  lg_gpu_buffer* bb = make_buffer(be, b, sizeof(b));
  lg_gpu_buffer* bo = make_buffer(be, NULL, sizeof(out));
  lg_gpu_kernel* k = make_kernel(be, "binary", "-DLG_OP=0 -DLG_BCAST=0");
  lg_gpu_arg args[19];
  binary_flat_args(ba, bb, bo, kN, args);
  const size_t global[1] = {kN};
  lg_gpu_error error = {{0}};
  lg_gpu_recording* rec = NULL;
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);
  if (recorded) {
    assert_int_equal(ops->recording_begin(be, &error), kTfLiteOk);
    assert_int_equal(lg_gpu_dispatch(be, k, args, 19, 1, global, NULL, &error),
                     kTfLiteOk);
    assert_int_equal(ops->recording_end(be, &rec, &error), kTfLiteOk);
  }
  double times[kRuns];
  for (int r = 0; r < kWarm + kRuns; ++r) {
    a[r % kN] = (float)r;
    const double start = lg_now_seconds();
    TfLiteStatus status = lg_gpu_buffer_upload(be, ba, 0, a, sizeof(a), &error);
    if (status == kTfLiteOk && recorded) {
      status = ops->recording_run(be, rec, &error);
    } else if (status == kTfLiteOk) {
      status = lg_gpu_dispatch(be, k, args, 19, 1, global, NULL, &error);
      if (status == kTfLiteOk) status = ops->submit(be, &error);
    }
    if (status == kTfLiteOk) {
      status = lg_gpu_buffer_download(be, bo, 0, out, sizeof(out), &error);
    }
    if (r >= kWarm) times[r - kWarm] = (lg_now_seconds() - start) * 1e6;
    if (status != kTfLiteOk) fail_msg("run %d: %s", r, error.message);
    if (out[r % kN] != a[r % kN] + b[r % kN]) {
      fail_msg("run %d: index %d got %g want %g", r, r % kN,
               (double)out[r % kN], (double)(a[r % kN] + b[r % kN]));
    }
  }
  for (int i = 0; i < kN; ++i) assert_true(out[i] == a[i] + b[i]);
  qsort(times, kRuns, sizeof(times[0]), compare_doubles);
  ops->recording_release(be, rec);
  ops->kernel_release(be, k);
  ops->buffer_release(be, bo);
  ops->buffer_release(be, bb);
  ops->buffer_release(be, ba);
  lg_gpu_backend_destroy(be);
  lg_vulkan_force_staging(false);
  return times[kRuns / 2];
}

static void test_recording_timing(void** state) {
  (void)state;
  const double plain = add_round_trip_us(false, false);
  const double recorded = add_round_trip_us(true, false);
  const double plain_staged = add_round_trip_us(false, true);
  const double recorded_staged = add_round_trip_us(true, true);
  print_message(
      "upload 4 KB + binary add + download 4 KB, median of 500: "
      "dispatch+submit %.1f us, recording_run %.1f us (staged: %.1f us, "
      "%.1f us)\n",
      plain, recorded, plain_staged, recorded_staged);
  assert_int_equal(lg_vulkan_live_objects(), 0);
}

/* ---- Main --------------------------------------------------------------- */

int main(void) {
  lg_test_hold_vulkan_libraries(); /* see tests/support/vulkan_hold.h */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_recording_rounds),
      cmocka_unit_test(test_recording_errors),
      cmocka_unit_test(test_recording_faults),
      cmocka_unit_test(test_timed_recording),
      cmocka_unit_test(test_recording_timing),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  return failed;
}
