"""Cost of the noise of one release, relative to one numpy.linalg.eigh of a d
x d matrix (d = 513).

For the d(d+1)/2 = 131,841 upper-triangle entries of A = XᵀX/n it times, in one
run: the floating-point-safe noise of dppca.privacy.noise (rounding to the grid + exact
discrete Laplace / discrete Gaussian, target <= 3x one eigh), the float noise
(numpy, mathematical DP only), and OpenDP's samplers (its Rust core behind
opendp.measurements) on the same number of entries. Run with one BLAS thread:
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_noise.py
"""

from __future__ import annotations

import functools

import numpy as np
import timing

from dppca import privacy
from dppca.privacy import noise

D, N = timing.size((513, 10_000), (40, 500))
EPS, DELTA, REPEATS = 1.0, 1e-5, timing.size(5, 1)
TARGET = 3.0


best_time = functools.partial(timing.best_time, repeats=REPEATS)


def opendp_samplers(values, laplace_scale, gaussian_sigma, g_lap, g_gauss):
    """OpenDP measurements on a vector of the same length ({} if opendp is
    missing): its float
    samplers at the same scales, its integer samplers at the same scales in
    grid units."""
    try:
        import opendp.prelude as dp
    except ImportError:  # pragma: no cover
        return {}
    dp.enable_features("contrib")
    floats = dp.vector_domain(
        dp.atom_domain(T=float, nan=False), size=values.size
    )
    ints = dp.vector_domain(dp.atom_domain(T=int), size=values.size)
    laplace = dp.m.make_laplace(floats, dp.l1_distance(T=float), laplace_scale)
    gaussian = dp.m.make_gaussian(
        floats, dp.l2_distance(T=float), gaussian_sigma
    )
    int_laplace = dp.m.make_laplace(
        ints, dp.l1_distance(T=int), laplace_scale / g_lap
    )
    int_gaussian = dp.m.make_gaussian(
        ints, dp.l2_distance(T=int), gaussian_sigma / g_gauss
    )
    as_list = values.tolist()
    lap_ints = noise.round_to_grid(values, g_lap).tolist()
    gauss_ints = noise.round_to_grid(values, g_gauss).tolist()
    return {
        "OpenDP float Laplace": lambda: laplace(as_list),
        "OpenDP float Gaussian": lambda: gaussian(as_list),
        "OpenDP integer Laplace (same grid)": lambda: int_laplace(lap_ints),
        "OpenDP integer Gaussian (same grid)": lambda: int_gaussian(gauss_ints),
    }


def main() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, D))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    A = X.T @ X / N
    iu = np.triu_indices(D)
    upper = A[iu]
    baseline = best_time(lambda: np.linalg.eigh(A))

    b, g_lap = privacy.safe_laplace_input_calibration(D, N, EPS)
    sigma_float = privacy.analyze_gauss_sigma(N, EPS, DELTA)
    sigma, g_gauss = privacy.safe_gaussian_input_calibration(
        D, N, EPS, DELTA, sigma_float
    )
    print(
        f"d = {D}: {upper.size:,} upper-triangle entries; one numpy.linalg.eigh: "
        f"{1e3 * baseline:.1f} ms (best of {REPEATS})"
    )
    print(
        f"safe Laplace: γ = 2^{int(np.log2(g_lap))}, scale {b / g_lap:.4g} grid units; "
        f"safe Gaussian: γ = 2^{int(np.log2(g_gauss))}, σ {sigma / g_gauss:.4g} grid "
        f"units (σ_safe / σ_float = {sigma / sigma_float:.4f})"
    )
    cases = {
        "safe Laplace (upper triangle)": lambda: noise.add_laplace(
            upper, b, noise="safe", rng=rng, granularity=g_lap
        ),
        "safe Gaussian (upper triangle)": lambda: noise.add_gaussian(
            upper, sigma, noise="safe", rng=rng, granularity=g_gauss
        ),
        "float Laplace (upper triangle)": lambda: noise.add_laplace(
            upper, b, rng=rng
        ),
        "float Gaussian (upper triangle)": lambda: noise.add_gaussian(
            upper, sigma, rng=rng
        ),
        "safe Laplace input perturbation (d x d)": lambda: (
            noise.perturb_symmetric(
                A,
                b,
                distribution="laplace",
                noise="safe",
                rng=rng,
                granularity=g_lap,
            )
        ),
    }
    print(f"{'noise':42s} {'time':>10s} {'/ eigh':>8s}")
    for name, fn in cases.items():
        t = best_time(fn)
        flag = ""
        if name.startswith("safe") and "upper" in name:
            flag = "OK" if t / baseline <= TARGET else f"ABOVE TARGET {TARGET}x"
        print(f"{name:42s} {1e3 * t:7.1f} ms {t / baseline:7.2f}x  {flag}")
    for name, fn in opendp_samplers(upper, b, sigma, g_lap, g_gauss).items():
        t = best_time(fn, repeats=1)
        print(f"{name:42s} {1e3 * t:7.1f} ms {t / baseline:7.2f}x")


if __name__ == "__main__":
    main()
    timing.quick_note()
