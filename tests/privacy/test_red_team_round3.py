"""Second no-context red team of issue 38's fixes: three outcomes that
differed between neighbours after a charge, each now refused before any
charge or unable to reach the fit."""

import warnings

import numpy as np
import pytest

from dppca import PrivatePCA, budgeted_grid_search
from dppca.privacy.accounting import Accountant, BudgetExceededError

pytestmark = pytest.mark.privacy


def neighbours(n=30, d=3, seed=0):
    D = np.random.default_rng(seed).uniform(-0.5, 0.5, (n, d))
    D_prime = D.copy()
    D_prime[-1] = [2.0] + [0.0] * (d - 1)  # above the public bound 1
    return D, D_prime


def pca(**extra):
    return PrivatePCA(
        1,
        data_norm=1.0,
        epsilon=1.0,
        delta=1e-5,
        centered_norm=None,
        center=False,
        **extra,
    )


@pytest.mark.parametrize(
    "estimator, grid",
    [
        (pca(), {"clip": [True, False]}),  # clip=False as a grid value
        (pca(clip=np.False_), {"n_components": [1, 2]}),  # a numpy bool
    ],
    ids=["grid-value", "numpy-bool"],
)
def test_a_false_clip_anywhere_is_refused_before_any_fit(estimator, grid):
    for X in neighbours():
        ledger = Accountant(20.0, 1e-3)
        with pytest.raises(ValueError, match="clip=False"):
            budgeted_grid_search(
                estimator, grid, ledger, X, cv=3, random_state=0
            )
        assert len(ledger.releases) == 0


def test_a_selection_epsilon_too_small_to_draw_is_refused_before_any_fit():
    X, _ = neighbours()
    ledger = Accountant(20.0, 1e-3)
    with pytest.raises(BudgetExceededError, match="too small"):
        budgeted_grid_search(
            pca(),
            {"n_components": [1, 2]},
            ledger,
            X,
            cv=3,
            selection_epsilon=1e-13,
            random_state=0,
        )
    assert len(ledger.releases) == 0


class ChangesCentreOnCharge(Accountant):
    """Charges, then changes the estimator's centre array in place."""

    centre = None

    def charge(self, records, label="release"):
        spent = super().charge(records, label=label)
        self.centre[0] = 0.5
        return spent


@pytest.mark.parametrize("mechanism", ["analyze_gauss", "laplace"])
def test_a_centre_changed_in_place_after_the_charge_changes_nothing(
    mechanism,
):
    D = np.zeros((20, 3))
    D[:, 0] = 1.0
    D_prime = D.copy()
    D_prime[0] = [-1.0, 0.0, 0.0]
    for X in (D, D_prime):
        ledger = ChangesCentreOnCharge(10.0, 1e-3)
        ledger.centre = centre = np.zeros(3)
        estimator = PrivatePCA(
            1,
            mechanism=mechanism,
            data_norm=1.0,
            center=centre,
            clip=False,
            epsilon=1.0,
            delta=None if mechanism == "laplace" else 1e-5,
            accountant=ledger,
            random_state=0,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            estimator.fit(X)  # before: D′ raised after the charge
        np.testing.assert_array_equal(estimator.mean_, np.zeros(3))
        assert centre[0] == 0.5  # the change happened, during the fit
