/* The op manifest (ops/ops.def) against what it claims to describe: its
 * names against the schema's op names, its rows against the CPU kernel
 * table and the GPU tables built from it, and the rules a row must keep
 * (one row per op, op codes unique within a kernel, versions in order). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "delegates/gpu/gpu_lower.h"
#include "delegates/gpu/op_support.h"
#include "ops/op_manifest.h"
#include "runtime/kernels/kernels.h"
#include "runtime/model/builtin_options.h"

static const lg_op_info* rows(int* count) {
  const lg_op_info* ops = lg_op_manifest(count);
  assert_non_null(ops);
  assert_true(*count > 0);
  return ops;
}

/* A builtin row's name is the schema's name of its code (the reader's
 * table, transcribed from schema.fbs); a custom row has a custom name. */
static void test_names_are_the_schema_names(void** state) {
  (void)state;
  int count = 0;
  const lg_op_info* ops = rows(&count);
  for (int i = 0; i < count; ++i) {
    if (ops[i].builtin_code == kTfLiteBuiltinCustom) {
      assert_non_null(ops[i].custom_name);
      continue;
    }
    assert_null(ops[i].custom_name);
    assert_string_equal(ops[i].name, lg_builtin_op_name(ops[i].builtin_code));
  }
}

static bool same_op(const lg_op_info* a, const lg_op_info* b) {
  if (a->builtin_code != b->builtin_code) return false;
  return a->custom_name == NULL || strcmp(a->custom_name, b->custom_name) == 0;
}

static void test_one_row_per_op(void** state) {
  (void)state;
  int count = 0;
  const lg_op_info* ops = rows(&count);
  for (int i = 0; i < count; ++i) {
    for (int j = i + 1; j < count; ++j) {
      if (same_op(&ops[i], &ops[j])) {
        fail_msg("%s has two rows", ops[i].name);
      }
    }
    assert_ptr_equal(lg_op_find(ops[i].builtin_code, ops[i].custom_name),
                     &ops[i]);
  }
  assert_null(lg_op_find(kTfLiteBuiltinCustom, NULL));
  assert_null(lg_op_find(kTfLiteBuiltinCustom, "NoSuchOp"));
  assert_null(lg_op_find(kTfLiteBuiltinStablehloCbrt, NULL));
}

/* The CPU kernel table holds exactly the rows with a CPU range, with that
 * range, and each registration names its op. */
static void test_cpu_table_is_the_cpu_rows(void** state) {
  (void)state;
  int count = 0;
  const lg_op_info* ops = rows(&count);
  size_t kernels = 0;
  const lg_builtin_kernel* table = lg_builtin_kernels(&kernels);
  size_t cpu_rows = 0, custom_rows = 0;
  for (int i = 0; i < count; ++i) {
    const lg_op_info* op = &ops[i];
    if (op->cpu_min_version == 0) {
      assert_int_equal(op->cpu_max_version, 0);
      continue;
    }
    assert_true(op->cpu_min_version <= op->cpu_max_version);
    int lo = 0, hi = 0;
    if (op->custom_name != NULL) {
      /* A custom row's kernel is in the custom table, found by name. */
      ++custom_rows;
      const lg_custom_kernel* ck =
          lg_custom_kernel_find(op->custom_name, op->cpu_min_version, &lo, &hi);
      if (ck == NULL) fail_msg("%s: no CPU kernel", op->name);
      assert_int_equal(ck->min_version, op->cpu_min_version);
      assert_int_equal(ck->max_version, op->cpu_max_version);
      const TfLiteRegistration* r = ck->registration();
      assert_int_equal(r->builtin_code, kTfLiteBuiltinCustom);
      assert_string_equal(r->custom_name, op->custom_name);
      assert_null(lg_custom_kernel_find(op->custom_name,
                                        op->cpu_max_version + 1, &lo, &hi));
      assert_int_equal(hi, op->cpu_max_version);
      continue;
    }
    ++cpu_rows;
    const lg_builtin_kernel* k =
        lg_builtin_kernel_find(op->builtin_code, op->cpu_min_version, &lo, &hi);
    if (k == NULL) fail_msg("%s: no CPU kernel", op->name);
    assert_int_equal(k->min_version, op->cpu_min_version);
    assert_int_equal(k->max_version, op->cpu_max_version);
    assert_int_equal(k->registration()->builtin_code, op->builtin_code);
  }
  assert_int_equal(kernels, cpu_rows);
  size_t customs = 0;
  lg_custom_kernels(&customs);
  assert_int_equal(customs, custom_rows);
  assert_null(lg_custom_kernel_find("NoSuchOp", 1, NULL, NULL));
  assert_null(lg_custom_kernel_find(NULL, 1, NULL, NULL));
  /* The builtin table has no custom rows. */
  assert_null(lg_builtin_kernel_find(kTfLiteBuiltinCustom, 1, NULL, NULL));
  for (size_t i = 0; i < kernels; ++i) {
    assert_non_null(lg_op_find(table[i].builtin_code, NULL));
  }
}

/* The GPU's kit table and lowering table hold exactly the GPU rows. */
static void test_gpu_tables_are_the_gpu_rows(void** state) {
  (void)state;
  int count = 0;
  const lg_op_info* ops = rows(&count);
  int gpu_rows = 0;
  for (int i = 0; i < count; ++i) {
    const lg_op_info* op = &ops[i];
    const lg_kit_op* kit = lg_gpu_op_find(op->builtin_code, op->custom_name);
    const lg_gpu_lowering* lowering =
        lg_gpu_lowering_find(op->builtin_code, op->custom_name);
    if (op->gpu_max_version == 0) {
      if (kit != NULL) fail_msg("%s: in the GPU table without GPU", op->name);
      assert_int_equal(op->gpu_opcode, -1);
      continue;
    }
    ++gpu_rows;
    if (kit == NULL || lowering == NULL) {
      fail_msg("%s: a GPU row without a table entry or lowering", op->name);
    }
    assert_int_equal(kit->max_version, op->gpu_max_version);
    assert_non_null(kit->check);
    assert_non_null(lowering->check);
    assert_non_null(lowering->lower);
  }
  int table_size = 0;
  lg_gpu_op_table(&table_size);
  assert_int_equal(table_size, gpu_rows);
}

/* Ops that share a lowering share its kernel's LG_OP switch: their codes
 * differ (or are all -1). */
static void test_op_codes_are_unique_per_lowering(void** state) {
  (void)state;
  int count = 0;
  const lg_op_info* ops = rows(&count);
  for (int i = 0; i < count; ++i) {
    if (ops[i].gpu_opcode < 0) continue;
    const lg_gpu_lowering* a =
        lg_gpu_lowering_find(ops[i].builtin_code, ops[i].custom_name);
    for (int j = i + 1; j < count; ++j) {
      if (ops[j].gpu_opcode < 0) continue;
      const lg_gpu_lowering* b =
          lg_gpu_lowering_find(ops[j].builtin_code, ops[j].custom_name);
      if (a->lower == b->lower && ops[i].gpu_opcode == ops[j].gpu_opcode) {
        fail_msg("%s and %s share op code %d", ops[i].name, ops[j].name,
                 ops[i].gpu_opcode);
      }
    }
    if (ops[i].gpu_opcode == LG_OPCODE_GELU_APPROXIMATE &&
        a->lower == lg_gpu_lower_unary) {
      fail_msg("%s takes GELU's approximate code", ops[i].name);
    }
  }
}

/* LG_BUILTIN_<NAME> is the row's code. */
static void test_builtin_constants(void** state) {
  (void)state;
  assert_int_equal(LG_BUILTIN_HARD_SWISH, kTfLiteBuiltinHardSwish);
  assert_int_equal(LG_BUILTIN_CONV_2D, kTfLiteBuiltinConv2d);
  assert_int_equal(LG_BUILTIN_MEDIAPIPE_MAX_UNPOOL, kTfLiteBuiltinCustom);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names_are_the_schema_names),
      cmocka_unit_test(test_one_row_per_op),
      cmocka_unit_test(test_cpu_table_is_the_cpu_rows),
      cmocka_unit_test(test_gpu_tables_are_the_gpu_rows),
      cmocka_unit_test(test_op_codes_are_unique_per_lowering),
      cmocka_unit_test(test_builtin_constants),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
