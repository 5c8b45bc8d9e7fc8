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

from ..privacy.private_bounds import check_quantile
from ..samplers import bingham
from ..validation import check_choice, check_positive, check_positive_int
from . import (
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


def _streaming(options, n, d, k, epsilon):
    plan = streaming_schedule.streaming_plan(
        n,
        k,
        batch_size=options.get("batch_size"),
        n_steps=options.get("n_steps"),
    )
    if options.get("clip_quantile") is not None:
        check_quantile(options["clip_quantile"])
    streaming_step.radius_candidates_range(
        None,
        options.get("norm_range", streaming_step.DEFAULT_NORM_RANGE),
        options.get("radius_window", streaming_step.DEFAULT_RADIUS_WINDOW),
    )
    if options.get("eigengap") is not None:
        gap = check_positive(options["eigengap"], "eigengap")
        if not math.isfinite(gap):
            raise ValueError("eigengap must be finite")
    rate = options.get("learning_rate")
    if rate is not None and not callable(rate):
        raise ValueError("learning_rate must be a callable")
    if rate is not None:
        _check_rates(rate, plan.n_steps)


def _check_rates(rate, n_steps):
    """A learning rate ``t -> η_t`` evaluated at every step of the public
    schedule (``t = 1, ..., n_steps``) before any charge: each value a
    number > 0 (``inf`` is a power step, as the default schedule's first
    steps), and no exception (a fit would otherwise spend its budget and
    then fail halfway through the pass)."""
    for t in range(1, n_steps + 1):
        try:
            eta = float(rate(t))
        except Exception as error:  # the caller's code, on public t only
            raise ValueError(
                f"learning_rate({t}) raised {type(error).__name__}: {error}"
            ) from error
        if not eta > 0:  # refuses nan, zero and negative rates
            raise ValueError(
                f"learning_rate({t}) = {eta!r}: every step's rate must be a "
                "number > 0 (inf for a power step)"
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
    "streaming": _streaming,
    "mod_sulq": _mod_sulq,
}


def check_mechanism_options(name, options, n, d, k, epsilon) -> None:
    """Raise ``ValueError`` for any option value that mechanism ``name``
    would refuse, from the public ``n, d, k, ε`` only."""
    check = CHECKS.get(name)
    if check is not None:
        check(dict(options), int(n), int(d), int(k), float(epsilon))


__all__ = ["CHECKS", "check_mechanism_options"]
