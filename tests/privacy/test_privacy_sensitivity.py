"""Property-based attacks on the sensitivity every release path relies on.

Hypothesis draws the data (rows inside, on and far outside the bound), the
magnitude of the offset between the data and the origin (up to 10¹² times the
bound), the storage format (dense or CSR) and the adversarial replacement row;
each test checks, on the *computed* float64 quantities the noise is added to,
the bound the calibration assumes:

* the second moment handed to the mechanism, for the estimator's paths
  without centring, with a public centre, and (for a fixed released mean)
  with a private mean, clipped centred rows or the triangle bound:
  ‖A − A'‖_F ≤ √2/n, and agreement with an extended-precision (40-digit)
  computation of the exactly clipped rows;
* the clipped row sum behind the private mean: ‖Σ − Σ'‖₂ ≤ 2R;
* the rounding of the safe noise to a grid γ: the rounded upper triangle
  moves by at most Δ/γ + √(d(d+1)/2) cells (ℓ₂).
"""

from __future__ import annotations

from decimal import Decimal, getcontext

import numpy as np
import pytest
import scipy.sparse
from capture import second_moments_seen
from hypothesis import given, settings
from hypothesis import strategies as st

from dppca import PrivatePCA
from dppca.linalg import clipped_sums, rows
from dppca.privacy import noise as noise_module

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
)

REPLACEMENTS = ("opposite", "far outside", "zero", "orthogonal")


def adversarial_pair(seed, n, d, bound, offset, replacement):
    """Rows around a point ``c`` of norm ``offset·bound``: most within the
    bound, some on it, some beyond; the neighbour replaces the last row."""
    rng = np.random.default_rng(seed)
    direction = rng.standard_normal(d)
    c = direction / np.linalg.norm(direction) * offset * bound
    unit = rng.standard_normal((n, d))
    unit /= np.linalg.norm(unit, axis=1)[:, None]
    radii = rng.choice([0.3, 1.0, 1.0, 4.0], size=n) * bound
    X = c + unit * radii[:, None]
    e = np.eye(d)
    X[-1] = c + bound * e[0]
    replaced = {
        "opposite": c - bound * e[0],
        "far outside": c - 50 * bound * e[0],
        "zero": c,
        "orthogonal": c + bound * e[1],
    }[replacement]
    X_prime = X.copy()
    X_prime[-1] = replaced
    return X, X_prime, c


def formats(X, sparse):
    return scipy.sparse.csr_matrix(X) if sparse else X


def exact_second_moment(X, bound, centre):
    """(1/n) Σ z zᵀ of the exactly clipped rows clip_B(x − c)/B, 40 digits."""
    getcontext().prec = 40
    n, d = X.shape
    total = [[Decimal(0)] * d for _ in range(d)]
    B = Decimal(float(bound))
    for x in X:
        y = [Decimal(float(a)) - Decimal(float(b)) for a, b in zip(x, centre)]
        norm = sum(v * v for v in y).sqrt()
        f = min(Decimal(1), B / norm) if norm > 0 else Decimal(1)
        z = [v * f / B for v in y]
        for i in range(d):
            for j in range(d):
                total[i][j] += z[i] * z[j]
    return np.array([[float(v / n) for v in row] for row in total])


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    log_offset=st.floats(0, 12),
    replacement=st.sampled_from(REPLACEMENTS),
    sparse=st.booleans(),
    public_centre=st.booleans(),
)
def test_estimator_second_moment_keeps_its_sensitivity(
    seed, log_offset, replacement, sparse, public_centre
):
    n, d, bound = 120, 4, 2.0
    offset = 10.0**log_offset if public_centre else 0.0
    X, X_prime, c = adversarial_pair(seed, n, d, bound, offset, replacement)
    estimator = PrivatePCA(
        1,
        epsilon=1.0,
        delta=1e-5,
        mechanism="analyze_gauss",
        data_norm=bound,
        center=c if public_centre else False,
        random_state=0,
    )
    with second_moments_seen() as seen:
        for data in (X, X_prime):
            estimator.fit(formats(data, sparse))
    A, A_prime = seen
    assert np.linalg.norm(A - A_prime) <= np.sqrt(2) / n
    if n * d <= 480 and seed % 4 == 0:  # the 40-digit reference is slow
        reference = exact_second_moment(X, bound, c)
        accuracy = clipped_sums.clipped_second_moment(
            formats(X, sparse), bound, centre=c if public_centre else None
        ).accuracy_bound
        assert np.linalg.norm(A - reference) <= accuracy


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    log_ratio=st.floats(0, 7),
    replacement=st.sampled_from(REPLACEMENTS),
    sparse=st.booleans(),
    triangle=st.booleans(),
)
def test_private_mean_path_keeps_its_sensitivity(
    seed, log_ratio, replacement, sparse, triangle
):
    """Rows first clipped to R about the origin, centred at a released mean
    μ̂ (fixed: the second release is analysed for a given first one), then
    clipped to C (or divided by R + ‖μ̂‖). The data sit far out, at R/C up to
    10⁷, where the expansion used to cancel."""
    n, d, C = 100, 3, 1.0
    R = C * 10.0**log_ratio
    X, X_prime, c = adversarial_pair(seed, n, d, C, 0.9 * R / C, replacement)
    rng = np.random.default_rng(seed + 1)
    mean = rows.project_to_ball(c + rng.standard_normal(d) * C, R)
    bound = R + float(np.linalg.norm(mean)) if triangle else C
    moments = [
        clipped_sums.clipped_second_moment(
            formats(Z, sparse), bound, centre=mean, pre_clip=R
        ).matrix
        for Z in (X, X_prime)
    ]
    assert np.linalg.norm(moments[0] - moments[1]) <= np.sqrt(2) / n
    sums = [
        clipped_sums.clipped_row_sum(formats(Z, sparse), R).total
        for Z in (X, X_prime)
    ]
    assert np.linalg.norm(sums[0] - sums[1]) <= 2 * R


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    exponent=st.integers(-24, -2),
    replacement=st.sampled_from(REPLACEMENTS),
)
def test_grid_rounding_grows_the_sensitivity_by_at_most_the_cells(
    seed, exponent, replacement
):
    n, d = 200, 4
    grid = 2.0**exponent
    X, X_prime, _ = adversarial_pair(seed, n, d, 1.0, 0.0, replacement)
    iu = np.triu_indices(d)
    moments = [
        clipped_sums.clipped_second_moment(Z, 1.0).matrix[iu]
        for Z in (X, X_prime)
    ]
    cells = noise_module.round_to_grid(
        moments[0], grid
    ) - noise_module.round_to_grid(moments[1], grid)
    bound = (np.sqrt(2) / n) / grid + np.sqrt(d * (d + 1) / 2)
    assert np.linalg.norm(cells) <= bound


@pytest.mark.parametrize("replacement", REPLACEMENTS)
def test_far_outside_rows_cannot_move_the_moment_further(replacement):
    """A row 50 bounds away is clipped, so the worst pair is attained on the
    bound: a deterministic check of the property's extreme case."""
    n, d = 50, 3
    X, X_prime, c = adversarial_pair(7, n, d, 1.0, 1e12, replacement)
    gap = np.linalg.norm(
        clipped_sums.clipped_second_moment(X, 1.0, centre=c).matrix
        - clipped_sums.clipped_second_moment(X_prime, 1.0, centre=c).matrix
    )
    assert gap <= np.sqrt(2) / n
