"""A ``set_params`` during a fit cannot change what the scaler draws after
its charge (red team, issue 38): the fit reads a snapshot of its parameters
taken when it began. The interleaving is forced with an accountant whose
``charge`` changes the estimator's parameters, as another thread could."""

import numpy as np
import pytest

from dppca import PrivateStandardScaler
from dppca.privacy.accounting import Accountant

pytestmark = pytest.mark.privacy

X = np.random.default_rng(3).uniform(-1.0, 1.0, (500, 4))


class MeddlingAccountant(Accountant):
    """Charges as usual, then changes the scaler's parameters."""

    target = None
    changes: dict = {}

    def charge(self, records, label="release"):
        spent = super().charge(records, label)
        self.target.set_params(**self.changes)
        return spent


def fitted(changes=None):
    ledger = MeddlingAccountant(5.0, 1e-5)
    scaler = PrivateStandardScaler(
        epsilon=1.0,
        delta=1e-6,
        bounds=(-1.0, 1.0),
        random_state=11,
        accountant=ledger,
    )
    ledger.target, ledger.changes = scaler, changes or {}
    return scaler.fit(X), ledger


@pytest.mark.parametrize(
    "changes",
    [
        {"noise": "float"},
        {"random_state": 12},
        {"epsilon": 50.0, "delta": 1e-2},
        {"bounds": (-2.0, 2.0)},
    ],
    ids=lambda c: ",".join(c),
)
def test_parameters_changed_after_the_charge_change_nothing(changes):
    plain, _ = fitted()
    meddled, ledger = fitted(changes)
    np.testing.assert_array_equal(meddled.mean_, plain.mean_)
    np.testing.assert_array_equal(meddled.scale_, plain.scale_)
    assert meddled.privacy_releases_ == plain.privacy_releases_
    assert tuple(ledger.releases) == tuple(meddled.privacy_releases_)
    # the change itself took effect, for the next fit
    assert all(meddled.get_params()[k] == v for k, v in changes.items())
