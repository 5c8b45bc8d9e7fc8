"""How a mechanism is declared: once, in its family module.

A :class:`MechanismSpec` says everything the rest of the package needs to
know about one mechanism: its names, its privacy notion, how
:class:`dppca.PrivatePCA` runs it on the second moment ``A`` or on the rows,
the record of its guarantee, the options it accepts and checks, its noise as
the error forecast sees it, and how :class:`dppca.PrivateCovariance` runs it.
How the book shows it (its experiments' entry points, labels, line styles and
words) is the book's, in :mod:`dppca.book.mechanism_facts`. Each family module
lists its specs in ``SPECS``; :mod:`dppca.mechanisms.registry` collects
them.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

from ..linalg.dense import top_k_eigh

#: The privacy column of the estimator's table of mechanisms, by ``notion``.
NOTION_COLUMN = {
    "gaussian": "(ε, δ)",
    "pure": "ε",
    "approximate": "(0, δ)",
    "not_dp": "not DP",
}


@dataclass(frozen=True)
class CovarianceHooks:
    """How :class:`dppca.PrivateCovariance` runs a mechanism on the
    unit-normalised second moment of ``n`` rows of ``d`` features.

    ``plan(n, d, epsilon, delta, kind, check)`` returns ``(sigma, grid,
    record)`` from public quantities only: the standard deviation of one
    noise entry of the unit-normalised matrix, the safe noise's grid
    (``None`` for float noise) and the guarantee record; it calls
    ``check(sigma, grid, what)`` on every Gaussian draw before it builds the
    record (the estimator refuses there, before any charge, a σ the exact
    sampler cannot draw). ``release(data, n, epsilon, delta, rng, kind,
    sigma)`` returns ``(noisy, floor)``: the noisy unit-normalised matrix
    and the eigenvalue floor, in the same units, that
    ``min_eigenvalue="auto"`` applies. ``data`` is the rows ``z_i`` when
    ``reads_rows``, else their second moment ``A``.
    """

    plan: Callable
    release: Callable
    reads_rows: bool = False


@dataclass(frozen=True)
class MechanismSpec:
    """One mechanism, declared once.

    ``run(A, n, k, epsilon, delta, rng, options)`` returns ``(V, eigenvalues,
    total)`` with ``V`` ``d × k`` orthonormal, ``eigenvalues`` the released
    top-k eigenvalues of the noisy matrix and ``total`` the sum of its
    positive eigenvalues (both ``None`` when the mechanism releases only a
    subspace). ``guarantee(n, d, k, epsilon, delta, options)`` is the
    guarantee record (:class:`dppca.privacy.guarantees.Release`) of the
    release made with those options, built by the mechanism's own module from
    the same calibration as its noise. ``notion`` is ``"pure"``,
    ``"gaussian"``, ``"approximate"`` or ``"not_dp"``; ``uses_delta`` and
    ``uses_epsilon`` say which budget parameters the mechanism reads (the
    estimator warns about a parameter it ignores).
    """

    #: The name :class:`dppca.PrivatePCA` knows it by (``mechanism=``).
    key: str
    #: Its name in the estimator's tables (chapter 13's guide).
    label: str
    notion: str
    uses_delta: bool
    uses_epsilon: bool
    guarantee: Callable
    #: The family module's ``PRIVACY`` text: what is proved, and how.
    privacy: str
    run: Callable | None = None
    #: For a mechanism that needs the rows themselves (not only ``A``):
    #: ``run_rows(Z, n, k, epsilon, delta, rng, options)``, ``Z`` the rows
    #: centred, scaled and clipped into the unit ball
    #: (:func:`dppca.linalg.rows.unit_ball_rows`; CSR when sparse and
    #: uncentred).
    run_rows: Callable | None = None
    #: Checks of ``mechanism_options`` from public values only:
    #: ``check_options(options, n, d, k, epsilon)`` raises ``ValueError``
    #: for any value the mechanism's function would refuse, and returns the
    #: options to run with (a copy, completed with the estimator's
    #: defaults). Run before any budget is charged or noise drawn, so that
    #: no option error can surface after the charge; the mechanism's
    #: function checks its options again when it runs.
    check_options: Callable | None = None
    #: Warnings (and refusals) about ``mechanism_options`` for ``k``
    #: components: ``warn_options(options, k, stacklevel)``, run after the
    #: checks, before any budget is charged or noise drawn.
    warn_options: Callable | None = None
    #: The mechanism function whose keyword parameters are the accepted
    #: ``mechanism_options`` (less ``INTERNAL_OPTIONS`` of the registry).
    options_of: Callable | None = None
    #: It adds Laplace or Gaussian noise drawn through
    #: :mod:`dppca.privacy.noise` with the estimator's ``noise`` kind.
    additive_noise: bool = False
    #: Its released matrix has private eigenvalues (``explained_variance_``
    #: for every ``n_components``, fractions included).
    releases_eigenvalues: bool = False
    #: Its fit releases the top-k eigenvalues of its noisy matrix
    #: (``explained_variance_``, ``whiten=True``), though not necessarily
    #: every one of them; implied by ``releases_eigenvalues``
    #: (``has_spectrum``).
    releases_spectrum: bool = False
    #: The noise the error forecast (:mod:`dppca.forecast`) sees:
    #: ``forecast_noise(n, d, epsilon, delta, noise, options)``, the
    #: off-diagonal standard deviation of the symmetric noise the mechanism
    #: adds to ``XᵀX/n`` (rows in the unit ball), from its own calibration.
    #: ``None``: the forecast knows no noise for it.
    forecast_noise: Callable | None = None
    #: Its rank among the candidates of ``mechanism="auto"`` (the smallest
    #: first), with a ``delta`` when ``uses_delta``, without one otherwise;
    #: ``None``: never chosen by ``"auto"``. It needs a ``forecast_noise``.
    auto_rank: int | None = None
    #: Its place in the estimator's table of mechanisms (the smallest
    #: first; the registry's order).
    guide_rank: float = math.inf
    #: The estimator's table's answer to "fully proved (default noise)?".
    proof: str = ""
    #: ``mechanism_options`` a fit needs when nothing more is known of the
    #: data (values for options it cannot default), as the release
    #: snapshots and the examples use.
    example_options: dict = field(default_factory=dict)
    #: How :class:`dppca.PrivateCovariance` runs it (``None``: it does not).
    covariance: CovarianceHooks | None = None
    #: Why its row-level proof holds per person with ``n = N`` persons (a
    #: fit with ``groups``: :mod:`dppca.decomposition.persons`), in words;
    #: empty: such a fit refuses it.
    person_level: str = ""
    #: Why its replace-one proof also gives add/remove-one neighbours
    #: (``PrivatePCA(neighbours="add-remove")``, :mod:`dppca.decomposition.
    #: add_remove`): it reads only the second moment of the data set padded
    #: with zero rows to a public number of rows, and depends on the number of
    #: rows only through that public number. In words; empty: such a fit
    #: refuses it, before any charge.
    add_remove: str = ""
    #: Its fit passes the float-error shrink ``s`` of the computed second
    #: moment (:attr:`dppca.linalg.clipped_sums.ClippedSecondMoment.shrink`)
    #: as the option ``input_shrink``: its calibration needs more than the
    #: Frobenius bound the float-error proposition gives (the noisy power
    #: method with one vector, red team 18).
    takes_input_shrink: bool = False

    @property
    def needs_delta(self) -> bool:
        return self.uses_delta

    @property
    def has_spectrum(self) -> bool:
        """Its fit releases eigenvalues (``releases_eigenvalues`` or
        ``releases_spectrum``)."""
        return self.releases_eigenvalues or self.releases_spectrum

    def accepted_options(self, internal) -> set:
        """The parameters of ``options_of`` that have defaults, less
        ``internal``."""
        if self.options_of is None:
            return set()
        parameters = inspect.signature(self.options_of).parameters
        return {
            key
            for key, parameter in parameters.items()
            if parameter.default is not inspect.Parameter.empty
        } - set(internal)


def noisy_matrix_release(noisy, k):
    """``(V, eigenvalues, total)`` of a released noisy matrix: its top-k
    eigenpairs and the sum of its positive eigenvalues (post-processing)."""
    noisy = np.asarray(noisy)
    values, vectors = top_k_eigh(noisy, k)
    spectrum = scipy.linalg.eigvalsh(noisy, check_finite=False)
    return vectors, values, float(spectrum[spectrum > 0].sum())


def select(options, *names) -> dict:
    """The entries of ``options`` among ``names``."""
    return {name: options[name] for name in names if name in options}


__all__ = [
    "NOTION_COLUMN",
    "CovarianceHooks",
    "MechanismSpec",
    "noisy_matrix_release",
    "select",
]
