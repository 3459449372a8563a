"""The custom ops AudioSpectrogram, Mfcc and NumericVerify, which TFLite's
BuiltinOpResolver (and LiteRT's reference resolver) registers by name and
litegpu's default resolver finds too, against LiteRT's reference kernels
through op_harness (litegpu at 1 and 2 threads). Options are FlexBuffers
maps written by flatbuffers.flexbuffers.

EMBEDDING_LOOKUP_SPARSE (a builtin with a combiner option) and
HASHTABLE_LOOKUP (STRING values through a hand-written spec) are tested at
the end of the file the same way.

Tolerances:
 - Mfcc, NumericVerify, EMBEDDING_LOOKUP_SPARSE and HASHTABLE_LOOKUP: exact
   (rtol 0, atol 0).
   Mfcc's arithmetic is TFLite's, double, in the same order, with the same
   libm calls; NumericVerify subtracts exactly dequantized values in float;
   EMBEDDING_LOOKUP_SPARSE's float sums run in TFLite's order.
 - AudioSpectrogram: TFLite's real FFT (Ooura's rdft) and litegpu's radix-2
   FFT both run in double, each within about log2(N) * 2^-53 * S of the exact
   DFT on every re / im, where S = sum |x_i w_i| <= window_size * max |x|.
   So the double powers re^2 + im^2 differ by at most about 4 log2(N) *
   2^-53 * S^2 (magnitudes by 2 log2(N) * 2^-53 * S), and rounding each to
   float adds at most one float ulp (2^-23 relative). The tests allow
   rtol 2.4e-7 (2 ulps) plus atol 1e-14 * S^2 for powers (1e-14 * S for
   magnitudes), S taken as window_size * max |x|: above the bound for
   N <= 2^16.
"""

import numpy as np
import pytest
from flatbuffers import flexbuffers

from litegpu import capi as lg
import op_harness as oh
from op_harness import Const, Input, OpCase, Output, check_case

f32 = np.float32


def flex(**options):
    return bytes(flexbuffers.Dumps({k: v for k, v in options.items()
                                    if v is not None}))


def build(case, tmp_path):
    _, inputs = oh.write_spec(case, tmp_path)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    return model, inputs


def litegpu_error(case, tmp_path):
    """litegpu's message for a case it refuses (creation, allocation or
    invoke)."""
    model, inputs = build(case, tmp_path)
    with pytest.raises(lg.LiteGpuError) as raised:
        oh.run_litegpu(model, inputs, num_threads=1)
    return str(raised.value)


def litert_fails(case, tmp_path):
    model, inputs = build(case, tmp_path)
    with pytest.raises(Exception):
        oh.run_litert(model, inputs)


def both_fail(case, tmp_path):
    litert_fails(case, tmp_path)
    return litegpu_error(case, tmp_path)


# ---- AudioSpectrogram -------------------------------------------------------

AS = "AudioSpectrogram"


def fft_length(window):
    n = 1
    while n < window:
        n *= 2
    return n


def as_case(x, window, stride, squared=None, options=None):
    x = np.asarray(x, f32)
    samples, channels = x.shape
    frames = 0 if samples < window else 1 + (samples - window) // stride
    bins = fft_length(window) // 2 + 1
    if options is None:
        options = flex(window_size=window, stride=stride,
                       magnitude_squared=squared)
    s = window * max(float(np.max(np.abs(x))) if x.size else 0.0, 1e-30)
    atol = 1e-14 * s * s if squared else 1e-14 * s
    return OpCase(op=AS, custom=True, custom_options=options,
                  inputs=[Input(x)],
                  outputs=[Output(f32, shape=(channels, frames, bins))],
                  rtol=2.4e-7, atol=atol)


def signal(kind, samples, channels, rng):
    t = np.arange(samples)[:, None]
    if kind == "normal":
        return rng.standard_normal((samples, channels)).astype(f32)
    if kind == "sine":  # a pure tone: most bins are tiny next to its peak
        return np.sin(2 * np.pi * 440.0 / 16000.0 * t *
                      (1 + np.arange(channels))).astype(f32)
    if kind == "zeros":
        return np.zeros((samples, channels), f32)
    if kind == "dc":
        return np.full((samples, channels), 0.75, f32)
    if kind == "loud":
        return (rng.uniform(-3e4, 3e4, (samples, channels))).astype(f32)
    raise AssertionError(kind)


@pytest.mark.parametrize("squared", [True, False])
@pytest.mark.parametrize("samples,channels,window,stride", [
    (16, 1, 4, 2),
    (100, 1, 30, 10),     # window not a power of two: zero padding
    (1000, 2, 256, 128),
    (480, 3, 480, 160),   # one frame
    (500, 1, 2, 1),       # the smallest window
    (100, 1, 16, 40),     # stride above the window: samples skipped
    (2048, 1, 1000, 500),  # a 1024-point FFT
    (9, 2, 4, 4),
    (1600, 1, 480, 160),  # 30 ms / 10 ms at 16 kHz
])
def test_spectrogram_shapes(samples, channels, window, stride, squared):
    rng = np.random.default_rng(samples + window)
    x = signal("normal", samples, channels, rng)
    out = check_case(as_case(x, window, stride, squared))
    assert out[0].shape[1] == 1 + (samples - window) // stride


@pytest.mark.parametrize("squared", [True, False])
@pytest.mark.parametrize("kind", ["sine", "zeros", "dc", "loud"])
def test_spectrogram_signals(kind, squared):
    rng = np.random.default_rng(5)
    x = signal(kind, 1200, 2, rng)
    check_case(as_case(x, 400, 160, squared))


@pytest.mark.parametrize("samples", [0, 3, 7])
def test_spectrogram_no_frames(samples):
    """Fewer samples than the window: [channels, 0, bins]."""
    x = np.ones((samples, 2), f32)
    out = check_case(as_case(x, 8, 2, True))
    assert out[0].shape == (2, 0, 5)


def test_spectrogram_hand_derived():
    """window 4 (Hann: 0, 0.5, 1, 0.5), FFT 4: x = 1, 2, 3, 4 gives the
    windowed frame 0, 1, 3, 2, whose DFT is 6, -3 + i, 0 (re^2 + im^2 = 36,
    10, 0)."""
    x = np.array([[1], [2], [3], [4]], f32)
    out = check_case(as_case(x, 4, 1, True))
    np.testing.assert_allclose(out[0][0, 0], [36, 10, 0], rtol=1e-6,
                               atol=1e-12)
    out = check_case(as_case(x, 4, 1, False))
    np.testing.assert_allclose(out[0][0, 0], np.sqrt([36, 10, 0]),
                               rtol=1e-6, atol=1e-12)


def test_spectrogram_option_forms():
    """TFLite reads window_size and stride as integers (a float truncated)
    and magnitude_squared as a bool (an integer: nonzero); missing
    magnitude_squared is false."""
    rng = np.random.default_rng(7)
    x = signal("normal", 64, 1, rng)
    for options, squared in [
            (flex(window_size=8.9, stride=4.2, magnitude_squared=1), True),
            (flex(window_size=8, stride=4), False),
            (flex(window_size=8, stride=4, magnitude_squared=False), False)]:
        case = as_case(x, 8, 4, squared, options=options)
        check_case(case)


def test_spectrogram_channels_independent():
    """Each channel is framed from its own first sample (LiteRT
    initializes its Spectrogram again per channel): the two channels of the
    same signal give the same rows."""
    rng = np.random.default_rng(9)
    x = np.repeat(signal("normal", 10, 1, rng), 2, axis=1)
    out = check_case(as_case(x, 4, 4, True))
    np.testing.assert_array_equal(out[0][0], out[0][1])


def test_spectrogram_resolves_only_at_version_1(tmp_path):
    x = np.ones((16, 1), f32)
    case = as_case(x, 4, 2, True)
    case.version = 2
    oh.check_rejected(case, r"unresolved custom op: AudioSpectrogram",
                      litert_accepts=False)


@pytest.mark.parametrize("options,message", [
    (flex(window_size=1, stride=1), "window_size 1 is not in [2, "),
    (flex(stride=1), "window_size 0 is not in [2, "),
    (flex(window_size=4, stride=0), "stride 0 must be >= 1"),
    (flex(window_size=4, stride=-3), "stride -3 must be >= 1"),
    (flex(window_size=4), "stride 0 must be >= 1"),
])
def test_spectrogram_bad_option_values(options, message, tmp_path):
    case = as_case(np.ones((16, 1), f32), 4, 1, options=options)
    assert f"{AS}: {message}" in both_fail(case, tmp_path)


@pytest.mark.parametrize("options,message", [
    (b"", "is too short for a root"),
    (bytes(flexbuffers.Dumps([4, 2])), "not a map"),
    (flex(window_size="four", stride=2), "'window_size' has type 5"),
    (flex(window_size=2**40, stride=2), "window_size = 1099511627776 is "
                                        "out of int32 range"),
])
def test_spectrogram_malformed_options(options, message, tmp_path):
    case = as_case(np.ones((16, 1), f32), 4, 2, options=options)
    error = litegpu_error(case, tmp_path)
    assert f"{AS}: custom options" in error or f"{AS}: option" in error
    assert message in error, error


@pytest.mark.parametrize("cut", [1, 3, 10, 30])
def test_spectrogram_truncated_options(cut, tmp_path):
    """Options cut short at either end fail cleanly (LiteRT is not asked:
    its reader does not check the buffer)."""
    options = flex(window_size=4, stride=2, magnitude_squared=True)
    for cut_options in (options[:-cut], options[cut:]):
        case = as_case(np.ones((16, 1), f32), 4, 2, options=cut_options)
        assert f"{AS}: " in litegpu_error(case, tmp_path)


@pytest.mark.parametrize("shape", [(16,), (16, 1, 1)])
def test_spectrogram_rank(shape, tmp_path):
    case = as_case(np.ones((16, 1), f32), 4, 2, True)
    case.inputs = [Input(np.ones(shape, f32))]
    assert "must have rank 2" in both_fail(case, tmp_path)


def test_spectrogram_types(tmp_path):
    case = as_case(np.ones((16, 1), f32), 4, 2, True)
    case.inputs = [Input(np.ones((16, 1), np.int32))]
    assert "TFLite's kernel takes FLOAT32" in both_fail(case, tmp_path)
    case = as_case(np.ones((16, 1), f32), 4, 2, True)
    case.outputs = [Output(np.int32, shape=(1, 7, 3))]
    assert "TFLite's kernel takes FLOAT32" in both_fail(case, tmp_path)


def test_spectrogram_two_inputs(tmp_path):
    case = as_case(np.ones((16, 1), f32), 4, 2, True)
    case.inputs.append(Input(np.ones((16, 1), f32)))
    assert f"{AS}: " in both_fail(case, tmp_path)


# ---- Mfcc -------------------------------------------------------------------

MFCC = "Mfcc"


def mfcc_case(spec, rate, upper=4000, lower=20, channels=40, coefficients=13,
              options=None, rate_input=False):
    spec = np.asarray(spec, f32)
    if options is None:
        options = flex(upper_frequency_limit=upper,
                       lower_frequency_limit=lower,
                       filterbank_channel_count=channels,
                       dct_coefficient_count=coefficients)
    r = np.array([rate], np.int32)
    return OpCase(op=MFCC, custom=True, custom_options=options,
                  inputs=[Input(spec), Input(r) if rate_input else Const(r)],
                  outputs=[Output(f32, shape=spec.shape[:2] +
                                  (max(coefficients, 1),))],
                  rtol=0.0, atol=0.0)


def power_spectrogram(rng, shape, scale=1.0):
    return (rng.random(shape) ** 2 * scale).astype(f32)


@pytest.mark.parametrize("shape,rate,upper,lower,channels,coefficients", [
    ((1, 3, 257), 16000, 4000, 20, 40, 13),   # TFLite's defaults
    ((2, 5, 257), 16000, 7600, 125, 40, 13),
    ((1, 4, 513), 44100, 8000, 0, 30, 30),    # every coefficient
    ((1, 2, 257), 16000, 8000, 20, 40, 13),   # the top bin used
    ((1, 2, 257), 16000, 8020, 20, 40, 13),   # above Nyquist, in the last bin
    ((3, 2, 129), 8000, 3900, 300, 20, 12),
    ((1, 2, 9), 16000, 7000, 20, 12, 5),      # channels without bins
    ((1, 1, 2), 100, 49, 1, 1, 1),            # the smallest spectrogram
    ((1, 6, 257), 22050, 11000, 40, 64, 20),
])
def test_mfcc(shape, rate, upper, lower, channels, coefficients):
    rng = np.random.default_rng(sum(shape) + rate)
    spec = power_spectrogram(rng, shape, 100.0)
    check_case(mfcc_case(spec, rate, upper, lower, channels, coefficients))


@pytest.mark.parametrize("upper", [8032, 9000, 2**30])
def test_mfcc_upper_above_the_spectrogram_gives_zeros(upper):
    """end = (int)(upper / hz_per_bin) >= bins: TFLite's filterbank returns
    nothing and the DCT of nothing is 0."""
    rng = np.random.default_rng(3)
    out = check_case(mfcc_case(power_spectrogram(rng, (1, 2, 257)), 16000,
                               upper=upper))
    assert (out[0] == 0).all()


@pytest.mark.parametrize("kind", ["zeros", "tiny", "huge", "negative"])
def test_mfcc_values(kind):
    """Zeros and tiny powers hit the 1e-12 floor before the log; negative
    powers give NaN (sqrt) in both runtimes."""
    rng = np.random.default_rng(4)
    spec = power_spectrogram(rng, (1, 3, 257))
    if kind == "zeros":
        spec[:] = 0
    elif kind == "tiny":
        spec *= 1e-30
    elif kind == "huge":
        spec *= 1e30
    else:
        spec[0, 1, 40:60] = -1
    check_case(mfcc_case(spec, 16000))


def test_mfcc_float_options_truncated():
    """TFLite reads every Mfcc option with AsInt64: 4000.7 is 4000."""
    rng = np.random.default_rng(6)
    spec = power_spectrogram(rng, (1, 2, 257))
    options = flex(upper_frequency_limit=4000.7, lower_frequency_limit=20.9,
                   filterbank_channel_count=40.5, dct_coefficient_count=13.2)
    want = check_case(mfcc_case(spec, 16000))
    got = check_case(mfcc_case(spec, 16000, options=options))
    np.testing.assert_array_equal(got[0], want[0])


def test_mfcc_no_frames():
    check_case(mfcc_case(np.zeros((1, 0, 257), f32), 16000))


def test_mfcc_rate_input_changes(tmp_path):
    """The sample rate as a graph input: one litegpu interpreter invoked at
    several rates (the filterbank is rebuilt when the rate changes) against
    a LiteRT run per rate."""
    rng = np.random.default_rng(8)
    spec = power_spectrogram(rng, (1, 3, 257))
    case = mfcc_case(spec, 16000, rate_input=True)
    model, _ = build(case, tmp_path)
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(model)) as m, \
            lg.Interpreter(lib, m, num_threads=1) as interp:
        interp.allocate_tensors()
        interp.set_input(0, spec)
        for rate in (16000, 8000, 16000, 44100, 44100):
            r = np.array([rate], np.int32)
            interp.set_input(1, r)
            interp.invoke()
            got = interp.get_output(0)
            want = oh.run_litert(model, [spec, r])[0]
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("rate", [0, -16000])
def test_mfcc_bad_rate_fails_invoke(rate, tmp_path):
    rng = np.random.default_rng(10)
    case = mfcc_case(power_spectrogram(rng, (1, 2, 257)), rate)
    assert f"{MFCC}: sample_rate {rate} must be > 0" in both_fail(case,
                                                                  tmp_path)


@pytest.mark.parametrize("kw,message", [
    (dict(coefficients=50), "dct_coefficient_count 50 in [1, "),
    (dict(channels=0, coefficients=1), "filterbank_channel_count 0 must"),
    (dict(upper=20, lower=20), "upper_frequency_limit 20 above it"),
    (dict(upper=100, lower=-5), "lower_frequency_limit -5 must be >= 0"),
])
def test_mfcc_bad_options(kw, message, tmp_path):
    """Options that leave TFLite's Mfcc uninitialized fail its Eval; litegpu
    rejects them in Prepare."""
    rng = np.random.default_rng(12)
    case = mfcc_case(power_spectrogram(rng, (1, 2, 257)), 16000, **kw)
    assert message in both_fail(case, tmp_path)


def test_mfcc_missing_options(tmp_path):
    """Missing keys read as 0, as in TFLite (whose Eval then fails)."""
    rng = np.random.default_rng(14)
    case = mfcc_case(power_spectrogram(rng, (1, 2, 257)), 16000,
                     options=flex(upper_frequency_limit=4000,
                                  dct_coefficient_count=13))
    assert "filterbank_channel_count 0" in both_fail(case, tmp_path)


@pytest.mark.parametrize("options", [
    flex(upper_frequency_limit=4000, lower_frequency_limit=20,
         filterbank_channel_count=40, dct_coefficient_count=0),
    flex(upper_frequency_limit=4000),
])
def test_mfcc_no_coefficients_rejected(options, tmp_path):
    """dct_coefficient_count 0 (or missing) leaves TFLite's Mfcc
    uninitialized, but LiteRT 2.3's Eval only compares the (empty) output
    sizes and gives a [channels, frames, 0] output; litegpu rejects the
    option in Prepare."""
    rng = np.random.default_rng(15)
    case = mfcc_case(power_spectrogram(rng, (1, 2, 257)), 16000,
                     options=options)
    model, inputs = build(case, tmp_path)
    assert oh.run_litert(model, inputs)[0].shape == (1, 2, 0)
    assert "dct_coefficient_count 0 in [1, " in litegpu_error(case, tmp_path)


def test_mfcc_one_bin(tmp_path):
    case = mfcc_case(np.ones((1, 2, 1), f32), 16000)
    assert "has 1 bins: the filterbank needs 2" in both_fail(case, tmp_path)


@pytest.mark.parametrize("options,message", [
    (b"", "is too short for a root"),
    (bytes(flexbuffers.Dumps(["x"])), "not a map"),
    (flex(upper_frequency_limit="high", lower_frequency_limit=20,
          filterbank_channel_count=40, dct_coefficient_count=13),
     "'upper_frequency_limit' has type 5"),
    (flex(upper_frequency_limit=4000, lower_frequency_limit=20,
          filterbank_channel_count=2**33, dct_coefficient_count=13),
     "filterbank_channel_count = 8589934592 is out of int32 range"),
])
def test_mfcc_malformed_options(options, message, tmp_path):
    case = mfcc_case(np.ones((1, 2, 257), f32), 16000, options=options)
    error = litegpu_error(case, tmp_path)
    assert f"{MFCC}: " in error and message in error, error


def test_mfcc_shapes_and_types(tmp_path):
    spec = np.ones((2, 257), f32)
    case = mfcc_case(np.ones((1, 2, 257), f32), 16000)
    case.inputs[0] = Input(spec)
    case.outputs = [Output(f32, shape=(1, 2, 13))]
    assert "must have rank 3" in both_fail(case, tmp_path)
    case = mfcc_case(np.ones((1, 2, 257), f32), 16000)
    case.inputs[1] = Const(np.array([16000, 8000], np.int32))
    assert "sample_rate [2] must have one element" in both_fail(case,
                                                                tmp_path)
    case = mfcc_case(np.ones((1, 2, 257), f32), 16000)
    case.inputs[1] = Const(np.array([16000.0], f32))
    assert "TFLite's kernel takes FLOAT32, INT32" in both_fail(case,
                                                               tmp_path)
    case = mfcc_case(np.ones((1, 2, 257), f32), 16000)
    case.inputs[0] = Input(np.ones((1, 2, 257), np.float16))
    assert "TFLite's kernel takes FLOAT32, INT32" in both_fail(case,
                                                               tmp_path)


def test_mfcc_resolves_only_at_version_1(tmp_path):
    case = mfcc_case(np.ones((1, 2, 257), f32), 16000)
    case.version = 2
    oh.check_rejected(case, r"unresolved custom op: Mfcc",
                      litert_accepts=False)


# ---- NumericVerify ----------------------------------------------------------

NV = "NumericVerify"


def nv_case(q, quant, ref, tolerance=None, log_if_failed=None, options=None):
    if options is None:
        options = flex(tolerance=tolerance, log_if_failed=log_if_failed)
    q = np.asarray(q)
    return OpCase(op=NV, custom=True, custom_options=options,
                  inputs=[Input(q, quant=quant), Input(np.asarray(ref, f32))],
                  outputs=[Output(f32, shape=q.shape)], rtol=0.0, atol=0.0)


def dequantize(q, scale, zero_point):
    """(q - zero_point) * scale with the model's float scale, rounded once
    to float."""
    return ((q.astype(np.float64) - zero_point) *
            np.float64(f32(scale))).astype(f32)


QTYPES = [(np.uint8, 0.05, 128), (np.int8, 0.1, -3), (np.int16, 0.001, 0)]


def quantized(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


@pytest.mark.parametrize("dtype,scale,zp", QTYPES)
@pytest.mark.parametrize("tolerance,log_if_failed", [
    (None, None), (0.05, True), (5.0, False), (0.5, True)])
def test_numeric_verify(dtype, scale, zp, tolerance, log_if_failed):
    """The output is dequantized - reference; with log_if_failed and
    tolerance >= 0.1 every |difference| here is within tolerance * scale
    (0.25 scale of noise)."""
    rng = np.random.default_rng(20)
    q = quantized(rng, dtype, (2, 3, 5))
    ref = dequantize(q, scale, zp) + rng.uniform(-0.25, 0.25, q.shape) * scale
    out = check_case(nv_case(q, (scale, zp), ref, tolerance, log_if_failed))
    np.testing.assert_array_equal(out[0], dequantize(q, scale, zp) -
                                  ref.astype(f32))


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("axis", [0, 1])
def test_numeric_verify_per_channel(dtype, axis):
    rng = np.random.default_rng(21 + axis)
    q = quantized(rng, dtype, (3, 4))
    n = q.shape[axis]
    scales = [0.02 * (c + 1) for c in range(n)]
    zps = [c - 1 for c in range(n)] if dtype == np.int8 else [100 + c
                                                            for c in range(n)]
    ref = rng.standard_normal(q.shape).astype(f32)
    check_case(nv_case(q, (scales, zps, axis), ref, 0.01, False))


def test_numeric_verify_per_channel_checked_against_scale_0(tmp_path):
    """A per-channel input has no legacy per-tensor scale: TFLite's bound is
    tolerance * 0, so with log_if_failed only exact references pass."""
    q = np.array([[1, 2], [3, 4]], np.int8)
    quant = ([0.5, 0.25], [0, 0], 0)
    exact = np.array([[0.5, 1.0], [0.75, 1.0]], f32)
    check_case(nv_case(q, quant, exact, 1.0, True))
    off = exact.copy()
    off[1, 0] += 1e-3
    error = both_fail(nv_case(q, quant, off, 1.0, True), tmp_path)
    assert f"{NV}: element 2:" in error and "(0.000000, 0)" in error, error


def test_numeric_verify_float16():
    """FLOAT16 inputs: the half's value; scale 0 (so with log_if_failed
    only exact references pass)."""
    h = np.array([[0.5, -1.25, 65504.0], [6e-8, 3.140625, 0.0]], np.float16)
    ref = h.astype(f32) + np.array([[0, 1e-3, 0], [0, -2, 0]], f32)
    check_case(nv_case(h, None, ref, 0.0, False))
    check_case(nv_case(h, None, h.astype(f32), 1.0, True))


def test_numeric_verify_nan_reference_passes():
    """A NaN difference is not above the bound (the comparison is false)."""
    q = np.array([10, 20, 30], np.uint8)
    ref = dequantize(q, 0.5, 0)
    ref[1] = np.nan
    out = check_case(nv_case(q, (0.5, 0), ref, 1.0, True))
    assert np.isnan(out[0][1])


@pytest.mark.parametrize("dtype,scale,zp", QTYPES)
def test_numeric_verify_mismatch_fails(dtype, scale, zp, tmp_path):
    """log_if_failed with tolerance 0.5: a reference 0.75 scale away from
    element 4 fails Invoke naming the element (the bound is 0.5 * scale)."""
    rng = np.random.default_rng(30)
    q = quantized(rng, dtype, (8,))
    ref = dequantize(q, scale, zp)
    ref[4] += 0.75 * scale
    error = both_fail(nv_case(q, (scale, zp), ref, 0.5, True), tmp_path)
    assert f"{NV}: element 4: " in error, error
    # Without log_if_failed, or below tolerance 0.1, it only reports.
    check_case(nv_case(q, (scale, zp), ref, 0.5, False))
    check_case(nv_case(q, (scale, zp), ref, 0.09, True))


def test_numeric_verify_tolerance_boundary(tmp_path):
    """tolerance 0.1 (a float, >= 0.1 in double) already checks; a
    difference equal to the bound (0.5 * 0.5 = 0.25, exact) passes, one
    float step above it fails."""
    q = np.array([4, 8], np.uint8)
    ref = dequantize(q, 0.5, 0)
    ref[0] += 0.06  # 0.1 * 0.5 = 0.05 allowed
    error = both_fail(nv_case(q, (0.5, 0), ref, 0.1, True), tmp_path)
    assert f"{NV}: element 0: " in error
    ref = dequantize(q, 0.5, 0)
    ref[1] += 0.25
    check_case(nv_case(q, (0.5, 0), ref, 0.5, True))
    ref[1] = np.nextafter(ref[1], f32(10))
    error = both_fail(nv_case(q, (0.5, 0), ref, 0.5, True), tmp_path)
    assert f"{NV}: element 1: " in error


def test_numeric_verify_reports_statistics(tmp_path):
    """Without a failure check the kernel reports the differences' std,
    mean and largest |difference| through the error reporter (hand-derived:
    differences 0.5 and -0.5)."""
    q = np.array([2, 4], np.uint8)
    ref = np.array([0.5, 2.5], f32)  # dequantized 1.0 and 2.0
    case = nv_case(q, (0.5, 0), ref, 0.01, True)
    model, inputs = build(case, tmp_path)
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(model)) as m, \
            lg.Interpreter(lib, m, num_threads=1) as interp:
        interp.allocate_tensors()
        for i, a in enumerate(inputs):
            interp.set_input(i, a)
        interp.invoke()
        np.testing.assert_array_equal(interp.get_output(0), [0.5, -0.5])
        messages = interp.errors.take()
    assert messages == [f"{NV}: std: 0.500000, mean: 0.000000, max_diff: "
                        f"0.500000 (scale: 0.500000, zero_point: 0)"], \
        messages


def test_numeric_verify_errors(tmp_path):
    q = np.array([1, 2, 3], np.int8)
    ref = np.zeros(3, f32)
    case = nv_case(q.astype(f32), None, ref, 1.0, True)
    assert "input type FLOAT32 is not supported" in both_fail(case, tmp_path)
    case = nv_case(q, (0.5, 0), ref, 1.0, True)
    case.inputs[1] = Input(ref.astype(np.float16))
    assert "reference FLOAT16 and output FLOAT32 must be FLOAT32" in \
        both_fail(case, tmp_path)
    case = nv_case(q, (0.5, 0), ref, 1.0, True)
    case.outputs = [Output(np.int32, shape=(3,))]
    assert "output INT32 must be FLOAT32" in litegpu_error(case, tmp_path)
    case = nv_case(q, (0.5, 0), np.zeros(2, f32), 1.0, True)
    assert "reference [2] and input [3] must have as many elements" in \
        litegpu_error(case, tmp_path)
    case = nv_case(q, None, ref, 1.0, True)
    assert "has no quantization" in litegpu_error(case, tmp_path)


def test_numeric_verify_per_channel_int16_rejected(tmp_path):
    q = np.array([[1, 2], [3, 4]], np.int16)
    case = nv_case(q, ([0.5, 0.25], [0, 0], 0), np.zeros((2, 2), f32), 0.01,
                   False)
    assert "per-channel INT16" in both_fail(case, tmp_path)


def test_numeric_verify_without_output_rejected(tmp_path):
    """Older converters wrote NumericVerify without an output; TFLite 2.3's
    kernel needs one."""
    case = nv_case(np.array([1], np.int8), (0.5, 0), np.zeros(1, f32), 0.01)
    case.outputs = []
    assert f"{NV}: " in both_fail(case, tmp_path)


@pytest.mark.parametrize("options,message", [
    (b"", "is too short for a root"),
    (bytes(flexbuffers.Dumps(0.5)), "not a map"),
    (flex(tolerance="small"), "'tolerance' has type 5"),
])
def test_numeric_verify_malformed_options(options, message, tmp_path):
    case = nv_case(np.array([1], np.int8), (0.5, 0), np.zeros(1, f32),
                   options=options)
    error = litegpu_error(case, tmp_path)
    assert f"{NV}: custom options" in error and message in error, error


def test_numeric_verify_resolves_only_at_version_1(tmp_path):
    case = nv_case(np.array([1], np.int8), (0.5, 0), np.zeros(1, f32), 0.01)
    case.version = 2
    oh.check_rejected(case, r"unresolved custom op: NumericVerify",
                      litert_accepts=False)


# ---- EMBEDDING_LOOKUP_SPARSE ------------------------------------------------
#
# A builtin (33, version 1) with a combiner option; its output is dynamic
# (the shape comes from dense_shape's values) in both runtimes. Float sums
# in the same order as TFLite's: exact.

ELS = "EMBEDDING_LOOKUP_SPARSE"


def els_case(ids, indices, dense_shape, weights, table, combiner="SUM",
             shape_input=False, const_table=True):
    ids = np.asarray(ids, np.int32)
    dense = np.asarray(dense_shape, np.int32)
    indices = np.asarray(indices, np.int32).reshape(len(ids), len(dense))
    table = np.asarray(table, f32)
    out_shape = tuple(int(d) for d in dense[:-1]) + table.shape[1:]
    return OpCase(op=ELS, params={"combiner": combiner},
                  inputs=[Input(ids), Input(indices),
                          Input(dense) if shape_input else Const(dense),
                          Input(np.asarray(weights, f32)),
                          Const(table) if const_table else Input(table)],
                  outputs=[Output(f32, shape=out_shape)],
                  rtol=0.0, atol=0.0)


def sparse_entries(rng, dense_shape, n, rows):
    """n sorted, distinct positions of a dense_shape sparse tensor with ids
    and weights."""
    total = int(np.prod(dense_shape))
    flat = np.sort(rng.choice(total, size=n, replace=False))
    indices = np.stack(np.unravel_index(flat, dense_shape), axis=1)
    ids = rng.integers(0, rows, n)
    weights = rng.uniform(0.1, 2.0, n).astype(f32)
    return ids, indices, weights


def test_els_hand_derived():
    """TFLite's own example: a 10 x 20 table; [0, 0] id 1 weight 2, [0, 1]
    id 3 weight 0.5, [1, 0] id 0 weight 1, [2, 3] id 1 weight 3; MEAN gives
    (2 t1 + 0.5 t3) / 2.5, t0, t1."""
    table = np.arange(200, dtype=f32).reshape(10, 20) / 7
    out = check_case(els_case([1, 3, 0, 1], [[0, 0], [0, 1], [1, 0], [2, 3]],
                              [3, 4], [2.0, 0.5, 1.0, 3.0], table, "MEAN"))
    want = np.stack([(table[1] * f32(2) + table[3] * f32(0.5)) / f32(2.5),
                     table[0], table[1] * f32(3) / f32(3)])
    np.testing.assert_allclose(out[0], want, rtol=1e-6)


@pytest.mark.parametrize("combiner", ["SUM", "MEAN", "SQRTN"])
@pytest.mark.parametrize("dense_shape,table_shape,n", [
    ((4, 5), (10, 3), 9),
    ((2, 3, 4), (7, 2, 3), 10),   # rank-3 sparse, rank-3 table
    ((6,), (5, 4), 4),            # one sparse dimension: one bucket
    ((5, 8), (20, 1), 5),         # empty buckets stay 0
])
def test_els(dense_shape, table_shape, n, combiner):
    rng = np.random.default_rng(len(dense_shape) * 10 + n)
    ids, indices, weights = sparse_entries(rng, dense_shape, n,
                                           table_shape[0])
    table = rng.standard_normal(table_shape).astype(f32)
    check_case(els_case(ids, indices, dense_shape, weights, table, combiner))


@pytest.mark.parametrize("combiner", ["SUM", "MEAN", "SQRTN"])
def test_els_unsorted_entries(combiner):
    """A bucket named again after another one is finished twice (TFLite's
    behavior, kept)."""
    table = np.arange(12, dtype=f32).reshape(4, 3) + 1
    check_case(els_case([0, 1, 2, 3], [[0, 0], [1, 0], [0, 1], [1, 1]],
                        [2, 2], [1.0, 2.0, 4.0, 0.5], table, combiner))


def test_els_dense_shape_input_changes(tmp_path):
    """dense_shape as a graph input: the output is resized at each Invoke."""
    rng = np.random.default_rng(31)
    table = rng.standard_normal((6, 2)).astype(f32)
    ids = np.array([0, 5, 2], np.int32)
    weights = np.array([1.0, 0.5, 2.0], f32)
    for dense in ([2, 3], [3, 3], [5, 1]):
        indices = np.array([[0, 0], [1, 0], [1, 0]], np.int32)
        check_case(els_case(ids, indices, dense, weights, table, "MEAN",
                            shape_input=True))


def test_els_zero_weights_mean():
    """MEAN over weights summing to 0 divides by 0 in both runtimes."""
    table = np.ones((2, 2), f32)
    check_case(els_case([0, 1], [[0, 0], [0, 1]], [1, 2], [1.0, -1.0], table,
                        "MEAN"))


def test_els_no_entries():
    check_case(els_case(np.zeros(0, np.int32), np.zeros((0, 2), np.int32),
                        [3, 4], np.zeros(0, f32), np.ones((4, 2), f32)))


@pytest.mark.parametrize("bad_id", [-1, 4])
def test_els_id_out_of_range(bad_id, tmp_path):
    case = els_case([0, bad_id], [[0, 0], [1, 0]], [2, 2], [1.0, 1.0],
                    np.ones((4, 2), f32))
    case.inputs[4] = Const(np.ones((4, 2), f32))
    error = litegpu_error(case, tmp_path)
    assert f"{ELS}: ids[1] = {bad_id} is out of range [0, 4)" in error


@pytest.mark.parametrize("bad", [-1, 2])
def test_els_index_out_of_range(bad, tmp_path):
    """LiteRT 2.3 does not check indices (it would write outside its
    output); litegpu fails naming the entry."""
    case = els_case([0, 1], [[0, 0], [bad, 0]], [2, 2], [1.0, 1.0],
                    np.ones((4, 2), f32))
    error = litegpu_error(case, tmp_path)
    assert f"{ELS}: indices[1][0] = {bad} is out of range [0, 2)" in error


def test_els_negative_dense_shape(tmp_path):
    case = els_case([0], [[0, 0]], [2, 2], [1.0], np.ones((4, 2), f32),
                    shape_input=True)
    model, _ = build(case, tmp_path)
    inputs = [np.array([0], np.int32), np.array([[0, 0]], np.int32),
              np.array([-2, 2], np.int32), np.array([1.0], f32)]
    with pytest.raises(lg.LiteGpuError) as raised:
        oh.run_litegpu(model, inputs, num_threads=1)
    assert f"{ELS}: dense_shape[0] = -2 is negative" in str(raised.value)


def test_els_errors(tmp_path):
    base = dict(ids=[0, 1], indices=[[0, 0], [1, 0]], dense_shape=[2, 2],
                weights=[1.0, 1.0], table=np.ones((4, 2), f32))
    case = els_case(**base)
    case.inputs[4] = Const(np.ones((4, 2), np.int8))
    assert "table is INT8, expected FLOAT32" in litegpu_error(case, tmp_path)
    case = els_case(**base)
    case.inputs[4] = Const(np.ones(4, f32))
    assert "table [4] must have rank 2 or more" in both_fail(case, tmp_path)
    case = els_case(**base)
    case.inputs[3] = Input(np.ones(3, f32))
    assert "must have as many entries" in both_fail(case, tmp_path)
    case = els_case(**base)
    case.inputs[0] = Input(np.zeros(2, np.int64))
    assert "ids is INT64, expected INT32" in both_fail(case, tmp_path)
    case = els_case(**base)
    case.inputs[2] = Const(np.array([2, 2, 1], np.int32))
    assert "indices have 2 columns and dense_shape 3 values" in \
        both_fail(case, tmp_path)
    case = els_case(**base)
    case.outputs = [Output(np.int32, shape=(2, 2))]
    assert "output is INT32, expected FLOAT32" in both_fail(case, tmp_path)
    case = els_case(**base)
    case.inputs = case.inputs[:4]
    assert f"{ELS}: " in both_fail(case, tmp_path)


def test_els_version_2_unresolved(tmp_path):
    case = els_case([0], [[0, 0]], [1, 1], [1.0], np.ones((2, 2), f32))
    case.version = 2
    oh.check_rejected(case, r"EMBEDDING_LOOKUP_SPARSE", litert_accepts=False)


# ---- HASHTABLE_LOOKUP -------------------------------------------------------
#
# A builtin (10, version 1) without options: int32 lookups in sorted int32
# keys; the found rows (zeros / empty strings when missing) and uint8 hits.
# Rows are copied: exact.

HL = "HASHTABLE_LOOKUP"


def hl_case(lookups, keys, values, const_values=True):
    lookups = np.asarray(lookups, np.int32)
    values = np.asarray(values)
    out_shape = (len(lookups),) + values.shape[1:]
    return OpCase(op=HL, inputs=[Input(lookups),
                                 Const(np.asarray(keys, np.int32)),
                                 Const(values) if const_values
                                 else Input(values)],
                  outputs=[Output(values.dtype, shape=out_shape),
                           Output(np.uint8, shape=(len(lookups),))],
                  rtol=0.0, atol=0.0)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.uint8,
                                   np.int8, np.int16, np.float16, np.bool_])
def test_hashtable_lookup_types(dtype):
    rng = np.random.default_rng(40)
    keys = np.sort(rng.choice(100, size=12, replace=False)) - 30
    values = (rng.standard_normal((12, 3, 2)) * 20).astype(dtype)
    lookups = np.concatenate([keys[::2], [-31, 70, 1000, keys[-1]]])
    out = check_case(hl_case(rng.permutation(lookups), keys, values))
    assert out[1].sum() == 7


@pytest.mark.parametrize("shape", [(5,), (5, 1), (5, 4, 3)])
def test_hashtable_lookup_shapes(shape):
    rng = np.random.default_rng(41)
    keys = np.array([-7, 0, 3, 9, 20], np.int32)
    values = rng.standard_normal(shape).astype(f32)
    check_case(hl_case([9, 1, -7, 20, 20, 4, 0], keys, values,
                       const_values=False))


def test_hashtable_lookup_hand_derived():
    out = check_case(hl_case([3, 5, 1], [1, 3, 4], [[10.0], [30.0], [40.0]]))
    np.testing.assert_array_equal(out[0], [[30.0], [0.0], [10.0]])
    np.testing.assert_array_equal(out[1], [1, 0, 1])


def test_hashtable_lookup_unsorted_and_extreme_keys():
    """Unsorted keys and int32 extremes: the binary search goes where
    TFLite's goes, so some present keys are missed (2^31 - 1 past -2^31:
    LiteRT's a - b comparison does not wrap)."""
    keys = [2**31 - 1, -5, 0, -(2**31), 7, 3]
    values = np.arange(6, dtype=np.int32) + 100
    lookups = [2**31 - 1, -(2**31), 0, 3, 7, -5, 1, 2**30, -(2**30)]
    check_case(hl_case(lookups, keys, values))


def test_hashtable_lookup_no_lookups():
    check_case(hl_case(np.zeros(0, np.int32), [1, 2], [[1.0], [2.0]]))


def string_buffer(items):
    """TFLite's STRING layout: count, count + 1 offsets, the bytes."""
    header = 4 * (len(items) + 2)
    offsets = [header]
    for s in items:
        offsets.append(offsets[-1] + len(s))
    return np.array([len(items)] + offsets, "<i4").tobytes() + b"".join(items)


def hl_string_model(tmp_path, keys, strings, n):
    (tmp_path / "keys.bin").write_bytes(np.asarray(keys, "<i4").tobytes())
    (tmp_path / "values.bin").write_bytes(string_buffer(strings))
    spec = "\n".join([
        f"tensor in0 INT32 {n}",
        f"tensor keys INT32 {len(keys)} data=keys.bin",
        f"tensor values STRING {len(strings)} data=values.bin",
        f"tensor out0 STRING {n}",
        f"tensor out1 UINT8 {n}",
        "op HASHTABLE_LOOKUP 1 in=in0,keys,values out=out0,out1",
        "inputs in0", "outputs out0,out1", ""])
    (tmp_path / "case.spec").write_text(spec)
    model = tmp_path / "model.tflite"
    oh.build_model(tmp_path / "case.spec", model)
    return model


@pytest.mark.parametrize("lookups", [[4, 1, 9, 2, 4], [8], [2, 2, 2]])
def test_hashtable_lookup_strings(lookups, tmp_path):
    """STRING values (any bytes, empty and NUL included); missing keys give
    empty strings."""
    keys = [1, 2, 4, 8]
    strings = [b"one", b"", b"f\x00ur", b"eight" * 30]
    model = hl_string_model(tmp_path, keys, strings, len(lookups))
    lookups = np.array(lookups, np.int32)
    want = oh.run_litert(model, [lookups])
    got = oh.run_litegpu(model, [lookups])
    assert list(got[0]) == list(want[0])
    np.testing.assert_array_equal(got[1], want[1])
    lib = lg.load_library()
    with lg.Model.from_file(lib, str(model)) as m, \
            lg.Interpreter(lib, m, num_threads=1) as interp:
        interp.allocate_tensors()
        interp.set_input(0, lookups)
        interp.invoke()
        table = dict(zip(keys, strings))
        assert list(interp.output(0).strings()) == [
            table.get(int(k), b"") for k in lookups]


def test_hashtable_lookup_errors(tmp_path):
    case = hl_case([1], [1, 2], np.ones((2, 1), f32))
    case.inputs[1] = Const(np.array([1, 2], np.int64))
    assert f"{HL}: keys INT64 [2] must be INT32" in both_fail(case, tmp_path)
    case = hl_case([1], [1, 2], np.ones((2, 1), f32))
    case.inputs[0] = Input(np.array([[1]], np.int32))
    assert f"{HL}: lookups INT32 [1,1] must be INT32 with rank 1" in \
        both_fail(case, tmp_path)
    case = hl_case([1], [1, 2], np.ones((3, 1), f32))
    assert "values [3,1] must have one row per key (2)" in \
        both_fail(case, tmp_path)
    case = hl_case([1], [1, 2], np.ones((2, 1), f32))
    case.outputs[1] = Output(np.int32, shape=(1,))
    assert "hits INT32 UINT8" in both_fail(case, tmp_path)
    case = hl_case([1], [1, 2], np.ones((2, 1), f32))
    case.outputs[0] = Output(np.int32, shape=(1, 1))
    assert "output INT32 must be the values' type (FLOAT32)" in \
        both_fail(case, tmp_path)
    case = hl_case([1], np.zeros(0, np.int32), np.zeros((0, 2), f32))
    assert f"{HL}: the table has no keys" in both_fail(case, tmp_path)


def test_hashtable_lookup_version_2_unresolved(tmp_path):
    case = hl_case([1], [1, 2], np.ones((2, 1), f32))
    case.version = 2
    oh.check_rejected(case, r"HASHTABLE_LOOKUP", litert_accepts=False)
