/* Float32 elementwise rows with run-time instruction-set dispatch: the
 * arithmetic of the binary ops, the clamping activations, PRELU,
 * LEAKY_RELU, HARD_SWISH and GELU.
 *
 * Each row except GELU's gives exactly the scalar expression's result, lane for
 * lane (the same IEEE operations in the same order, no contraction into FMA),
 * so a kernel may call it wherever it computed the scalar loop before. The
 * clamp is TFLite's `x < lo ? lo : (x > hi ? hi : x)`: a NaN passes
 * through it. Without -march flags GCC's -O2 leaves these loops scalar and
 * branchy (a RELU over random signs mispredicts half its elements), which
 * made the activations the largest share of real models' time.
 *
 * The instruction set is the GEMM's (lg_gemm_isa_default, capped by
 * LITEGPU_GEMM_ISA): AVX-512F rows with masked tails, AVX2 rows with
 * masked tails, and the scalar loops. Rows may be computed in place
 * (out == x or out == y); other overlaps are not allowed.
 */
#ifndef LITEGPU_RUNTIME_KERNELS_SIMD_F32_H_
#define LITEGPU_RUNTIME_KERNELS_SIMD_F32_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum lg_f32_binop {
  LG_F32_ADD,    /* clamp(x + y) */
  LG_F32_SUB,    /* clamp(x - y) */
  LG_F32_MUL,    /* clamp(x * y) */
  LG_F32_DIV,    /* clamp(x / y) */
  LG_F32_MAX,    /* x > y ? x : y  (no clamp) */
  LG_F32_MIN,    /* x < y ? x : y  (no clamp) */
  LG_F32_SQDIFF, /* (x - y) * (x - y)  (no clamp) */
  LG_F32_BINOP_COUNT,
} lg_f32_binop;

/* out[i] = op(x[i * sx], y[i * sy]) for i in [0, n); sx and sy are 0 (the
 * operand repeats) or 1. lo and hi are the clamp of ADD, SUB, MUL and DIV
 * (-FLT_MAX / FLT_MAX for TFLite's activation NONE); the other ops ignore
 * them. */
void lg_f32_binary_row(lg_f32_binop op, const float* x, ptrdiff_t sx,
                       const float* y, ptrdiff_t sy, float* out, int64_t n,
                       float lo, float hi);

/* The same for `rows` rows of n outputs at once (one call for a [N, C]
 * operand against a [C] one): row r reads x + r * x_row and y + r * y_row
 * and writes out + r * n. */
void lg_f32_binary_rows(lg_f32_binop op, const float* x, ptrdiff_t sx,
                        ptrdiff_t x_row, const float* y, ptrdiff_t sy,
                        ptrdiff_t y_row, float* out, int64_t n, int64_t rows,
                        float lo, float hi);

/* Folds `rows` rows of n floats, row r at x + r * row_stride, into acc:
 * acc[i] = op(acc[i], x_r[i]) in row order, or op(x_r[i], acc[i]) when
 * x_first (MAXIMUM / MINIMUM keep the row's value only when it is strictly
 * greater / smaller, as the reductions do); ADD and MUL unclamped. The
 * reductions' kept-channel loop: acc stays in registers across the rows. */
void lg_f32_fold_rows(lg_f32_binop op, bool x_first, float* acc, const float* x,
                      ptrdiff_t row_stride, int64_t rows, int64_t n);

/* sums[r] = the sum of the n floats of row r (at x + r * row_stride), added
 * one by one in index order from +0: the scalar loop's result bit for bit
 * (the reductions' SUM and MEAN order). On AVX-512 16 rows go in the lanes
 * of one vector (a layer norm's MEAN over 16 x 64). */
void lg_f32_row_sums(const float* x, ptrdiff_t row_stride, int64_t rows,
                     int64_t n, float* sums);

/* out[i] = clamp(x[i], lo, hi): RELU (0, +inf), RELU6, RELU_N1_TO_1,
 * RELU_0_TO_1. */
void lg_f32_clamp_row(const float* x, float* out, int64_t n, float lo,
                      float hi);

/* out[i] = x[i] >= 0 ? x[i] : x[i] * alpha[i * alpha_step]; alpha_step is
 * 0 (one alpha for the row) or 1. */
void lg_f32_prelu_row(const float* x, const float* alpha, ptrdiff_t alpha_step,
                      float* out, int64_t n);

/* PRELU over `rows` rows of `inner` elements with the same `inner` alphas
 * for every row (a per-channel alpha): the row function above on each row,
 * without a call per row. */
void lg_f32_prelu_rows(const float* x, const float* alpha, float* out,
                       int64_t rows, int64_t inner);

/* out[i] = x[i] > 0 ? x[i] : x[i] * alpha. */
void lg_f32_leaky_relu_row(const float* x, float alpha, float* out, int64_t n);

/* out[i] = x[i] * min(6, max(0, x[i] + 3)) / 6, with TFLite's order of
 * operations (x times the clamp, then divided by 6). */
void lg_f32_hard_swish_row(const float* x, float* out, int64_t n);

/* LOGISTIC with TFLite's cut-offs (logistic_f32.h's lg_f32_logistic): on
 * vector ISAs from a vector e^(-|x|) (GELU's, within 1 ulp), 1 / (1 + e)
 * or e / (1 + e), so within a few ulps of the scalar expf form rather than
 * its bits; NaN stays NaN, +-inf give 1 and 0. The LOGISTIC kernel and the
 * epilogue chains both run it, so fused and unfused graphs agree. */
void lg_f32_logistic_row(const float* x, float* out, int64_t n);

/* TANH and ELU (x < 0 ? expm1(x) : x), on vector ISAs from a Taylor
 * polynomial near 0 and the vector exp beyond, within 2 ulps of the libm
 * functions' double definitions rather than their bits (libm's tanhf and
 * expm1f on the scalar ISA); -0 stays -0, NaN stays NaN, TANH of +-inf is
 * +-1, ELU of -inf is -1. */
void lg_f32_tanh_row(const float* x, float* out, int64_t n);
void lg_f32_elu_row(const float* x, float* out, int64_t n);

/* RESIZE_BILINEAR's blend: `count` output pixels of `channels` floats
 * each, pixel i blending row0 / row1 at float offsets x_lo[i] and x_hi[i]
 * with wx = 1 - dx[i], in TFLite's expression (left to right):
 *   out = p00 * wy * wx + p10 * dy * wx + p01 * wy * dx + p11 * dy * dx
 * into out (pixels adjacent; the AVX-512 form may fuse a multiply into the
 * next add). */
void lg_f32_bilinear_pixels(const float* row0, const float* row1,
                            const int32_t* x_lo, const int32_t* x_hi,
                            const float* dx, int count, int channels, float wy,
                            float dy, float* out);

/* GELU: out[i] = x Phi(x) (approximate: the tanh form 0.5 x (1 + tanh(
 * sqrt(2/pi) (x + 0.044715 x^3)))) on vector rows, and true; false, with
 * nothing written, where the instruction set has no vector form (the caller
 * then runs its scalar loop). Unlike the rows above, these are
 * approximations, not the scalar expression lane for lane. Measured on 4M
 * points of [-20, 20] against the double formulas (erfc's argument rounded
 * to float, as the scalar kernel's): exact GELU within 7 ulps for x >=
 * -12.5, below that (subnormal erfc) within 1e-42 |x|; the tanh form
 * within 8 ulps for x >= -2, below that within 1.1e-8 |x| absolute (the
 * scalar 1 + tanh(u) loses more there, about 6e-8 |x|). Special values as
 * the scalar formulas give them: NaN stays NaN, +inf gives +inf and -inf
 * gives NaN (-inf times 0). */
bool lg_f32_gelu_row(const float* x, float* out, int64_t n, bool approximate);

/* SOFTMAX over one row of `depth` floats for beta > 0: max (NaN skipped,
 * from -FLT_MAX), e = exp((x - max) beta) with GELU's vector exp (within 1
 * ulps; 0 where it lies below FLT_MIN, as XNNPACK's softmax gives it: a
 * subnormal's arithmetic costs a microcode assist per lane), their sum in
 * vector lanes (not the scalar kernel's order), then out = e / sum. Returns
 * false, with nothing written, for beta <= 0 (or NaN; the exp argument is then
 * no longer <= 0) or where the instruction set has no vector form. Special
 * values as the scalar steps give them: a NaN or +inf in the row makes it all
 * NaN. */
bool lg_f32_softmax_row(const float* x, float* out, int64_t depth, float beta);
/* lg_f32_softmax_row over `rows` consecutive rows (row r at x + r * depth,
 * out + r * depth), with the same results bit for bit; rows of up to 16
 * floats on AVX-512 run from one register each. */
bool lg_f32_softmax_rows(const float* x, float* out, int64_t rows,
                         int64_t depth, float beta);

#endif /* LITEGPU_RUNTIME_KERNELS_SIMD_F32_H_ */
