"""Fits the polynomial behind simd_f32.c's vector erfc (GELU's exact form).

erfc(z) for z >= 0 is written t e^(-z^2 + q) with t = 1 / (1 + z / 2); q,
as a function of t, is smooth on (0, 1] (it tends to -log(2 sqrt(pi)) as z
grows). This fits q by Chebyshev least squares in s = 2t - 1, in double,
and prints the power-basis coefficients in s (highest power first, as
kLgF32ErfcQ holds them) and the largest relative error of erfc over
z in [0, 10].

  python3 tools/bench/fit_erfc.py [DEGREE]   (default 9)
"""
import math
import sys

import numpy as np


def q_of(z, t):
    """log(erfc(z) / t) + z^2; past z = 26 erfc underflows in double, so
    the asymptotic series of erfc(z) z sqrt(pi) e^(z^2) stands in."""
    if z < 26.0:
        return math.log(math.erfc(z) / t) + z * z
    series = (1 - 1 / (2 * z**2) + 3 / (4 * z**4) - 15 / (8 * z**6) +
              105 / (16 * z**8))
    return math.log(series / (z * t * math.sqrt(math.pi)))


def main():
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    count = 4000
    k = np.arange(count)
    s = -np.cos((k + 0.5) * np.pi / count)  # Chebyshev nodes in (-1, 1)
    t = (s + 1) / 2
    z = 2 * (1 / t - 1)
    q = np.array([q_of(zi, ti) for zi, ti in zip(z, t)])
    cheb = np.polynomial.chebyshev.chebfit(s, q, degree)
    power = np.polynomial.chebyshev.cheb2poly(cheb)

    zz = np.linspace(0, 10, 200001)
    tt = 1 / (1 + zz / 2)
    approx = tt * np.exp(-zz * zz +
                         np.polynomial.polynomial.polyval(2 * tt - 1, power))
    exact = np.array([math.erfc(v) for v in zz])
    print("coefficients (highest power of s first):")
    print(", ".join(f"{float(np.float32(c)):.9g}f" for c in power[::-1]))
    print(f"max relative error of erfc on [0, 10]: "
          f"{np.max(np.abs(approx / exact - 1)):.3g}")


if __name__ == "__main__":
    main()
