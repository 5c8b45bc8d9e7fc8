"""One fit at a time per estimator object.

A fit of :class:`dppca.PrivatePCA` or :class:`dppca.PrivateStandardScaler`
plans its releases, charges them, reads the rows and then writes its fitted
attributes. Two threads fitting the *same* object at once would race on
those attributes (and on any state a fit kept on the object between its
steps, which could let one fit release what only the other had charged).
scikit-learn's own tools never do this: they clone the estimator
for every fit. So a second fit of an object that another thread is fitting
is refused, before it reads its parameters, charges a ledger or draws any
noise, with a ``RuntimeError`` that says to fit a clone.

The guard keeps nothing on the estimator (a lock there would break
``pickle``, ``clone`` and joblib): a module-level lock protects a table from
``id(estimator)`` to the thread fitting it. An entry lives only while its
fit runs, and the fit holds a reference to the estimator, so the id cannot
be reused by another object meanwhile. A fit that calls another guarded fit
of the same object in the same thread (a subclass's ``fit`` calling
``super().fit``) is one fit, not two, and is let through. After ``fork`` the
child keeps only the entries of the thread that forked (the others do not
exist there).

The wrappers add frames between a fit's code and its caller, so a warning
about a fit finds its caller with :func:`caller_stacklevel` rather than a
fixed ``stacklevel``.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from .exceptions import in_library

F = TypeVar("F", bound=Callable)

#: The methods :class:`OneFitAtATime` guards on every subclass that
#: defines them.
GUARDED_METHODS = ("fit", "partial_fit")

#: The modules of a fit's machinery: a warning about a fit names the first
#: frame outside them (the line that called ``fit``).
FIT_MODULES = frozenset(
    {
        "dppca.base",
        "dppca.covariance.estimator",
        "dppca.covariance.plan",
        "dppca.covariance.release",
        "dppca.decomposition.parameters",
        "dppca.decomposition.pca",
        "dppca.decomposition.plan",
        "dppca.decomposition.release",
        "dppca.fit_guard",
        "dppca.float_state",
        "dppca.scaler",
    }
)

_lock = threading.Lock()
#: ``id(estimator) -> [thread ident, depth]`` of every fit running now.
_fitting: dict[int, list] = {}


def _after_fork_in_child() -> None:
    global _lock
    _lock = threading.Lock()  # another thread may have held it
    me = threading.get_ident()
    for key in [k for k, (owner, _) in _fitting.items() if owner != me]:
        del _fitting[key]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _enter(est) -> None:
    me = threading.get_ident()
    with _lock:
        entry = _fitting.get(id(est))
        if entry is None:
            _fitting[id(est)] = [me, 1]
            return
        if entry[0] == me:
            entry[1] += 1
            return
    raise RuntimeError(
        f"this {type(est).__name__} is being fitted in another thread; fit a "
        "clone (sklearn.base.clone) in each thread instead. Two fits of one "
        "object at once would share its fitted attributes. Nothing was "
        "charged or drawn."
    )


def _leave(est) -> None:
    with _lock:
        entry = _fitting.get(id(est))
        if entry is None:  # forgotten in a forked child
            return
        entry[1] -= 1
        if entry[1] == 0:
            del _fitting[id(est)]


def caller_stacklevel(inner: int = 0) -> int:
    """The ``stacklevel`` for a warning issued ``inner`` frames below the
    function calling this one (0: by that function itself) that names the
    first frame outside ``FIT_MODULES`` (the package's fit code) and the
    rest of the library (a grid search's checks, which plan a fit): the
    caller of ``fit`` however many wrappers and steps lie between."""
    frame, level = sys._getframe(1), 1
    while frame is not None and (
        frame.f_globals.get("__name__") in FIT_MODULES or in_library(frame)
    ):
        frame, level = frame.f_back, level + 1
    return level + inner


def being_fitted(est) -> bool:
    """Whether some thread is fitting ``est`` now."""
    with _lock:
        return id(est) in _fitting


def one_fit_at_a_time(method: F) -> F:
    """Refuse a call of ``method`` (a ``fit``) on an object that another
    thread is fitting, before the method runs (module docstring)."""
    if getattr(method, "__one_fit_at_a_time__", False):
        return method

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        _enter(self)
        try:
            return method(self, *args, **kwargs)
        finally:
            _leave(self)

    guarded.__one_fit_at_a_time__ = True
    return guarded  # type: ignore[return-value]


class OneFitAtATime:
    """Mixin: every subclass's own ``fit`` (and ``partial_fit``) is wrapped
    in :func:`one_fit_at_a_time` when the class is made, so an estimator
    that subclasses a private one keeps the guard."""

    def __init_subclass__(cls, **kwargs):
        for name in GUARDED_METHODS:
            method = cls.__dict__.get(name)
            if callable(method):
                setattr(cls, name, one_fit_at_a_time(method))
        super().__init_subclass__(**kwargs)


__all__ = [
    "GUARDED_METHODS",
    "OneFitAtATime",
    "being_fitted",
    "caller_stacklevel",
    "one_fit_at_a_time",
]
