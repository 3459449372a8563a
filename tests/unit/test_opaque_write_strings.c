/* TfLiteOpaqueTensorWriteStrings / TfLiteOpaqueTensorWriteString from
 * custom operators run by the kernel test kit (a real interpreter): the
 * strings and shape [count] the op wrote (hand-derived), NUL and non-ASCII
 * bytes, an empty list, rewrites on a second invoke, and the refusals: a
 * constant, a tensor of no graph, a non-STRING tensor, a negative length, a
 * call outside any kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "litegpu/kernel_test.h"
#include "tensorflow/lite/c/c_api_opaque.h"
#include "tensorflow/lite/core/c/operator.h"

static void assert_contains(const char* text, const char* part) {
  if (strstr(text, part) == NULL) {
    fail_msg("\"%s\" does not contain \"%s\"", text, part);
  }
}

/* TFLite's STRING layout of `n` strings into buf; its size. */
static size_t pack_strings(const char* const* s, const int* len, int n,
                           char* buf) {
  int32_t at = (int32_t)(4 * (n + 2));
  memcpy(buf, &n, 4);
  for (int i = 0; i <= n; ++i) {
    memcpy(buf + 4 * (i + 1), &at, 4);
    if (i < n) {
      memcpy(buf + at, s[i], (size_t)len[i]);
      at += len[i];
    }
  }
  return (size_t)at;
}

/* "Shout": each input string uppercased (ASCII letters) with "!" after
 * it, written with WriteStrings. */
static TfLiteStatus shout_invoke(TfLiteOpaqueContext* context,
                                 TfLiteOpaqueNode* node) {
  static char text[256];
  static const char* ptrs[8];
  static int lens[8];
  const TfLiteOpaqueTensor* in = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* out = TfLiteOpaqueNodeGetOutput(context, node, 0);
  const int n = TfLiteOpaqueTensorGetStringCount(in);
  if (n < 0 || n > 8) return kTfLiteError;
  size_t used = 0;
  for (int i = 0; i < n; ++i) {
    const char* s;
    int len;
    if (TfLiteOpaqueTensorGetString(in, i, &s, &len) != kTfLiteOk) {
      return kTfLiteError;
    }
    ptrs[i] = text + used;
    for (int k = 0; k < len; ++k) {
      const char c = s[k];
      text[used++] = (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
    }
    text[used++] = '!';
    lens[i] = len + 1;
  }
  return TfLiteOpaqueTensorWriteStrings(out, ptrs, n, lens);
}

/* What each refusing op writes to. */
enum { WRITE_ONE, WRITE_NONE, WRITE_INPUT, WRITE_FOREIGN, WRITE_NEGATIVE };

static TfLiteStatus misc_invoke(void* user_data, TfLiteOpaqueContext* context,
                                TfLiteOpaqueNode* node) {
  const int mode = *(const int*)user_data;
  TfLiteOpaqueTensor* out = TfLiteOpaqueNodeGetOutput(context, node, 0);
  switch (mode) {
    case WRITE_ONE:
      return TfLiteOpaqueTensorWriteString(out, "a\0\xc3\xa9", 4);
    case WRITE_NONE:
      return TfLiteOpaqueTensorWriteStrings(out, NULL, 0, NULL);
    case WRITE_INPUT:
      return TfLiteOpaqueTensorWriteString(
          (TfLiteOpaqueTensor*)TfLiteOpaqueNodeGetInput(context, node, 0), "x",
          1);
    case WRITE_FOREIGN: {
      static TfLiteTensor stray;
      stray.type = kTfLiteString;
      return TfLiteOpaqueTensorWriteString((TfLiteOpaqueTensor*)&stray, "x", 1);
    }
    default: {
      const char* s[] = {"ab", "c"};
      const int len[] = {2, -1};
      return TfLiteOpaqueTensorWriteStrings(out, s, 2, len);
    }
  }
}

/* A kit running `op` on the constant STRING input `in` (n strings) with an
 * output of type `out_type`. */
static litegpu_kernel_test* make_kit(const TfLiteOperator* op,
                                     const char* const* in, const int* len,
                                     int n, TfLiteType out_type, char* buffer) {
  litegpu_kernel_test* t = litegpu_kernel_test_create_operator(op, NULL, 0);
  assert_non_null(t);
  const int32_t dims[] = {n};
  const litegpu_kernel_test_tensor input = {
      .type = kTfLiteString,
      .dims = dims,
      .num_dims = 1,
      .data = buffer,
      .bytes = pack_strings(in, len, n, buffer),
      .constant = true};
  const int32_t one[] = {1};
  const litegpu_kernel_test_tensor output = {
      .type = out_type, .dims = one, .num_dims = 1};
  assert_int_equal(litegpu_kernel_test_add_input(t, &input), 0);
  assert_int_equal(litegpu_kernel_test_add_output(t, &output), 0);
  return t;
}

static void assert_string_at(const TfLiteTensor* t, int i, const char* want,
                             int want_len) {
  const TfLiteOpaqueTensor* o = (const TfLiteOpaqueTensor*)t;
  const char* s;
  int len;
  assert_int_equal(TfLiteOpaqueTensorGetString(o, i, &s, &len), kTfLiteOk);
  assert_int_equal(len, want_len);
  assert_memory_equal(s, want, (size_t)want_len);
}

static void test_write_strings(void** state) {
  (void)state;
  TfLiteOperator* op = TfLiteOperatorCreate(kTfLiteBuiltinCustom, "Shout", 1);
  TfLiteOperatorSetInvoke(op, shout_invoke);
  const char* in[] = {"hi", "", "x\0y", "\xe6\x97\xa5"};
  const int len[] = {2, 0, 3, 3};
  char buffer[128];
  litegpu_kernel_test* t = make_kit(op, in, len, 4, kTfLiteString, buffer);
  for (int run = 0; run < 2; ++run) { /* the second rewrites the buffer */
    assert_int_equal(litegpu_kernel_test_invoke(t), kTfLiteOk);
    const TfLiteTensor* out = litegpu_kernel_test_output(t, 0);
    assert_non_null(out);
    assert_int_equal(TfLiteTensorNumDims(out), 1);
    assert_int_equal(TfLiteTensorDim(out, 0), 4);
    assert_int_equal(
        TfLiteOpaqueTensorGetStringCount((const TfLiteOpaqueTensor*)out), 4);
    assert_string_at(out, 0, "HI!", 3);
    assert_string_at(out, 1, "!", 1);
    assert_string_at(out, 2, "X\0Y!", 4);
    assert_string_at(out, 3, "\xe6\x97\xa5!", 4);
    /* 4 + 5 offsets, then 3 + 1 + 4 + 4 bytes. */
    assert_int_equal(TfLiteTensorByteSize(out), 24 + 12);
  }
  litegpu_kernel_test_delete(t);
  TfLiteOperatorDelete(op);
}

/* Runs the misc op in `mode`; the kit's status. finish() deletes the kit
 * and then the operator (the kit's interpreter uses it). */
static int g_modes[5];
static TfLiteOperator* g_op;

static TfLiteStatus run_mode(int mode, TfLiteType out_type,
                             litegpu_kernel_test** kit) {
  g_modes[mode] = mode;
  g_op = TfLiteOperatorCreateWithData(kTfLiteBuiltinCustom, "Misc", 1,
                                      &g_modes[mode]);
  TfLiteOperatorSetInvokeWithData(g_op, misc_invoke);
  const char* in[] = {"q"};
  const int len[] = {1};
  static char buffer[64];
  *kit = make_kit(g_op, in, len, 1, out_type, buffer);
  return litegpu_kernel_test_invoke(*kit);
}

static void finish(litegpu_kernel_test* kit) {
  litegpu_kernel_test_delete(kit);
  TfLiteOperatorDelete(g_op);
  g_op = NULL;
}

static void test_write_string_and_empty(void** state) {
  (void)state;
  litegpu_kernel_test* t;
  assert_int_equal(run_mode(WRITE_ONE, kTfLiteString, &t), kTfLiteOk);
  const TfLiteTensor* out = litegpu_kernel_test_output(t, 0);
  assert_int_equal(TfLiteTensorNumDims(out), 1);
  assert_int_equal(TfLiteTensorDim(out, 0), 1);
  assert_string_at(out, 0, "a\0\xc3\xa9", 4);
  finish(t);
  assert_int_equal(run_mode(WRITE_NONE, kTfLiteString, &t), kTfLiteOk);
  out = litegpu_kernel_test_output(t, 0);
  assert_int_equal(TfLiteTensorDim(out, 0), 0);
  assert_int_equal(
      TfLiteOpaqueTensorGetStringCount((const TfLiteOpaqueTensor*)out), 0);
  finish(t);
}

static void test_refusals(void** state) {
  (void)state;
  litegpu_kernel_test* t;
  assert_int_equal(run_mode(WRITE_INPUT, kTfLiteString, &t), kTfLiteError);
  assert_contains(litegpu_kernel_test_error(t), "it is a constant");
  finish(t);
  assert_int_equal(run_mode(WRITE_FOREIGN, kTfLiteString, &t), kTfLiteError);
  assert_contains(litegpu_kernel_test_error(t),
                  "TfLiteOpaqueTensorWriteStrings: the tensor is not one of "
                  "the running graph's tensors");
  finish(t);
  assert_int_equal(run_mode(WRITE_ONE, kTfLiteFloat32, &t), kTfLiteError);
  assert_contains(litegpu_kernel_test_error(t), "it is not a STRING tensor");
  finish(t);
  assert_int_equal(run_mode(WRITE_NEGATIVE, kTfLiteString, &t), kTfLiteError);
  assert_contains(litegpu_kernel_test_error(t),
                  "string 1 has a negative length");
  finish(t);
  /* No kernel runs here: refused (reported on stderr). */
  static TfLiteTensor loose;
  loose.type = kTfLiteString;
  assert_int_equal(
      TfLiteOpaqueTensorWriteString((TfLiteOpaqueTensor*)&loose, "x", 1),
      kTfLiteError);
  assert_null(loose.data.raw);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_write_strings),
      cmocka_unit_test(test_write_string_and_empty),
      cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
