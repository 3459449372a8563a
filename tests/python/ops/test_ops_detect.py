"""NON_MAX_SUPPRESSION_V4 / V5 and the custom op TFLite_Detection_PostProcess
against LiteRT's reference kernels through op_harness (litegpu at 1 and 2
threads). Selected indices and counts must
match exactly; V5's selected scores are the input scores or, with soft-NMS,
products of expf factors (rtol 1e-6). A max_output_size given as Input(...)
is a graph input: the outputs are then dynamic in both runtimes.
"""

import numpy as np
import pytest
from flatbuffers import flexbuffers

from litegpu import capi as lg
import op_harness as oh
from op_harness import Const, Input, OpCase, Output, check_case

f32 = np.float32


def scalar(value, dtype=np.float32):
    return np.array(value, dtype=dtype)


def nms_case(boxes, scores, max_out, iou, score_thr, sigma=None,
             max_input=False, max_decl=None):
    """A V4 case (sigma None) or a V5 case. max_out is a constant unless
    max_input; max_decl is the declared output length (default max_out)."""
    mo = scalar(max_out, np.int32)
    inputs = [Input(np.asarray(boxes, f32)), Input(np.asarray(scores, f32)),
              Input(mo) if max_input else Const(mo),
              Const(scalar(iou)), Const(scalar(score_thr))]
    n = max_out if max_decl is None else max_decl
    outputs = [Output(np.int32, shape=(n,))]
    op = "NON_MAX_SUPPRESSION_V4"
    if sigma is not None:
        inputs.append(Const(scalar(sigma)))
        outputs.append(Output(f32, shape=(n,)))
        op = "NON_MAX_SUPPRESSION_V5"
    outputs.append(Output(np.int32, shape=()))
    return OpCase(op=op, inputs=inputs, outputs=outputs, rtol=1e-6, atol=0.0)


def run(*args, **kwargs):
    return check_case(nms_case(*args, **kwargs))


def litegpu_error(case, tmp_path):
    _, inputs = oh.write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    with pytest.raises(lg.LiteGpuError) as raised:
        oh.run_litegpu(model, inputs, num_threads=1)
    return str(raised.value)


def litert_fails(case, tmp_path):
    _, inputs = oh.write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    with pytest.raises(Exception):
        oh.run_litert(model, inputs)


# TensorFlow's documentation example: two clusters of overlapping boxes and
# one far box; corners are given in both orders.
TF_BOXES = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9],
            [0, 10, 1, 11], [1, 10.1, 0, 11.1], [0, 100, 1, 101]]
TF_SCORES = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3]


def random_boxes(rng, n, spread=4.0, swap=True):
    y = rng.uniform(0, spread, n)
    x = rng.uniform(0, spread, n)
    h = rng.uniform(0.2, 2.0, n)
    w = rng.uniform(0.2, 2.0, n)
    boxes = np.stack([y, x, y + h, x + w], axis=1).astype(f32)
    if swap:  # opposite corners in the other order for some boxes
        flip = rng.random(n) < 0.5
        boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    return boxes


@pytest.mark.parametrize("sigma", [None, 0.0])
@pytest.mark.parametrize("max_out", [0, 1, 3, 6, 10])
def test_nms_tf_example(sigma, max_out):
    out = run(TF_BOXES, TF_SCORES, max_out, 0.5, 0.0, sigma)
    want = [3, 0, 5][:max_out]
    assert int(out[-1]) == len(want)
    np.testing.assert_array_equal(out[0][:len(want)], want)
    assert (out[0][len(want):] == 0).all()
    if sigma is not None:
        np.testing.assert_array_equal(
            out[1][:len(want)], np.asarray(TF_SCORES, f32)[want])
        assert (out[1][len(want):] == 0).all()


@pytest.mark.parametrize("sigma", [None, 0.0, 0.5])
@pytest.mark.parametrize("max_out", [1, 2, 4, 9])
def test_nms_max_output_size_input(sigma, max_out):
    """max_output_size as a graph input: dynamic outputs in both runtimes."""
    out = run(TF_BOXES, TF_SCORES, max_out, 0.5, 0.0, sigma, max_input=True,
              max_decl=1)
    assert out[0].shape == (max_out,)


@pytest.mark.parametrize("sigma", [None, 0.5])
def test_nms_max_output_size_input_zero(sigma, tmp_path):
    """A dynamic max_output_size of 0 gives empty outputs. LiteRT's Python
    get_tensor cannot read an empty dynamic tensor, so only its count is
    compared; the empty outputs are checked by hand."""
    case = nms_case(TF_BOXES, TF_SCORES, 0, 0.5, 0.0, sigma, max_input=True,
                    max_decl=1)
    _, inputs = oh.write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    interp = oh._litert_interpreter(model)
    interp.allocate_tensors()
    for detail, array in zip(interp.get_input_details(), inputs):
        interp.set_tensor(detail["index"], array)
    interp.invoke()
    want_count = interp.get_tensor(interp.get_output_details()[-1]["index"])
    got = oh.run_litegpu(model, inputs)
    assert int(got[-1]) == int(want_count) == 0
    for out in got[:-1]:
        assert out.shape == (0,)


@pytest.mark.parametrize("sigma", [None, 0.0])
@pytest.mark.parametrize("iou", [0.0, 0.3, 0.5, 0.7, 1.0])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_nms_random_overlapping(sigma, iou, seed):
    rng = np.random.default_rng(seed)
    boxes = random_boxes(rng, 40)
    scores = rng.random(40).astype(f32)
    run(boxes, scores, 25, iou, 0.1, sigma)


@pytest.mark.parametrize("sigma", [None, 0.0, 0.3])
@pytest.mark.parametrize("seed", [4, 5, 6, 7])
def test_nms_ties(sigma, seed):
    """Many equal scores: the order equal candidates leave TFLite's heap in
    decides which of two overlapping boxes is kept."""
    rng = np.random.default_rng(seed)
    n = 33
    boxes = random_boxes(rng, n, spread=3.0)
    scores = rng.choice(np.array([0.25, 0.5, 0.75], f32), size=n)
    run(boxes, scores, n, 0.4, 0.0, sigma)


@pytest.mark.parametrize("sigma", [None, 0.0, 0.5])
def test_nms_all_scores_equal(sigma):
    rng = np.random.default_rng(11)
    boxes = random_boxes(rng, 20, spread=2.0)
    run(boxes, np.full(20, 0.5, f32), 20, 0.3, 0.0, sigma)


@pytest.mark.parametrize("sigma", [None, 0.0, 0.5])
@pytest.mark.parametrize("max_input", [False, True])
def test_nms_score_threshold_cuts_everything(sigma, max_input):
    out = run(TF_BOXES, TF_SCORES, 4, 0.5, 0.95, sigma, max_input=max_input)
    assert int(out[-1]) == 0
    assert (out[0] == 0).all()


def test_nms_score_threshold_is_strict():
    """A score equal to the threshold is not a candidate."""
    out = run(TF_BOXES, TF_SCORES, 6, 0.5, 0.6)
    np.testing.assert_array_equal(out[0][:int(out[-1])], [3, 0])


@pytest.mark.parametrize("sigma", [0.1, 0.5, 1.0, 4.0])
@pytest.mark.parametrize("seed", [8, 9])
def test_soft_nms(sigma, seed):
    """Gaussian soft-NMS: scores decay and candidates re-enter the heap."""
    rng = np.random.default_rng(seed)
    boxes = random_boxes(rng, 30, spread=2.0)
    scores = rng.random(30).astype(f32)
    out = run(boxes, scores, 30, 1.0, 0.05, sigma)
    count = int(out[-1])
    assert count > 0
    # Decayed scores come out in non-increasing order.
    assert (np.diff(out[1][:count]) <= 0).all()


@pytest.mark.parametrize("sigma", [0.5, 2.0])
def test_soft_nms_with_hard_threshold(sigma):
    rng = np.random.default_rng(12)
    boxes = random_boxes(rng, 30, spread=2.0)
    scores = rng.random(30).astype(f32)
    run(boxes, scores, 12, 0.6, 0.2, sigma)


@pytest.mark.parametrize("sigma", [None, 0.5])
def test_nms_degenerate_boxes(sigma):
    """Boxes without area have IoU 0 with everything, themselves included.
    TFLite pushes a selected candidate back into its heap, where it meets
    itself next time: a box with area is then suppressed (IoU 1), a box
    without area is selected again. So box 1 fills the rest of the output
    (hand-derived; LiteRT agrees)."""
    boxes = [[0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 1, 0], [0, 0, 1, 1],
             [0.5, 0.5, 0.5, 0.5]]
    out = run(boxes, [0.9, 0.8, 0.7, 0.6, 0.5], 5, 0.5, 0.0, sigma)
    np.testing.assert_array_equal(out[0][:int(out[-1])], [0, 1, 1, 1, 1])


@pytest.mark.parametrize("sigma", [None, 0.5])
def test_nms_iou_threshold_above_one(sigma):
    """No IoU reaches a threshold above 1: the best box is selected again
    and again (TFLite's re-push of selected candidates)."""
    out = run(TF_BOXES, TF_SCORES, 4, 1.5, 0.0, sigma)
    if sigma is None:  # soft-NMS decays the re-pushed box by exp(-2)
        np.testing.assert_array_equal(out[0], [3, 3, 3, 3])


@pytest.mark.parametrize("sigma", [None, 0.5])
def test_nms_no_boxes(sigma):
    out = run(np.zeros((0, 4), f32), np.zeros((0,), f32), 3, 0.5, 0.0,
              sigma)
    assert int(out[-1]) == 0


# ---- Errors -----------------------------------------------------------------


def test_soft_nms_negative_sigma_fails(tmp_path):
    case = nms_case(TF_BOXES, TF_SCORES, 3, 0.5, 0.0, -0.5)
    litert_fails(case, tmp_path)
    assert ("NON_MAX_SUPPRESSION_V5: soft_nms_sigma -0.5 is negative"
            in litegpu_error(case, tmp_path))


@pytest.mark.parametrize("sigma", [None, 0.5])
def test_nms_negative_max_output_size_fails(sigma, tmp_path):
    case = nms_case(TF_BOXES, TF_SCORES, -1, 0.5, 0.0, sigma, max_input=True,
                    max_decl=1)
    litert_fails(case, tmp_path)
    assert "max_output_size -1 is negative" in litegpu_error(case, tmp_path)


def test_nms_negative_constant_max_output_size_rejected():
    case = nms_case(TF_BOXES, TF_SCORES, -2, 0.5, 0.0, max_decl=1)
    oh.check_rejected(case, r"NON_MAX_SUPPRESSION_V4: max_output_size -2 is "
                      r"negative", litert_accepts=False)


def test_nms_box_shape_rejected():
    case = nms_case(np.zeros((4, 3), f32), np.zeros(4, f32), 2, 0.5, 0.0)
    oh.check_rejected(case, r"NON_MAX_SUPPRESSION_V4: boxes must be "
                      r"\[num_boxes, 4\], not \[4,3\]", litert_accepts=False)


def test_nms_scores_shape_rejected():
    case = nms_case(np.zeros((4, 4), f32), np.zeros(5, f32), 2, 0.5, 0.0, 0.0)
    oh.check_rejected(case, r"NON_MAX_SUPPRESSION_V5: scores \[5\] must be "
                      r"\[4\] for boxes \[4,4\]", litert_accepts=False)


def test_nms_box_type_rejected():
    case = nms_case(np.zeros((4, 4), f32), np.zeros(4, f32), 2, 0.5, 0.0)
    case.inputs[0] = Input(np.zeros((4, 4), np.int32))
    oh.check_rejected(case, r"NON_MAX_SUPPRESSION_V4: boxes type INT32 is "
                      r"not supported", litert_accepts=False)


def test_nms_max_output_size_must_be_scalar():
    case = nms_case(np.zeros((4, 4), f32), np.zeros(4, f32), 2, 0.5, 0.0)
    case.inputs[2] = Const(np.array([2], np.int32))
    oh.check_rejected(case, r"NON_MAX_SUPPRESSION_V4: max_output_size must "
                      r"be a scalar, not \[1\]", litert_accepts=False)


def test_nms_v4_with_six_inputs_rejected():
    """litegpu reads V4 and V5 by their builtin code: a V4 node with a sigma
    input is malformed (TFLite would run it as V5)."""
    case = nms_case(np.zeros((4, 4), f32), np.zeros(4, f32), 2, 0.5, 0.0, 0.0)
    case.op = "NON_MAX_SUPPRESSION_V4"
    oh.check_rejected(case, r"NON_MAX_SUPPRESSION_V4: .*5\b.*inputs")


# ---- TFLite_Detection_PostProcess -------------------------------------------
#
# A custom op with FlexBuffers options; LiteRT registers it in its default
# (and reference) resolver, litegpu in its default resolver. TFLite's fast
# NMS leaves the output slots past its detections as they were (undefined),
# so only the slots it writes are compared with LiteRT; litegpu writes zeros
# there, which is checked separately.


DP = "TFLite_Detection_PostProcess"


def dp_options(**kw):
    opts = {"max_detections": 5, "max_classes_per_detection": 1,
            "nms_score_threshold": 0.1, "nms_iou_threshold": 0.5,
            "num_classes": 3, "y_scale": 10.0, "x_scale": 10.0,
            "h_scale": 5.0, "w_scale": 5.0}
    opts.update(kw)
    opts = {k: v for k, v in opts.items() if v is not None}
    return bytes(flexbuffers.Dumps(opts))


def dp_inputs(rng, n, c, width=4, tie_levels=None):
    enc = (rng.standard_normal((1, n, width)) * 0.8).astype(f32)
    anchors = np.stack([rng.uniform(0.1, 0.9, n), rng.uniform(0.1, 0.9, n),
                        rng.uniform(0.1, 0.5, n), rng.uniform(0.1, 0.5, n)],
                       axis=1).astype(f32)
    if tie_levels is None:
        scores = rng.random((1, n, c)).astype(f32)
    else:
        scores = rng.choice(np.asarray(tie_levels, f32), size=(1, n, c))
    return enc, scores, anchors


def dp_case(enc, scores, anchors, options, max_det, max_cls,
            enc_quant=None, score_quant=None, anchor_quant=None):
    d = max_det * max_cls
    outputs = [Output(f32, shape=(1, d, 4)), Output(f32, shape=(1, d)),
               Output(f32, shape=(1, d)), Output(f32, shape=(1,))]
    return OpCase(op=DP, custom=True, custom_options=options,
                  inputs=[Input(enc, quant=enc_quant),
                          Input(scores, quant=score_quant),
                          Const(anchors, quant=anchor_quant)],
                  outputs=outputs)


def written_slots(count, max_det, max_cls, num_classes, regular):
    """The output slots TFLite writes: all of them for regular NMS (zeros
    past count), the first min(max_cls, num_classes) of each detection's
    max_cls for fast NMS."""
    if regular:
        return np.arange(max_det)
    per = min(max_cls, num_classes)
    return np.array([k * max_cls + j for k in range(count)
                     for j in range(per)], dtype=np.int64)


def run_dp(case, max_det, max_cls, num_classes, regular):
    """Runs the case in LiteRT (reference kernels) and litegpu (1 and 2
    threads); compares num_detections and the written slots; returns
    litegpu's outputs."""
    with oh._CaseRun(case) as crun:
        crun.build()
        want = oh._expected(crun)
        for threads in (1, 2):
            got = oh.run_litegpu(crun.model, crun.inputs, num_threads=threads)
            assert [g.shape for g in got] == [w.shape for w in want]
            count = int(want[3][0])
            assert got[3][0] == want[3][0], (got[3], want[3])
            slots = written_slots(count, max_det, max_cls, num_classes,
                                  regular)
            for k in range(3):
                g = got[k][0][slots] if slots.size else got[k][0][:0]
                w = want[k][0][slots] if slots.size else want[k][0][:0]
                problem = oh.compare(g, w, rtol=1e-6, atol=1e-6)
                assert problem is None, f"output {k}: {problem}"
            # Every other slot is zero in litegpu.
            rest = np.setdiff1d(np.arange(max_det * max_cls), slots)
            for k in range(3):
                assert (got[k][0][rest] == 0).all()
        return got


@pytest.mark.parametrize("n,num_classes,background", [
    (6, 1, True), (20, 3, True), (20, 3, False), (64, 5, True),
    (33, 2, False)])
@pytest.mark.parametrize("max_cls", [1, 2, 4])
@pytest.mark.parametrize("max_det", [3, 10])
def test_dp_fast_nms(n, num_classes, background, max_cls, max_det):
    rng = np.random.default_rng(n * 7 + num_classes + max_cls + max_det)
    c = num_classes + (1 if background else 0)
    enc, scores, anchors = dp_inputs(rng, n, c)
    opts = dp_options(max_detections=max_det,
                      max_classes_per_detection=max_cls,
                      num_classes=num_classes, nms_score_threshold=0.3)
    got = run_dp(dp_case(enc, scores, anchors, opts, max_det, max_cls),
                 max_det, max_cls, num_classes, False)
    assert got[3][0] > 0


@pytest.mark.parametrize("n,num_classes,background", [
    (6, 1, True), (20, 3, True), (20, 3, False), (64, 5, True)])
@pytest.mark.parametrize("per_class", [1, 3, None])
@pytest.mark.parametrize("max_det", [4, 12])
def test_dp_regular_nms(n, num_classes, background, per_class, max_det):
    rng = np.random.default_rng(n * 5 + num_classes + max_det)
    c = num_classes + (1 if background else 0)
    enc, scores, anchors = dp_inputs(rng, n, c)
    opts = dp_options(max_detections=max_det, num_classes=num_classes,
                      use_regular_nms=True, detections_per_class=per_class,
                      nms_score_threshold=0.2)
    run_dp(dp_case(enc, scores, anchors, opts, max_det, 1), max_det, 1,
           num_classes, True)


@pytest.mark.parametrize("regular", [False, True])
@pytest.mark.parametrize("max_cls", [1, 3])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dp_tied_scores(regular, max_cls, seed):
    """Few distinct scores: ties between anchors (the stable sort), between
    classes of one anchor (the partial sort) and between classes in the
    regular merge."""
    rng = np.random.default_rng(seed)
    enc, scores, anchors = dp_inputs(rng, 24, 5, tie_levels=[0.3, 0.6, 0.9])
    max_cls = 1 if regular else max_cls
    opts = dp_options(max_detections=8, max_classes_per_detection=max_cls,
                      num_classes=4, use_regular_nms=regular,
                      detections_per_class=3, nms_iou_threshold=0.4)
    run_dp(dp_case(enc, scores, anchors, opts, 8, max_cls), 8, max_cls, 4,
           regular)


@pytest.mark.parametrize("regular", [False, True])
@pytest.mark.parametrize("quant", ["all", "scores", "boxes"])
def test_dp_uint8(regular, quant):
    """UINT8 box encodings with UINT8 anchors, and/or UINT8 class
    predictions, dequantized as TFLite does."""
    rng = np.random.default_rng(17)
    n, c = 30, 4
    enc = rng.integers(0, 256, (1, n, 4)).astype(np.uint8)
    anchors_q = np.stack([rng.integers(20, 230, n), rng.integers(20, 230, n),
                          rng.integers(30, 120, n), rng.integers(30, 120, n)],
                         axis=1).astype(np.uint8)
    scores_q = rng.integers(0, 256, (1, n, c)).astype(np.uint8)
    enc_quant, anchor_quant, score_quant = (0.02, 128), (1 / 256.0, 0), \
        (1 / 255.0, 0)
    if quant == "scores":
        enc = ((enc.astype(f32) - 128) * 0.02).astype(f32)
        anchors_q = (anchors_q.astype(f32) / 256.0).astype(f32)
        enc_quant = anchor_quant = None
    if quant == "boxes":
        scores_q = (scores_q.astype(f32) / 255.0).astype(f32)
        score_quant = None
    opts = dp_options(max_detections=6, num_classes=3,
                      use_regular_nms=regular, nms_score_threshold=0.4)
    run_dp(dp_case(enc, scores_q, anchors_q, opts, 6, 1, enc_quant=enc_quant,
                   score_quant=score_quant, anchor_quant=anchor_quant),
           6, 1, 3, regular)


@pytest.mark.parametrize("regular", [False, True])
def test_dp_wide_box_encodings(regular):
    """Box encodings with keypoints after the 4 box values (ignored)."""
    rng = np.random.default_rng(23)
    enc, scores, anchors = dp_inputs(rng, 16, 3, width=10)
    opts = dp_options(max_detections=4, num_classes=2,
                      use_regular_nms=regular)
    run_dp(dp_case(enc, scores, anchors, opts, 4, 1), 4, 1, 2, regular)


@pytest.mark.parametrize("regular", [False, True])
@pytest.mark.parametrize("threshold", [0.97, 2.0])
def test_dp_few_or_no_detections(regular, threshold):
    """A high score threshold leaves fewer detections than max_detections
    (or none): num_detections says how many."""
    rng = np.random.default_rng(29)
    enc, scores, anchors = dp_inputs(rng, 40, 4)
    opts = dp_options(max_detections=10, num_classes=3,
                      use_regular_nms=regular, nms_score_threshold=threshold)
    got = run_dp(dp_case(enc, scores, anchors, opts, 10, 1), 10, 1, 3,
                 regular)
    assert got[3][0] < 10
    if threshold > 1:
        assert got[3][0] == 0


def test_dp_scales_read_as_ints():
    """Options written as integers (y_scale=10) read as the same floats."""
    rng = np.random.default_rng(31)
    enc, scores, anchors = dp_inputs(rng, 12, 3)
    opts = dp_options(y_scale=10, x_scale=10, h_scale=5, w_scale=5,
                      num_classes=2)
    run_dp(dp_case(enc, scores, anchors, opts, 5, 1), 5, 1, 2, False)


def test_dp_resolves_by_default_only_at_version_1(tmp_path):
    rng = np.random.default_rng(37)
    enc, scores, anchors = dp_inputs(rng, 8, 3)
    case = dp_case(enc, scores, anchors, dp_options(num_classes=2), 5, 1)
    case.version = 2
    oh.check_rejected(case, r"unresolved custom op: "
                      r"TFLite_Detection_PostProcess", litert_accepts=False)


@pytest.mark.parametrize("regular", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_dp_matches_litert_default_kernels(regular, seed):
    """LiteRT's default (optimized, possibly threaded) kernel gives the same
    detections as its reference one, ties included."""
    rng = np.random.default_rng(seed)
    enc, scores, anchors = dp_inputs(
        rng, 40, 6, tie_levels=[0.3, 0.6, 0.9] if seed % 2 else None)
    max_cls = 1 if regular else 3
    case = dp_case(enc, scores, anchors,
                   dp_options(max_detections=10,
                              max_classes_per_detection=max_cls,
                              num_classes=5, use_regular_nms=regular,
                              detections_per_class=4), 10, max_cls)
    case.litert_kernels = "BUILTIN"
    run_dp(case, 10, max_cls, 5, regular)


# ---- errors -----------------------------------------------------------------


def dp_error(case, tmp_path, litert_fails_too=True):
    if litert_fails_too:
        litert_fails(case, tmp_path)
    return litegpu_error(case, tmp_path)


@pytest.mark.parametrize("cut", [1, 2, 5, 40, 100, 200])
def test_dp_truncated_options_rejected(cut, tmp_path):
    """Options cut short at either end fail cleanly (LiteRT is not asked:
    its reader does not check the buffer)."""
    rng = np.random.default_rng(41)
    enc, scores, anchors = dp_inputs(rng, 8, 3)
    opts = dp_options(num_classes=2)
    for options in (opts[:-cut], opts[cut:]):
        case = dp_case(enc, scores, anchors, options, 5, 1)
        message = litegpu_error(case, tmp_path)
        assert message.startswith(DP) or f"{DP}: " in message, message
        assert "custom options" in message or "option" in message, message


def test_dp_empty_options_rejected(tmp_path):
    rng = np.random.default_rng(43)
    enc, scores, anchors = dp_inputs(rng, 8, 3)
    case = dp_case(enc, scores, anchors, b"", 5, 1)
    assert "is too short for a root" in litegpu_error(case, tmp_path)


def test_dp_options_not_a_map_rejected(tmp_path):
    rng = np.random.default_rng(47)
    enc, scores, anchors = dp_inputs(rng, 8, 3)
    case = dp_case(enc, scores, anchors, bytes(flexbuffers.Dumps([1, 2, 3])),
                   5, 1)
    assert "not a map" in litegpu_error(case, tmp_path)


def test_dp_string_option_rejected(tmp_path):
    rng = np.random.default_rng(53)
    enc, scores, anchors = dp_inputs(rng, 8, 3)
    case = dp_case(enc, scores, anchors,
                   dp_options(num_classes=2, y_scale="ten"), 5, 1)
    assert "'y_scale' has type 5, not a number" in litegpu_error(case,
                                                                 tmp_path)


def test_dp_iou_threshold_out_of_range(tmp_path):
    rng = np.random.default_rng(59)
    enc, scores, anchors = dp_inputs(rng, 8, 3)
    case = dp_case(enc, scores, anchors,
                   dp_options(num_classes=2, nms_iou_threshold=0.0), 5, 1)
    assert "nms_iou_threshold 0 is not in (0, 1]" in dp_error(case, tmp_path)


def test_dp_negative_anchor_height_fails(tmp_path):
    """A negative anchor height decodes to ymin > ymax: TFLite fails."""
    rng = np.random.default_rng(61)
    enc, scores, anchors = dp_inputs(rng, 8, 3)
    anchors[3, 2] = -0.2
    case = dp_case(enc, scores, anchors, dp_options(num_classes=2), 5, 1)
    assert "decoded box 3" in dp_error(case, tmp_path)


def test_dp_class_count_mismatch(tmp_path):
    rng = np.random.default_rng(67)
    enc, scores, anchors = dp_inputs(rng, 8, 5)
    case = dp_case(enc, scores, anchors, dp_options(num_classes=2), 5, 1)
    assert ("class_predictions have 5 columns: num_classes 2"
            in dp_error(case, tmp_path))


def test_dp_int8_rejected(tmp_path):
    rng = np.random.default_rng(71)
    enc, scores, anchors = dp_inputs(rng, 8, 3)
    case = dp_case(enc, rng.integers(-128, 128, (1, 8, 3)).astype(np.int8),
                   anchors, dp_options(num_classes=2), 5, 1,
                   score_quant=(0.01, 0))
    assert ("class_predictions INT8: TFLite's kernel takes FLOAT32 or UINT8"
            in dp_error(case, tmp_path))


def test_dp_anchor_shape_rejected(tmp_path):
    rng = np.random.default_rng(73)
    enc, scores, anchors = dp_inputs(rng, 8, 3)
    case = dp_case(enc, scores, anchors[:6], dp_options(num_classes=2), 5, 1)
    assert "anchors [N,4]" in litegpu_error(case, tmp_path)


def test_dp_negative_max_detections(tmp_path):
    rng = np.random.default_rng(79)
    enc, scores, anchors = dp_inputs(rng, 8, 3)
    case = dp_case(enc, scores, anchors,
                   dp_options(num_classes=2, max_detections=-1), 1, 1)
    assert "max_detections -1" in litegpu_error(case, tmp_path)


@pytest.mark.parametrize("regular", [False, True])
def test_dp_identical_boxes_at_iou_threshold_one(regular):
    """Two identical boxes have IoU exactly 1: a threshold of 1 suppresses
    only IoU above it, so both are detected (hand-derived; LiteRT agrees)."""
    enc = np.zeros((1, 3, 4), f32)
    anchors = np.array([[0.5, 0.5, 0.2, 0.2], [0.5, 0.5, 0.2, 0.2],
                        [0.2, 0.2, 0.1, 0.1]], f32)
    scores = np.array([[[0.0, 0.9], [0.0, 0.8], [0.0, 0.05]]], f32)
    opts = dp_options(num_classes=1, max_detections=3, nms_iou_threshold=1.0,
                      use_regular_nms=regular)
    got = run_dp(dp_case(enc, scores, anchors, opts, 3, 1), 3, 1, 1, regular)
    assert got[3][0] == 2
    np.testing.assert_array_equal(got[2][0][:2], np.array([0.9, 0.8], f32))
    np.testing.assert_allclose(got[0][0][0], [0.4, 0.4, 0.6, 0.6], rtol=1e-6)


# ---- fuzz seeds -------------------------------------------------------------
#
# tests/fuzz/seeds holds one-op models of these ops (the detection op's
# FlexBuffers options, NMS V5's six inputs) for the model-loader and
# interpreter fuzzers; they are written by
#   PYTHONPATH=tests/python LITEGPU_BUILD_DIR=build/release \
#       build/venv/bin/python tests/python/ops/test_ops_detect.py
# and must stay models both runtimes run alike.

SEED_DIR = oh.REPO / "tests" / "fuzz" / "seeds"


def seed_cases():
    rng = np.random.default_rng(101)
    enc, scores, anchors = dp_inputs(rng, 10, 4)
    return {
        "detection_postprocess_fast": (dp_case(
            enc, scores, anchors,
            dp_options(num_classes=3, max_classes_per_detection=2), 5, 2),
            (5, 2, 3, False)),
        "detection_postprocess_regular": (dp_case(
            enc, scores, anchors,
            dp_options(num_classes=3, use_regular_nms=True,
                       detections_per_class=2), 5, 1), (5, 1, 3, True)),
        "non_max_suppression_v5": (nms_case(
            TF_BOXES, TF_SCORES, 4, 0.5, 0.0, 0.5), None),
    }


@pytest.mark.parametrize("name", sorted(seed_cases()))
def test_fuzz_seed_runs_in_both(name, tmp_path):
    case, dp = seed_cases()[name]
    seed = SEED_DIR / f"{name}.tflite"
    assert seed.is_file(), f"{seed} is missing: write the seeds"
    _, inputs = oh.write_spec(case, tmp_path)
    oh.build_model(tmp_path / "case.spec", tmp_path / "model.tflite")
    assert (tmp_path / "model.tflite").read_bytes() == seed.read_bytes()
    if dp is None:
        check_case(case)
    else:
        run_dp(case, *dp)


if __name__ == "__main__":
    import tempfile
    from pathlib import Path
    for seed_name, (seed_case, _) in sorted(seed_cases().items()):
        with tempfile.TemporaryDirectory() as tmp:
            oh.write_spec(seed_case, tmp)
            oh.build_model(Path(tmp) / "case.spec",
                           SEED_DIR / f"{seed_name}.tflite")
        print(SEED_DIR / f"{seed_name}.tflite")
