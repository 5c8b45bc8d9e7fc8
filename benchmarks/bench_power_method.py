"""The second moment on Dask and the noisy power method against Analyze Gauss (issue 12).

Three figures, measured in one run:

1. Forming A from a chunked in-memory array with Dask (threaded scheduler, 2 workers, one BLAS
   thread per task) against one in-memory ``X.T @ X`` on the same rows (the faster of 1 and 2
   BLAS threads): throughput ratio, target >= 0.7.
2. Out of core: a LocalCluster of 2 worker processes with a memory limit each, over lazily
   generated rows >= 4x that limit: rows/s and the peak resident memory of every worker
   (target: every peak below its limit).
3. d = 3000, k = 10: the noisy power method's time against Analyze Gauss + top-k eigenvectors,
   target ratio <= 0.2, at comparable utility (both q_F reported).

Run: python benchmarks/bench_power_method.py (about 3-5 minutes on 2 cores).
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse.linalg
import timing
from threadpoolctl import threadpool_limits
from timing import best_time

import dppca
from dppca.linalg import distributed as dist
from dppca.mechanisms import power_method

EPS, DELTA = 1.0, 1e-6


def dask_throughput() -> None:
    import dask
    import dask.array as da

    n, d, chunk = timing.size((400_000, 200, 50_000), (20_000, 20, 5_000))
    rng = np.random.default_rng(0)
    X = dppca.validation.normalize_rows(rng.standard_normal((n, d)))
    # OpenBLAS's threaded X.T @ X can be far slower than its single-threaded one on a busy
    # 2-core machine: take the faster of the two as the baseline, and print both.
    numpy_by_threads = {}
    for threads in (1, 2):
        with threadpool_limits(limits=threads):
            numpy_by_threads[threads] = best_time(lambda: X.T @ X)
    numpy_seconds = min(numpy_by_threads.values())
    with threadpool_limits(limits=1):
        loop_seconds = best_time(
            lambda: sum(
                X[s : s + chunk].T @ X[s : s + chunk]
                for s in range(0, n, chunk)
            )
        )
    X_dask = da.from_array(X, chunks=(chunk, d))
    with (
        threadpool_limits(limits=1),
        dask.config.set(scheduler="threads", num_workers=2),
    ):
        dask_seconds = best_time(lambda: dist.second_moment_dask(X_dask))
        A = dist.second_moment_dask(X_dask)
    assert np.allclose(A, X.T @ X / n, atol=1e-14)
    ratio = numpy_seconds / dask_seconds
    print(
        f"[1] forming A, n = {n:,}, d = {d}, {n // chunk} chunks: "
        f"numpy X.T @ X {n / numpy_by_threads[1]:,.0f} rows/s on 1 BLAS "
        f"thread, {n / numpy_by_threads[2]:,.0f} on 2 (baseline: the faster); "
        f"Dask (2 threads, row checks included) {n / dask_seconds:,.0f} rows/s; "
        f"ratio {ratio:.2f} (target >= 0.7) "
        f"{'OK' if ratio >= 0.7 else 'BELOW TARGET'}; for reference, the same "
        f"chunk products in a numpy loop on 1 thread: {n / loop_seconds:,.0f} "
        f"rows/s"
    )


def out_of_core() -> None:
    if timing.QUICK:  # no cluster: the same calls on a small Dask array
        X = dist.synthetic_rows(20_000, 10, [4.0, 2.0, 1.0], chunk_rows=5_000)
        A = dist.second_moment_dask(X)
        power_method.noisy_power_method(
            X, 3, epsilon=EPS, delta=DELTA, n_iterations=3, rng=0
        )
        print(f"[2] quick: A and 3 power steps on {X.shape} Dask rows")
        return
    from distributed import Client, LocalCluster

    limit, d, chunk = 512 * 2**20, 100, 25_000
    n = int(np.ceil(4.2 * limit / (8 * d) / chunk)) * chunk
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            memory_limit=limit,
            dashboard_address=":0",
            silence_logs=50,
        ) as cluster,
        Client(cluster) as client,
    ):
        client.register_plugin(dist.WorkerMemorySampler(0.05))
        X = dist.synthetic_rows(n, d, [4.0, 2.0, 1.0, 0.1], chunk_rows=chunk)
        start = time.perf_counter()
        A = dist.second_moment_dask(X)
        seconds = time.perf_counter() - start
        start = time.perf_counter()
        power_method.noisy_power_method(
            X, 3, epsilon=EPS, delta=DELTA, n_iterations=3, rng=0
        )
        npm_seconds = time.perf_counter() - start
        samples = dist.collect_memory_samples(client)
        limits = dist.worker_memory_limits(client)
    assert np.isclose(np.trace(A), 1.0)
    peaks = {a: rss.max() for a, (_, rss) in samples.items()}
    below = all(peaks[a] < limits[a] for a in peaks)
    print(
        f"[2] out of core: {n:,} x {d} rows = {X.nbytes / 2**30:.2f} GiB "
        f"= {X.nbytes / limit:.1f}x the worker limit of {limit / 2**20:.0f} MiB; "
        f"A in {seconds:.1f} s = {n / seconds:,.0f} rows/s; 3 power steps "
        f"in {npm_seconds:.1f} s; peak resident memory per worker (MiB): "
        f"{sorted(round(p / 2**20) for p in peaks.values())} "
        f"{'OK (all below the limit)' if below else 'ABOVE THE LIMIT'}"
    )


def versus_analyze_gauss() -> None:
    n, d, k, steps = timing.size((60_000, 3000, 10, 3), (3000, 100, 5, 3))
    rng = np.random.default_rng(1)
    scales = np.full(d, 0.3)
    scales[:k] = np.linspace(20, 15, k)
    X = rng.standard_normal((n, d))
    X *= scales
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    with threadpool_limits(limits=1):
        start = time.perf_counter()
        noisy = dppca.analyze_gauss(X, epsilon=EPS, delta=DELTA, rng=rng)
        noisy_seconds = time.perf_counter() - start
        V_ag = dppca.linalg.top_k_subspace(noisy, k)
        ag_seconds = time.perf_counter() - start
        start = time.perf_counter()
        np.linalg.eigh(noisy)
        full_eigh_seconds = time.perf_counter() - start
        start = time.perf_counter()
        # float noise with the exact (GDP) σ, the comparison the target was
        # set for; the package's default, safe noise, is calibrated through
        # zCDP and refuses calibration="gdp"
        V_npm = power_method.noisy_power_method(
            X,
            k,
            epsilon=EPS,
            delta=DELTA,
            n_iterations=steps,
            calibration="gdp",
            noise="float",
            rng=rng,
        )
        npm_seconds = time.perf_counter() - start
        A = X.T @ X / n
    best = scipy.sparse.linalg.eigsh(A, k=k, which="LA")[0].sum()
    q_ag, q_npm = (
        dppca.captured_variance(A, V_ag),
        dppca.captured_variance(A, V_npm),
    )
    ratio = npm_seconds / ag_seconds
    full_ratio = npm_seconds / (noisy_seconds + full_eigh_seconds)
    print(
        f"[3] n = {n:,}, d = {d}, k = {k}, ε = {EPS}, δ = {DELTA:g}, one BLAS "
        f"thread: Analyze Gauss + top-k (subset eigh, as in the package) "
        f"{ag_seconds:.1f} s (forming A + noise {noisy_seconds:.1f} s), q_F = {q_ag:.4f}; noisy power method (L = {steps}, "
        f"exact σ) {npm_seconds:.1f} s, q_F = {q_npm:.4f}; q_F(V_k) = "
        f"{best:.4f}; time ratio {ratio:.3f} (target <= 0.2) "
        f"{'OK' if ratio <= 0.2 else 'ABOVE TARGET'}; one full eigh of the "
        f"noisy matrix {full_eigh_seconds:.1f} s (ratio against Analyze Gauss "
        f"with a full eigh {full_ratio:.3f})"
    )


def main() -> None:
    start = time.perf_counter()
    dask_throughput()
    out_of_core()
    versus_analyze_gauss()
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
