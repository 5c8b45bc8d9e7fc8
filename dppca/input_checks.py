"""Refusing malformed data without printing it.

An error message is part of what a caller observes: it may be logged, shown
or returned by a service. The messages of scikit-learn and NumPy print a 1-D
array's values, a ragged sequence's shapes, an entry that is not a number, a
complex matrix whole, and the shape, ``n`` included, of an array without
columns. The estimators and the functional entry points check ``X`` here
first (:func:`check_public_shape`), with messages that name neither a value
nor, where it is private (add/remove neighbours), the number of rows.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse


def check_public_shape(X, *, name: str = "X", rows_private=True) -> None:
    """Refuse malformed ``X`` with a message that prints neither its values
    nor its number of rows: not two-dimensional (a ragged sequence
    included), complex entries, entries that are not numbers, and, when
    the number of rows is private (``rows_private``), no column.

    An error message is part of what a caller observes (it may be logged or
    shown): scikit-learn's and NumPy's own messages print a 1-D array's
    values, a ragged sequence's shapes, an entry that is not a number, a
    complex matrix whole, and the shape (``n`` included) of an array without
    columns, which is public under replace-one neighbours but not under
    add/remove (red teams 21 and 23). Checked before them; the messages
    keep the words scikit-learn's estimator checks look for ("Complex data
    not supported", "argument must be a string or a real number").

    Parameters
    ----------
    X : array-like or sparse matrix
        The data.
    name : str, default="X"
        The name the message gives it.
    rows_private : bool, default=True
        Whether the number of rows is private (add/remove neighbours).
    """
    if scipy.sparse.issparse(X):
        arr, shape = None, X.shape
    elif hasattr(X, "dtypes") and hasattr(X, "shape"):  # a DataFrame
        arr, shape = None, X.shape
        if any(np.dtype(t).kind not in "biuf" for t in X.dtypes):
            arr = np.asarray(X)  # mixed or object columns: look inside
    else:
        try:
            arr = np.asarray(X)
        except (TypeError, ValueError):  # ragged nested sequences
            raise ValueError(
                f"{name} must be a 2-D array of shape (n, d) with one row "
                "per person; got a ragged sequence (rows of unequal lengths)"
            ) from None
        shape = arr.shape
    if len(shape) != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n, d) with one row per "
            f"person; got a {len(shape)}-D array"
        )
    if rows_private and shape[1] is not None and shape[1] < 1:
        raise ValueError(f"{name} must have at least one column; got none")
    if arr is not None:
        _check_public_entries(arr, name)


def _check_public_entries(arr: np.ndarray, name: str) -> None:
    """Complex entries, and entries that cannot be read as real numbers,
    refused without printing them (:func:`check_public_shape`)."""
    kind = arr.dtype.kind
    if kind == "c":
        raise ValueError(
            f"Complex data not supported: {name} has complex entries (the "
            "message does not print them)"
        )
    if kind in "biuf":
        return
    if kind == "O" and any(
        isinstance(v, (complex, np.complexfloating)) for v in arr.ravel()
    ):
        raise ValueError(
            f"Complex data not supported: {name} has complex entries (the "
            "message does not print them)"
        )
    try:
        arr.astype(np.float64)
    except TypeError:
        raise TypeError(
            "float() argument must be a string or a real number: "
            f"{name} holds an entry of another type (not printed)"
        ) from None
    except ValueError:
        raise ValueError(
            f"{name} holds an entry that is not a number (not printed)"
        ) from None


__all__ = ["check_public_shape"]
