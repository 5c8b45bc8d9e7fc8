"""``PrivatePCA``: every private subspace mechanism of the book as a
scikit-learn estimator.

The estimator does four things the mechanisms themselves do not:

1. **Bounds.** The mechanisms need rows of norm at most one. The estimator takes
   a *public* bound ``data_norm`` (never read from the data) and either clips
   each row to it (``clip=True``, the convention of diffprivlib and OpenDP) or
   refuses rows above it (``clip=False``); then it divides by the bound.
   Clipping is a map applied to each row separately, so replace-one neighbours
   stay replace-one neighbours and the mechanisms' guarantees carry over
   unchanged.
2. **Centring.** ``center=True`` (the default): a private mean, released with
   a share ``center_share`` of the budget. For rows clipped to ``R =
   data_norm`` the mean ``μ = Σ x_i / n`` changes by ``(x − x')/n`` when one
   row is replaced, so its replace-one sensitivity is ``2R/n`` in ℓ₂ and
   ``2R√d/n`` in ℓ₁ (``‖v‖₁ ≤ √d ‖v‖₂``). The noisy mean is projected onto the
   ball of radius ``R`` (which contains the true mean; post-processing),
   giving ``μ̂``. The centred rows ``x_i − μ̂`` are then clipped to the public
   ``centered_norm``, or divided by ``R + ‖μ̂‖``, which bounds them
   without clipping (``centered_norm="triangle"``). By default
   (``"auto"``) that bound is itself released, a private quantile of the
   centred norms, when the forecast (:mod:`dppca.forecast`) says the noise is
   worth it; the mechanism and the mean's share are the forecast's best.
   For a fixed ``μ̂`` a
   replaced row still changes one centred row: the two releases compose
   (adaptively) by :mod:`dppca.privacy.accounting`. The mean uses Laplace noise
   when
   the mechanism is pure ε (so the whole release stays pure) and analytic
   Gaussian noise otherwise. ``center=False`` gives the book's uncentred ``A =
   XᵀX/n``; a vector ``c`` is a public centre (``data_norm`` then bounds ``‖x
   − c‖``).
3. **Rows, in float64 as proved.** Dense arrays, pandas DataFrames and
   scipy.sparse matrices.
   :func:`dppca.linalg.clipped_sums.clipped_second_moment` centres
   every row before any product or norm, clips it, and absorbs every rounding
   error of the sum into a tiny uniform shrink of the rows, so the *computed*
   second moment has the sensitivity the mechanisms are calibrated to, for
   centres up to 10¹⁵⁰ (its module docstring proves it). Sparse input is never
   densified whole.
4. **Guarantees.** Every release of a fit carries its guarantee record
   (:mod:`dppca.privacy.guarantees`) in ``privacy_releases_``. A mechanism whose
   guarantee is not fully proved as a program is refused unless the caller
   opts in by name (``allow_unproved``).

The second moment then goes to the mechanism's public ``*_from_second_moment``
entry point, as its declaration in :data:`dppca.mechanisms.registry.MECHANISMS`
says. The checks are :mod:`dppca.decomposition.parameters`', the budget's
plan :mod:`dppca.decomposition.plan`'s, and the steps that charge the
budget and read the rows :mod:`dppca.decomposition.release`'s; what the
private estimators share is :mod:`dppca.base`'s. ``fit`` composes plan →
charge → rows → mechanism → post-processing. Each step gets what it needs
as arguments (the plan is a value) and returns what it made; nothing is
written on the estimator before the fit's end, when every fitted attribute
is set at once, and a second concurrent fit of the same object is refused
(:mod:`dppca.fit_guard`).
"""

from __future__ import annotations

import dataclasses
import math
import textwrap

import numpy as np
import scipy.sparse
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import postprocessing, report
from ..base import (
    RANDOM_STATE_PARAMETER,
    REFIT_WARNING,
    SharedSeedWarningMixin,
    _parameters,
    _snap,
)
from ..exceptions import PrivacyWarning, warn
from ..fit_guard import caller_stacklevel, one_fit_at_a_time
from ..float_state import owns_float_state
from ..mechanisms import registry
from ..privacy.accounting import basic_composition
from ..privacy.guarantees import UNCOMPOSABLE
from ..validation import check_public_shape
from .add_remove import (
    ADD_REMOVE_ATTRIBUTES,
    DEFAULT_MAX_SAMPLES,
    UNIT_PARAMETERS,
    AddRemovePlanMixin,
    check_add_remove,
    counted_spectrum,
    is_add_remove,
)
from .persons import (
    Persons,
    check_padded_size,
    check_pairing,
    check_person_mechanism,
    check_person_parameters,
    kept_rows,
    person_codes,
    person_neighbours,
    subsampling_generator,
)
from .plan import release_plan
from .ranges import range_stand_in, rows_in_box
from .release import (
    _centred_rows,
    _charge,
    _private_count,
    _run,
    with_input_shrink,
)


def _spent(releases, requested) -> tuple:
    """``privacy_spent_``: the basic composition of the records; with a
    release of kind ``"ideal"`` (an approximate sampler) its ε is the exact
    law's and δ is ``nan``: no (ε, δ) is proved for the fit; with a
    release of kind ``"none"`` (no guarantee) ε is ``inf``."""
    if any(r.kind in UNCOMPOSABLE for r in releases):
        return math.fsum(r.epsilon for r in releases), math.nan
    return _snap(basic_composition(releases), requested)


class PrivatePCA(
    AddRemovePlanMixin,
    SharedSeedWarningMixin,
    postprocessing.ProbabilisticPCAMixin,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    BaseEstimator,
):
    """Differentially private PCA with any mechanism of the book,
    scikit-learn style.

    Every fit is a release on the rows of ``X`` under **replace-one**
    neighbours (n fixed, one row replaced by any other row) with rows bounded
    in **ℓ₂ norm** by the public ``data_norm``: the unit of privacy is a
    row. With ``neighbours="add-remove"`` it is a release under add/remove
    neighbours (one row more or less, n private, at most ``max_samples``;
    :mod:`dppca.decomposition.add_remove`). With ``fit(X, groups=g)`` and
    ``max_rows_per_person=m`` the unit is a person
    (:mod:`dppca.decomposition.persons`). Each release carries a
    guarantee record (``privacy_releases_``,
    :mod:`dppca.privacy.guarantees`) that names its unit.

    Parameters
    ----------
    n_components : int, float or None, default=2
        Dimension k of the released subspace, ``1 <= k < n_features``. For the
        mechanisms that release a noisy matrix
        (:data:`~dppca.mechanisms.registry.RELEASES_EIGENVALUES`) also ``k =
        n_features``, ``None`` (all) or a fraction in (0, 1): the smallest k
        whose released variance reaches that share of the released total
        (post-processing: no extra budget).
    whiten : bool, default=False
        As scikit-learn's PCA: ``transform`` divides each coordinate by
        √``explained_variance_`` (a released λ ≤ 0 counts as eps²); only
        with a mechanism that releases eigenvalues, else ``fit`` raises
        (``dppca.postprocessing.spectrum_mechanisms()``; post-processing).
    epsilon : float, default=1.0
        Total ε, shared with the private mean and bounds.
    delta : float or None, default=None
        The notion, stated: ``0.0`` for pure ε-DP, a total δ in (0, 1), well
        below 1/n (δ ≥ 1/n is warned about; under add/remove 1/max_samples),
        for (ε, δ)-DP. ``None`` is refused with ``mechanism="auto"`` before
        any charge (``NotionNotStatedError``; chapter 13: the pure route
        captures about a random subspace's share on census, insurance,
        digits at ε ≤ 2).
    mechanism : str, default="auto"
        ``"auto"``: the candidate of
        :data:`~dppca.mechanisms.registry.AUTO_CANDIDATES` with the
        smallest forecast loss (``plan``; see ``spectrum``): with
        ``delta > 0`` ``"gaussian_approx"`` or ``"analyze_gauss"`` (this
        one when ``n_components`` is ``None`` or a fraction), with
        ``delta=0.0`` ``"laplace"``. Otherwise a key of
        :data:`~dppca.mechanisms.registry.MECHANISMS`:

        {mechanism_table}

        **Choosing.** Mangoubi–Vishnoi's noise ``G + Gᵀ`` has √2 less
        off-diagonal noise than Analyze Gauss at the same (ε, δ), so its
        forecast wins unless eigenvalues are needed. At δ = 0 Laplace is the
        only proved one (noise d^(3/2)/(nε)); PPCA needs an opt-in.
    data_norm : float, "private" or None (then ``feature_range``)
        Public bound R on the rows' ℓ₂ norm (on ``‖x − c‖`` for a
        public centre ``c``), chosen without looking at the data. Rows
        longer than R are clipped (``clip=True``) or refused. ``"private"``
        releases R from the data instead: the ``bound_quantile`` quantile of
        the row norms, pure ε-DP with a share ``bound_share`` of ε, among
        candidates in the public ``bound_range``
        (``dppca.privacy.private_bounds.norm_quantile``; about
        ``1 − bound_quantile`` of the rows are then clipped, a target; a
        private count of them is released too, ``clipped_rows_``).
    clip : bool, default=True
        Clip rows to their bound (a map on each row alone: neighbours stay
        neighbours); ``False`` raises ``ValueError`` on a longer row.
    center : bool, "midpoint" or array of shape (n_features,), default=True
        ``True``: a private mean, released with a share ``center_share`` of
        the budget, then the rows are centred at it. ``False``: the book's
        uncentred ``XᵀX/n``. An array, or ``"midpoint"`` of
        ``feature_range``: a public centre.
    feature_range : (lower, upper) or None, default=None
        Public per-feature bounds instead of ``data_norm``, which they imply
        (:mod:`dppca.decomposition.ranges`); rows outside are refused.
    clip_to_range : bool, default=False
        With ``feature_range``: clip each entry to its range instead. Set
        it in a ``Pipeline`` after a private step: the rows that step
        transforms may leave the box, and a refusal then depends on a row.
    center_share : float or "auto", default="auto"
        Share of ε (and δ) spent on the private mean, in (0, 1); ``"auto"``:
        the share of ``dppca.forecast.CENTER_SHARES`` with the smallest
        forecast loss (``center_share_``; see ``spectrum``).
    centered_norm : float, "auto", "triangle", "private" or None
        With ``center=True``: the bound at which the centred rows ``x − μ̂``
        are clipped (or refused). ``None`` uses ``data_norm``;
        ``"triangle"`` divides by ``data_norm + ‖μ̂‖`` without clipping;
        ``"private"`` releases it as a quantile of the centred norms, like
        ``data_norm="private"``. ``"auto"`` (default): ``"private"`` with
        the range ``(R/64, 2R)`` (centred rows of data in the R-ball lie
        within 2R) when ``clip=True`` and the forecast loses at least
        ``dppca.forecast.AUTO_BOUND_THRESHOLD`` of R² (else ``None``).
        Released bounds aim at a band below ``bound_quantile`` when nε is
        small (``quantile_scores.band_utilities``), cost ``bound_share``
        of ε (a fifth of it for a private count of the clipped rows) and
        warn (``UtilityWarning``) at an end of their range.
    bound_range : (float, float) or None, default=None
        Public range ``(lower, upper)`` of the candidate bounds when
        ``data_norm`` or ``centered_norm`` is ``"private"`` (required then).
    bound_quantile : float, default=0.95
        The quantile of the norms a private bound targets.
    bound_share : float, default=0.1
        Share of ε spent on the private bounds (split evenly when both are
        private); the mean's ``center_share`` is of the same total ε.
    mechanism_options : dict or None, default=None
        Passed to the mechanism: ``granularity`` (safe noise); ``sampler``,
        ``n_sweeps``, ``V0`` (PPCA; ``V0="pca"`` is not ε-DP);
        ``calibration`` (Analyze Gauss); ``exact_beta`` (MOD-SULQ);
        ``n_iterations``, ``block_size`` (noisy power method).
    allow_unproved : str, sequence of str or None, default=None
        Opt-in, by mechanism name, to a release not fully proved as a
        program (PPCA, Amin et al., the δ-calibrated Wishart, or any
        ``noise="float"``); it still warns (``UnprovedGuaranteeWarning``).
    allow_not_dp : bool, default=False
        Opt-in for ``mechanism="wishart_published"`` (not DP).
    noise : {"safe", "float"}, default="safe"
        How the additive mechanisms and the private mean draw their noise
        (``dppca.privacy.noise``): ``"safe"``, exact discrete noise on a
        grid, private as a program; ``"float"``, float64 noise, private only
        as mathematics (chapter 10), needs ``allow_unproved``.
    accountant : Accountant or None, default=None
        A budget shared by several fits: ``fit`` charges its records before
        drawing any noise, or raises ``BudgetExceededError`` if they would
        exceed it. It survives ``clone`` (``GridSearchCV`` charges the same
        budget: ``dppca.model_selection.budgeted_grid_search``). Without it, a
        refit warns.
    {unit_parameters}

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The private principal axes (orthonormal rows).
    mean_ : ndarray of shape (n_features,)
        The centre subtracted by ``transform``: zeros, the public centre or the
        private mean.
    explained_variance_ : ndarray of shape (n_components,)
        For the mechanisms of
        :data:`~dppca.mechanisms.registry.RELEASES_EIGENVALUES`, the two
        Mangoubi–Vishnoi mechanisms (``"gaussian_approx"``,
        ``"complex_gaussian"``) and ``"trace_sensitive"``: the top eigenvalues
        of the noisy matrix, in the data's units (post-processing; may be
        negative). At small ε the noise inflates them: the top eigenvalues of a
        noisy matrix sit above the true ones by about the noise's spectral
        norm.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        The same eigenvalues as shares of the released matrix's positive
        variance (the sum of its positive eigenvalues); they sum to at most
        one.
    mechanism_, center_share_ : str, float or None
        The mechanism that ran and the mean's share (``"auto"`` resolved).
    clipped_rows_ : dict
        For each released bound, the private (noisy) count of rows it clipped,
        post-processed into ``[0, n]``.
    row_bound_ : float
        The public bound the rows were divided by.
    data_norm_ : float
        The bound R used (``data_norm``, or its private release).
    privacy_releases_ : tuple of dppca.privacy.guarantees.Release
        The guarantee record of every release of the fit (private mean,
        subspace).
    {add_remove_attributes}
    privacy_spent_ : tuple (epsilon, delta)
        Basic composition of the records' calibrated figures; compose several
        fits with :func:`dppca.privacy.accounting.compose`. PPCA through a
        Gibbs chain (k ≥ 2) gives ``(ε, nan)``: ε of the exact law, and no
        (ε, δ) proved for the release (kind ``"ideal"``).
    singular_values_, noise_variance_
        With released eigenvalues: ``√(n·max(λ, 0))`` and the mean of the
        d − k trailing ones (negatives as 0), in the data's units; they and
        ``get_covariance``, ``get_precision``, ``score_samples``, ``score``
        follow scikit-learn's PCA (``dppca.postprocessing`` says where not).
        ``explained_variance_`` divides by n, scikit-learn's by n − 1.
    n_components_, n_features_in_, feature_names_in_
        As in scikit-learn. Float32 input gives float32 attributes and
        outputs; the computation is float64.
    """

    def __init__(
        self,
        n_components=2,
        *,
        whiten=False,
        epsilon=1.0,
        delta=None,
        mechanism="auto",
        data_norm=None,
        clip=True,
        center=True,
        center_share="auto",
        centered_norm="auto",
        mechanism_options=None,
        allow_unproved=None,
        allow_not_dp=False,
        noise="safe",
        bound_range=None,
        bound_quantile=0.95,
        bound_share=0.1,
        accountant=None,
        random_state=None,
        max_rows_per_person=None,
        feature_range=None,
        clip_to_range=False,
        neighbours="replace",
        max_samples=DEFAULT_MAX_SAMPLES,
        spectrum=None,
    ):
        self.n_components = n_components
        self.whiten = whiten
        self.epsilon = epsilon
        self.delta = delta
        self.mechanism = mechanism
        self.data_norm = data_norm
        self.clip = clip
        self.center = center
        self.center_share = center_share
        self.centered_norm = centered_norm
        self.mechanism_options = mechanism_options
        self.allow_unproved = allow_unproved
        self.allow_not_dp = allow_not_dp
        self.noise = noise
        self.bound_range = bound_range
        self.bound_quantile = bound_quantile
        self.bound_share = bound_share
        self.accountant = accountant
        self.random_state = random_state
        self.max_rows_per_person = max_rows_per_person
        self.feature_range = feature_range
        self.clip_to_range = clip_to_range
        self.neighbours, self.max_samples = neighbours, max_samples
        self.spectrum = spectrum

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    @one_fit_at_a_time
    @owns_float_state
    def fit(self, X, y=None, groups=None):
        """Release a private k-dimensional subspace of the rows of ``X``
        (``y`` is ignored): plan, charge, read the rows, run the mechanism.

        Every check and warning happens before any noise is drawn
        (:func:`dppca.decomposition.plan.release_plan`). A second ``fit`` of the
        same estimator spends the budget again, and warns; a ``fit`` while
        another thread fits the same object is refused (fit a clone).
        ``groups`` (one hashable label per row, with
        ``max_rows_per_person``) names the person of each row: the unit of
        privacy is then a person; in a ``Pipeline``, ``pca__groups=g``.
        """
        private_rows = self.neighbours == "add-remove" or groups is not None
        check_public_shape(X, rows_private=private_rows)
        X = validate_data(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=postprocessing.FLOATS,
            reset=True,
        )
        refit = hasattr(self, "privacy_releases_") and self.accountant is None
        fitted = _fit(_parameters(self), X, refit, groups)
        postprocessing.clear_spectrum(self)
        for name, value in fitted.items():
            setattr(self, name, value)
        return self

    def privacy_report(self):
        """The fit's :class:`dppca.report.PrivacyReport`: the (ε, δ) to
        report and how it is composed, the records, the proof status."""
        return report.estimator_report(self)

    def transform(self, X):
        """Project ``X − mean_`` onto the private axes: an ``n × k`` array
        (divided by √``explained_variance_`` when ``whiten``)."""
        check_is_fitted(self, "components_")
        X = validate_data(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=postprocessing.FLOATS,
            reset=False,
        )
        return postprocessing.project(self, X)

    def inverse_transform(self, X):
        """Map ``n × k`` coordinates back to the data space: ``X components_
        + mean_``."""
        check_is_fitted(self, "components_")
        return postprocessing.unproject(self, X)


def _fit(est, X, refit: bool, groups=None) -> dict:
    """The fit of ``est`` (its parameters alone) on the validated ``X``:
    plan → charge → rows → mechanism → post-processing, each step handed
    what the ones before returned; warns on a ``refit`` without an
    accountant once the plan is made. With ``groups``, the units are
    persons (:func:`_persons_of`). Returns the fitted attributes."""
    dtype, X = X.dtype, X.astype(np.float64, copy=False)
    n, d = X.shape
    est = range_stand_in(est, d)  # feature_range: its bound and centre
    if is_add_remove(est):
        check_add_remove(est, n, groups)  # before any charge
    persons = _persons_of(est, groups, n, d)
    units = n if persons is None else persons.N
    plan = release_plan(est, units, d)
    box = getattr(est, "range_box", None)
    if box is not None:
        X = rows_in_box(X, box)  # refused or clipped, before any charge
    relation = None
    if persons is not None:
        check_person_mechanism(plan.name)  # "auto" resolved; no charge yet
        relation = person_neighbours(persons.m)
        record = dataclasses.replace(plan.record, neighbours=relation)
        plan = dataclasses.replace(plan, record=record)
    postprocessing.check_whiten(est, plan.name)
    if refit:
        level = caller_stacklevel()
        warn(REFIT_WARNING, PrivacyWarning, stacklevel=level)
    rng, releases, bound, mean_plan, clipped = _charge(
        est, plan, X, None if persons is None else units, relation
    )
    count, count_records = _private_count(plan, n, rng)
    releases += count_records
    if persons is not None:
        # a public choice of at most m rows per person, from its own
        # generator (the fit's advances by 8 draws, whatever the rows)
        kept = kept_rows(persons, subsampling_generator(rng))
        X = X.tocsr()[kept] if scipy.sparse.issparse(X) else X[kept]
    data, rows_made = _centred_rows(
        est, plan, X, bound, mean_plan, rng, persons
    )
    plan = with_input_shrink(plan, rows_made.input_shrink)
    V, values, total = _run(plan, data, units, d, rng)
    text = rows_made.text
    if box is not None:
        how = "clipped to it" if box[2] else "refused outside"
        text = f"x_i in the public box feature_range ({how}); {text}"
    record = dataclasses.replace(plan.record, row_bound=text)
    releases += rows_made.releases + [record]
    if persons is not None:
        n = persons.padded_rows  # the rows of A, padding included
    fitted = dict(
        # post-processing: a noisy count, kept inside its possible range
        clipped_rows_={
            name: min(max(count, 0), n)
            for name, count in {**clipped, **rows_made.clipped}.items()
        },
        data_norm_=bound,
        mean_=rows_made.mean,
        row_bound_=rows_made.row_bound,
    )
    if plan.max_samples is not None:  # eigenvalues of S/N to S/n̂
        values, total, n = counted_spectrum(plan, values, total, count)
        fitted.update({} if count is None else {"row_count_": count})
    fitted.update(_store(plan, V, values, total, n, d, rows_made.row_bound))
    requested = (est.epsilon, est.delta if plan.spec.uses_delta else 0.0)
    fitted.update(
        privacy_releases_=tuple(releases),
        center_share_=plan.center_share,
        privacy_spent_=_spent(releases, requested),
    )
    return postprocessing.cast_outputs(fitted, dtype)


def _persons_of(est, groups, n, d):
    """The persons of a fit with ``groups`` (``None`` without): the checks
    of :mod:`dppca.decomposition.persons`, all before any charge; with
    ``groups``, ``centered_norm="auto"`` means ``data_norm`` (no private
    bound: their argument counts rows)."""
    m = check_pairing(est, groups)
    if m is None:
        return None
    check_person_parameters(est)
    codes, N = person_codes(groups, n)
    check_padded_size(N, m, d)
    if isinstance(est.centered_norm, str) and est.centered_norm == "auto":
        est.centered_norm = None  # the stand-in of the fit, not the caller's
    return Persons(codes, N, m)


def _store(plan, V, values, total, n, d, row_bound) -> dict:
    """The fitted attributes of the release: axes (sign convention),
    eigenvalues and shares (post-processing)."""
    k, fitted = plan.k, {}
    if values is not None:
        # post-processing of the released matrix: its spectrum and trace
        values = np.asarray(values, dtype=float)
        if isinstance(k, float):
            # smallest k whose released variance reaches the fraction
            share = np.cumsum(values) / total if total > 0 else values
            k = int(min(np.searchsorted(share, k) + 1, d))
        V = np.asarray(V)[:, :k]
        fitted = postprocessing.spectrum(values[:k], total, n, d, row_bound)
    V = np.asarray(V, dtype=float)
    # Sign convention (post-processing): largest |entry| of each axis
    # positive.
    signs = np.sign(V[np.argmax(np.abs(V), axis=0), np.arange(k)])
    signs[signs == 0] = 1.0
    fitted.update(
        components_=(V * signs).T.copy(),
        mechanism_=plan.name,
        n_components_=k,
        _n_features_out=k,
    )
    return fitted


#: The caption of the table of mechanisms in the estimator's docstring
#: (a captioned table, as every other table of the book).
_TABLE_CAPTION = (
    "The mechanisms PrivatePCA runs: the key of each, its privacy notion "
    "and whether its guarantee is fully proved with the default noise"
)

#: The ``spectrum`` parameter, as the estimator's docstring shows it (after
#: the unit of privacy's).
SPECTRUM_PARAMETER = """
    spectrum : array-like of shape (n_features,) or None, default=None
        A **public** prior for the eigenvalues of the rows' covariance, in
        the data's units (say, those of a public data set of the same
        kind, or a release already paid for), never read from the rows of
        this fit: it is a parameter, and parameters are public. With it,
        ``"auto"`` (mechanism and share) runs the configuration of the
        smallest typical loss predicted under it
        (:func:`dppca.forecast.ranked_by_spectrum`). Without it, the best
        bound among the configurations not predicted hopeless on the most
        favourable data within the bound (:func:`dppca.forecast.promising`).
        Finite, ``>= 0``, not all 0; it costs no budget and changes no
        guarantee."""

#: The estimator's docstring with ``{mechanism_table}`` where the
#: registry's table of mechanisms goes (:func:`_document`).
_DOCSTRING = PrivatePCA.__doc__


def _document() -> None:
    """Write the registry's table of mechanisms
    (:func:`dppca.mechanisms.registry.guide_table`) into the estimator's
    docstring: at import, and again after every registration."""
    table = textwrap.indent(registry.guide_table(), "   ")
    captioned = f".. table:: {_TABLE_CAPTION}\n\n{table}"
    PrivatePCA.__doc__ = (
        _DOCSTRING.replace(
            "{mechanism_table}", captioned.replace("\n", "\n" + " " * 8)
        )
        .replace(
            "{unit_parameters}",
            RANDOM_STATE_PARAMETER.strip()
            + "\n    "
            + UNIT_PARAMETERS
            + SPECTRUM_PARAMETER,
        )
        .replace("{add_remove_attributes}", ADD_REMOVE_ATTRIBUTES)
    )


_document()
registry.subscribe(_document)


__all__ = [
    "PrivatePCA",
]
