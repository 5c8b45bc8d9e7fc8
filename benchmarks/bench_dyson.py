"""Benchmark of Dyson's eigenvalue SDE (dppca.samplers.dyson) at d = 1000, single BLAS
thread.

Prints (1) the time of one O(d^2) eigenvalue step against one dense ``eigh`` of
a d x d symmetric matrix, as a ratio (target <= 0.05), and (2) the wall time of
a 10^4-step eigenvalue path (target <= 60 s). Both are measured in this run; the
machine may be shared. Usage: python benchmarks/bench_dyson.py [--d 1000]
[--steps 10000]
"""

from __future__ import annotations

import argparse
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402
import timing  # noqa: E402

from dppca.samplers import dyson  # noqa: E402


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), float(np.median(times))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--d", type=int, default=timing.size(1000, 50))
    parser.add_argument("--steps", type=int, default=timing.size(10_000, 100))
    args = parser.parse_args()
    d = args.d
    rng = np.random.default_rng(0)
    A = rng.standard_normal((d, d))
    sym = A + A.T
    initial = np.arange(d, dtype=float)  # spacing 1
    T = 1e-4 * args.steps  # dt = 1e-4: noise 0.02 per step, no splits expected

    eigh_best, eigh_median = best_of(lambda: np.linalg.eigh(sym), 5)
    step_best, step_median = best_of(
        lambda: dyson.eigenvalue_path(initial, 1e-4, 1, rng), 50
    )
    print(
        f"d = {d}: one eigh {eigh_best * 1e3:.1f} ms (median {eigh_median * 1e3:.1f}); "
        f"one SDE eigenvalue step {step_best * 1e3:.2f} ms (median {step_median * 1e3:.2f})"
    )
    print(
        f"ratio step / eigh = {step_best / eigh_best:.4f} (best of runs; median ratio "
        f"{step_median / eigh_median:.4f}); target <= 0.05"
    )

    start = time.perf_counter()
    _, path, splits = dyson.eigenvalue_path(initial, T, args.steps, rng)
    elapsed = time.perf_counter() - start
    print(
        f"{args.steps}-step eigenvalue path at d = {d}: {elapsed:.1f} s ({splits} split steps); target <= 60 s"
    )
    ok = step_best / eigh_best <= 0.05 and elapsed <= 60
    print("targets met" if ok else "TARGET MISSED (see numbers above)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
