"""Every mechanism of the package, by name: the one registry.

Each family module declares its mechanisms once, as
:class:`~dppca.mechanisms.spec.MechanismSpec` entries in its ``SPECS``; this
module collects them. :class:`dppca.PrivatePCA` (``mechanism=``),
:class:`dppca.PrivateCovariance`, the error forecast and the release
snapshots read :data:`MECHANISMS`, and so do the book's experiments, guide,
figures and map, which keep what they show of each mechanism in
``dppca.book.mechanism_facts`` (the library never reads it). Adding a
mechanism to the package is its module's ``SPECS`` entry and one line of
``FAMILIES`` here (the book's table adds how the book shows it);
:func:`register` adds one at run time (and takes it back), and every table
derived here follows it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import numbers
from collections.abc import Callable

from . import (
    adaptive_kpca,
    coinpress,
    complex_gaussian,
    covariance,
    exponential,
    gaussian_approx,
    input_perturbation,
    power_method,
    spiked,
    streaming,
    trace_sensitive,
)
from .spec import NOTION_COLUMN, MechanismSpec

#: The family modules, in the order of :class:`dppca.PrivatePCA`'s guide.
FAMILIES = (
    input_perturbation,
    gaussian_approx,
    complex_gaussian,
    trace_sensitive,
    streaming,
    adaptive_kpca,
    power_method,
    exponential,
    covariance,
    coinpress,
    spiked,
)


#: Why each declared mechanism keeps its guarantee under add/remove-one
#: neighbours (``MechanismSpec.add_remove``, filled in at declaration where
#: the family module left it empty). The argument is the padding of
#: :mod:`dppca.decomposition.add_remove`: each of these reads only ``A`` and
#: its calibration uses the number of rows only as the public ``n`` of a
#: replace-one proof over rows in the unit ball, so it runs unchanged with
#: ``n = max_samples`` on the zero-padded data set. Not listed: the
#: mechanisms that read the rows (``run_rows``: trace-sensitive, CoinPress,
#: spiked, streaming, adaptive k-PCA), whose input would be the padded rows
#: themselves and whose step sizes, batches or iteration counts depend on
#: ``n``; and the published Wishart mechanism, which is not DP.
ADD_REMOVE_REASONS = {
    "analyze_gauss": "Gaussian noise on A calibrated to the Frobenius "
    "sensitivity √2/n: with n = max_samples it covers a zero padding row "
    "replaced by a real one",
    "laplace": "Laplace noise on the upper triangle of A calibrated to its "
    "ℓ₁ sensitivity at n = max_samples, which covers a padding row replaced",
    "gaussian_approx": "noise G + Gᵀ on A calibrated to the Frobenius "
    "sensitivity at n = max_samples (the rank-one change z zᵀ/n is the "
    "paper's own add-one relation)",
    "complex_gaussian": "complex Gaussian noise on A calibrated to the "
    "Frobenius sensitivity at n = max_samples",
    "mod_sulq": "Gaussian noise on A calibrated at n = max_samples",
    "noisy_power_method": "Gaussian noise on A·V calibrated at "
    "n = max_samples; its float-error shrink of A·V needs tr A ≤ 1, true of "
    "the padded A",
    "ppca": "exponential mechanism with score n·tr(VᵀAV) = tr(VᵀSV) at "
    "n = max_samples; its public concentration check is at max_samples·ε/2",
    "amin": "Laplace noise on the eigenvalues and linear-score exponential "
    "mechanisms, all calibrated at n = max_samples",
    "wishart_delta": "its (0, δ) proof is for any replaced row in the unit "
    "ball, the zero padding row included, at n = max_samples",
}


def _declared() -> dict[str, MechanismSpec]:
    """The family modules' declarations, by key (with
    :data:`ADD_REMOVE_REASONS` filled in)."""
    declared = {}
    for family in FAMILIES:
        for spec in family.SPECS:
            reason = ADD_REMOVE_REASONS.get(spec.key, "")
            if reason and not spec.add_remove:
                spec = dataclasses.replace(spec, add_remove=reason)
            _check_spec(spec, declared)
            declared[spec.key] = spec
    return declared


def _check_spec(spec, known) -> None:
    """Refuse a declaration the estimator could not run or list."""
    if not isinstance(spec, MechanismSpec):
        raise TypeError(
            f"a mechanism is declared as a MechanismSpec; got {spec!r}"
        )
    if not isinstance(spec.key, str) or not spec.key or spec.key == "auto":
        raise ValueError(f"a mechanism's key must be a name; got {spec.key!r}")
    if spec.key in known:
        raise ValueError(f"mechanism {spec.key!r} is already registered")
    if (spec.run is None) == (spec.run_rows is None):
        raise ValueError(
            f"mechanism {spec.key!r} needs exactly one of run and run_rows"
        )
    if spec.notion not in NOTION_COLUMN:
        raise ValueError(
            f"mechanism {spec.key!r}: notion must be one of "
            f"{sorted(NOTION_COLUMN)}; got {spec.notion!r}"
        )
    if spec.auto_rank is not None and spec.forecast_noise is None:
        raise ValueError(
            f"mechanism {spec.key!r}: an auto candidate needs a forecast_noise"
        )
    if not isinstance(spec.guide_rank, numbers.Real):
        raise TypeError(f"mechanism {spec.key!r}: guide_rank must be a number")
    if spec.person_level and (spec.run is None or spec.notion == "not_dp"):
        # the per-person argument (dppca.decomposition.persons) is about a
        # mechanism of A = XᵀX/n: one that reads the rows, or is not DP,
        # cannot claim it (red team, round 14)
        raise ValueError(
            f"mechanism {spec.key!r}: person_level is for a private "
            "mechanism that works from the second moment (run), not from "
            "the rows (run_rows)"
        )
    if spec.add_remove and (spec.run is None or spec.notion == "not_dp"):
        # the padding argument (dppca.decomposition.add_remove) hands the
        # mechanism the padded A; a mechanism of the rows would need the
        # padded rows, and one that is not DP has no proof to carry over
        raise ValueError(
            f"mechanism {spec.key!r}: add_remove is for a private mechanism "
            "that works from the second moment (run), not from the rows "
            "(run_rows)"
        )


#: Every declared or registered mechanism, in the order of registration.
_SPECS: dict[str, MechanismSpec] = _declared()

#: Callables run after every change of the registry (:func:`subscribe`).
_SUBSCRIBERS: list[Callable[[], None]] = []

#: Every mechanism :class:`dppca.PrivatePCA` runs, by name, in the order of
#: its guide (``guide_rank``, then registration). The same dict throughout:
#: :func:`register` updates it in place.
MECHANISMS: dict[str, MechanismSpec] = {}

#: The mechanisms ``mechanism="auto"`` (the default) chooses from, by the
#: forecast of :mod:`dppca.forecast` (the smallest forecast loss), with a
#: ``delta`` (``True``) and without: the specs with an ``auto_rank`` that use
#: δ, or do not, in that rank's order. With the declared mechanisms:
#: Mangoubi and Vishnoi's Gaussian mechanism and Analyze Gauss with δ,
#: Laplace input perturbation without. All are fully proved with the default
#: safe noise and release from the second moment. Updated in place.
AUTO_CANDIDATES: dict[bool, tuple[str, ...]] = {}

#: What ``resolve("auto", delta)`` returns where no forecast is made: the
#: first candidate of :data:`AUTO_CANDIDATES` that releases eigenvalues
#: (Analyze Gauss with δ, Laplace without). Updated in place.
AUTO_MECHANISM: dict[bool, str] = {}

#: Mechanisms that add Laplace or Gaussian noise, drawn through
#: :mod:`dppca.privacy.noise` with the estimator's ``noise`` kind. The others
#: are samplers (PPCA, Amin et al.) or add a Wishart matrix, for which the
#: package has only floating-point implementations (chapter 10). Recomputed
#: by :func:`register`: read it as ``registry.ADDITIVE_NOISE``.
ADDITIVE_NOISE: tuple[str, ...] = ()

#: Mechanisms whose released matrix has private eigenvalues
#: (``explained_variance_`` for every ``n_components``). Recomputed by
#: :func:`register`.
RELEASES_EIGENVALUES: tuple[str, ...] = ()

#: Mechanisms whose fit releases eigenvalues (``explained_variance_``,
#: ``whiten=True``): :data:`RELEASES_EIGENVALUES` and those that release
#: the top of their noisy spectrum (``MechanismSpec.has_spectrum``).
#: Recomputed by :func:`register`.
RELEASES_SPECTRUM: tuple[str, ...] = ()


def _refresh() -> None:
    """Recompute :data:`MECHANISMS` and every table derived from it, then
    tell the subscribers."""
    global ADDITIVE_NOISE, RELEASES_EIGENVALUES, RELEASES_SPECTRUM
    ordered = sorted(_SPECS.values(), key=lambda spec: spec.guide_rank)
    MECHANISMS.clear()
    MECHANISMS.update((spec.key, spec) for spec in ordered)
    specs = MECHANISMS.values()
    ADDITIVE_NOISE = tuple(s.key for s in specs if s.additive_noise)
    RELEASES_EIGENVALUES = tuple(s.key for s in specs if s.releases_eigenvalues)
    RELEASES_SPECTRUM = tuple(s.key for s in specs if s.has_spectrum)
    for with_delta in (True, False):
        candidates = sorted(
            (
                s
                for s in specs
                if s.auto_rank is not None and s.uses_delta == with_delta
            ),
            key=lambda s: s.auto_rank,
        )
        AUTO_CANDIDATES[with_delta] = tuple(s.key for s in candidates)
        spectral = [s.key for s in candidates if s.releases_eigenvalues]
        if spectral:
            AUTO_MECHANISM[with_delta] = spectral[0]
        else:
            AUTO_MECHANISM.pop(with_delta, None)
    for subscriber in list(_SUBSCRIBERS):
        subscriber()


#: The token of each run-time registration (:func:`register`), by key.
_REGISTRATIONS: dict[str, object] = {}


def register(spec: MechanismSpec) -> Callable[[], None]:
    """Add a mechanism to the registry, and return the function that takes
    it back out.

    Parameters
    ----------
    spec : MechanismSpec
        The mechanism's declaration; its ``key`` must be new.

    Returns
    -------
    callable
        ``undo()``: removes the mechanism (a second call does nothing).

    Notes
    -----
    Every table of this module follows at once (:data:`MECHANISMS`, the
    ``auto`` candidates, ``ADDITIVE_NOISE``, ...), and so do the
    estimator's docstring table (:func:`guide_table`) and whatever has
    subscribed (:func:`subscribe`). A registration lasts for the process:
    a test undoes it, or uses :func:`registered`.
    """
    _check_spec(spec, _SPECS)
    _SPECS[spec.key] = spec
    # this registration's own token: a stale undo (from an earlier
    # registration of the same spec, already undone) must not remove a
    # later one (red team, round 13)
    token = _REGISTRATIONS[spec.key] = object()

    def undo() -> None:
        if _REGISTRATIONS.get(spec.key) is token:
            del _SPECS[spec.key], _REGISTRATIONS[spec.key]
            _refresh()

    _refresh()
    return undo


@contextlib.contextmanager
def registered(spec: MechanismSpec):
    """A context in which ``spec`` is registered (:func:`register`).

    Parameters
    ----------
    spec : MechanismSpec
        The mechanism's declaration; its ``key`` must be new.

    Yields
    ------
    MechanismSpec
        ``spec``; it is removed when the context ends.
    """
    undo = register(spec)
    try:
        yield spec
    finally:
        undo()


def subscribe(callback: Callable[[], None]) -> None:
    """Run ``callback()`` after every change of the registry (the estimator
    rebuilds its docstring's table so).

    Parameters
    ----------
    callback : callable
        Called with no argument.
    """
    _SUBSCRIBERS.append(callback)


def reasons(field: str) -> dict[str, str]:
    """The registered mechanisms whose spec gives a reason in ``field``
    (``"add_remove"`` or ``"person_level"``), each with that reason, in the
    registry's order: which mechanisms a relation other than replace-one
    runs, and why each one's proof carries over.

    Parameters
    ----------
    field : {"add_remove", "person_level"}
        A reason field of ``MechanismSpec``.

    Returns
    -------
    dict
        Mechanism key to the reason, in words.
    """
    if field not in ("add_remove", "person_level"):
        raise ValueError(f"no reason field {field!r} in MechanismSpec")
    return {
        key: getattr(spec, field)
        for key, spec in MECHANISMS.items()
        if getattr(spec, field)
    }


def guide_table() -> str:
    """The estimator's table of mechanisms, from the registry: each key,
    its privacy notion and whether it is fully proved with the default
    noise (``MechanismSpec.proof``), in reStructuredText.

    Returns
    -------
    str
        A simple table, one row per mechanism of :data:`MECHANISMS`.
    """
    header = ("mechanism", "privacy", "fully proved (default noise)?")
    rows = [
        (f'``"{key}"``', NOTION_COLUMN[spec.notion], spec.proof or "not stated")
        for key, spec in MECHANISMS.items()
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    rule = "  ".join("=" * width for width in widths)

    def line(row):
        return "  ".join(
            cell.ljust(width) for cell, width in zip(row, widths)
        ).rstrip()

    return "\n".join([rule, line(header), rule, *map(line, rows), rule])


_refresh()


#: Keyword parameters of the mechanism functions that ``mechanism_options``
#: may not set: the estimator's own (``rng``, the outputs it asks for) and
#: caches or diagnostics, which would keep values computed from the rows in
#: the estimator's parameters.
INTERNAL_OPTIONS = frozenset(
    {
        "rng",
        "noise",
        "output",
        "return_spectrum",
        "return_run",
        "moment_cache",
        "diagnostics",
        "n_rows",
        "input_shrink",
    }
)


def resolve(mechanism, delta) -> tuple[str, MechanismSpec]:
    """``(name, spec)`` of the ``mechanism`` parameter of
    :class:`dppca.PrivatePCA` (``"auto"`` resolved by ``delta``).

    Parameters
    ----------
    mechanism : str
        ``"auto"`` or a key of :data:`MECHANISMS`.
    delta : float or None
        The estimator's δ.

    Returns
    -------
    tuple
        The key and its :class:`~dppca.mechanisms.spec.MechanismSpec`.
    """
    if mechanism == "auto":
        name = AUTO_MECHANISM[delta is not None]
        return name, MECHANISMS[name]
    if mechanism not in MECHANISMS:
        raise ValueError(
            f"mechanism must be 'auto' or one of {sorted(MECHANISMS)}; "
            f"got {mechanism!r}"
        )
    return mechanism, MECHANISMS[mechanism]


__all__ = [
    "ADD_REMOVE_REASONS",
    "ADDITIVE_NOISE",
    "RELEASES_SPECTRUM",
    "AUTO_CANDIDATES",
    "AUTO_MECHANISM",
    "FAMILIES",
    "INTERNAL_OPTIONS",
    "MECHANISMS",
    "MechanismSpec",
    "RELEASES_EIGENVALUES",
    "guide_table",
    "reasons",
    "register",
    "registered",
    "resolve",
    "subscribe",
]
