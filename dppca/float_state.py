"""The package's own floating-point error state.

numpy and ``scipy.special`` report floating-point events (overflow,
underflow, division by zero, invalid operations) according to an error state
that belongs to the *caller*: ``np.errstate(under="raise")`` around a call
makes an underflow raise ``FloatingPointError`` inside it, and
``under="warn"`` makes it print a ``RuntimeWarning``. Whether such an event
happens depends on the data (one subnormal entry in one row is enough), so if
the caller's state reached the computations on private rows, whether a fit
returns, raises or warns would depend on one person's row: a release that no
noise protects.

Every public entry point that touches private rows therefore runs under the
package's own state, :func:`private_float_state`: every event ignored. This
changes no value (an error state only decides how events are *reported*), so
releases are the same under every caller state; the package's explicit
checks (non-finite inputs, rows above their bound, non-finite results) decide
refusals, before any charge, from public facts or from checks whose outcome
the guarantee covers.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import TypeVar

import numpy as np
import scipy.special

F = TypeVar("F", bound=Callable)


@contextlib.contextmanager
def private_float_state() -> Iterator[None]:
    """Ignore every floating-point event of numpy and ``scipy.special``.

    numpy's error state is a context variable (per thread and per task), so
    this is safe to use from several threads at once.
    """
    with np.errstate(all="ignore"), scipy.special.errstate(all="ignore"):
        yield


def owns_float_state(func: F) -> F:
    """Run ``func`` under :func:`private_float_state` whatever the caller's
    error state (decorator for entry points that read private rows)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with private_float_state():
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
