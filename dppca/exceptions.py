"""The package's warnings and errors, in one place.

Warnings:

- :class:`PrivacyWarning`: a call that runs but weakens or voids the privacy
  guarantee a caller may expect; its subclasses
  :class:`UnprovedGuaranteeWarning` (the claim is not fully proved for the
  program as it runs) and :class:`NotPrivateWarning` (the release is not, or
  may not be, differentially private as called);
- :class:`UtilityWarning`: the forecast cannot show that a fit beats a random
  subspace.

Errors: :class:`BudgetExceededError` (an accountant refuses a charge) and its
subclass :class:`LedgerCopyError` (a copy of a ledger in another process was
asked to charge). Invalid arguments raise ``ValueError`` or ``TypeError``.

Every warning of the package goes through :func:`warn`, so that a caller
inside the package can silence some classes for its own context only
(:func:`silenced`: this thread or asyncio task, never the process-wide
filters of :mod:`warnings`, which other threads share).

Light on purpose (no import from the rest of the package): every module, a Dask
worker's included, can import it.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import warnings

#: The warning classes silenced in the current context (thread or task).
_SILENCED: contextvars.ContextVar[tuple] = contextvars.ContextVar(
    "dppca_silenced_warnings", default=()
)


class PrivacyWarning(UserWarning):
    """A call that runs but weakens or voids the privacy guarantee the caller
    may expect.

    Raised (as a warning, at call time) for a mechanism that is not
    differentially private as published, for settings under which a stated
    guarantee is only approximate, and for other privacy-relevant misuse that is
    not an error. Turn it into an error with ``warnings.simplefilter("error",
    dppca.PrivacyWarning)``.
    """


class UnprovedGuaranteeWarning(PrivacyWarning):
    """A release whose privacy claim is not fully proved for the program as
    it runs (float noise, a float sampler, an approximate sampler or a
    data-dependent start); the record's ``caveat`` says which."""


class NotPrivateWarning(PrivacyWarning):
    """A release that is not differentially private, or may not be, as
    called: a mechanism that is not DP as published (the Wishart mechanism of
    chapter 3), or a sampler started from a frame the caller supplies, which
    voids the guarantee if it was computed from the private data."""


class UtilityWarning(UserWarning):
    """The forecast cannot show that a fit beats a random subspace, even on
    the most favourable data within its bounds: its loss bound is at least
    what a random k-subspace loses there (:mod:`dppca.forecast`). The bound
    is often loose, so the fit may still do much better; the warning only
    says the forecast cannot vouch for it."""


class BudgetExceededError(RuntimeError):
    """A release would take the composed privacy loss past the budget; raised
    before any of its noise is drawn."""


class LedgerCopyError(BudgetExceededError):
    """A copy of an :class:`~dppca.privacy.accounting.Accountant` in another
    process (a joblib or multiprocessing worker) was asked to charge a
    release: refused before any noise is drawn, since the caller's ledger
    would never see the charge."""


def in_library(frame) -> bool:
    """Whether ``frame`` runs the package's library code (``dppca`` outside
    ``dppca.book``, whose functions are the book's own callers)."""
    name = frame.f_globals.get("__name__", "")
    return (name == "dppca" or name.startswith("dppca.")) and not (
        name == "dppca.book" or name.startswith("dppca.book.")
    )


def warn(message, category, stacklevel: int | None = 1) -> None:
    """:func:`warnings.warn` unless ``category`` is silenced in this context
    (:func:`silenced`); ``stacklevel`` as there, counted from the caller, or
    ``None`` for the first frame outside the library: the caller's line
    however many of the package's functions lie between (a composition
    reached from an accountant inside a fit, a grid search's helpers)."""
    if issubclass(category, _SILENCED.get()):
        return
    if stacklevel is None:
        frame, stacklevel = sys._getframe(1), 1
        while frame is not None and in_library(frame):
            frame, stacklevel = frame.f_back, stacklevel + 1
    warnings.warn(message, category, stacklevel=stacklevel + 1)


@contextlib.contextmanager
def silenced(*categories):
    """Within the block, :func:`warn` drops warnings of ``categories`` (and
    their subclasses) raised in this thread or task only: the estimator runs
    a mechanism function under it after warning in its own words, and other
    threads keep every warning (``warnings.catch_warnings`` would change the
    process-wide filters for the duration).

    For the package's own calls, which run a function to its end inside the
    block. Context variables are copied into tasks created in the block (an
    ``asyncio`` task started there stays silenced after the block ends), and
    a generator suspended inside the block cannot leave it in another
    context: do not create tasks or yield inside it."""
    token = _SILENCED.set(_SILENCED.get() + tuple(categories))
    try:
        yield
    finally:
        _SILENCED.reset(token)


__all__ = [
    "in_library",
    "silenced",
    "warn",
    "BudgetExceededError",
    "LedgerCopyError",
    "NotPrivateWarning",
    "PrivacyWarning",
    "UnprovedGuaranteeWarning",
    "UtilityWarning",
]
