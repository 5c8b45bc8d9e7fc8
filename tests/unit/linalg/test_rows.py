"""dppca.linalg.rows: norms, clipping and the second moment of clipped, centred rows,
with the float64 error bounded (module docstring of dppca.linalg.rows)."""

from __future__ import annotations

import decimal
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dppca.linalg import clipped_sums, float_error, rows
from dppca.linalg.clipped_sums import clipped_row_sum, clipped_second_moment
from dppca.linalg.float_error import float_error_shrink, row_sum_shrink
from dppca.linalg.rows import (
    clip_factors,
    clip_rows,
    project_to_ball,
    row_norms,
)

FORMATS = {
    "dense": np.asarray,
    "csr": scipy.sparse.csr_matrix,
    "csc": scipy.sparse.csc_matrix,
}


# ------------------------------------------------------------------------------
# The "before": the expansion PrivatePCA used, copied here as it was
# ------------------------------------------------------------------------------


def _old_row_norms(X):
    if scipy.sparse.issparse(X):
        return np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return np.sqrt(np.einsum("ij,ij->i", X, X))


def _old_second_moment(X, bound, centre):
    """clip_factors(centred_row_norms(X, c), B) / B, then
    weighted_second_moment(X, α, α, c): ‖x‖² − 2⟨x, c⟩ + ‖c‖² and
    Xᵀdiag(α²)X − u cᵀ − c uᵀ + Σα² c cᵀ."""
    squares = _old_row_norms(X) ** 2 - 2.0 * np.asarray(X @ centre).ravel()
    norms = np.sqrt(np.maximum(squares + centre @ centre, 0.0))
    factors = np.ones_like(norms)
    too_long = norms > bound * (1.0 + 1e-9)
    factors[too_long] = bound / norms[too_long]
    alpha = factors / bound
    n = X.shape[0]
    scaled = np.asarray(X) * alpha[:, None]
    gram = scaled.T @ scaled
    u = np.asarray(X.T @ (alpha * alpha)).ravel()
    correction = np.outer(u, centre)
    gram = gram - correction - correction.T
    gram += float(alpha @ alpha) * np.outer(centre, centre)
    gram /= n
    return (gram + gram.T) / 2.0


# ------------------------------------------------------------------------------
# Data: rows at exact, known distances from a far centre
# ------------------------------------------------------------------------------


def _far_centre(magnitude, d, rng):
    """An integer-valued centre of norm about ``magnitude``: ``c + v`` is
    exact for the dyadic offsets v used here (up to 2⁵⁰)."""
    direction = rng.standard_normal(d)
    return np.round(magnitude * direction / np.linalg.norm(direction))


def _rows_on_the_bound(n, d, bound, rng):
    """Offsets ``±bound·e_j``: exactly at distance ``bound``."""
    V = np.zeros((n, d))
    V[np.arange(n), rng.integers(0, d, n)] = bound * rng.choice([-1, 1], n)
    return V


def _neighbours(magnitude, fmt, bound=1.0, n=1000, d=5, seed=0):
    """The far-centre data set and two adversarial neighbours: row 0
    (``c + bound e_j``) replaced by the row on the opposite side and by one
    orthogonal to it, both also on the bound."""
    rng = np.random.default_rng(seed)
    c = _far_centre(magnitude, d, rng)
    V = _rows_on_the_bound(n, d, bound, rng)
    X = c + V
    j = int(np.flatnonzero(V[0])[0])
    opposite, orthogonal = X.copy(), X.copy()
    opposite[0] = c - V[0]
    orthogonal[0] = c
    orthogonal[0, (j + 1) % d] += bound
    assert np.array_equal(X - c, V)  # the offsets are exact
    return c, [FORMATS[fmt](Y) for Y in (X, opposite, orthogonal)]


def _exact_second_moment(X, bound, centre=None, pre_clip=None):
    """``A*`` of the exactly clipped rows (no shrink), in 40-digit decimal
    arithmetic from the exact values of the float data."""
    X = np.asarray(X.toarray() if scipy.sparse.issparse(X) else X)
    n, d = X.shape
    D = decimal.Decimal
    with decimal.localcontext(decimal.Context(prec=40)):
        B = D(bound)
        c = [D(0)] * d if centre is None else [D(v) for v in centre]
        total = [[D(0)] * d for _ in range(d)]
        for x in X:
            y = [D(v) for v in x]
            if pre_clip is not None:
                y = _clip_exact(y, D(pre_clip))
            w = [v / B for v in _clip_exact([a - b for a, b in zip(y, c)], B)]
            for j in range(d):
                for k in range(j, d):
                    total[j][k] += w[j] * w[k]
        return np.array(
            [
                [float(total[min(j, k)][max(j, k)] / n) for k in range(d)]
                for j in range(d)
            ]
        )


def _clip_exact(y, bound):
    norm = sum(v * v for v in y).sqrt()
    return y if norm <= bound else [v * bound / norm for v in y]


# ------------------------------------------------------------------------------
# The regression: a far centre
# ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("magnitude", [1e6, 1e7, 1e9, 1e12])
def test_far_centre_keeps_the_sensitivity_and_the_accuracy(fmt, magnitude):
    n, bound = 1000, 1.0
    c, (X, opposite, orthogonal) = _neighbours(magnitude, fmt, bound, n)
    result = clipped_second_moment(X, bound, centre=c)
    A = result.matrix
    for Y in (opposite, orthogonal):
        A2 = clipped_second_moment(Y, bound, centre=c).matrix
        assert np.linalg.norm(A - A2) <= math.sqrt(2) / n
    assert result.method == "chunks"  # the expansion's bound refuses it
    assert result.n_clipped == 0
    eta = 1.0 - result.shrink
    assert 0 < eta < 1e-9
    exact = _exact_second_moment(X, bound, centre=c)
    error = np.linalg.norm(A - exact)
    assert error <= result.accuracy_bound <= 3 * eta
    # and, shrink aside, to a few ulps
    assert np.linalg.norm(A - result.shrink**2 * exact) < 1e-14


def test_the_old_expansion_fails_the_same_check_at_1e7():
    """The 'before': at ‖c‖ = 1e7 the expanded formula puts two neighbouring
    data sets several Δ = √2/n apart (while the new code keeps them within
    Δ, test above), and it is far worse further out."""
    n = 1000
    for magnitude, factor in ((1e7, 1.0), (1e9, 1e3)):
        c, (X, opposite, orthogonal) = _neighbours(magnitude, "dense", n=n)
        A = _old_second_moment(X, 1.0, c)
        gaps = [
            np.linalg.norm(A - _old_second_moment(Y, 1.0, c))
            for Y in (opposite, orthogonal)
        ]
        assert max(gaps) > factor * math.sqrt(2) / n, gaps


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("magnitude", [1e7, 1e9, 1e12])
def test_a_row_at_distance_3_is_clipped_by_one_third(fmt, magnitude):
    rng = np.random.default_rng(3)
    c = _far_centre(magnitude, 5, rng)
    far = np.array([1.0, 2.0, 2.0, 0.0, 0.0])  # ‖far‖ = 3
    near = np.array([0.0, 0.0, 0.0, 0.5, -0.25])
    X = FORMATS[fmt](np.vstack([c + far, c + near]))
    result = clipped_second_moment(X, 1.0, centre=c)
    assert result.n_clipped == 1
    s = result.shrink
    expected = (np.outer(far, far) / 9 + np.outer(near, near)) * s**2 / 2
    np.testing.assert_allclose(result.matrix, expected, rtol=0, atol=1e-15)


# ------------------------------------------------------------------------------
# Formats, paths and exactness
# ------------------------------------------------------------------------------


def _mixed_sparse(n=900, d=40, seed=5):
    """Sparse one-hot-like columns plus a few dense ones (both paths of the
    expansion), rows of various norms."""
    rng = np.random.default_rng(seed)
    X = scipy.sparse.random(n, d, density=0.05, random_state=seed).toarray()
    X[:, :4] = rng.standard_normal((n, 4)) * 0.5
    X *= rng.uniform(0.2, 3.0, n)[:, None]
    return X


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"centre": "small"},
        {"centre": "small", "pre_clip": 1.5},
        {"pre_clip": 0.8},
        {"centre": "far"},
        {"centre": "far", "pre_clip": 2e6},
    ],
)
@pytest.mark.parametrize("chunk_rows", [None, 64])
def test_dense_csr_and_csc_agree(options, chunk_rows):
    X = _mixed_sparse()
    n, d = X.shape
    rng = np.random.default_rng(8)
    kw = dict(options, chunk_rows=chunk_rows)
    if options.get("centre") == "small":
        kw["centre"] = rng.standard_normal(d) * 0.1
    elif options.get("centre") == "far":
        kw["centre"] = rng.standard_normal(d) * 1e5
        X = X + kw["centre"]
    results = {
        name: clipped_second_moment(fmt(X), 1.0, **kw)
        for name, fmt in FORMATS.items()
    }
    A = results["dense"].matrix
    for result in results.values():
        assert np.array_equal(result.matrix, result.matrix.T)
        assert result.shrink == results["dense"].shrink
        np.testing.assert_allclose(
            result.matrix, A, rtol=0, atol=1e-12 * np.abs(A).max()
        )
        assert result.n_pre_clipped == results["dense"].n_pre_clipped
    far = options.get("centre") == "far"
    assert results["csr"].method == ("chunks" if far else "expansion")
    assert results["dense"].method == "chunks"
    exact = _exact_second_moment(
        X, 1.0, centre=kw.get("centre"), pre_clip=kw.get("pre_clip")
    )
    for result in results.values():
        assert np.linalg.norm(result.matrix - exact) <= result.accuracy_bound


@pytest.mark.parametrize("centred", [False, True])
def test_rows_all_inside_the_bound_share_one_scale(centred):
    """No row clipped: the sparse expansion multiplies the unscaled sums by
    the one common scale; same matrix as the dense chunks."""
    X = _mixed_sparse(n=700)
    X /= 2 * np.linalg.norm(X, axis=1).max()  # every row within 1/2
    centre = np.full(X.shape[1], 0.01) if centred else None
    dense = clipped_second_moment(X, 1.0, centre=centre, chunk_rows=128)
    for fmt in ("csr", "csc"):
        result = clipped_second_moment(
            FORMATS[fmt](X), 1.0, centre=centre, chunk_rows=128
        )
        assert result.method == "expansion" and result.n_clipped == 0
        np.testing.assert_allclose(
            result.matrix, dense.matrix, rtol=0, atol=1e-15
        )
    Y = X if centre is None else X - centre
    np.testing.assert_allclose(
        dense.matrix, dense.shrink**2 * Y.T @ Y / 700, rtol=0, atol=1e-15
    )


def test_uncentred_dense_is_one_chunked_product():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((5000, 6))
    result = clipped_second_moment(X, 2.0)
    Z = X * np.minimum(1.0, 2.0 / np.linalg.norm(X, axis=1))[:, None] / 2.0
    np.testing.assert_allclose(
        result.matrix, result.shrink**2 * Z.T @ Z / 5000, rtol=1e-13
    )
    assert np.linalg.norm(Z, axis=1).max() <= 1.0 + 1e-15
    assert result.n_clipped == int(np.sum(np.linalg.norm(X, axis=1) > 2.0))


def test_clip_false_refuses_long_rows_without_describing_them():
    """The refusal is an output: its message names the public bound only,
    not how many rows are out of it or how far."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((700, 3))
    for fmt in FORMATS.values():
        messages = set()
        for scale in (1.0, 3.0):
            for call in (
                lambda: clipped_second_moment(
                    fmt(X * scale), 2.0, clip=False, chunk_rows=50
                ),
                lambda: clipped_row_sum(
                    fmt(X * scale), 2.0, clip=False, chunk_rows=50
                ),
            ):
                with pytest.raises(ValueError, match="clip=False") as error:
                    call()
                messages.add(str(error.value))
        assert len(messages) == 1, messages
        with pytest.raises(ValueError, match="clip=False refuses"):
            clipped_second_moment(
                fmt(X), 1e3, clip=False, pre_clip=2.0, chunk_rows=50
            )
    # rows within the tolerance pass, and are brought inside the bound
    inside = X / np.linalg.norm(X, axis=1)[:, None] * (1 + 1e-12)
    result = clipped_second_moment(inside, 1.0, clip=False)
    assert np.trace(result.matrix) <= result.shrink**2


# ------------------------------------------------------------------------------
# The shrink η
# ------------------------------------------------------------------------------


def test_float_error_shrink_sizes_and_refusal():
    assert 5e-11 < float_error_shrink(1000, 5) < 1e-10
    assert float_error_shrink(200_000, 511) < 1e-7
    assert float_error_shrink(10**7, 511) < 5e-6
    assert float_error_shrink(10**5, 5, 64) < float_error_shrink(10**5, 5)
    # the sparse expansion's spread L = (1 + 2r)² multiplies it
    base = float_error_shrink(10**5, 5)
    assert float_error_shrink(10**5, 5, centre_ratio=1.0) == pytest.approx(
        9 * base, rel=1e-6
    )
    assert row_sum_shrink(200_000, 511) < 1e-6
    with pytest.raises(ValueError, match="cannot be verified"):
        float_error_shrink(10**11, 5)
    with pytest.raises(ValueError, match="cannot be verified"):
        float_error_shrink(1000, 5, centre_ratio=1e9)
    with pytest.raises(ValueError, match="cannot be verified"):
        row_sum_shrink(10**11, 5)


# ------------------------------------------------------------------------------
# Refusals
# ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_refusals_are_readable(fmt):
    X = np.random.default_rng(0).standard_normal((20, 3))
    nan = X.copy()
    nan[3, 1] = np.nan
    inf = X.copy()
    inf[4, 0] = np.inf
    huge = X.copy()
    huge[5] = 1e200
    for bad in (nan, inf):
        for centre in (None, np.zeros(3)):
            with pytest.raises(ValueError, match="NaN or Inf"):
                clipped_second_moment(FORMATS[fmt](bad), 1.0, centre=centre)
        with pytest.raises(ValueError, match="NaN or Inf"):
            clipped_row_sum(FORMATS[fmt](bad), 1.0)
    # a finite row far beyond the bound is clipped like any other
    for centre in (None, np.ones(3)):
        kept = clipped_second_moment(FORMATS[fmt](huge), 1.0, centre=centre)
        assert np.all(np.isfinite(kept.matrix))
        assert np.trace(kept.matrix) <= kept.shrink**2
    S = FORMATS[fmt](X)
    with pytest.raises(ValueError, match="centre has a coordinate"):
        clipped_second_moment(S, 1.0, centre=[0.0, 1e151, 0.0])
    with pytest.raises(ValueError, match="centre contains NaN"):
        clipped_second_moment(S, 1.0, centre=[0.0, np.nan, 0.0])
    with pytest.raises(ValueError, match="vector of length 3"):
        clipped_second_moment(S, 1.0, centre=[0.0, 1.0])
    for bound in (0.0, -1.0, np.inf, np.nan, 1e-200, 1e200):
        with pytest.raises(ValueError, match="bound must be a finite number"):
            clipped_second_moment(S, bound)
    with pytest.raises(ValueError, match="pre_clip must be a finite"):
        clipped_second_moment(S, 1.0, pre_clip=0.0)
    with pytest.raises(ValueError, match="chunk_rows"):
        clipped_second_moment(S, 1.0, chunk_rows=0)
    with pytest.raises(ValueError, match="2-D"):
        clipped_second_moment(np.ones(3), 1.0)
    with pytest.raises(ValueError, match="at least one row"):
        clipped_second_moment(np.ones((0, 3)), 1.0)


def test_huge_rows_are_clipped_when_only_their_norm_is_needed():
    """Pre-clipping (about the origin) and the row sum need only row norms,
    which are computed scaled: finite rows of any size are accepted."""
    X = np.array([[1e200, -1e200, 0.0], [0.5, 0.0, 0.0]])
    for fmt in FORMATS.values():
        total = clipped_row_sum(fmt(X), 1.0)
        np.testing.assert_allclose(
            total.total, [np.sqrt(0.5) + 0.5, -np.sqrt(0.5), 0.0], rtol=1e-12
        )
        assert total.n_clipped == 1
        result = clipped_second_moment(fmt(X), 1.0, pre_clip=1.0)
        assert result.n_pre_clipped == 1


# ------------------------------------------------------------------------------
# Norms and clip factors
# ------------------------------------------------------------------------------


def test_row_norms_are_robust_in_every_format():
    X = np.array(
        [
            [3.0, 4.0, 0.0],
            [1e200, 1e200, 0.0],
            [1e-200, 0.0, -1e-200],
            [0.0, 0.0, 0.0],
            [1e308, 1e308, 1e308],
            [np.nan, 1.0, 0.0],
            [np.inf, 1.0, 0.0],
        ]
    )
    expected = [5.0, math.sqrt(2) * 1e200, math.sqrt(2) * 1e-200, 0.0]
    expected += [math.sqrt(3) * 1e308, np.nan, np.inf]
    for fmt in FORMATS.values():
        np.testing.assert_allclose(row_norms(fmt(X)), expected, rtol=1e-15)
    np.testing.assert_array_equal(
        row_norms(scipy.sparse.csr_matrix((3, 4))), np.zeros(3)
    )


def test_clip_factors_keep_the_computed_rows_within_the_bound():
    rng = np.random.default_rng(6)
    for d in (2, 7, 300):
        X = rng.standard_normal((4000, d)) * rng.uniform(0.1, 10, 4000)[:, None]
        X[:1000] = X[:1000] / np.linalg.norm(X[:1000], axis=1)[:, None]
        bound = 1.0
        factors = clip_factors(row_norms(X), bound, True, n_features=d)
        clipped = X * factors[:, None]
        assert row_norms(clipped).max() <= bound
        for row in clipped[:50]:  # the exact norm too
            assert sum(Fraction(v) ** 2 for v in row) <= 1
        norms = np.linalg.norm(X, axis=1)
        np.testing.assert_allclose(
            norms * factors, np.minimum(norms, bound), rtol=1e-12
        )
    norms = np.array([0.5, 0.9, 2.0, 4.0])
    np.testing.assert_array_equal(
        clip_factors(norms, 1.0, True)[:2], [1.0, 1.0]
    )
    np.testing.assert_allclose(clip_factors(norms, 1.0, True)[2:], [0.5, 0.25])
    with pytest.raises(ValueError, match="clip=False refuses") as error:
        clip_factors(norms, 1.0, False)
    assert "2" not in str(error.value) and "4.0" not in str(error.value)
    np.testing.assert_array_equal(clip_factors(norms, 5.0, False), np.ones(4))
    with pytest.raises(ValueError, match="NaN or Inf"):
        clip_factors(np.array([1.0, np.nan]), 1.0, True)


def test_clip_rows_and_project_to_ball():
    X = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    clipped = clip_rows(X)
    np.testing.assert_allclose(clipped, [[0.6, 0.8], [0.3, 0.4], [0, 0]])
    assert row_norms(clipped).max() <= 1.0
    with pytest.raises(ValueError, match="finite 2-D"):
        clip_rows(np.array([[np.nan, 1.0]]))
    v = np.array([3.0, 4.0])
    np.testing.assert_allclose(project_to_ball(v, 1.0), [0.6, 0.8])
    assert project_to_ball(v, 10.0) is v


# ------------------------------------------------------------------------------
# The row sum of the private mean
# ------------------------------------------------------------------------------


def test_clipped_row_sum_agrees_across_formats_and_keeps_its_sensitivity():
    X = _mixed_sparse(n=1500)
    R = 1.0
    norms = np.linalg.norm(X, axis=1)
    expected = (X * np.minimum(1.0, R / norms)[:, None]).sum(axis=0)
    sums = {
        name: clipped_row_sum(fmt(X), R, chunk_rows=100)
        for name, fmt in FORMATS.items()
    }
    for result in sums.values():
        np.testing.assert_allclose(result.total, expected, rtol=1e-6)
        np.testing.assert_allclose(
            result.total, sums["dense"].total, rtol=0, atol=1e-12
        )
        assert result.n_clipped == int(np.sum(norms > R))
        assert result.shrink == sums["dense"].shrink
    # neighbours on opposite sides of the ball: within 2R
    Y = X.copy()
    X[0] = 0.0
    X[0, 0] = 5.0
    Y[0] = -X[0]
    gap = clipped_row_sum(X, R).total - clipped_row_sum(Y, R).total
    assert np.linalg.norm(gap) <= 2 * R
    assert np.abs(gap).sum() <= 2 * R * math.sqrt(X.shape[1])


# ------------------------------------------------------------------------------
# The property: any centre, any rows, any replaced row
# ------------------------------------------------------------------------------


def _offset(kind, d, bound, rng):
    """A dyadic offset on, inside or outside the bound (exact after c + v)."""
    if kind == "on":
        v = np.zeros(d)
        v[rng.integers(d)] = bound * rng.choice([-1.0, 1.0])
        return v
    v = np.round(rng.uniform(-1, 1, d) * 256) / 256
    norm = np.linalg.norm(v)
    if norm == 0:
        return v
    if kind == "inside":
        return v * bound / max(norm, 1.0) / 2
    return v * bound * 2.0 ** rng.integers(1, 12) / norm


@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    log_magnitude=st.floats(0.0, 12.0),
    n=st.integers(2, 30),
    d=st.integers(2, 6),
    bound=st.sampled_from([1.0, 3.0, 0.125, 1e3]),
    kinds=st.lists(st.sampled_from(["on", "inside", "outside"]), min_size=31),
    path=st.sampled_from(["public centre", "private mean", "uncentred"]),
    fmt=st.sampled_from(sorted(FORMATS)),
    replaced=st.integers(0, 29),
    seed=st.integers(0, 2**32 - 1),
)
def test_sensitivity_holds_for_any_centre_and_rows(
    log_magnitude, n, d, bound, kinds, path, fmt, replaced, seed
):
    rng = np.random.default_rng(seed)
    c = _far_centre(10**log_magnitude * bound, d, rng)
    V = np.array([_offset(kind, d, bound, rng) for kind in kinds[:n]])
    X = c + V
    k = replaced % n
    Y = X.copy()
    Y[k] = c + _offset(kinds[n], d, bound, rng)
    if path == "public centre":
        kw = {"centre": c}
    elif path == "private mean":  # μ̂ within the ball of radius R
        R = 10**log_magnitude * bound * 1.5
        kw = {"centre": c, "pre_clip": R}
    else:
        kw = {}
    A = clipped_second_moment(FORMATS[fmt](X), bound, **kw)
    B = clipped_second_moment(FORMATS[fmt](Y), bound, **kw)
    assert np.linalg.norm(A.matrix - B.matrix) <= math.sqrt(2) / n
    assert np.array_equal(A.matrix, A.matrix.T)
    assert np.trace(A.matrix) <= A.shrink**2 * (1 + 1e-12)


def test_public_names():
    assert set(rows.__all__) >= {"row_norms", "clip_factors", "project_to_ball"}
    assert set(clipped_sums.__all__) >= {
        "clipped_second_moment",
        "clipped_row_sum",
    }
    assert set(float_error.__all__) >= {"float_error_shrink", "row_sum_shrink"}


# ------------------------------------------------------------------------------
# unit_ball_rows: the rows a row-wise mechanism of PrivatePCA sees
# ------------------------------------------------------------------------------


def test_unit_ball_rows_are_in_the_ball_and_row_wise():
    gen = np.random.default_rng(3)
    X = gen.standard_normal((200, 7)) * 5.0
    centre = gen.standard_normal(7)
    Z = rows.unit_ball_rows(X, 4.0, centre=centre, pre_clip=9.0)
    assert np.linalg.norm(Z, axis=1).max() <= 1.0
    # a replaced row changes that output row only
    Y = X.copy()
    Y[17] = 1e6
    W = rows.unit_ball_rows(Y, 4.0, centre=centre, pre_clip=9.0)
    changed = np.flatnonzero(np.any(W != Z, axis=1))
    assert changed.tolist() == [17]
    # the rows within the bound are only scaled
    inside = np.linalg.norm(rows.clip_rows(X, 9.0) - centre, axis=1) < 3.9
    expected = (rows.clip_rows(X, 9.0) - centre)[inside] / 4.0
    assert np.allclose(Z[inside], expected, rtol=1e-14)


def test_unit_ball_rows_keep_sparse_input_sparse_without_a_centre():
    gen = np.random.default_rng(4)
    dense = gen.standard_normal((50, 30)) * (gen.random((50, 30)) < 0.1) * 4
    Z = rows.unit_ball_rows(scipy.sparse.csr_matrix(dense), 2.0)
    assert scipy.sparse.issparse(Z) and Z.format == "csr"
    assert np.allclose(Z.toarray(), rows.unit_ball_rows(dense, 2.0))
    assert rows.row_norms(Z).max() <= 1.0


def test_unit_ball_rows_refuse_long_rows_without_clipping():
    X = np.eye(3) * np.array([[1.0], [2.0], [5.0]])
    with pytest.raises(ValueError, match="clip=False refuses"):
        rows.unit_ball_rows(X, 2.0, clip=False)
