/* NON_MAX_SUPPRESSION_V4 / V5 and TFLite_Detection_PostProcess through the
 * kernel runner on hand-derived values (tests/python/ops/test_ops_detect.py
 * compares them with LiteRT at large): TensorFlow's documentation example
 * for NMS with a constant and a run-time max_output_size, a three-anchor
 * detection case worked out below for both NMS modes, and the rejections
 * (negative sigma, bad shapes, truncated and empty custom options). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/kernels/kernels.h"
#include "tests/support/kernel_runner.h"

static void expect_error(const lg_kernel_runner* r, const char* want) {
  const char* got = lg_kernel_runner_errors(r);
  if (strstr(got, want) == NULL) fail_msg("'%s' lacks '%s'", got, want);
}

/* ---- NMS ---------------------------------------------------------------- */

/* TensorFlow's example: boxes 0-2 overlap (IoU > 0.5 with the best, 0),
 * 3-4 overlap (3 best), 5 stands alone; corners of box 4 are swapped. */
static float kBoxes[6 * 4] = {0, 0,     1, 1,     0, 0.1f, 1, 1.1f,
                              0, -0.1f, 1, 0.9f,  0, 10,   1, 11,
                              1, 10.1f, 0, 11.1f, 0, 100,  1, 101};
static float kScores[6] = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

typedef struct nms_io {
  int32_t max_out;
  float iou, score_threshold, sigma;
} nms_io;

/* Builds an NMS node (V5 when soft) with max_output_size constant or not;
 * returns the output indices in out[]. */
static void nms_node(lg_kernel_runner* r, bool soft, nms_io* io, bool constant,
                     int out[3]) {
  lg_kernel_runner_init(r,
                        soft ? lg_register_NON_MAX_SUPPRESSION_V5()
                             : lg_register_NON_MAX_SUPPRESSION_V4(),
                        NULL);
  const int bdims[2] = {6, 4}, sdims[1] = {6};
  int in[6];
  in[0] = lg_kernel_runner_add_tensor(r, kTfLiteFloat32, bdims, 2, kBoxes);
  in[1] = lg_kernel_runner_add_tensor(r, kTfLiteFloat32, sdims, 1, kScores);
  in[2] = lg_kernel_runner_add_tensor(r, kTfLiteInt32, NULL, 0, &io->max_out);
  in[3] = lg_kernel_runner_add_tensor(r, kTfLiteFloat32, NULL, 0, &io->iou);
  in[4] = lg_kernel_runner_add_tensor(r, kTfLiteFloat32, NULL, 0,
                                      &io->score_threshold);
  in[5] = lg_kernel_runner_add_tensor(r, kTfLiteFloat32, NULL, 0, &io->sigma);
  for (int i = 2; i < 6; ++i) {
    if (constant)
      lg_kernel_runner_tensor(r, in[i])->allocation_type = kTfLiteMmapRo;
  }
  const int n_out = soft ? 3 : 2;
  for (int o = 0; o < n_out; ++o) {
    out[o] = lg_kernel_runner_add_tensor(
        r, o == 1 && soft ? kTfLiteFloat32 : kTfLiteInt32, NULL, 0, NULL);
  }
  lg_kernel_runner_set_inputs(r, in, soft ? 6 : 5);
  lg_kernel_runner_set_outputs(r, out, n_out);
}

static void test_nms_tf_example(void** state) {
  (void)state;
  for (int soft = 0; soft < 2; ++soft) {
    for (int constant = 0; constant < 2; ++constant) {
      lg_kernel_runner r;
      nms_io io = {4, 0.5f, 0.0f, 0.0f};
      int out[3];
      nms_node(&r, soft, &io, constant, out);
      if (lg_kernel_runner_run(&r) != kTfLiteOk) {
        fail_msg("%s", lg_kernel_runner_errors(&r));
      }
      const TfLiteTensor* idx = lg_kernel_runner_tensor(&r, out[0]);
      const TfLiteTensor* valid =
          lg_kernel_runner_tensor(&r, out[soft ? 2 : 1]);
      assert_int_equal(idx->dims->size, 1);
      assert_int_equal(idx->dims->data[0], 4);
      assert_int_equal(valid->dims->size, 0);
      const int32_t want[4] = {3, 0, 5, 0};
      assert_memory_equal(idx->data.i32, want, sizeof(want));
      assert_int_equal(valid->data.i32[0], 3);
      if (soft) {
        const float* sc = lg_kernel_runner_tensor(&r, out[1])->data.f;
        assert_true(sc[0] == 0.95f && sc[1] == 0.9f && sc[2] == 0.3f &&
                    sc[3] == 0.0f);
      }
      lg_kernel_runner_release(&r);
    }
  }
}

/* Soft-NMS with sigma 0.5 and iou_threshold 1 (only a box against itself
 * reaches it): box 3 (0.95) and box 0 (0.9) are selected untouched (IoU 0
 * with each other), each then meets itself and drops. Box 1 decays by
 * exp(-iou(0, 1)^2) with iou 0.9 / 1.1 to 0.384, box 2 likewise to 0.307,
 * box 4 by exp(-iou(3, 4)^2) to 0.256: the decayed box 1 comes back on top
 * and is third. */
static void test_soft_nms_decay(void** state) {
  (void)state;
  lg_kernel_runner r;
  nms_io io = {3, 1.0f, 0.0f, 0.5f};
  int out[3];
  nms_node(&r, true, &io, true, out);
  if (lg_kernel_runner_run(&r) != kTfLiteOk) {
    fail_msg("%s", lg_kernel_runner_errors(&r));
  }
  const int32_t* idx = lg_kernel_runner_tensor(&r, out[0])->data.i32;
  const float* sc = lg_kernel_runner_tensor(&r, out[1])->data.f;
  assert_int_equal(idx[0], 3);
  assert_int_equal(idx[1], 0);
  assert_true(sc[0] == 0.95f && sc[1] == 0.9f);
  assert_int_equal(idx[2], 1);
  const double iou01 = 0.9 / 1.1;
  assert_true(fabs(sc[2] - 0.75 * exp(-iou01 * iou01)) < 1e-6);
  lg_kernel_runner_release(&r);
}

static void test_nms_rejections(void** state) {
  (void)state;
  lg_kernel_runner r;
  nms_io io = {3, 0.5f, 0.0f, -1.0f};
  int out[3];
  nms_node(&r, true, &io, true, out);
  assert_int_equal(lg_kernel_runner_run(&r), kTfLiteError);
  expect_error(&r, "NON_MAX_SUPPRESSION_V5: soft_nms_sigma -1 is negative");
  lg_kernel_runner_release(&r);

  nms_io io2 = {-1, 0.5f, 0.0f, 0.0f};
  nms_node(&r, false, &io2, true, out);
  assert_int_equal(lg_kernel_runner_prepare(&r), kTfLiteError);
  expect_error(&r, "NON_MAX_SUPPRESSION_V4: max_output_size -1 is negative");
  lg_kernel_runner_release(&r);

  nms_io io3 = {2, 0.5f, 0.0f, 0.0f};
  nms_node(&r, false, &io3, false, out);
  lg_kernel_runner_tensor(&r, 0)->dims->data[1] = 3;
  assert_int_equal(lg_kernel_runner_prepare(&r), kTfLiteError);
  expect_error(&r, "boxes must be [num_boxes, 4], not [6,3]");
  lg_kernel_runner_release(&r);
}

/* ---- TFLite_Detection_PostProcess --------------------------------------- */

/* flexbuffers.Dumps({max_detections: 3, max_classes_per_detection: 1,
 * nms_score_threshold: 0.5, nms_iou_threshold: 0.5, num_classes: 2,
 * y_scale: 10.0, x_scale: 10.0, h_scale: 5.0, w_scale: 5.0}); the second
 * adds use_regular_nms: True. */
static const uint8_t kFast[] = {
    0x6d, 0x61, 0x78, 0x5f, 0x64, 0x65, 0x74, 0x65, 0x63, 0x74, 0x69, 0x6f,
    0x6e, 0x73, 0x00, 0x6d, 0x61, 0x78, 0x5f, 0x63, 0x6c, 0x61, 0x73, 0x73,
    0x65, 0x73, 0x5f, 0x70, 0x65, 0x72, 0x5f, 0x64, 0x65, 0x74, 0x65, 0x63,
    0x74, 0x69, 0x6f, 0x6e, 0x00, 0x6e, 0x6d, 0x73, 0x5f, 0x73, 0x63, 0x6f,
    0x72, 0x65, 0x5f, 0x74, 0x68, 0x72, 0x65, 0x73, 0x68, 0x6f, 0x6c, 0x64,
    0x00, 0x6e, 0x6d, 0x73, 0x5f, 0x69, 0x6f, 0x75, 0x5f, 0x74, 0x68, 0x72,
    0x65, 0x73, 0x68, 0x6f, 0x6c, 0x64, 0x00, 0x6e, 0x75, 0x6d, 0x5f, 0x63,
    0x6c, 0x61, 0x73, 0x73, 0x65, 0x73, 0x00, 0x79, 0x5f, 0x73, 0x63, 0x61,
    0x6c, 0x65, 0x00, 0x78, 0x5f, 0x73, 0x63, 0x61, 0x6c, 0x65, 0x00, 0x68,
    0x5f, 0x73, 0x63, 0x61, 0x6c, 0x65, 0x00, 0x77, 0x5f, 0x73, 0x63, 0x61,
    0x6c, 0x65, 0x00, 0x09, 0x11, 0x6e, 0x7e, 0x42, 0x57, 0x32, 0x0f, 0x20,
    0x29, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x40, 0x01, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3f, 0x00, 0x00, 0x00, 0x3f,
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x40, 0x00, 0x00, 0x20, 0x41,
    0x00, 0x00, 0x20, 0x41, 0x0e, 0x06, 0x06, 0x0e, 0x0e, 0x06, 0x0e, 0x0e,
    0x0e, 0x2d, 0x26, 0x01};

static const uint8_t kRegular[] = {
    0x6d, 0x61, 0x78, 0x5f, 0x64, 0x65, 0x74, 0x65, 0x63, 0x74, 0x69, 0x6f,
    0x6e, 0x73, 0x00, 0x6d, 0x61, 0x78, 0x5f, 0x63, 0x6c, 0x61, 0x73, 0x73,
    0x65, 0x73, 0x5f, 0x70, 0x65, 0x72, 0x5f, 0x64, 0x65, 0x74, 0x65, 0x63,
    0x74, 0x69, 0x6f, 0x6e, 0x00, 0x6e, 0x6d, 0x73, 0x5f, 0x73, 0x63, 0x6f,
    0x72, 0x65, 0x5f, 0x74, 0x68, 0x72, 0x65, 0x73, 0x68, 0x6f, 0x6c, 0x64,
    0x00, 0x6e, 0x6d, 0x73, 0x5f, 0x69, 0x6f, 0x75, 0x5f, 0x74, 0x68, 0x72,
    0x65, 0x73, 0x68, 0x6f, 0x6c, 0x64, 0x00, 0x6e, 0x75, 0x6d, 0x5f, 0x63,
    0x6c, 0x61, 0x73, 0x73, 0x65, 0x73, 0x00, 0x79, 0x5f, 0x73, 0x63, 0x61,
    0x6c, 0x65, 0x00, 0x78, 0x5f, 0x73, 0x63, 0x61, 0x6c, 0x65, 0x00, 0x68,
    0x5f, 0x73, 0x63, 0x61, 0x6c, 0x65, 0x00, 0x77, 0x5f, 0x73, 0x63, 0x61,
    0x6c, 0x65, 0x00, 0x75, 0x73, 0x65, 0x5f, 0x72, 0x65, 0x67, 0x75, 0x6c,
    0x61, 0x72, 0x5f, 0x6e, 0x6d, 0x73, 0x00, 0x0a, 0x21, 0x7e, 0x8e, 0x52,
    0x67, 0x42, 0x17, 0x20, 0x31, 0x3a, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x40,
    0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3f,
    0x00, 0x00, 0x00, 0x3f, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0xa0, 0x40, 0x00, 0x00, 0x20, 0x41, 0x00, 0x00, 0x20, 0x41,
    0x0e, 0x06, 0x06, 0x0e, 0x0e, 0x06, 0x6a, 0x0e, 0x0e, 0x0e, 0x32, 0x26,
    0x01};

/* Zero encodings decode each box to its anchor: (y, x, h, w) ->
 * (y - h/2, x - w/2, y + h/2, x + w/2):
 *   a0 (0.2, 0.2, 0.2, 0.2)   -> [0.1, 0.1, 0.3, 0.3]
 *   a1 (0.7, 0.7, 0.2, 0.4)   -> [0.6, 0.5, 0.8, 0.9]
 *   a2 (0.2, 0.25, 0.2, 0.2)  -> [0.1, 0.15, 0.3, 0.35]
 * IoU(a0, a2) = 0.15 * 0.2 / (0.04 + 0.04 - 0.03) = 0.6 > 0.5; a1 overlaps
 * neither. Class predictions [background, class 0, class 1]:
 *   a0 (0, 0.9, 0.1), a1 (0, 0.2, 0.7), a2 (0, 0.8, 0.6).
 * Fast NMS ranks anchors by their best class (a0 0.9, a2 0.8, a1 0.7): a0
 * kept, a2 suppressed by a0, a1 kept -> 2 detections (a0 class 0 0.9, a1
 * class 1 0.7). Regular NMS: class 0 keeps a0 (a2 suppressed, a1 below
 * 0.5), class 1 keeps a1 0.7 and a2 0.6 (no overlap) -> merged 3 detections
 * a0/0/0.9, a1/1/0.7, a2/1/0.6. */
static float kEnc[1 * 3 * 4];
static float kCls[1 * 3 * 3] = {0, 0.9f, 0.1f, 0, 0.2f, 0.7f, 0, 0.8f, 0.6f};
static float kAnchors[3 * 4] = {0.2f, 0.2f, 0.2f, 0.2f,  0.7f, 0.7f,
                                0.2f, 0.4f, 0.2f, 0.25f, 0.2f, 0.2f};

static void dp_node(lg_kernel_runner* r, const uint8_t* options, size_t size,
                    int out[4]) {
  const lg_custom_kernel* k =
      lg_custom_kernel_find("TFLite_Detection_PostProcess", 1, NULL, NULL);
  assert_non_null(k);
  lg_kernel_runner_init(r, k->registration(), NULL);
  r->node.custom_initial_data = options;
  r->node.custom_initial_data_size = (int)size;
  const int edims[3] = {1, 3, 4}, cdims[3] = {1, 3, 3}, adims[2] = {3, 4};
  int in[3];
  in[0] = lg_kernel_runner_add_tensor(r, kTfLiteFloat32, edims, 3, kEnc);
  in[1] = lg_kernel_runner_add_tensor(r, kTfLiteFloat32, cdims, 3, kCls);
  in[2] = lg_kernel_runner_add_tensor(r, kTfLiteFloat32, adims, 2, kAnchors);
  for (int o = 0; o < 4; ++o) {
    out[o] = lg_kernel_runner_add_tensor(r, kTfLiteFloat32, NULL, 0, NULL);
  }
  lg_kernel_runner_set_inputs(r, in, 3);
  lg_kernel_runner_set_outputs(r, out, 4);
}

static void expect_box(const float* got, float y0, float x0, float y1,
                       float x1) {
  const float want[4] = {y0, x0, y1, x1};
  for (int i = 0; i < 4; ++i) {
    if (fabsf(got[i] - want[i]) > 1e-6f) {
      fail_msg("box[%d] = %g, want %g", i, (double)got[i], (double)want[i]);
    }
  }
}

static void test_dp_modes(void** state) {
  (void)state;
  for (int regular = 0; regular < 2; ++regular) {
    lg_kernel_runner r;
    int out[4];
    if (regular) {
      dp_node(&r, kRegular, sizeof(kRegular), out);
    } else {
      dp_node(&r, kFast, sizeof(kFast), out);
    }
    if (lg_kernel_runner_run(&r) != kTfLiteOk) {
      fail_msg("%s", lg_kernel_runner_errors(&r));
    }
    const TfLiteTensor* boxes = lg_kernel_runner_tensor(&r, out[0]);
    assert_int_equal(boxes->dims->size, 3);
    assert_int_equal(boxes->dims->data[1], 3);
    const float* b = boxes->data.f;
    const float* cls = lg_kernel_runner_tensor(&r, out[1])->data.f;
    const float* sc = lg_kernel_runner_tensor(&r, out[2])->data.f;
    const float count = lg_kernel_runner_tensor(&r, out[3])->data.f[0];
    expect_box(b, 0.1f, 0.1f, 0.3f, 0.3f);
    expect_box(b + 4, 0.6f, 0.5f, 0.8f, 0.9f);
    assert_true(cls[0] == 0.0f && cls[1] == 1.0f);
    assert_true(sc[0] == 0.9f && sc[1] == 0.7f);
    if (regular) {
      assert_true(count == 3.0f);
      expect_box(b + 8, 0.1f, 0.15f, 0.3f, 0.35f);
      assert_true(cls[2] == 1.0f && sc[2] == 0.6f);
    } else {
      assert_true(count == 2.0f);
      expect_box(b + 8, 0, 0, 0, 0);
      assert_true(cls[2] == 0.0f && sc[2] == 0.0f);
    }
    lg_kernel_runner_release(&r);
  }
}

static void test_dp_bad_options(void** state) {
  (void)state;
  static const size_t cuts[] = {1, 2, 3, 50, sizeof(kFast) - 1};
  for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); ++i) {
    lg_kernel_runner r;
    int out[4];
    /* The first bytes only: the root (at the end) is lost. */
    dp_node(&r, kFast, sizeof(kFast) - cuts[i], out);
    assert_int_equal(lg_kernel_runner_prepare(&r), kTfLiteError);
    expect_error(&r,
                 "TFLite_Detection_PostProcess: custom options: "
                 "FlexBuffers: ");
    lg_kernel_runner_release(&r);
  }
  lg_kernel_runner r;
  int out[4];
  dp_node(&r, kFast, 0, out);
  r.node.custom_initial_data = NULL;
  assert_int_equal(lg_kernel_runner_prepare(&r), kTfLiteError);
  expect_error(&r, "0 bytes is too short for a root");
  lg_kernel_runner_release(&r);
}

static void test_dp_resolves_by_name_only(void** state) {
  (void)state;
  int lo = 0, hi = 0;
  assert_null(
      lg_custom_kernel_find("TFLite_Detection_PostProcess", 2, &lo, &hi));
  assert_int_equal(lo, 1);
  assert_int_equal(hi, 1);
  assert_null(
      lg_custom_kernel_find("tflite_detection_postprocess", 1, NULL, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nms_tf_example),
      cmocka_unit_test(test_soft_nms_decay),
      cmocka_unit_test(test_nms_rejections),
      cmocka_unit_test(test_dp_modes),
      cmocka_unit_test(test_dp_bad_options),
      cmocka_unit_test(test_dp_resolves_by_name_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
