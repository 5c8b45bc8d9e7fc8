"""The frontier map of chapter 19: every private mechanism of the book on
spiked data, its error beside the minimax lower bound.

:func:`run_frontier` runs each differentially private mechanism of
:func:`dppca.book.mechanism_table.mechanisms` on the book's spiked rows on
the sphere (:func:`dppca.book.synthetic_data.spiked_sphere_rows`) over a grid
of ``n``, two dimensions and two values of ε, and records the Frobenius
sin Θ error against the true top-k subspace. :func:`summarize` takes medians
over seeds (and counts them) and adds the lower bound of
:mod:`dppca.book.bounds.lower` with constant one; :func:`n_exponents`,
:func:`epsilon_exponents` and :func:`d_exponents` fit log-log slopes. Every
number is an error; nothing is timed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..mechanisms.registry import MECHANISMS
from ..utility import sin_theta
from .bounds import lower
from .mechanism_table import mechanisms as mechanism_table
from .synthetic_data import spiked_sphere_rows

#: Rows of the mechanism table that are not run: the non-private and the
#: data-independent baselines, and mechanisms that are not DP.
REFERENCE_ROWS = {
    "pca": "not private (the non-private reference)",
    "random": "a data-independent baseline, not an estimator",
}

#: Median errors above this are saturated (a subspace that has lost the
#: spike); the fits of a rate leave them out.
SATURATION = 0.5

#: A private excess below this fraction of non-private PCA's error is
#: buried in the sampling error; the fits leave it out.
BURIED = 0.5


@dataclass(frozen=True)
class FrontierGrid:
    """The settings of the frontier map.

    ``ns`` sample sizes, ``ds`` dimensions, ``epsilons`` privacy levels,
    ``delta`` the δ of every (ε, δ) mechanism, ``spike`` the variance of the
    first coordinate before the rows are normalised, ``k`` the number of
    components and ``seeds`` the number of data sets per setting.
    """

    ns: tuple
    ds: tuple
    epsilons: tuple
    delta: float
    spike: float
    k: int
    seeds: int


def frontier_grid(fast: bool) -> FrontierGrid:
    """The chapter's grid: ``n`` over a factor 8 (FAST) or 32 (full).

    Parameters
    ----------
    fast : bool
        The test suite's small grid (4 sample sizes, 6 seeds) instead of the
        book's (6 sample sizes, 20 seeds).

    Returns
    -------
    FrontierGrid
        Two dimensions (10, 40) and two ε (0.5, 2) in both modes.
    """
    ns = (
        (1000, 2000, 4000, 8000)
        if fast
        else (500, 1000, 2000, 4000, 8000, 16000)
    )
    return FrontierGrid(
        ns=ns,
        ds=(10, 40),
        epsilons=(0.5, 2.0),
        delta=1e-6,
        spike=20.0,
        k=1,
        seeds=6 if fast else 20,
    )


def frontier_mechanisms() -> tuple[dict, dict]:
    """The mechanisms the map runs, and those it lists but skips.

    Every mechanism of the registry (:data:`MECHANISMS`) is one or the
    other: a mechanism registered with a differential-privacy notion is run,
    so a new one cannot be missing from the map.

    Returns
    -------
    tuple of dict
        ``(run, skipped)``: ``run`` maps key to
        :class:`~dppca.book.mechanism_table.Mechanism` for every registered
        mechanism with a differential-privacy notion, in the book's order;
        ``skipped`` maps the baselines and the other registered mechanisms
        to the reason.

    Raises
    ------
    ValueError
        If a registered private mechanism has no entry in the book's table
        (:func:`dppca.book.mechanism_table.mechanisms`), so that the map
        could not run it.
    """
    table = mechanism_table()
    run, skipped = {}, dict(REFERENCE_ROWS)
    for key, mechanism in table.items():
        if key in REFERENCE_ROWS or key not in MECHANISMS:
            continue
        if MECHANISMS[key].notion == "not_dp":
            skipped[key] = f"not DP: {mechanism.notion}"
        else:
            run[key] = mechanism
    missing = sorted(set(MECHANISMS) - set(run) - set(skipped))
    if missing:
        raise ValueError(
            f"registered mechanisms the frontier map cannot run: {missing}"
            " (no entry in the book's table of mechanisms)"
        )
    return run, skipped


def _release(mechanism, X, A, n, k, epsilon, delta, rng):
    if mechanism.from_moment is not None:
        return mechanism.run_from_moment(A, n, k, epsilon, delta, rng)
    return mechanism.from_rows(X, k, epsilon, delta, rng, {})


def run_frontier(grid: FrontierGrid, seed: int = 0) -> pd.DataFrame:
    """Run every private mechanism over the grid.

    Parameters
    ----------
    grid : FrontierGrid
        The settings.
    seed : int
        Root seed; each data set and each release has its own stream, so a
        mechanism's errors do not depend on which others run.

    Returns
    -------
    pandas.DataFrame
        One row per (mechanism, d, ε, n, seed) with the Frobenius sin Θ
        ``error``; the mechanism ``"pca"`` is non-private PCA on the same
        data (one row per ε, for pairing).
    """
    run, _ = frontier_mechanisms()
    keys = ["pca", *run]
    table = mechanism_table()
    rows = []
    for d in grid.ds:
        truth = np.eye(d)[:, : grid.k]
        spikes = [grid.spike] * grid.k
        for n in grid.ns:
            for s in range(grid.seeds):
                X = spiked_sphere_rows(
                    n, d, spikes, np.random.default_rng([seed, d, n, s])
                )
                A = X.T @ X / n
                for e, epsilon in enumerate(grid.epsilons):
                    for i, key in enumerate(keys):
                        rng = np.random.default_rng([seed, d, n, s, e, i])
                        mechanism = table["pca"] if key == "pca" else run[key]
                        V = _release(
                            mechanism, X, A, n, grid.k, epsilon, grid.delta, rng
                        )
                        rows.append(
                            dict(
                                mechanism=key,
                                d=d,
                                epsilon=epsilon,
                                n=n,
                                seed=s,
                                error=sin_theta(V, truth, norm="fro"),
                            )
                        )
    return pd.DataFrame(rows)


def summarize(raw: pd.DataFrame, grid: FrontierGrid) -> pd.DataFrame:
    """Medians over seeds, the lower bound and the private excess.

    Parameters
    ----------
    raw : pandas.DataFrame
        The output of :func:`run_frontier`.
    grid : FrontierGrid
        Its settings (for the spike and ``k`` of the lower bound).

    Returns
    -------
    pandas.DataFrame
        One row per (mechanism, d, ε, n): ``median`` error, ``count`` of
        seeds, ``bound`` (:func:`dppca.book.bounds.lower.minimax_rate`,
        constant one), ``private_bound`` (its privacy term), ``ratio`` =
        median / bound, and ``excess``, the median over seeds of
        ``√max(error² − error_PCA², 0)`` with non-private PCA's error on the
        same data: the part of the error privacy adds.
    """
    keys = ["d", "epsilon", "n", "seed"]
    pca = raw[raw.mechanism == "pca"].set_index(keys)["error"]
    private = raw[raw.mechanism != "pca"].copy()
    paired = pca.reindex(pd.MultiIndex.from_frame(private[keys])).to_numpy()
    private["added"] = private["error"].to_numpy() ** 2 - paired**2
    out = (
        private.groupby(["mechanism", "d", "epsilon", "n"], sort=False)
        .agg(
            median=("error", "median"),
            count=("error", "size"),
            added=("added", "mean"),
        )
        .reset_index()
    )
    out["excess"] = np.sqrt(np.maximum(out.pop("added"), 0.0))
    pca_median = (
        raw[raw.mechanism == "pca"]
        .groupby(["d", "epsilon", "n"])["error"]
        .median()
        .rename("pca_median")
    )
    out = out.join(pca_median, on=["d", "epsilon", "n"])
    signal = {d: lower.spiked_sphere_signal(d, grid.spike) for d in grid.ds}
    out["bound"] = [
        float(lower.minimax_rate(n, d, grid.k, eps, *signal[d]))
        for n, d, eps in zip(out.n, out.d, out.epsilon)
    ]
    out["private_bound"] = [
        float(lower.private_rate(n, d, grid.k, eps, *signal[d]))
        for n, d, eps in zip(out.n, out.d, out.epsilon)
    ]
    out["ratio"] = out["median"] / out["bound"]
    return out


def _fitted(part) -> pd.Series:
    """The settings a fit uses: not saturated, and a private excess of at
    least :data:`BURIED` times non-private PCA's median error."""
    return (part["median"] <= SATURATION) & (
        part["excess"] >= BURIED * part["pca_median"]
    )


def _slope(x, y) -> float:
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def n_exponents(summary: pd.DataFrame, min_points: int = 3) -> pd.DataFrame:
    """Log-log slopes in ``n``, per mechanism and regime (d, ε).

    Parameters
    ----------
    summary : pandas.DataFrame
        The output of :func:`summarize`.
    min_points : int
        Fewest unsaturated sample sizes for a fit.

    Returns
    -------
    pandas.DataFrame
        One row per (mechanism, d, ε): ``points`` used (median error at
        most :data:`SATURATION`, excess at least :data:`BURIED` times PCA's),
        ``error_slope`` of the median error, ``bound_slope`` of the lower
        bound over the same ``n``, and ``excess_slope`` of the private
        excess (NaN with fewer than ``min_points`` points).
    """
    rows = []
    for (key, d, eps), part in summary.groupby(
        ["mechanism", "d", "epsilon"], sort=False
    ):
        ok = part[_fitted(part)]
        fit = len(ok) >= min_points
        rows.append(
            dict(
                mechanism=key,
                d=d,
                epsilon=eps,
                points=len(ok),
                error_slope=_slope(ok.n, ok["median"]) if fit else np.nan,
                bound_slope=_slope(ok.n, ok["bound"]) if fit else np.nan,
                excess_slope=_slope(ok.n, ok["excess"]) if fit else np.nan,
            )
        )
    return pd.DataFrame(rows)


def _pairwise_slopes(summary, along: str, within: list) -> pd.DataFrame:
    rows = []
    for key, part in summary.groupby("mechanism", sort=False):
        slopes = []
        for _, pair in part.groupby(within):
            pair = pair[_fitted(pair)]
            if pair[along].nunique() == 2:
                slopes.append(_slope(pair[along], pair["excess"]))
        rows.append(
            dict(
                mechanism=key,
                settings=len(slopes),
                slope=float(np.median(slopes)) if slopes else np.nan,
            )
        )
    return pd.DataFrame(rows)


def epsilon_exponents(summary: pd.DataFrame) -> pd.DataFrame:
    """Slope of the private excess in ε, from the two values of ε.

    Parameters
    ----------
    summary : pandas.DataFrame
        The output of :func:`summarize`.

    Returns
    -------
    pandas.DataFrame
        Per mechanism, the median over (d, n) of the two-point slope, and
        the number of settings where both points are unsaturated.
    """
    return _pairwise_slopes(summary, "epsilon", ["d", "n"])


def d_exponents(summary: pd.DataFrame) -> pd.DataFrame:
    """Slope of the private excess in ``d``, from the two dimensions.

    Parameters
    ----------
    summary : pandas.DataFrame
        The output of :func:`summarize`.

    Returns
    -------
    pandas.DataFrame
        As :func:`epsilon_exponents`, over (ε, n).
    """
    return _pairwise_slopes(summary, "d", ["epsilon", "n"])


#: The three exponents of the table, and the column of the summary each is
#: fitted along.
EXPONENTS = ("n", "epsilon", "d")


def optimal_exponents(grid: FrontierGrid) -> dict:
    """The exponents of the lower bound's privacy term over the grid.

    Computed from :func:`dppca.book.bounds.lower.private_rate` (constant
    one) on the grid's rows, as the measured ones are fitted: in ``n`` over
    the grid's sample sizes, in ε between its two values, in ``d`` between
    its two dimensions (where the spike's signal changes with ``d`` too);
    the median over the other settings.

    Parameters
    ----------
    grid : FrontierGrid
        The settings.

    Returns
    -------
    dict
        ``{"n": ..., "epsilon": ..., "d": ...}``, floats.
    """
    signal = {d: lower.spiked_sphere_signal(d, grid.spike) for d in grid.ds}

    def rate(n, d, eps):
        return float(lower.private_rate(n, d, grid.k, eps, *signal[d]))

    ns, (e0, e1), (d0, d1) = grid.ns, grid.epsilons, grid.ds
    by_n = [
        _slope(ns, [rate(n, d, eps) for n in ns])
        for d in grid.ds
        for eps in grid.epsilons
    ]
    by_eps = [
        np.log(rate(n, d, e1) / rate(n, d, e0)) / np.log(e1 / e0)
        for n in ns
        for d in grid.ds
    ]
    by_d = [
        np.log(rate(n, d1, eps) / rate(n, d0, eps)) / np.log(d1 / d0)
        for n in ns
        for eps in grid.epsilons
    ]
    return {
        "n": float(np.median(by_n)),
        "epsilon": float(np.median(by_eps)),
        "d": float(np.median(by_d)),
    }


def verdict(gap: float, tolerance: float) -> str:
    """How a measured exponent compares with the optimal one.

    Parameters
    ----------
    gap : float
        Measured minus optimal exponent, signed so that a positive gap is
        worse (the excess falls more slowly in ``n`` or ε, grows faster in
        ``d``); NaN where no exponent could be fitted.
    tolerance : float
        The largest gap, either way, still called optimal.

    Returns
    -------
    str
        ``"optimal"`` (``|gap| <= tolerance``), ``"slower"`` (``gap >
        tolerance``), ``"faster"`` (``gap < -tolerance``) or ``"no fit"``.
    """
    if not np.isfinite(gap):
        return "no fit"
    if abs(gap) <= tolerance:
        return "optimal"
    return "slower" if gap > 0 else "faster"


def exponent_table(
    summary: pd.DataFrame, grid: FrontierGrid, tolerance: float
) -> pd.DataFrame:
    """Each mechanism's measured exponents in ``n``, ε and ``d`` beside the
    optimal ones, and a verdict for each.

    Parameters
    ----------
    summary : pandas.DataFrame
        The output of :func:`summarize`.
    grid : FrontierGrid
        Its settings.
    tolerance : float
        As in :func:`verdict`.

    Returns
    -------
    pandas.DataFrame
        One row per mechanism: for each exponent ``x`` of
        :data:`EXPONENTS`, ``x`` the measured exponent of the private excess
        (in ``n`` the median over the regimes of :func:`n_exponents`, in ε
        and ``d`` that of :func:`epsilon_exponents` and
        :func:`d_exponents`), ``x_optimal`` (:func:`optimal_exponents`),
        ``x_gap`` (measured minus optimal, positive when worse) and
        ``x_verdict``.
    """
    optimal = optimal_exponents(grid)
    measured = {
        "n": n_exponents(summary)
        .groupby("mechanism", sort=False)["excess_slope"]
        .median(),
        "epsilon": epsilon_exponents(summary).set_index("mechanism")["slope"],
        "d": d_exponents(summary).set_index("mechanism")["slope"],
    }
    out = pd.DataFrame(index=measured["n"].index)
    for x in EXPONENTS:
        out[x] = measured[x].reindex(out.index)
        out[f"{x}_optimal"] = optimal[x]
        # worse: a larger exponent in n and epsilon (the excess falls more
        # slowly) and in d (it grows faster)
        out[f"{x}_gap"] = out[x] - optimal[x]
        out[f"{x}_verdict"] = [
            verdict(gap, tolerance) for gap in out[f"{x}_gap"]
        ]
    return out.rename_axis("mechanism").reset_index()


__all__ = [
    "FrontierGrid",
    "BURIED",
    "EXPONENTS",
    "REFERENCE_ROWS",
    "SATURATION",
    "d_exponents",
    "epsilon_exponents",
    "exponent_table",
    "frontier_grid",
    "frontier_mechanisms",
    "n_exponents",
    "optimal_exponents",
    "run_frontier",
    "summarize",
    "verdict",
]
