"""validation.check_public_box, the one check of a public per-feature box
(PrivatePCA's feature_range, PrivateStandardScaler's bounds): real numbers
only, refused before any charge (red team 16)."""

from __future__ import annotations

import numpy as np
import pytest

from dppca import PrivatePCA
from dppca.privacy.accounting import Accountant
from dppca.scaler import PrivateStandardScaler
from dppca.validation import check_public_box

BAD_SIDES = [
    (False, True),
    ([0.0, 0.0], [True, True]),
    ([0.0, False], [1.0, True]),
    (np.array([0, 0], dtype=object), np.array([True, True], dtype=object)),
    ("-1", "1"),
    (b"0", b"1"),
    (np.datetime64(0, "s"), np.datetime64(1, "s")),
    (0.0, np.array([1 + 9j, 1.0])),
    (None, 1.0),
]


@pytest.mark.parametrize("sides", BAD_SIDES)
def test_a_side_that_is_not_real_numbers_is_refused(sides):
    with pytest.raises(ValueError, match="real numbers"):
        check_public_box(sides, 2, "box")


@pytest.mark.parametrize("sides", BAD_SIDES)
def test_both_estimators_refuse_it_before_any_charge(sides):
    X = np.random.default_rng(0).uniform(0.1, 0.9, (50, 2))
    for estimator in (
        lambda acc: PrivateStandardScaler(
            bounds=sides, epsilon=1.0, accountant=acc, random_state=0
        ),
        lambda acc: PrivatePCA(
            1,
            epsilon=1.0,
            delta=1e-6,
            feature_range=sides,
            accountant=acc,
            random_state=0,
        ),
    ):
        acc = Accountant(10.0, 1e-3)
        with pytest.raises((ValueError, TypeError)):
            estimator(acc).fit(X)
        assert tuple(acc.spent) == (0.0, 0.0)


def test_real_sides_of_every_numeric_kind_pass():
    lower, upper = check_public_box(
        (np.int64(-1), [np.float32(1.0), 2]), 2, "box"
    )
    np.testing.assert_array_equal(lower, [-1.0, -1.0])
    np.testing.assert_array_equal(upper, [1.0, 2.0])
    assert lower.dtype == upper.dtype == np.float64
