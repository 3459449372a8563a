/* Running a model once and comparing two runs (conformance.h): the part
 * of litegpu_conformance that both the single-op cases and whole models
 * use. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "litegpu/mediapipe_ops.h"
#include "runtime/kernels/fp16.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tests/conformance/conformance.h"

/* The interpreter's error reporter: appends each message as a line. */
static void capture_report(void* user_data, const char* format, va_list args) {
  conf_run_result* r = user_data;
  const size_t room = sizeof(r->log) - r->log_length;
  if (room < 2) return;
  int n = vsnprintf(r->log + r->log_length, room - 1, format, args);
  if (n < 0) return;
  r->log_length += (size_t)n < room - 1 ? (size_t)n : room - 2;
  r->log[r->log_length++] = '\n';
  r->log[r->log_length] = '\0';
}

/* Seeded values in [lo, hi] (float32 in [-0.5, 0.5] without a spec);
 * INT8, UINT8 and INT16 over their whole range; BOOL true or false with
 * even odds; other types are zero-filled. */
static bool g_half_inputs; /* conf_set_half_inputs */

void conf_set_half_inputs(bool on) { g_half_inputs = on; }

static void fill_input(TfLiteTensor* t, const conf_input_spec* spec,
                       uint32_t seed) {
  const TfLiteType type = TfLiteTensorType(t);
  const float lo = spec ? spec->lo : -0.5f, hi = spec ? spec->hi : 0.5f;
  void* data = TfLiteTensorData(t);
  if (type == kTfLiteFloat32) {
    float* v = data;
    const size_t n = TfLiteTensorByteSize(t) / sizeof(float);
    for (size_t i = 0; i < n; ++i) {
      v[i] = lo + (hi - lo) * conf_random(&seed);
      if (g_half_inputs) v[i] = lg_fp16_to_fp32(lg_fp32_to_fp16(v[i]));
    }
  } else if (type == kTfLiteInt8 || type == kTfLiteUInt8 ||
             type == kTfLiteInt16) {
    /* Quantized inputs: seeded integers over the whole range. */
    const size_t n = TfLiteTensorByteSize(t) / (type == kTfLiteInt16 ? 2 : 1);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t r = (uint32_t)(conf_random(&seed) * 65536.0f);
      if (type == kTfLiteInt8) {
        ((int8_t*)data)[i] = (int8_t)(int)((r & 0xffu) - 128u);
      } else if (type == kTfLiteUInt8) {
        ((uint8_t*)data)[i] = (uint8_t)(r & 0xffu);
      } else {
        ((int16_t*)data)[i] = (int16_t)(int)(r - 32768u);
      }
    }
  } else if (type == kTfLiteBool) {
    bool* v = data;
    const size_t n = TfLiteTensorByteSize(t) / sizeof(bool);
    for (size_t i = 0; i < n; ++i) v[i] = conf_random(&seed) < 0.5f;
  } else if (type == kTfLiteInt32) {
    int32_t* v = data;
    const size_t n = TfLiteTensorByteSize(t) / sizeof(int32_t);
    for (size_t i = 0; i < n; ++i) {
      v[i] = (int32_t)lroundf(lo + (hi - lo) * conf_random(&seed));
    }
  } else {
    memset(data, 0, TfLiteTensorByteSize(t));
  }
}

/* The output's type and shape, and with_data its values as floats. */
static void collect_output(const TfLiteTensor* t, bool with_data,
                           conf_output_data* out) {
  out->type = TfLiteTensorType(t);
  out->shape.rank = TfLiteTensorNumDims(t);
  if (out->shape.rank < 0 || out->shape.rank > CONF_MAX_RANK) {
    out->shape.rank = 0;
  }
  for (int i = 0; i < out->shape.rank; ++i) {
    out->shape.d[i] = TfLiteTensorDim(t, i);
  }
  out->count = conf_shape_elements(out->shape);
  if (!with_data || TfLiteTensorData(t) == NULL) return;
  out->values = calloc(out->count ? out->count : 1, sizeof(float));
  if (out->values == NULL) return;
  const void* data = TfLiteTensorData(t);
  for (size_t i = 0; i < out->count; ++i) {
    switch (out->type) {
      case kTfLiteFloat32:
        out->values[i] = ((const float*)data)[i];
        break;
      case kTfLiteInt32:
        out->values[i] = (float)((const int32_t*)data)[i];
        break;
      case kTfLiteInt8:
        out->values[i] = (float)((const int8_t*)data)[i];
        break;
      case kTfLiteUInt8:
        out->values[i] = (float)((const uint8_t*)data)[i];
        break;
      case kTfLiteInt16:
        out->values[i] = (float)((const int16_t*)data)[i];
        break;
      case kTfLiteBool: /* the stored byte: a value other than 0/1 shows */
        out->values[i] = (float)((const uint8_t*)data)[i];
        break;
      default:
        out->values[i] = NAN;
        break;
    }
  }
}

void conf_run_model(TfLiteModel* model, const conf_input_spec* specs,
                    int num_specs, TfLiteDelegate* delegate, int invokes,
                    conf_run_result* result) {
  memset(result, 0, sizeof(*result));
  result->status = kTfLiteError;
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  if (o == NULL) return;
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetErrorReporter(o, capture_report, result);
  TfLiteInterpreterOptionsSetEnableDelegateFallback(o, false);
  /* MediaPipe's custom ops: the CPU reference of their cases and models. */
  litegpu_add_mediapipe_ops(o);
  if (delegate != NULL) TfLiteInterpreterOptionsAddDelegate(o, delegate);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  if (ip == NULL) {
    result->failed_step = "interpreter creation";
    return;
  }
  if (TfLiteInterpreterAllocateTensors(ip) != kTfLiteOk) {
    result->failed_step = "AllocateTensors";
    TfLiteInterpreterDelete(ip);
    return;
  }
  for (int i = 0; i < TfLiteInterpreterGetInputTensorCount(ip); ++i) {
    fill_input(TfLiteInterpreterGetInputTensor(ip, i),
               i < num_specs ? &specs[i] : NULL, 7919u * (uint32_t)i + 17u);
  }
  for (int k = 0; k < invokes; ++k) {
    if (TfLiteInterpreterInvoke(ip) != kTfLiteOk) {
      result->failed_step = "Invoke";
      TfLiteInterpreterDelete(ip);
      return;
    }
  }
  result->num_outputs = TfLiteInterpreterGetOutputTensorCount(ip);
  if (result->num_outputs > CONF_MAX_IO) result->num_outputs = CONF_MAX_IO;
  for (int i = 0; i < result->num_outputs; ++i) {
    collect_output(TfLiteInterpreterGetOutputTensor(ip, i), invokes > 0,
                   &result->outputs[i]);
  }
  result->status = kTfLiteOk;
  TfLiteInterpreterDelete(ip);
}

void conf_run_result_free(conf_run_result* result) {
  for (int i = 0; i < result->num_outputs; ++i) {
    free(result->outputs[i].values);
    result->outputs[i].values = NULL;
  }
}

/* Both NaN: the same answer (a LOG of a negative input), whatever the
 * sign bit each device gives it; NaN against a number still differs. */
static bool same_nan(double a, double b) { return isnan(a) && isnan(b); }

static bool same_shape(conf_shape a, conf_shape b) {
  if (a.rank != b.rank) return false;
  for (int i = 0; i < a.rank; ++i) {
    if (a.d[i] != b.d[i]) return false;
  }
  return true;
}

void conf_compare_runs(const conf_run_result* ref, const conf_run_result* got,
                       double tol, conf_compare* out) {
  conf_compare_runs_bounded(ref, got, tol, NULL, out);
}

void conf_compare_runs_bounded(const conf_run_result* ref,
                               const conf_run_result* got, double tol,
                               const double* abs_bounds, conf_compare* out) {
  memset(out, 0, sizeof(*out));
  out->ok = true;
  double err2 = 0, ref2 = 0;
  if (ref->num_outputs != got->num_outputs) {
    out->ok = false;
    snprintf(out->why, sizeof(out->why), "%d outputs, CPU has %d",
             got->num_outputs, ref->num_outputs);
    return;
  }
  for (int k = 0; k < ref->num_outputs; ++k) {
    const conf_output_data* r = &ref->outputs[k];
    const conf_output_data* g = &got->outputs[k];
    if (!same_shape(r->shape, g->shape) || r->values == NULL ||
        g->values == NULL) {
      out->ok = false;
      snprintf(out->why, sizeof(out->why),
               "output %d: shape or data differs from the CPU's", k);
      return;
    }
    for (size_t i = 0; i < r->count; ++i) {
      const double rv = r->values[i], gv = g->values[i];
      const double diff = same_nan(gv, rv) ? 0 : fabs(gv - rv);
      const double bound = abs_bounds != NULL && abs_bounds[k] >= 0
                               ? abs_bounds[k]
                               : tol * fmax(1.0, fabs(rv));
      if (!(diff <= bound) && out->ok) {
        out->ok = false;
        snprintf(out->why, sizeof(out->why),
                 "output %d element %zu: delegate %.9g, CPU %.9g (bound %.3g)",
                 k, i, gv, rv, bound);
      }
      if (diff > out->max_abs || isnan(diff)) out->max_abs = diff;
      err2 += (gv - rv) * (gv - rv);
      ref2 += rv * rv;
    }
  }
  out->nmse = ref2 > 0 ? err2 / ref2 : (err2 > 0 ? INFINITY : 0);
}

/* The pair bound of output k at CPU value `ref`. */
static double pair_bound(const double* scales, int k, double tol, double ref) {
  return tol * fmax(scales != NULL ? scales[k] : 1.0, fabs(ref));
}

void conf_compare_pair_runs(const conf_run_result* cpu,
                            const conf_run_result* a, const conf_run_result* b,
                            const double* scales, double tol,
                            conf_compare* out) {
  memset(out, 0, sizeof(*out));
  out->ok = true;
  double diff2 = 0, ref2 = 0;
  if (a->num_outputs != cpu->num_outputs ||
      b->num_outputs != cpu->num_outputs) {
    out->ok = false;
    snprintf(out->why, sizeof(out->why), "%d and %d outputs, CPU has %d",
             a->num_outputs, b->num_outputs, cpu->num_outputs);
    return;
  }
  for (int k = 0; k < cpu->num_outputs; ++k) {
    const conf_output_data* r = &cpu->outputs[k];
    const conf_output_data* x = &a->outputs[k];
    const conf_output_data* y = &b->outputs[k];
    if (!same_shape(x->shape, r->shape) || !same_shape(y->shape, r->shape) ||
        r->values == NULL || x->values == NULL || y->values == NULL) {
      out->ok = false;
      snprintf(out->why, sizeof(out->why), "output %d: shapes or data differ",
               k);
      return;
    }
    for (size_t i = 0; i < r->count; ++i) {
      const double xv = x->values[i], yv = y->values[i], rv = r->values[i];
      const double diff = same_nan(xv, yv) ? 0 : fabs(xv - yv);
      const double bound = pair_bound(scales, k, tol, rv);
      if (!(diff <= bound) && out->ok) {
        out->ok = false;
        snprintf(out->why, sizeof(out->why),
                 "output %d element %zu: %.9g against %.9g, CPU %.9g (bound "
                 "%.3g)",
                 k, i, xv, yv, rv, bound);
      }
      if (diff > out->max_abs || isnan(diff)) out->max_abs = diff;
      diff2 += diff * diff;
      ref2 += rv * rv;
    }
  }
  out->nmse = ref2 > 0 ? diff2 / ref2 : (diff2 > 0 ? INFINITY : 0);
}

bool conf_largest_element(const conf_run_result* r, int* k, size_t* i) {
  int best_k = -1;
  size_t best_i = 0;
  for (int o = 0; o < r->num_outputs; ++o) {
    for (size_t e = 0; e < r->outputs[o].count; ++e) {
      if (best_k < 0 || fabsf(r->outputs[o].values[e]) >
                            fabsf(r->outputs[best_k].values[best_i])) {
        best_k = o;
        best_i = e;
      }
    }
  }
  *k = best_k;
  *i = best_i;
  return best_k >= 0;
}

bool conf_pair_comparison_can_fail(const conf_run_result* cpu,
                                   const conf_run_result* a, conf_run_result* b,
                                   const double* scales, double tol) {
  int best_k;
  size_t best_i;
  if (!conf_largest_element(cpu, &best_k, &best_i)) return false;
  float* slot = &b->outputs[best_k].values[best_i];
  const float saved = *slot;
  *slot = (float)(a->outputs[best_k].values[best_i] +
                  4 * pair_bound(scales, best_k, tol,
                                 cpu->outputs[best_k].values[best_i]));
  conf_compare cmp;
  conf_compare_pair_runs(cpu, a, b, scales, tol, &cmp);
  *slot = saved;
  return !cmp.ok;
}
