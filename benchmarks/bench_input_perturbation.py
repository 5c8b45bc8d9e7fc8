"""Time of each input-perturbation mechanism (noisy matrix + top-k subspace)
relative to one
numpy.linalg.eigh of the same d x d matrix (target: ratio <= 1.5). Run with one
BLAS thread: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 python
benchmarks/bench_input_perturbation.py
"""

from __future__ import annotations

import functools

import numpy as np
import timing

from dppca import input_perturbation as IP
from dppca import top_k_subspace

D, N, K = timing.size((513, 10_000, 10), (40, 500, 3))
EPS, DELTA, REPEATS = 1.0, 1e-5, timing.size(7, 1)


best_time = functools.partial(timing.best_time, repeats=REPEATS)


def main() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, D))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    A = X.T @ X / N
    baseline = best_time(lambda: np.linalg.eigh(A))
    mechanisms = {
        "mod_sulq": lambda: IP.mod_sulq_from_second_moment(
            A, N, EPS, DELTA, rng
        ),
        "analyze_gauss (analytic)": lambda: IP.analyze_gauss_from_second_moment(
            A, N, EPS, DELTA, rng
        ),
        "laplace_input_perturbation": lambda: (
            IP.laplace_input_perturbation_from_second_moment(A, N, EPS, rng)
        ),
        "wishart_input_perturbation": lambda: (
            IP.wishart_input_perturbation_from_second_moment(A, N, EPS, rng)
        ),
    }
    print(
        f"d = {D}, k = {K}; one numpy.linalg.eigh: {1e3 * baseline:.1f} ms (best of {REPEATS})"
    )
    print(
        f"{'mechanism':32s} {'noisy matrix':>13s} {'+ top-k':>9s} {'ratio':>7s}"
    )
    for name, make in mechanisms.items():
        t_noise = best_time(make)
        t_total = best_time(lambda: top_k_subspace(make(), K))
        print(
            f"{name:32s} {1e3 * t_noise:10.1f} ms {1e3 * t_total:6.1f} ms {t_total / baseline:6.2f}x"
            f"  {'OK' if t_total / baseline <= 1.5 else 'ABOVE TARGET 1.5x'}"
        )


if __name__ == "__main__":
    main()
    timing.quick_note()
