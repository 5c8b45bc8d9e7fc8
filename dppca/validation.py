"""Input checks shared by every public function of :mod:`dppca`.

All mechanisms of the book assume the data model of Chaudhuri, Sarwate and Sinha
(2013, Sec. 2) and Jiang, Xie and Zhang (2016, Sec. 2): an ``n x d`` array whose
rows are individuals and whose rows have Euclidean norm at most one. Nothing
here rescales or clips silently; the explicit helpers :func:`normalize_rows` and
:func:`scale_to_unit_ball` do that when a user asks for it.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse

from .input_checks import check_public_shape

#: Slack allowed on ``||x_i|| <= 1`` for floating-point round-off of float64
#: data (relative to 1).
ROW_NORM_TOLERANCE = 1e-9

#: For data stored with less precision (float32, float16), the slack is this
#: many machine epsilons of the input's dtype (``8 * 2**-23 ≈ 9.5e-7`` for
#: float32): a row normalised to 1 in float32 is off by a few of its epsilons,
#: and must not be refused.
ROW_NORM_TOLERANCE_EPS = 8

#: Absolute slack of :func:`check_second_moment` on ``tr(A) <= 1``, ``λ_max(A)
#: <= 1`` and ``λ_min(A) >= 0``; it covers the round-off of ``A = XᵀX/n`` for
#: every ``X`` that :func:`check_data` accepts (float32 rows included: ``(1 +
#: 9.5e-7)^2 - 1 < 2e-6``).
SECOND_MOMENT_TOLERANCE = 2e-6


def row_norm_tolerance(dtype) -> float:
    """Relative slack on ``||x_i|| <= 1`` for data of ``dtype`` (see
    :data:`ROW_NORM_TOLERANCE`).

    float64 (and integer, boolean) data: :data:`ROW_NORM_TOLERANCE`; a less
    precise floating dtype: :data:`ROW_NORM_TOLERANCE_EPS` of its machine
    epsilons, whichever is larger.
    """
    dtype = np.dtype(dtype)
    if dtype.kind == "f" and dtype.itemsize < 8:
        return max(
            ROW_NORM_TOLERANCE,
            ROW_NORM_TOLERANCE_EPS * float(np.finfo(dtype).eps),
        )
    return ROW_NORM_TOLERANCE


def _real_scalar(value, name: str) -> float:
    """``value`` as a float if it is a real number (not bool, str, complex);
    else TypeError."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(
            f"{name} must be a real number, not a boolean; got {value!r}"
        )
    if isinstance(value, numbers.Real):
        return float(value)
    if (
        isinstance(value, np.ndarray)
        and value.ndim == 0
        and value.dtype.kind in "iuf"
    ):
        return float(value)
    raise TypeError(
        f"{name} must be a real number; got {value!r} of type "
        f"{type(value).__name__}"
    )


def _is_sparse(X) -> bool:
    return scipy.sparse.issparse(X)


def as_real_array(X, *, name: str = "X") -> np.ndarray:
    """``X`` as a float64 ndarray, refusing what would be converted with a
    loss of meaning.

    Raises ``TypeError`` for complex entries (NumPy would drop the imaginary
    part), strings, ragged nested sequences, non-numeric objects and
    ``scipy.sparse`` matrices (which NumPy turns into a 0-d object array); the
    message says what to pass instead.
    """
    if _is_sparse(X):
        raise TypeError(
            f"{name} is a scipy.sparse matrix, and this function needs a dense "
            "array: "
            f"pass {name}.toarray() (it needs n*d*8 bytes), or use a function "
            "that only "
            "needs XᵀX/n (the mechanisms' X entry points, "
            "dppca.linalg.second_moment), which "
            "accept sparse input"
        )
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError):  # ragged nested sequences
        # numpy's own message prints the shapes (n among them): not shown
        raise TypeError(
            f"{name} must be a rectangular array of real numbers; got a "
            "ragged sequence (rows of unequal lengths)"
        ) from None
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(
            f"{name} has complex entries; the mechanisms are defined for real "
            "data. "
            f"Pass {name}.real (or a real embedding) explicitly if that is "
            "what you mean."
        )
    if kind in "USV" or (kind == "O" and arr.size and _has_non_real(arr)):
        raise TypeError(
            f"{name} must hold real numbers; got an array of dtype {arr.dtype}"
        )
    try:
        return arr.astype(float, copy=False)
    except (TypeError, ValueError):  # numpy's message prints the entry
        raise TypeError(
            f"{name} must hold real numbers; got an entry that is not one "
            "(not printed)"
        ) from None


def _has_non_real(arr) -> bool:
    """Whether an object array holds a complex number or a string (which
    ``astype(float)``
    would drop the imaginary part of, or parse)."""
    return any(
        isinstance(v, (str, bytes, complex, np.complexfloating, np.str_))
        for v in arr.ravel()
    )


def as_generator(rng=None) -> np.random.Generator:
    """Return a :class:`numpy.random.Generator` from ``rng``.

    ``rng`` may be a Generator (returned as is, so callers share its stream), an
    integer seed or :class:`numpy.random.SeedSequence` (a new Generator), or
    ``None`` (fresh OS entropy; never a fixed seed). Booleans are refused
    (``rng=True`` would silently mean the seed 1).
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError(
            "rng must be a numpy Generator, an integer seed, a SeedSequence "
            "or None; "
            f"got the boolean {rng!r}"
        )
    if rng is None or isinstance(
        rng, (numbers.Integral, np.random.SeedSequence)
    ):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.BitGenerator):
        return np.random.Generator(rng)
    raise TypeError(
        "rng must be a numpy Generator, an integer seed, a SeedSequence or "
        f"None, got {type(rng).__name__}"
    )


def check_random_state(random_state) -> None:
    """Refuse, before any charge, a ``random_state`` that an estimator could
    not turn into a generator: ``None``, a non-negative integer seed (or an
    array of them), a :class:`numpy.random.SeedSequence`, a BitGenerator,
    a Generator or a RandomState are accepted; a boolean is a ``TypeError``
    (``True`` would silently mean the seed 1). Nothing is drawn from a
    Generator or RandomState here."""
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError(
            f"random_state must not be a boolean; got {random_state!r}"
        )
    if random_state is None or isinstance(
        random_state,
        (np.random.Generator, np.random.RandomState, np.random.BitGenerator),
    ):
        return
    try:
        np.random.SeedSequence(
            random_state.entropy
            if isinstance(random_state, np.random.SeedSequence)
            else random_state
        )
    except (TypeError, ValueError) as error:
        raise type(error)(
            "random_state must be None, a non-negative integer seed, a "
            "SeedSequence, a BitGenerator, a Generator or a RandomState; "
            f"got {random_state!r} ({error})"
        ) from error


def check_accountant(accountant) -> None:
    """``None`` or an object with the ledger's interface
    (:class:`dppca.privacy.accounting.Accountant`): anything else is a
    ``TypeError`` before any charge."""
    if accountant is None:
        return
    needed = ("charge", "can_afford", "exclusive")
    if not all(callable(getattr(accountant, name, None)) for name in needed):
        raise TypeError(
            "accountant must be None or a dppca.privacy.accounting.Accountant; "
            f"got {type(accountant).__name__}"
        )


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten_text(x: float) -> str:
    """``x`` written for a message: 1e-09 as 10⁻⁹, 2.5e-12 as 2.5×10⁻¹²."""
    text = f"{x:.3g}"
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    power = "10" + str(int(exponent)).translate(_SUPERSCRIPTS)
    return power if mantissa == "1" else f"{mantissa}×{power}"


def _check_rows(n: int, bad_rows: int, norms, tolerance: float, name: str):
    """Refuse non-finite rows and rows outside the unit ball. The messages
    name no count, norm or position of the offending rows: an error is an
    output too, and these come from private rows."""
    if bad_rows:
        raise ValueError(f"{name} contains NaN or Inf")
    if np.any(norms > 1.0 + tolerance):
        raise ValueError(
            f"{name} has rows of Euclidean norm > 1 (tolerance 1 + "
            f"{power_of_ten_text(tolerance)}); the privacy guarantees assume "
            "||x_i|| <= 1. "
            "Divide the rows by a public bound R fixed without looking at "
            "the data, clipping the longer ones (dppca.PrivatePCA does both: "
            "data_norm=R, clip=True). "
            "dppca.validation.scale_to_unit_ball(X) and "
            "dppca.validation.normalize_rows(X) read the scale from the data: "
            "the result is then NOT differentially private."
        )


def _check_size(n: int, d: int, name: str) -> None:
    """At least one row and two columns; the message names the columns
    (public) and never the number of rows."""
    if n < 1:
        raise ValueError(f"{name} must have at least 1 row; got none")
    if d < 2:
        raise ValueError(
            f"{name} must have at least 2 columns; got {d} column(s)"
        )


def check_data(X, *, name: str = "X", accept_sparse: bool = False):
    """Validate a data matrix with one row per person and return it as a
    float array.

    Raises ``ValueError`` if ``X`` is not two-dimensional with at least one row
    and two columns, contains NaN or Inf, or has rows of Euclidean norm greater
    than one (the error names the tolerance, not the rows, and points to the
    explicit rescaling helpers). The
    tolerance is :func:`row_norm_tolerance` of ``X``'s dtype: ``1e-9`` for
    float64, about ``9.5e-7`` (8 machine epsilons) for float32 data. Raises
    ``TypeError`` for complex, string or ragged input (see
    :func:`as_real_array`).

    ``scipy.sparse`` input is refused unless ``accept_sparse``; then it is
    validated without densifying (NaN/Inf among the stored entries, row norms
    from the stored entries) and returned as a float64 CSR matrix.
    """
    if _is_sparse(X):
        if not accept_sparse:
            as_real_array(X, name=name)  # raises with what to do
        return _check_sparse_data(X, name)
    tolerance = row_norm_tolerance(getattr(X, "dtype", float))
    X = as_real_array(X, name=name)
    check_public_shape(X, name=name)
    n, d = X.shape
    _check_size(n, d, name)
    # One pass: a NaN or infinite entry makes its row's sum of squares NaN or
    # infinite, so finite sums prove finite entries. Only otherwise is X
    # scanned entry by entry, to tell NaN/Inf apart from an overflowing norm.
    squares = np.einsum("ij,ij->i", X, X)
    bad = 0
    if not np.isfinite(squares).all():
        bad = int(np.sum(~np.all(np.isfinite(X), axis=1)))
    norms = np.sqrt(squares) if not bad else None
    _check_rows(n, bad, norms, tolerance, name)
    return X


def _check_sparse_data(X, name: str):
    check_public_shape(X, name=name)
    if X.dtype.kind == "c":
        as_real_array(np.zeros(1, dtype=X.dtype), name=name)
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers; got dtype {X.dtype}")
    tolerance = row_norm_tolerance(X.dtype)
    X = scipy.sparse.csr_matrix(X, dtype=float)  # a copy only when converting
    if (
        not X.has_canonical_format
    ):  # duplicate entries add up: merge them (on a copy)
        X = X.copy()
        X.sum_duplicates()
    n, d = X.shape
    _check_size(n, d, name)
    finite = np.isfinite(X.data)
    bad = 0
    if not finite.all():
        rows = np.repeat(np.arange(n), np.diff(X.indptr))
        bad = int(np.unique(rows[~finite]).size)
    norms = None
    if not bad:
        norms = np.sqrt(
            np.bincount(
                np.repeat(np.arange(n), np.diff(X.indptr)),
                weights=X.data * X.data,
                minlength=n,
            )
        )
    _check_rows(n, bad, norms, tolerance, name)
    return X


def normalize_rows(X) -> np.ndarray:
    """Return a copy of ``X`` with every non-zero row scaled to unit
    Euclidean norm."""
    X = np.array(X, dtype=float)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise ValueError("normalize_rows expects a finite 2-D array")
    norms = np.linalg.norm(X, axis=1)
    norms[norms == 0] = 1.0
    return X / norms[:, None]


def scale_to_unit_ball(X) -> np.ndarray:
    """Return ``X`` divided by its largest row norm, so the longest row has
    norm one.

    This is the normalisation of Chaudhuri et al. (2013, Sec. 6.1): one global
    factor, which keeps the relative geometry of the rows. Note that the factor
    itself depends on the data, so a mechanism run on the result is NOT
    differentially private with respect to the original rows (the book uses
    it only to reproduce the papers' experiments; a release should divide by
    a public bound instead, as :class:`dppca.PrivatePCA` does).
    """
    X = np.array(X, dtype=float)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise ValueError("scale_to_unit_ball expects a finite 2-D array")
    largest = np.linalg.norm(X, axis=1).max()
    return X / largest if largest > 0 else X


def check_public_box(sides, d: int, name: str):
    """The two sides ``(lower, upper)`` of a public per-feature box as
    float arrays of length ``d`` (a scalar side is broadcast), finite, with
    ``lower < upper`` for every feature; a ``ValueError`` naming ``name``
    (and no row value) otherwise."""
    out = []
    for side in sides:
        items = np.asarray(side, dtype=object).ravel().tolist()
        if not all(
            isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))
            for x in items
        ):
            raise ValueError(
                f"{name}: each side must hold real numbers (no booleans, "
                "strings, complex numbers or dates)"
            )
        v = np.asarray(side, dtype=float)
        if v.ndim > 1 or (v.ndim == 1 and v.shape[0] != d):
            raise ValueError(
                f"{name}: each side must be a scalar or have length "
                f"n_features = {d}; got shape {v.shape}"
            )
        out.append(np.broadcast_to(v, (d,)).copy())
    lower, upper = out
    if not np.all(np.isfinite(lower) & np.isfinite(upper)):
        raise ValueError(f"{name} must be finite")
    if not np.all(lower < upper):
        raise ValueError(f"{name}: lower < upper is needed for every feature")
    return lower, upper


def check_epsilon(epsilon) -> float:
    """Validate a privacy parameter epsilon > 0 (finite); a bool or string is
    a TypeError."""
    eps = _real_scalar(epsilon, "epsilon")
    if not np.isfinite(eps) or eps <= 0:
        raise ValueError(
            f"epsilon must be a finite number > 0; got {epsilon!r}"
        )
    return eps


def check_delta(delta) -> float:
    """Validate a privacy parameter delta in the open interval (0, 1); a bool
    or string is a
    TypeError."""
    dl = _real_scalar(delta, "delta")
    if not (0.0 < dl < 1.0):
        raise ValueError(
            f"delta must lie in the open interval (0, 1); got {delta!r}"
        )
    return dl


def check_k(k, d: int) -> int:
    """Validate a target dimension ``k`` with ``1 <= k < d``."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer; got {k!r}")
    k = int(k)
    if not (1 <= k < d):
        raise ValueError(f"k must satisfy 1 <= k < d = {d}; got k = {k}")
    return k


def check_positive_int(value, name: str) -> int:
    """Validate a positive integer (a bool, a float such as ``2.0`` or
    ``2.7``, or a string is
    refused, never truncated); returns it as an ``int``."""
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Integral)
        or value < 1
    ):
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


def check_positive(value, name: str) -> float:
    """Validate a finite number ``> 0`` (a scale, a σ, a time step); returns
    it as a ``float``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not (math.isfinite(number) and number > 0):
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return number


def check_choice(value, choices, name: str):
    """Validate a keyword that takes one of a few named values; returns it."""
    if value not in choices:
        raise ValueError(
            f"{name} must be one of {tuple(choices)}; got {value!r}"
        )
    return value


def check_n(n) -> int:
    """Validate a number of people ``n >= 1`` (an integer, not a bool or a
    float)."""
    return check_positive_int(n, "n")


def check_k_at_most(k, d: int) -> int:
    """Validate a number of directions ``k`` with ``1 <= k <= d`` (``k = d``
    allowed: used where
    a full basis is meaningful, e.g.
    ``dppca.linalg.top_k_eigh``)."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer; got {k!r}")
    k = int(k)
    if not (1 <= k <= d):
        raise ValueError(f"k must satisfy 1 <= k <= d = {d}; got k = {k}")
    return k


def check_second_moment(A, n, *, name: str = "A"):
    """Validate ``A = XᵀX/n`` for ``n`` rows of norm at most one; return
    ``(A, n)``.

    This is what the privacy theorems of the book assume of the matrix handed to
    a ``*_from_second_moment`` entry point, and what can be checked cheaply:
    ``A`` is square, finite and symmetric (:func:`check_symmetric`); ``tr(A) <=
    1`` (the mean squared row norm); ``A`` is positive semidefinite, ``λ_min(A)
    >= -tol`` (one Cholesky factorisation of ``A + tol I``; the eigenvalues are
    computed only to word an error); hence ``λ_max(A) <= tr(A) + (d - 1) tol``;
    and ``n`` is a positive integer (not a bool, not a float such as 2.7).
    ``tol`` is :data:`SECOND_MOMENT_TOLERANCE` (absolute; ``A``'s scale is at
    most one). A matrix ``XᵀX`` not divided by ``n``, one built from rows of
    norm > 1, or an indefinite matrix is refused with ``ValueError``.

    What cannot be checked, and the caller vouches for: that ``A`` really is
    ``XᵀX/n`` for the ``n`` rows of one data set with every row of norm at most
    one, and that ``n`` is the true number of rows (the noise is calibrated to
    ``1/n``, so an inflated ``n`` under-noises).
    """
    n = check_n(n)
    A = check_symmetric(A, name=name)
    tol = SECOND_MOMENT_TOLERANCE
    trace = float(np.trace(A))
    if trace > 1.0 + tol:
        raise ValueError(
            f"{name} has trace > 1, so it is not XᵀX/n for rows of norm <= 1 "
            f"(the trace is the mean squared row norm; tolerance {tol:g}). Did "
            "you pass XᵀX "
            "without dividing by n, or unscaled rows? Use "
            "dppca.linalg.second_moment(X)."
        )
    d = A.shape[0]
    try:
        np.linalg.cholesky(A + tol * np.eye(d))
    except np.linalg.LinAlgError:
        raise ValueError(
            f"{name} is not positive semidefinite (an eigenvalue below "
            f"-{tol:g}), so it is not XᵀX/n. Use dppca.linalg.second_moment(X)."
        ) from None
    return A, n


def _check_self_adjoint(M, name: str, atol: float, kind: str) -> np.ndarray:
    """The checks shared by ``check_symmetric`` and ``check_hermitian``:
    square, ``d >= 2``, finite, equal to its adjoint within ``atol`` times
    the largest entry (at least 1)."""
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] < 2:
        raise ValueError(
            f"{name} must be a square d x d matrix with d >= 2; got shape "
            f"{M.shape}"
        )
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{name} contains NaN or Inf")
    scale = max(1.0, float(np.abs(M).max()))
    adjoint = M.conj().T
    if not np.allclose(M, adjoint, rtol=0.0, atol=atol * scale):
        raise ValueError(
            f"{name} must be {kind} (max |M - M^*| = "
            f"{np.abs(M - adjoint).max():.3g})"
        )
    return M


def check_symmetric(M, *, name: str = "M", atol: float = 1e-10) -> np.ndarray:
    """Validate a finite, square, symmetric matrix and return it as a float
    array."""
    return _check_self_adjoint(
        as_real_array(M, name=name), name, atol, "symmetric"
    )


def check_hermitian(M, *, name: str = "H", atol: float = 1e-10) -> np.ndarray:
    """Validate a finite, square, Hermitian matrix (real or complex entries)
    and return it as a complex array."""
    M = np.asarray(M)
    if M.dtype.kind not in "iufc":
        raise TypeError(f"{name} must be a numeric array; got {M.dtype}")
    return _check_self_adjoint(M.astype(complex), name, atol, "Hermitian")


def check_orthonormal(V, *, name: str = "V", atol: float = 1e-8) -> np.ndarray:
    """Validate a d x k matrix with orthonormal columns."""
    V = as_real_array(V, name=name)
    if V.ndim == 1:
        V = V[:, None]
    if V.ndim != 2 or V.shape[1] > V.shape[0]:
        raise ValueError(
            f"{name} must be a d x k matrix with k <= d; got shape {V.shape}"
        )
    gram = V.T @ V
    if not np.allclose(gram, np.eye(V.shape[1]), atol=atol):
        raise ValueError(
            f"{name} must have orthonormal columns (max |V^T V - I| = "
            f"{np.abs(gram - np.eye(V.shape[1])).max():.3g})"
        )
    return V
