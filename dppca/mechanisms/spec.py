"""How a mechanism is declared: once, in its family module.

A :class:`MechanismSpec` says everything the rest of the package needs to
know about one mechanism: its names, its privacy notion, how
:class:`dppca.PrivatePCA` runs it on the second moment ``A`` or on the rows,
the record of its guarantee, the options it accepts and checks, and how the
book's experiments and figures show it. Each family module lists its specs in
``SPECS``; :mod:`dppca.mechanisms.registry` collects them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

from ..linalg.dense import top_k_eigh

#: The descriptive fields of a :class:`MechanismSpec` that the book's map of
#: the mechanisms shows; every registered mechanism fills each of them.
DESCRIPTION_FIELDS = (
    "releases",
    "utility",
    "sample_complexity",
    "cost",
    "wins_when",
    "page",
)


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
    #: Checks of ``mechanism_options`` that the mechanism needs (raises
    #: ``ValueError``), run before any budget is charged or noise drawn;
    #: returns the options, completed with the estimator's defaults.
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
    #: How the book's experiments (:mod:`dppca.book.mechanism_table`) know it:
    #: key, label in legends, short notion, the functional entry point
    #: (module, function), the protocol's entry points on the rows
    #: ``release(X, k, epsilon, delta, rng, **options)``, on the second
    #: moment ``from_moment(A, n, k, epsilon, delta, rng, **options)`` and,
    #: for a mechanism that must read the rows,
    #: ``from_rows(rows, k, epsilon, delta, rng, cache, **options)`` with
    #: the reason it must (``row_reason``).
    experiment_key: str = ""
    experiment_label: str = ""
    short_notion: str = ""
    entry_point: tuple[str, str] = ("", "")
    release: Callable | None = None
    from_moment: Callable | None = None
    from_rows: Callable | None = None
    row_reason: str | None = None
    #: Line style of its curves in the book's figures.
    style: dict = field(default_factory=dict)
    #: What the book's map of the mechanisms
    #: (:func:`dppca.book.mechanism_map.mechanism_map`) says of it, in words
    #: (:data:`DESCRIPTION_FIELDS`): what it releases, its utility bound with
    #: the bound's assumptions, the number of rows it needs, its cost in
    #: arithmetic, when it wins, and the page of the book (file stem) that
    #: teaches it. Its privacy is not restated here: the map reads it from
    #: ``short_notion`` and the guarantee record. Nothing that runs the
    #: mechanism reads these fields.
    releases: str = ""
    utility: str = ""
    sample_complexity: str = ""
    cost: str = ""
    wins_when: str = ""
    page: str = ""

    @property
    def needs_delta(self) -> bool:
        return self.uses_delta

    def missing_descriptions(self) -> list[str]:
        """The fields of :data:`DESCRIPTION_FIELDS` left empty."""
        return [
            name
            for name in DESCRIPTION_FIELDS
            if not str(getattr(self, name)).strip()
        ]

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
    "DESCRIPTION_FIELDS",
    "MechanismSpec",
    "noisy_matrix_release",
    "select",
]
