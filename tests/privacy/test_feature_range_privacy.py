"""Privacy with ``feature_range`` (issue 43, item 2): extremal neighbouring
pairs inside the public box (replace-one: n fixed, one row replaced by any
other row of the box).

The second moment a mechanism receives moves by at most the sensitivity it
is calibrated to for rows in the unit ball, and orthogonal corners reach
it; the private mean's input moves by at most its calibrated ℓ₂
sensitivity; neighbours see the same records and warnings; no row of the
box is clipped or refused at the implied bound.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dppca import PrivatePCA
from dppca.decomposition import pca
from dppca.linalg import clipped_sums
from dppca.privacy.sensitivity import frobenius_sensitivity_second_moment

D, N = 4, 50
LOWER = np.array([-1.0, 0.0, 2.0, -3.0])
UPPER = np.array([1.0, 2.0, 4.0, -1.0])  # half-widths 1: a cube
MID = (LOWER + UPPER) / 2


def corner(signs):
    return MID + np.asarray(signs, dtype=float)


#: The replaced row on each side: orthogonal corners (the Frobenius
#: bound is reached about the midpoint), opposite corners (the mean's
#: ℓ₂ bound), a corner against the midpoint, equal rows.
PAIRS = {
    "orthogonal corners": (corner([1, 1, 1, 1]), corner([1, -1, 1, -1])),
    "opposite corners": (corner([1, 1, 1, 1]), corner([-1, -1, -1, -1])),
    "corner and midpoint": (corner([1, -1, -1, 1]), MID),
    "lower and upper corner": (LOWER.copy(), UPPER.copy()),
}


def data(row, seed=0):
    rng = np.random.default_rng(seed)
    X = LOWER + (UPPER - LOWER) * rng.random((N - 1, D))
    return np.vstack([X, row])


def estimator(center, **params):
    options = dict(
        n_components=2,
        epsilon=1.0,
        delta=1e-6,
        mechanism="analyze_gauss",
        feature_range=(LOWER, UPPER),
        center=center,
        random_state=0,
    )
    options.update(params)
    return PrivatePCA(**options)


def seen(est, X, monkeypatch):
    """Fit; return the mechanism's input and the warnings' texts."""
    got = []
    original = pca._run

    def run(plan, data_, n, d, rng):
        got.append((np.array(data_), n))
        return original(plan, data_, n, d, rng)

    monkeypatch.setattr(pca, "_run", run)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X)
    monkeypatch.setattr(pca, "_run", original)
    ((A, n),) = got
    return A, n, sorted(str(w.message) for w in caught)


@pytest.mark.parametrize("pair", sorted(PAIRS))
@pytest.mark.parametrize("center", ["midpoint", False])
def test_the_second_moment_moves_within_its_sensitivity(
    pair, center, monkeypatch
):
    first, second = PAIRS[pair]
    est = estimator(center)
    A, n, warned = seen(est, data(first), monkeypatch)
    A2, n2, warned2 = seen(estimator(center), data(second), monkeypatch)
    assert n == n2 == N
    assert warned == warned2
    records = [r.as_dict() for r in est.privacy_releases_]
    assert records == [
        r.as_dict()
        for r in estimator(center).fit(data(second)).privacy_releases_
    ]
    change = np.linalg.norm(A - A2)
    bound = frobenius_sensitivity_second_moment(N)
    assert change <= bound
    # every row of the box lies within the implied bound: nothing clipped
    rows = data(first) - est.mean_
    assert np.linalg.norm(rows, axis=1).max() <= est.row_bound_
    if pair == "orthogonal corners" and center == "midpoint":
        # the extremal pair reaches the bound (up to the float shrink)
        assert change >= bound * (1 - 1e-8)


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_the_private_mean_sum_moves_within_its_l2_sensitivity(pair):
    # with center=True the rows are bounded about the origin by the
    # implied bound R; the mean's sum moves by at most 2R (its ℓ₂
    # sensitivity times n), reached by opposite corners of a symmetric box
    first, second = PAIRS[pair]
    est = estimator(True, mechanism="auto")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(data(first))
    R = est.data_norm_
    total = clipped_sums.clipped_row_sum(data(first), R, clip=True).total
    total2 = clipped_sums.clipped_row_sum(data(second), R, clip=True).total
    assert np.linalg.norm(total - total2) <= 2 * R
    assert "private mean" in est.privacy_releases_[0].label


def test_no_row_of_the_box_is_refused_at_its_bound():
    # the corners have the largest norm; clip=False refuses rows above the
    # bound, so a corner refused would make the fit depend on the rows
    for signs in np.array(np.meshgrid(*[[-1, 1]] * D)).T.reshape(-1, D):
        for center in ("midpoint", False):
            est = estimator(center, clip=False, mechanism="analyze_gauss")
            est.fit(data(corner(signs)))
    assert est.row_bound_ >= np.linalg.norm(np.maximum(abs(LOWER), UPPER))
