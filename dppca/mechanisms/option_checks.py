"""Checks of ``PrivatePCA``'s ``mechanism_options`` from public values only.

:class:`dppca.PrivatePCA` runs these before it reads a row or charges a budget
(a fit refuses from its public parameters, before any charge). Each mechanism's
function validates its options again when it runs; the checks here catch every
value that function would refuse, using only ``n``, ``d``, ``k`` and ``ε``,
so that no option error can surface after the budget is spent.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..linalg import float_error
from ..privacy.quantile_scores import check_quantile
from ..samplers import bingham
from ..validation import check_choice, check_positive, check_positive_int
from . import (
    coinpress,
    covariance,
    exponential,
    streaming_schedule,
    streaming_step,
    trace_sensitive_radius,
)


def _bool(options, name):
    value = options.get(name)
    if value is not None and not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}")


def _concentration(n, epsilon):
    """B = (n ε / 2) A has eigenvalue spread at most n ε / 2 (A's eigenvalues
    lie in [0, 1]): refused on that public value, so the samplers' own check
    of the data's B can never fire."""
    bingham.check_concentration(n * epsilon / 2 * (1 + 1e-8))


def _ppca(options, n, d, k, epsilon):
    check_choice(
        options.get("sampler", "fast"), exponential.SAMPLERS, "sampler"
    )
    if options.get("n_sweeps") is not None:
        check_positive_int(options["n_sweeps"], "n_sweeps")
    start = options.get("V0")
    if start is not None and not isinstance(start, str):
        bingham.start_frame(start, d, k, rng=None)  # shape and orthonormality
    _concentration(n, epsilon)


def _amin(options, n, d, k, epsilon):
    check_choice(
        options.get("method", "eigenbasis"), covariance.METHODS, "method"
    )
    if options.get("vector_weights") is not None:
        covariance.check_vector_weights(options["vector_weights"], k)
    _concentration(n, epsilon)


def _power_method(options, n, d, k, epsilon):
    p = options.get("block_size")
    if p is not None:
        p = check_positive_int(p, "block_size")
        if not k <= p <= d:
            raise ValueError(
                f"block_size must satisfy k <= block_size <= d = {d}"
            )
    if options.get("n_iterations") is not None:
        check_positive_int(options["n_iterations"], "n_iterations")
    check_choice(
        options.get("calibration", "zcdp"), ("zcdp", "gdp"), "calibration"
    )


def _trace_sensitive(options, n, d, k, epsilon):
    beta = options.get("beta")
    if beta is not None and not 0 < float(beta) < 1:
        raise ValueError(f"beta must lie in (0, 1); got {beta!r}")
    if "selection" in options:
        check_choice(
            options["selection"], trace_sensitive_radius.SELECTIONS, "selection"
        )


def _coinpress(options, n, d, k, epsilon):
    if "centre" in options:
        raise ValueError(
            "coinpress takes its centre from PrivatePCA's center, not from "
            "mechanism_options"
        )
    t = options.get("n_iterations", coinpress.DEFAULT_ITERATIONS)
    t = check_positive_int(t, "n_iterations")
    # d ≥ 2, n, ε, t and the shares, as the release will check them (δ is
    # the estimator's, checked there; any δ in (0, 1) serves here)
    coinpress.coinpress_calibration(
        n, d, epsilon, 0.5, n_iterations=t, shares=options.get("shares")
    )
    beta = options.get("beta")
    if beta is not None and not 0 < float(beta) < 1:
        raise ValueError(f"beta must lie in (0, 1); got {beta!r}")
    if options.get("cov_upper") is not None:
        coinpress.check_cov_upper(options["cov_upper"])


def _streaming(options, n, d, k, epsilon):
    plan = streaming_schedule.streaming_plan(
        n,
        k,
        batch_size=options.get("batch_size"),
        n_steps=options.get("n_steps"),
    )
    if options.get("clip_quantile") is not None:
        check_quantile(options["clip_quantile"])
    norm_range = options.get("norm_range", streaming_step.DEFAULT_NORM_RANGE)
    lo, hi = streaming_step.radius_candidates_range(
        None,
        norm_range,
        options.get("radius_window", streaming_step.DEFAULT_RADIUS_WINDOW),
    )
    # every candidate radius is a clipping bound: the float64 error bounds of
    # the clipped sums are verified on [MIN_BOUND, MAX_MAGNITUDE] only, and a
    # radius released outside it made the pass fail after the charge, on
    # some data sets and not others (red team, round 12)
    if not (float_error.MIN_BOUND <= lo and hi <= float_error.MAX_MAGNITUDE):
        raise ValueError(
            f"norm_range must lie within [{float_error.MIN_BOUND:g}, "
            f"{float_error.MAX_MAGNITUDE:g}], where the clipped sums' float64 "
            f"error bounds are verified; got {norm_range!r}"
        )
    if options.get("eigengap") is not None:
        gap = check_positive(options["eigengap"], "eigengap")
        if not math.isfinite(gap):
            raise ValueError("eigengap must be finite")
    rate = options.get("learning_rate")
    if rate is not None and not callable(rate):
        raise ValueError("learning_rate must be a callable")
    if rate is not None:
        # evaluated once, here, before the charge: the pass reads this table
        options["learning_rate"] = streaming_schedule.rate_table(
            rate, plan.n_steps
        )


def _mod_sulq(options, n, d, k, epsilon):
    _bool(options, "exact_beta")


#: The checks by mechanism name (the others take only options that their
#: guarantee record already checks: noise, granularity, calibration).
CHECKS: dict[str, Callable] = {
    "ppca": _ppca,
    "amin": _amin,
    "noisy_power_method": _power_method,
    "trace_sensitive": _trace_sensitive,
    "coinpress": _coinpress,
    "streaming": _streaming,
    "mod_sulq": _mod_sulq,
}


def check_mechanism_options(name, options, n, d, k, epsilon) -> dict:
    """Raise ``ValueError`` for any option value that mechanism ``name``
    would refuse, from the public ``n, d, k, ε`` only. Returns the options
    the mechanism is to run with: a copy, in which a streaming
    ``learning_rate`` callable is replaced by the table of its values
    (:class:`~dppca.mechanisms.streaming_schedule.RateTable`), read once."""
    options = dict(options)
    check = CHECKS.get(name)
    if check is not None:
        check(options, int(n), int(d), int(k), float(epsilon))
    return options


__all__ = ["CHECKS", "check_mechanism_options"]
