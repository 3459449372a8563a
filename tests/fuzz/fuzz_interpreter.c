/* libFuzzer target for the interpreter: the whole CPU path a model takes
 * through TFLite's C API.
 *
 * Each input is a .tflite file: TfLiteModelCreate, TfLiteInterpreterCreate
 * (one thread; MediaPipe's custom ops registered), AllocateTensors, then,
 * when the memory plan stays under a cap, inputs filled with a pattern,
 * Invoke twice (control flow and variables keep state between Invokes) and
 * every output read, and the interpreter deleted. Every call may fail; none
 * may crash, leak or read out of bounds (ASan, UBSan, LeakSanitizer).
 *
 * Memory: run_fuzzer.sh caps one allocation at 1 GiB (ASan's
 * max_allocation_size_mb with allocator_may_return_null), so a model whose
 * plan needs more must fail AllocateTensors with a message, as on a device
 * without the memory.
 *
 * Models whose control flow never ends are legitimate: a watchdog thread
 * cancels an Invoke that runs longer than LG_FUZZ_INVOKE_MS
 * (TfLiteInterpreterCancel), so libFuzzer's own timeout only fires on a
 * real hang (a kernel that never returns).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "litegpu/interpreter_info.h"
#include "litegpu/mediapipe_ops.h"
#include "tensorflow/lite/c/c_api.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* Models that plan more than this are not invoked (the fuzzer's RSS limit
 * would end the run, and huge tensors find nothing small ones do not). */
#define LG_FUZZ_MAX_PLAN_BYTES ((size_t)64 << 20)
#define LG_FUZZ_INVOKE_MS 300

static void lg_fuzz_report(void* user_data, const char* format, va_list args) {
  char message[512];
  vsnprintf(message, sizeof(message), format, args);
  (void)user_data;
}

/* ---- The watchdog -------------------------------------------------------- */

typedef struct lg_watchdog {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  const TfLiteInterpreter* target; /* the Invoke being watched, or NULL */
  unsigned long generation;        /* counts the Invokes watched */
  bool stop;
} lg_watchdog;

static void* lg_watchdog_main(void* arg) {
  lg_watchdog* w = arg;
  pthread_mutex_lock(&w->lock);
  while (!w->stop) {
    if (w->target == NULL) {
      pthread_cond_wait(&w->wake, &w->lock);
      continue;
    }
    const TfLiteInterpreter* watched = w->target;
    const unsigned long generation = w->generation;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += (long)LG_FUZZ_INVOKE_MS * 1000000L;
    deadline.tv_sec += deadline.tv_nsec / 1000000000L;
    deadline.tv_nsec %= 1000000000L;
    int rc = 0;
    while (!w->stop && w->generation == generation && rc == 0) {
      rc = pthread_cond_timedwait(&w->wake, &w->lock, &deadline);
    }
    if (!w->stop && w->generation == generation) {
      TfLiteInterpreterCancel(watched);
    }
    /* Cancelled or finished: wait for the next Invoke. */
    while (!w->stop && w->generation == generation) {
      pthread_cond_wait(&w->wake, &w->lock);
    }
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

static lg_watchdog g_watchdog = {PTHREAD_MUTEX_INITIALIZER,
                                 PTHREAD_COND_INITIALIZER, NULL, 0, false};

static void lg_watchdog_start(void) {
  static bool started = false;
  if (started) return;
  pthread_t thread;
  if (pthread_create(&thread, NULL, lg_watchdog_main, &g_watchdog) == 0) {
    pthread_detach(thread);
    started = true;
  }
}

static void lg_watchdog_watch(const TfLiteInterpreter* ip) {
  pthread_mutex_lock(&g_watchdog.lock);
  g_watchdog.target = ip;
  g_watchdog.generation++;
  pthread_cond_broadcast(&g_watchdog.wake);
  pthread_mutex_unlock(&g_watchdog.lock);
}

/* ---- One model ----------------------------------------------------------- */

static unsigned lg_fuzz_touch(const void* data, size_t size) {
  const volatile uint8_t* bytes = data;
  unsigned sum = 0;
  for (size_t i = 0; i < size; ++i) sum += bytes[i];
  return sum;
}

/* Small values of every type: bytes 0..7 repeating (floats become tiny
 * denormals or zero; integers stay in range of any index input). */
static void lg_fuzz_fill_inputs(TfLiteInterpreter* ip) {
  for (int32_t i = 0; i < TfLiteInterpreterGetInputTensorCount(ip); ++i) {
    TfLiteTensor* t = TfLiteInterpreterGetInputTensor(ip, i);
    uint8_t* bytes = TfLiteTensorData(t);
    if (bytes == NULL) continue;
    for (size_t k = 0; k < TfLiteTensorByteSize(t); ++k) {
      bytes[k] = (uint8_t)(k % 8);
    }
  }
}

static unsigned lg_fuzz_read_outputs(const TfLiteInterpreter* ip) {
  unsigned sum = 0;
  for (int32_t i = 0; i < TfLiteInterpreterGetOutputTensorCount(ip); ++i) {
    const TfLiteTensor* t = TfLiteInterpreterGetOutputTensor(ip, i);
    const void* bytes = TfLiteTensorData(t);
    if (bytes != NULL) sum += lg_fuzz_touch(bytes, TfLiteTensorByteSize(t));
  }
  return sum;
}

static bool lg_fuzz_plan_fits(const TfLiteInterpreter* ip) {
  litegpu_memory_info info;
  if (litegpu_interpreter_memory_info(ip, &info) != kTfLiteOk) return false;
  return info.arena_bytes + info.heap_bytes <= LG_FUZZ_MAX_PLAN_BYTES;
}

static double lg_fuzz_now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

/* The second Invoke is skipped after a first one that ran past the
 * watchdog's limit: that was one node too large to cancel (cancellation
 * stops between nodes), and a second pass over it would only double the
 * unit's time toward libFuzzer's timeout. */
static void lg_fuzz_run(TfLiteInterpreter* ip) {
  if (TfLiteInterpreterAllocateTensors(ip) != kTfLiteOk) return;
  if (!lg_fuzz_plan_fits(ip)) return;
  lg_fuzz_fill_inputs(ip);
  for (int run = 0; run < 2; ++run) {
    const double start = lg_fuzz_now_ms();
    lg_watchdog_watch(ip);
    const TfLiteStatus status = TfLiteInterpreterInvoke(ip);
    lg_watchdog_watch(NULL);
    if (status != kTfLiteOk) return;
    volatile unsigned sum = lg_fuzz_read_outputs(ip);
    (void)sum;
    if (lg_fuzz_now_ms() - start > LG_FUZZ_INVOKE_MS) return;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lg_watchdog_start();
  TfLiteModel* model =
      TfLiteModelCreateWithErrorReporter(data, size, lg_fuzz_report, NULL);
  if (model == NULL) return 0;
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  if (options != NULL) {
    TfLiteInterpreterOptionsSetNumThreads(options, 1);
    TfLiteInterpreterOptionsSetErrorReporter(options, lg_fuzz_report, NULL);
    TfLiteInterpreterOptionsEnableCancellation(options, true);
    litegpu_add_mediapipe_ops(options);
    TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, options);
    if (ip != NULL) lg_fuzz_run(ip);
    TfLiteInterpreterDelete(ip);
    TfLiteInterpreterOptionsDelete(options);
  }
  TfLiteModelDelete(model);
  return 0;
}
