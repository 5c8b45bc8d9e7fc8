"""What the private estimators of the package share.

:class:`dppca.PrivatePCA`, :class:`dppca.PrivateStandardScaler` and
:class:`dppca.PrivateCovariance` fit in the same way: each fit reads a
frozen copy of the estimator's parameters (``_parameters``), draws its
noise from one generator made from ``random_state`` once a charge has
passed (``_generator``), warns on a refit without an accountant
(``REFIT_WARNING``) and reports a split budget's total as requested
(``_snap``); pickling a fitted estimator whose ``random_state`` fixed its
noise warns (``SharedSeedWarningMixin``, which also brings the guard
against a second concurrent fit, :mod:`dppca.fit_guard`). These
helpers are kept apart from every one estimator so that each estimator's
subpackage imports them without importing another estimator.
"""

from __future__ import annotations

import math

import numpy as np

from .exceptions import PrivacyWarning, warn
from .fit_guard import OneFitAtATime

#: What :meth:`PrivatePCA.fit` warns on a refit without an accountant.
REFIT_WARNING = (
    "refitting spends the privacy budget again: the releases of the "
    "earlier fit are still public. Track several fits with a "
    "dppca.privacy.accounting.Accountant (accountant=...)"
)


def _snap(spent, requested):
    """Report a split budget's total as requested when the parts add up to it
    up to
    rounding (the parts are ``s·t`` and ``t − s·t``: in exact arithmetic they
    sum to ``t``)."""
    out = []
    for value, total in zip(spent, requested):
        close = total is not None and math.isclose(value, total, rel_tol=1e-12)
        out.append(float(total) if close else value)
    return tuple(out)


def _generator(random_state) -> np.random.Generator:
    """A Generator for one fit. ``None``: fresh OS entropy (numpy's
    SeedSequence draws 128 bits). A RandomState hands over its whole state:
    624 32-bit outputs of its Mersenne Twister determine that state (its
    tempering is invertible); they are mixed by a SeedSequence whose pool is
    as large (624 words, every output word depending on every input bit) into
    the state of a new MT19937. So the fit's noise has the RandomState's full
    entropy, not a 31-bit seed, and the RandomState advances, as scikit-learn
    expects. A Generator likewise seeds the fit's own generator from eight
    of its 32-bit draws (256 bits), so it advances by the same number of
    draws whatever the rows: the samplers that reject proposals draw a
    number that depends on the data, which the caller's generator would
    otherwise carry out of the fit."""
    if isinstance(random_state, np.random.RandomState):
        words = random_state.randint(0, 2**32, size=624, dtype=np.uint64)
        mixed = np.random.SeedSequence(words.tolist(), pool_size=624)
        return np.random.Generator(np.random.MT19937(mixed))
    if isinstance(random_state, np.random.Generator):
        words = random_state.integers(0, 2**32, size=8, dtype=np.uint64)
        return np.random.default_rng(np.random.SeedSequence(words.tolist()))
    return np.random.default_rng(random_state)


class SharedSeedWarningMixin(OneFitAtATime):
    """Warn when a fitted estimator is pickled with the object that
    determined its noise (``random_state`` not ``None``): whoever loads the
    pickle can recompute the noise, and subtract it from the release. The
    private estimators share it, and through it the guard that refuses a
    second concurrent ``fit`` of one object (:mod:`dppca.fit_guard`)."""

    def __getstate__(self):
        state = super().__getstate__()
        fitted = any(
            key.endswith("_") and not key.startswith("_") for key in state
        )
        if self.random_state is not None and fitted:
            warn(
                f"pickling a fitted {type(self).__name__} with random_state="
                f"{type(self.random_state).__name__}: it determines the "
                "noise, which whoever loads the pickle can then recompute "
                "and remove. Fit with random_state=None to share a model",
                PrivacyWarning,
                stacklevel=2,
            )
        return state


def _parameters(est):
    """A stand-in for ``est`` that holds its parameters as the fit began,
    and nothing else: every step of the fit reads them there, so neither a
    parameter changed mid-fit (``set_params`` from another thread, or an
    array changed in place) nor an attribute of an earlier fit can reach a
    later step."""
    params = object.__new__(type(est))
    frozen = {k: _copied(v) for k, v in est.get_params(deep=False).items()}
    vars(params).update(frozen)
    return params


def _copied(value):
    """A copy of a mutable container parameter (a ``center`` array, a
    ``bound_range`` list, an options dict), so that changing it in place
    during the fit reaches no later step; other values (the accountant, a
    generator) as they are."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, (list, tuple)):
        return type(value)(_copied(v) for v in value)
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    return value


#: ``random_state`` as :class:`dppca.PrivatePCA`'s docstring shows it (the
#: other estimators refer to it).
RANDOM_STATE_PARAMETER = """
    random_state : None, int, numpy Generator or RandomState, default=None
        ``None`` draws fresh OS entropy (128 bits) at every fit. An integer
        seed makes a fit reproducible: a tool for experiments, not a secret,
        since anyone who knows it can recompute the noise. A ``RandomState``
        hands its full state to the noise; a Generator seeds the fit from a
        fixed number of its draws (so it advances by the same amount
        whatever the rows). Whatever is passed stays in the estimator's
        parameters, as scikit-learn expects, and determines the noise: a
        Generator can be rewound to its state before the fit. So an
        estimator to be shared is fitted with ``None``; pickling a fitted
        estimator whose ``random_state`` is not ``None`` warns
        (:class:`~dppca.exceptions.PrivacyWarning`).
    """

__all__ = [
    "RANDOM_STATE_PARAMETER",
    "REFIT_WARNING",
    "SharedSeedWarningMixin",
]
