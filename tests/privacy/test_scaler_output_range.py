"""Red team 25: a float32 pipeline of ``PrivateStandardScaler(with_std=
False)`` on ranges wider than float32 holds and a private step saw ``inf``
only when one row lay far from the mean, and the step refused it after the
scaler's charge. The scaler now refuses such ranges from public values (the
ranges, the flags, the dtype) before any charge, alike on neighbours."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline

from dppca import PrivateCovariance, PrivateStandardScaler, budgeted_grid_search
from dppca.privacy.accounting import Accountant
from dppca.scaler_bounds import check_output_range

D = np.full((60, 2), -3e38, dtype=np.float32)
D_PRIME = D.copy()
D_PRIME[0] = 3e38  # one row replaced


def _pipeline(**scaler):
    return make_pipeline(
        PrivateStandardScaler(bounds=(-3e38, 3e38), delta=1e-7, **scaler),
        PrivateCovariance(data_norm=1.0, delta=1e-7, center=False),
    )


@pytest.mark.parametrize("search", [True, False])
def test_neighbours_are_refused_alike_before_any_charge(search):
    outcomes = []
    for X in (D, D_PRIME):
        ledger = Accountant(4.0, 1e-5)
        est = _pipeline(with_std=False, accountant=None if search else ledger)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError) as caught:
                if search:
                    budgeted_grid_search(
                        est, {"privatecovariance__data_norm": [0.5, 1.0]},
                        ledger, X, cv=3, random_state=0,
                    )  # fmt: skip
                else:
                    est.fit(X)
        outcomes.append((str(caught.value), ledger.releases))
    assert outcomes[0] == outcomes[1]
    assert "too wide for float32" in outcomes[0][0]
    assert outcomes[0][1] == ()


def test_what_stays_finite_still_runs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for X in (D, D_PRIME):
            out = (
                _pipeline(with_std=True, random_state=0)[0].fit(X).transform(X)
            )
            assert np.isfinite(out).all() and out.dtype == np.float32
            wide = _pipeline(with_std=False, random_state=0)[0]
            assert np.isfinite(
                wide.fit(X.astype(np.float64)).transform(X.astype(np.float64))
            ).all()


@pytest.mark.parametrize(
    "with_mean, bounds, refused",
    [
        (True, (-2e38, 2e38), True),  # width 4e38
        (True, (1e38, 3e38), False),  # width 2e38
        (False, (1e38, 5e38), True),  # clip(x) up to 5e38
        (False, (-1e38, 1e38), False),
    ],
)
def test_the_reach_of_each_flag(with_mean, bounds, refused):
    est = PrivateStandardScaler(bounds, with_mean=with_mean, with_std=False)
    lower, upper = np.array([bounds[0]]), np.array([bounds[1]])
    if refused:
        with pytest.raises(ValueError, match="too wide"):
            check_output_range(est, lower, upper, np.float32)
    else:
        check_output_range(est, lower, upper, np.float32)
    check_output_range(est, lower, upper, np.float64)  # float64 holds all
