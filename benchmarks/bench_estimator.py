"""PrivatePCA on census (Chaudhuri et al. 2013, Sec. 6; sparse CSR from
dppca.datasets):

1. the overhead of ``PrivatePCA.fit`` (validation, row norms, second moment,
   mechanism, bookkeeping) over the bare mechanism on the same rows (``XᵀX/n``
   by the same sparse kernel, then ``analyze_gauss_from_second_moment`` and the
   top-k subspace); target ratio <= 1.1. Also shown: the bare mechanism with
   scipy's own sparse product ``(X.T @ X)``;
2. the second moment from the sparse rows against the same rows densified;
   target: sparse faster.

Times are CPU times of this process (``time.process_time``, best of REPEATS),
which the other jobs of a shared machine do not inflate; BLAS must run on one
thread for them to mean wall time.

Run with one BLAS thread and the data mirror: DPPCA_DATA_MIRROR=...
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_estimator.py
"""

from __future__ import annotations

import functools
import time

import numpy as np
import timing

from dppca import PrivatePCA, datasets, top_k_subspace
from dppca.estimator import weighted_second_moment
from dppca.input_perturbation import analyze_gauss_from_second_moment
from dppca.linalg import sparse_gram

EPS, DELTA, REPEATS = 1.0, 1e-5, 3


best_time = functools.partial(
    timing.best_time, repeats=REPEATS, clock=time.process_time
)


def main() -> None:
    data = datasets.preprocess("census", progress=False)
    X, k = data.X.tocsr(), data.k
    n, d = X.shape
    print(f"census: n = {n:,}, d = {d}, nnz = {X.nnz:,}, k = {k}")

    def bare(gram):
        A = gram(X) / n
        # the estimator's default noise, so that only its own work differs
        noisy = analyze_gauss_from_second_moment(
            A, n, EPS, DELTA, rng=0, noise="safe"
        )
        return top_k_subspace(noisy, k)

    estimator = PrivatePCA(
        k,
        epsilon=EPS,
        delta=DELTA,
        mechanism="analyze_gauss",
        data_norm=1.0,
        random_state=0,
    )
    t_bare = best_time(lambda: bare(sparse_gram))
    t_scipy = best_time(lambda: bare(lambda S: (S.T @ S).toarray()))
    t_fit = best_time(lambda: estimator.fit(X))
    ratio = t_fit / t_bare
    print(
        f"bare mechanism {1e3 * t_bare:8.1f} ms   PrivatePCA.fit "
        f"{1e3 * t_fit:8.1f} ms   ratio {ratio:5.2f}x  "
        f"{'OK' if ratio <= 1.1 else 'ABOVE TARGET 1.1x'}"
    )
    print(
        f"bare mechanism with scipy's X.T @ X {1e3 * t_scipy:8.1f} ms "
        f"(PrivatePCA.fit / it: {t_fit / t_scipy:5.2f}x)"
    )
    centred = PrivatePCA(
        k,
        epsilon=EPS,
        delta=DELTA,
        mechanism="analyze_gauss",
        data_norm=1.0,
        center=True,
        random_state=0,
    )
    t_centred = best_time(lambda: centred.fit(X))
    print(
        f"PrivatePCA.fit with a private mean {1e3 * t_centred:8.1f} ms "
        f"({t_centred / t_bare:5.2f}x the bare mechanism)"
    )

    ones = np.ones(n)
    dense = X.toarray()
    t_sparse = best_time(lambda: weighted_second_moment(X, ones))
    t_dense = best_time(lambda: weighted_second_moment(dense, ones))
    clipped = np.linspace(0.5, 1.0, n)  # non-uniform factors: the scaling path
    t_sparse_c = best_time(lambda: weighted_second_moment(X, clipped))
    t_dense_c = best_time(lambda: weighted_second_moment(dense, clipped))
    print(
        f"second moment, uniform scale: sparse {1e3 * t_sparse:8.1f} ms, "
        f"dense {1e3 * t_dense:8.1f} ms, dense/sparse "
        f"{t_dense / t_sparse:5.2f}x  "
        f"{'OK' if t_sparse < t_dense else 'SPARSE NOT FASTER'}"
    )
    print(
        f"second moment, per-row scale: sparse {1e3 * t_sparse_c:8.1f} ms, "
        f"dense {1e3 * t_dense_c:8.1f} ms, dense/sparse "
        f"{t_dense_c / t_sparse_c:5.2f}x  "
        f"{'OK' if t_sparse_c < t_dense_c else 'SPARSE NOT FASTER'}"
    )


if __name__ == "__main__":
    main()
