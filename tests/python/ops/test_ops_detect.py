"""NON_MAX_SUPPRESSION_V4 / V5 against LiteRT's reference kernels through
op_harness (litegpu at 1 and 2 threads). Selected indices and counts must
match exactly; V5's selected scores are the input scores or, with soft-NMS,
products of expf factors (rtol 1e-6). A max_output_size given as Input(...)
is a graph input: the outputs are then dynamic in both runtimes.
"""

import numpy as np
import pytest

import litegpu_ctypes as lg
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


# ---- Errors -------------------------------------------------------------------


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
