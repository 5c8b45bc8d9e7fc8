"""Several rows per person: :class:`dppca.PrivatePCA` with ``groups`` and
``max_rows_per_person``.

Without ``groups`` the unit of privacy is a row: neighbouring data sets
have the same number of rows and differ in one row. Data with several rows
per person (transactions, visits, sessions) needs the unit to be a person:
neighbouring data sets have the same number ``N`` of persons and differ in
all the rows of one person. A fit with ``fit(X, groups=g)`` and
``max_rows_per_person=m`` gives that guarantee, in four steps.

1. **Contribution bounding.** A person with more than ``m`` rows keeps
   ``m`` of them, chosen uniformly at random (every row gets an independent
   uniform key from a generator seeded by a fixed number of draws of the
   fit's own; a person keeps the rows of its ``m`` smallest keys). The
   choice depends on the labels and on nothing else: a public procedure,
   applied to each person alone, so persons who are neighbours stay
   neighbours after it.
2. **The statistic.** With the kept rows scaled into the unit ball (the
   estimator's clipping and centring, as for rows), write

       A = (1/N) · (sum over persons p of A_p),
       A_p = (1/m) · (sum of z zᵀ over the kept rows z of p).

   ``A`` is the ordinary second moment of a data set padded to exactly
   ``m`` rows per person with zero rows, divided by ``N·m``: that padded
   data set, ``N·m`` rows in all, is what the estimator hands to
   :func:`dppca.linalg.clipped_sums.clipped_second_moment`. The padding
   rows are the centre, so that they are zero after centring: the real rows
   are centred, the padding is not shifted.
3. **Calibration per person.** Each ``A_p`` is positive semi-definite with
   trace at most one: it lies in the convex hull ``K`` of
   ``{z zᵀ : ‖z‖ ≤ 1}`` (``0`` included), which is the set of PSD matrices
   of trace at most one. Replacing one person changes ``A`` by
   ``(A_p' − A_p)/N`` with ``A_p, A_p'`` in ``K``, and ``N`` unchanged. Let
   ``φ`` be a convex function of the change with ``φ(0) = 0``: any norm of
   a linear map of it (the Frobenius norm of Gaussian noise on ``A``, the
   ℓ₁ norm of its upper triangle for Laplace noise, ``|tr(Vᵀ D V)|`` of the
   exponential mechanism's linear score for every ``V``, ``‖D V‖_F`` of the
   noisy power method for every orthonormal ``V``, the nuclear norm that
   bounds the change of the eigenvalues), or a supremum of such functions.
   ``(P, Q) ↦ φ(P − Q)`` is convex on ``K × K``, so its maximum is attained
   at a pair of extreme points of ``K``: ``P = x xᵀ``, ``Q = y yᵀ`` with
   ``‖x‖, ‖y‖ ≤ 1``. Hence

       sup φ((A_p' − A_p)/N) = sup over ‖x‖, ‖y‖ ≤ 1 of φ((x xᵀ − y yᵀ)/N),

   which is the row-level sensitivity at ``n = N``. Every mechanism whose
   privacy proof uses only such a bound on the change of ``A`` is
   therefore private per person when it is calibrated with ``n = N``: the
   estimator calls it with ``n = N``, and ``fewer rows`` is covered (a
   person with fewer than ``m`` rows has zero rows in its padding, inside
   ``K`` too).
4. **Float64.** The computed matrix is the padded second moment of ``N·m``
   rows, whose shrink ``s`` the module :mod:`dppca.linalg.float_error`
   chooses for ``N·m`` summands: ``Δ s² + 2e ≤ Δ`` with ``Δ = √2/(N·m)``
   and ``e`` the float error of one data set. A person's change has exact
   part at most ``m Δ s²`` (step 3 with rows of norm ``s``), so the
   computed matrices differ by at most
   ``m Δ s² + 2e = (m − 1) Δ s² + (Δ s² + 2e) ≤ m Δ = √2/N``: the row-level
   bound at ``n = N``. The private mean is the same argument for the sum
   ``Σ clip(x)`` over ``N·m`` rows with zero padding: its computed sum moves
   by at most ``2 m R`` when a person is replaced, and divided by ``N·m`` it
   has sensitivity ``2R/N``. The margins count the ``N·m`` summands the
   sums really have, since those are the rows the sums are computed on.

Which mechanisms qualify (:func:`person_level`, each with its reason): the
ones that work from ``A`` (the registry's ``run``) and whose proof bounds a
convex function of the change of ``A``. The others are refused with
``groups``, from public parameters before any charge: the mechanisms that
read the rows (``run_rows``; their proofs are about one row of their input,
and a person is up to ``m`` of them), the Wishart mechanisms (the proof of
the δ-calibrated one compares two Wishart densities through the rank-two
structure of a one-row change, which is not a convex function of it), and
any mechanism not listed here (a registration at run time included). The
private bounds (``data_norm="private"``, ``centered_norm="private"``) count
rows under a threshold, a count a person moves by up to ``m``: refused with
``groups``; ``centered_norm="auto"`` then means ``data_norm``.

The padded data set holds ``N·m`` rows: the fit needs that memory (and the
second moment that time), whatever the number of kept rows. The fitted
spectrum (``explained_variance_``) is that of the padded data: a person with
fewer than ``m`` rows counts with zero rows.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse


def person_level() -> dict[str, str]:
    """The mechanisms a fit with ``groups`` runs, each with why its row-level
    proof holds per person with ``n = N`` (module docstring, step 3): those
    of the registry whose spec says so (``MechanismSpec.person_level``), in
    its order.

    Returns
    -------
    dict
        Mechanism key to the reason, in words.
    """
    from ..mechanisms import registry

    return registry.reasons("person_level")


def __getattr__(name):
    # PERSON_LEVEL: person_level() at each access (it follows a registration)
    if name == "PERSON_LEVEL":
        return person_level()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The neighbouring relation of a fit with ``groups`` (``{m}``: the bound).
PERSON_NEIGHBOURS = (
    "replace-one person (N persons fixed, all the rows of one person "
    "replaced; at most {rows} per person)"
)

#: The start of :data:`PERSON_NEIGHBOURS`, by which a record is recognised.
_PERSON_PREFIX = PERSON_NEIGHBOURS.split(" (", 1)[0]


def person_neighbours(m: int) -> str:
    """The neighbouring relation of a fit with ``max_rows_per_person=m``."""
    return PERSON_NEIGHBOURS.format(rows=rows_text(m))


def rows_text(m: int) -> str:
    """``"1 row"``, ``"m rows"``: a number of rows in words."""
    return f"{int(m)} row" if int(m) == 1 else f"{int(m)} rows"


def person_bound(neighbours: str) -> int | None:
    """The bound ``m`` of a per-person relation (:func:`person_neighbours`),
    ``None`` for any other relation."""
    if not neighbours.startswith(_PERSON_PREFIX):
        return None
    return int(neighbours.rsplit("at most ", 1)[1].split(" ", 1)[0])


def unit_of_privacy(neighbours: str) -> str:
    """The unit of privacy of a record's neighbouring relation, in words:
    ``"per person, at most m rows"`` or ``"a row"``."""
    m = person_bound(neighbours)
    return "a row" if m is None else f"per person, at most {rows_text(m)}"


def check_max_rows_per_person(est):
    """``max_rows_per_person``: ``None`` or an integer ``m >= 1``."""
    m = est.max_rows_per_person
    if m is None:
        return None
    if isinstance(m, (bool, np.bool_)) or not isinstance(m, numbers.Integral):
        raise TypeError(
            f"max_rows_per_person must be None or an integer >= 1; got {m!r}"
        )
    if m < 1:
        raise ValueError(
            f"max_rows_per_person must be None or an integer >= 1; got {m!r}"
        )
    return int(m)


def check_pairing(est, groups) -> int | None:
    """``groups`` and ``max_rows_per_person`` come together, or not at all:
    the bound ``m`` (``None`` without groups)."""
    m = check_max_rows_per_person(est)
    if groups is None and m is not None:
        raise ValueError(
            f"max_rows_per_person={m} bounds the rows of each person: pass "
            "groups (a label per row naming its person) to fit, or set "
            "max_rows_per_person=None (the unit of privacy is then a row)"
        )
    if groups is not None and m is None:
        raise ValueError(
            "groups names the person of each row, and the guarantee per "
            "person needs a public bound on their rows: set "
            "max_rows_per_person=m (a person with more rows keeps m of them, "
            "chosen at random)"
        )
    return m


def check_person_parameters(est) -> None:
    """Refuse, from public parameters, what has no per-person argument:
    the private bounds and, for a fixed mechanism, one outside
    :func:`person_level`."""
    private = [
        f"{name}='private'"
        for name in ("data_norm", "centered_norm")
        if isinstance(getattr(est, name), str)
        and getattr(est, name) == "private"
    ]
    if private:
        raise ValueError(
            f"{' and '.join(private)} releases a quantile of the rows' norms, "
            "whose privacy argument counts rows (a person moves up to m "
            "of the counts): not available with groups. Pass a public "
            "data_norm (and centered_norm None or a number)"
        )
    if est.mechanism != "auto":
        check_person_mechanism(est.mechanism)


def check_person_mechanism(name: str) -> None:
    """Refuse a mechanism outside :func:`person_level` with groups."""
    allowed = person_level()
    if name not in allowed:
        raise ValueError(
            f"mechanism={name!r} has no per-person guarantee in dppca: its "
            "proof is about one row of its input (or about the rank-two "
            "change one row makes), and a person is up to "
            "max_rows_per_person rows. With groups use one of "
            f"{sorted(allowed)}"
        )


#: The most entries (N·m·d, float64) the padded data set may hold: 2 GiB.
MAX_PADDED_ENTRIES = 2**28


def check_padded_size(N: int, m: int, d: int) -> None:
    """Refuse, before any charge, a padded data set of ``N·m`` rows of
    ``d`` that could not be allocated (red team, round 13: m = 10¹³ raised
    MemoryError after the ledger was charged). ``N`` is the same on
    neighbouring data sets (replace-one person), so is the refusal."""
    if N * m * d > MAX_PADDED_ENTRIES:
        raise ValueError(
            f"max_rows_per_person={m} pads the {N} persons to {N * m:,} rows "
            f"of {d} (more than {MAX_PADDED_ENTRIES:,} entries): choose a "
            "smaller max_rows_per_person. Nothing was charged or drawn."
        )


def person_codes(groups, n: int) -> tuple[np.ndarray, int]:
    """``(codes, N)``: the person of each of the ``n`` rows as an integer in
    ``[0, N)`` (in order of first appearance) and the number of persons.
    ``groups`` is a sequence of ``n`` hashable labels (``None`` and NaN are
    refused: they name no person). Labels that compare equal name the same
    person, as in a Python dict: ``1``, ``1.0`` and ``True`` are one
    person."""
    labels = (
        np.asarray(groups, dtype=object)
        if not isinstance(groups, np.ndarray)
        else groups
    )
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(
            "groups must hold one label per row of X: a 1-D sequence of "
            "length n_samples (the message prints neither length: the "
            "number of rows is not public under every relation)"
        )
    index: dict = {}
    codes = np.empty(n, dtype=np.intp)
    for i, label in enumerate(labels.tolist()):
        try:
            hash(label)
        except TypeError:
            raise TypeError(
                "groups must hold hashable labels; got one of type "
                f"{type(label).__name__} (the message does not print labels)"
            ) from None
        if _names_no_one(label):
            raise ValueError(
                "groups must name a person for every row; got a missing "
                f"label ({label!r}: None, NaN or the like)"
            )
        codes[i] = index.setdefault(label, len(index))
    return codes, len(index)


def _names_no_one(label) -> bool:
    """A missing label: ``None``, or one not equal to itself (a NaN of any
    type: float, numpy's, complex, ``Decimal``), or one that cannot compare
    with itself (``pandas.NA``, a signalling NaN). Each would otherwise make
    its own "person" of every row it labels (red team, round 13)."""
    if label is None:
        return True
    try:
        return not bool(label == label)
    except Exception:
        return True


@dataclass(frozen=True)
class Persons:
    """The persons of a fit: the person of each row (``codes``), their
    number ``N`` and the bound ``m``."""

    codes: np.ndarray
    N: int
    m: int

    @property
    def padded_rows(self) -> int:
        """``N·m``: the rows of the padded data set."""
        return self.N * self.m


def kept_rows(persons: Persons, rng) -> np.ndarray:
    """The indices of the rows kept (in their order in ``X``): every row of
    a person with at most ``m`` rows, and for a person with more the ``m``
    rows of smallest independent uniform key (a uniform choice of ``m`` of
    them). ``rng`` is a generator for this choice alone."""
    codes = persons.codes
    keys = rng.random(codes.shape[0])
    order = np.lexsort((keys, codes))  # by person, then by key
    sorted_codes = codes[order]
    starts = np.searchsorted(sorted_codes, sorted_codes, side="left")
    rank = np.arange(codes.shape[0]) - starts
    return np.sort(order[rank < persons.m])


def subsampling_generator(rng) -> np.random.Generator:
    """A generator for the choice of rows, seeded by eight 32-bit draws of
    the fit's ``rng``: the fit's noise then follows the same number of draws
    whatever the number of rows."""
    words = rng.integers(0, 2**32, size=8, dtype=np.uint64)
    return np.random.default_rng(np.random.SeedSequence(words.tolist()))


def padded(X, total_rows: int, row=None):
    """``X`` followed by copies of ``row`` (zeros when ``None``) up to
    ``total_rows`` rows, in ``X``'s format (dense, or CSR)."""
    n, d = X.shape
    extra = total_rows - n
    if extra < 0:
        raise ValueError("more kept rows than N·m")  # cannot happen
    if scipy.sparse.issparse(X):
        if row is None or not np.any(row):
            pad = scipy.sparse.csr_matrix((extra, d), dtype=np.float64)
        else:
            pad = scipy.sparse.csr_matrix(
                np.broadcast_to(np.asarray(row, dtype=np.float64), (extra, d))
            )
        return scipy.sparse.vstack([X, pad], format="csr")
    out = np.empty((total_rows, d), dtype=np.float64)
    out[:n] = X
    out[n:] = 0.0 if row is None else np.asarray(row, dtype=np.float64)
    return out


__all__ = [
    "MAX_PADDED_ENTRIES",
    "person_level",
    "PERSON_NEIGHBOURS",
    "rows_text",
    "Persons",
    "check_max_rows_per_person",
    "check_padded_size",
    "check_pairing",
    "check_person_mechanism",
    "check_person_parameters",
    "kept_rows",
    "padded",
    "person_codes",
    "person_bound",
    "person_neighbours",
    "subsampling_generator",
    "unit_of_privacy",
]
