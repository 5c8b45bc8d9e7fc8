"""The noisy power method with one vector on a *computed* second moment
(red team 18): the float-error proposition bounds neighbouring computed
matrices in Frobenius norm only, so ``‖(fl A − fl A')v‖`` may exceed the
``1/n`` the one-vector step is calibrated to by ``(√2 − 1)(1 − s²)/n``;
``product_shrink(..., input_shrink=s)`` absorbs it, and the estimator
passes its matrix's shrink."""

import math

import numpy as np
import pytest

from dppca import PrivatePCA
from dppca.linalg import float_error as fe
from dppca.mechanisms import power_method
from dppca.validation import ROW_NORM_TOLERANCE


def _worst_step(n, d, shrink_of_product, s):
    """The largest move of one computed step ``s_p fl(A) v`` between
    neighbours allowed by the float-error proposition (its (★) terms) and
    ``product_shrink``'s own product error, for rows shrunk to ``s``."""
    p = 1
    _, _, M = fe._chunk_plan(n, fe.default_chunk_rows(d))
    input_error = 2 * fe.rounding_gamma(M) * s * s + 2 * d * 2.0**-1070
    t = (1.0 + ROW_NORM_TOLERANCE) ** 2
    q = math.sqrt(p) * fe.rounding_gamma(16 * d * p)
    e = fe.rounding_gamma(d + 3) * t * (1.0 + q) * math.sqrt(p)
    return shrink_of_product * ((1 + q) * t * (s * s / n + input_error) + 2 * e)


@pytest.mark.parametrize("n", [10**4, 10**6, 2**27])
@pytest.mark.parametrize("d", [5, 64])
def test_the_step_stays_within_its_sensitivity(n, d):
    s = 1.0 - fe.float_error_shrink(n, d)
    with_input = power_method.product_shrink(n, d, 1, d, input_shrink=s)
    assert _worst_step(n, d, with_input, s) <= 1.0 / n
    if n == 2**27:  # the gap the fix closes: visible at the default cap
        without = power_method.product_shrink(n, d, 1, d)
        assert _worst_step(n, d, without, s) > 1.0 / n


def test_blocks_of_two_or_more_are_unchanged():
    # their Frobenius calibration is what the proposition bounds
    for p in (2, 3):
        assert power_method.product_shrink(
            1000, 10, p, 10, input_shrink=0.9
        ) == power_method.product_shrink(1000, 10, p, 10)


def test_input_shrink_is_checked():
    with pytest.raises(ValueError, match="input_shrink"):
        power_method.product_shrink(1000, 10, 1, 10, input_shrink=1.5)


def test_the_estimator_passes_its_matrix_shrink(monkeypatch):
    seen = []
    original = power_method.product_shrink

    def recording(n, d, p, summands=None, input_shrink=None):
        seen.append(input_shrink)
        return original(n, d, p, summands, input_shrink)

    monkeypatch.setattr(power_method, "product_shrink", recording)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    X /= np.max(np.linalg.norm(X, axis=1))
    PrivatePCA(
        1,
        epsilon=2.0,
        delta=1e-6,
        mechanism="noisy_power_method",
        data_norm=1.0,
        center=False,
        random_state=0,
    ).fit(X)
    expected = 1.0 - fe.float_error_shrink(300, 6)
    assert seen and all(v is not None for v in seen)
    assert seen[0] == pytest.approx(expected, abs=1e-12)
