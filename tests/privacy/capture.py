"""Seeing what a mechanism receives: the second moment the estimator hands
to Analyze Gauss, captured on its way in (the estimator looks the function
up at call time)."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from dppca.mechanisms import input_perturbation


@contextmanager
def second_moments_seen():
    """Within the block, every matrix handed to
    ``analyze_gauss_from_second_moment`` is appended to the yielded list."""
    seen = []
    original = input_perturbation.analyze_gauss_from_second_moment

    def capture(A, n, *args, **kwargs):
        seen.append(np.array(A))
        return original(A, n, *args, **kwargs)

    input_perturbation.analyze_gauss_from_second_moment = capture
    try:
        yield seen
    finally:
        input_perturbation.analyze_gauss_from_second_moment = original
