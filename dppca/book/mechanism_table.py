"""The table of mechanisms the book's experiments run: the two baselines
(non-private PCA, a random subspace) and every mechanism of
:mod:`dppca.mechanisms.registry` (:func:`mechanisms`, with what the book
shows of each in :mod:`dppca.book.mechanism_facts`), and apart the peer
libraries' PCA (:func:`peer_mechanisms`). The experiments of
:mod:`dppca.book.experiments` take such a table.

Every registered mechanism maps ``(X, k, epsilon, delta, rng)`` to a ``d x k``
orthonormal ``V``. Mechanisms that only need ``A = X^T X / n`` and ``n`` also
expose that entry point (``from_moment``), so that one subset's ``A`` is formed
once and reused across restarts; for these the two entry points give the same
law (the ``X`` versions compute ``A`` and call the same code). Mechanisms that
must read the rows (:data:`ROW_MECHANISMS`) expose ``from_rows`` instead: it
takes the rows as stored (sparse rows stay sparse) and a cache that lives as
long as one subset's rows, for what is a deterministic function of them.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..exceptions import NotPrivateWarning, UnprovedGuaranteeWarning
from ..linalg import haar_subspace, second_moment, top_k_subspace
from ..mechanisms.registry import MECHANISMS
from .mechanism_facts import EXPERIMENT_ORDER, FACTS


@dataclass(frozen=True)
class Mechanism:
    """A subspace mechanism: ``release(X, k, epsilon, delta, rng) -> V`` (d x
    k), optionally
    ``from_moment(A, n, k, epsilon, delta, rng) -> V``; ``notion`` is the
    privacy it really
    provides in a few words, ``privacy`` the module's full ``PRIVACY`` text."""

    key: str
    label: str
    notion: str
    release: Callable
    from_moment: Callable | None
    privacy: str
    #: The cap of ACG proposals each release may draw
    #: (:meth:`with_work_cap`), None for none.
    work_cap: int | None = None
    #: ``from_rows(rows, k, epsilon, delta, rng, cache) -> V`` for a mechanism
    #: that must read the rows (no ``from_moment``): ``rows`` dense or
    #: scipy.sparse, ``cache`` a dict the experiment keeps for one subset's
    #: rows (same law as ``release``; see :data:`ROW_MECHANISMS`).
    from_rows: Callable | None = None

    def __call__(self, X, k, epsilon, delta, rng=None):
        return self.release(X, k, epsilon, delta, rng, **self._capped())

    def _capped(self, work=None) -> dict:
        """Keyword arguments that pass the work cap (a fresh
        :class:`~dppca.book.peers.WorkCount` unless ``work`` is given)."""
        if self.work_cap is None:
            return {}
        from .peers import WorkCount

        return {"max_proposals": work or WorkCount(self.work_cap)}

    def with_work_cap(self, max_proposals: int) -> Mechanism:
        """The same mechanism, every release stopped with
        :class:`~dppca.book.peers.WorkCapExceeded` once it has drawn
        ``max_proposals`` proposals (for the libraries' rejection samplers,
        :mod:`dppca.book.peers`, whose entry points take ``max_proposals``).

        The experiment functions record such a release as an outcome
        (``"work cap"``), not an error. Whether a release returns depends
        only on the seed and the cap, not on the machine."""
        try:
            cap = int(max_proposals)
        except (TypeError, ValueError, OverflowError):
            cap = 0
        if cap != max_proposals or cap < 1:
            raise ValueError(
                f"max_proposals must be a positive integer, got "
                f"{max_proposals!r}"
            )
        return dataclasses.replace(self, work_cap=cap)

    def run_from_moment(self, A, n, k, epsilon, delta, rng=None):
        """Release from the second moment when possible (same law as
        ``release``)."""
        if self.from_moment is None:
            raise ValueError(f"{self.key} needs the data rows, not only A")
        return self.from_moment(A, n, k, epsilon, delta, rng, **self._capped())


def _without_not_dp_warning(function):
    """``function`` with the published Wishart mechanism's
    NotPrivateWarning silenced, by its class (the table states the failure
    in its notion instead)."""

    def quiet(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotPrivateWarning)
            return function(*args, **kwargs)

    return quiet


def _without_unproved_warning(function):
    """``function`` with the call-time UnprovedGuaranteeWarning silenced: an
    experiment runs a mechanism hundreds of times, and the registry states
    each mechanism's guarantee once, in its ``privacy`` text."""

    def quiet(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnprovedGuaranteeWarning)
            return function(*args, **kwargs)

    return quiet


def _pca_release(X, k, epsilon, delta, rng=None):
    return top_k_subspace(second_moment(X), k)


def _pca_moment(A, n, k, epsilon, delta, rng=None):
    return top_k_subspace(A, k)


def _random_release(X, k, epsilon, delta, rng=None):
    return haar_subspace(np.shape(X)[1], k, rng)


def _random_moment(A, n, k, epsilon, delta, rng=None):
    return haar_subspace(A.shape[0], k, rng)


#: Short privacy notions shown in legends and tables (the module's PRIVACY text
#: has the detail): the baselines', the registry's mechanisms' and the peers'.
SHORT_NOTION = {
    "pca": "not private",
    "random": "0-DP (data-independent)",
    **{key: FACTS[key].short_notion for key in EXPERIMENT_ORDER},
    "diffprivlib_pca": "claimed ε-DP: sampler off-target (book)",
    "opendp_pca": "claimed ε-DP: sampler off-target (book)",
}

#: Where each private mechanism lives (module, function), from the book's
#: table (:mod:`dppca.book.mechanism_facts`); the experiments import
#: whichever exist, and :func:`missing_mechanisms` lists the others.
EXPECTED = {key: FACTS[key].entry_point for key in EXPERIMENT_ORDER}

#: The mechanisms of the part "After 2019" (chapter 16 to chapter 18), in
#: its order.
AFTER_2019 = ("complex_gaussian", "streaming", "trace_sensitive")

#: The registered mechanisms that must read the rows, each with its reason.
#: They have no ``from_moment`` entry point, and the experiments hand them each
#: subset's rows (sparse rows stay sparse) through ``Mechanism.from_rows``.
ROW_MECHANISMS = {
    key: FACTS[key].row_reason
    for key in EXPERIMENT_ORDER
    if FACTS[key].row_reason is not None
}

#: The streaming mechanism's public schedule in these experiments. The
#: mechanism needs a public assumption on the eigengap for its default
#: learning rate (chapter 17), which a data set does not come with. The
#: experiments use power steps (``η = ∞``, no gap needed) on ``5`` minibatches
#: per component. This is a data-independent rule, but it was chosen by the
#: book after trying 30, 10 and 5 steps (and the Oja schedule with the true
#: gap) on the four UCI data sets at ε = 0.1: a choice made on the data,
#: which a private analysis would have to pay for. Chapter 8 says so.
STREAMING_PROTOCOL = {"learning_rate": lambda t: np.inf, "n_steps": 5}

#: The peer libraries' estimators (optional extra ``peers``), listed by
#: :func:`peer_mechanisms` only when the library imports. Kept out of
#: :func:`mechanisms`: OpenDP cannot be seeded, so these do not meet the
#: registry's same-seed contract; their ``from_moment`` runs the library's own
#: eigenvector code on ``n A`` (same law of ``V`` as the estimator on the rows).
PEER_LIBRARY = {"diffprivlib_pca": "diffprivlib", "opendp_pca": "opendp"}

_LABELS = {
    "pca": "non-private PCA",
    "random": "random subspace",
    **{key: FACTS[key].experiment_label for key in EXPERIMENT_ORDER},
    "diffprivlib_pca": "diffprivlib PCA",
    "opendp_pca": "OpenDP PCA",
}


def _find(key):
    module_name, function_name = EXPECTED[key]
    module = importlib.import_module(
        module_name
    )  # a broken module must fail loudly
    return module, getattr(module, function_name, None)


def _privacy_text(module, key):
    """The module's ``PRIVACY`` text of the mechanism's entry point (keyed
    by the function's name), else its short notion."""
    privacy = getattr(module, "PRIVACY", {})
    return privacy.get(EXPECTED[key][1], SHORT_NOTION[key])


def mechanisms(
    ppca_options: dict | None = None, streaming_options: dict | None = None
) -> dict[str, Mechanism]:
    """Every mechanism available now, baselines first. ``ppca_options`` go to
    ``dppca.mechanisms.exponential.ppca`` (e.g. ``{"n_sweeps": 50}``),
    ``streaming_options`` to ``dppca.mechanisms.streaming.dp_pca_oja`` (default
    :data:`STREAMING_PROTOCOL`; e.g. ``{"eigengap": 0.1}``, a public
    assumption)."""
    registry = {
        "pca": Mechanism(
            "pca",
            _LABELS["pca"],
            SHORT_NOTION["pca"],
            _pca_release,
            _pca_moment,
            "non-private: the exact top-k eigenvectors of A",
        ),
        "random": Mechanism(
            "random",
            _LABELS["random"],
            SHORT_NOTION["random"],
            _random_release,
            _random_moment,
            "a Haar-uniform subspace, independent of the data",
        ),
    }
    options = dict(ppca_options or {})
    stream = dict(
        STREAMING_PROTOCOL if streaming_options is None else streaming_options
    )
    for key in EXPECTED:
        module, function = _find(key)
        if function is None:
            continue
        facts = FACTS[key]
        bound = {"ppca": options, "streaming": stream}.get(key, {})
        release, from_moment, from_rows = (
            None if entry is None else functools.partial(entry, **bound)
            for entry in (facts.release, facts.from_moment, facts.from_rows)
        )
        if MECHANISMS[key].notion == "not_dp":
            # Run knowingly, labelled "FAILS" (chapter 3): its call-time
            # PrivacyWarning would repeat once per run of an experiment.
            release = _without_not_dp_warning(release)
            from_moment = _without_not_dp_warning(from_moment)
        registry[key] = Mechanism(
            key,
            _LABELS[key],
            SHORT_NOTION[key],
            _without_unproved_warning(release),
            None
            if from_moment is None
            else _without_unproved_warning(from_moment),
            _privacy_text(module, key),
            from_rows=None
            if from_rows is None
            else _without_unproved_warning(from_rows),
        )
    return registry


def peer_mechanisms() -> dict[str, Mechanism]:
    """diffprivlib's and OpenDP's PCA (:mod:`dppca.book.peers`), those whose
    library imports."""
    from . import peers

    ok = peers.available()
    out = {}
    for key, library in PEER_LIBRARY.items():
        if not ok[library]:
            continue
        out[key] = Mechanism(
            key,
            _LABELS[key],
            SHORT_NOTION[key],
            getattr(peers, key),
            getattr(peers, f"{key}_from_second_moment"),
            peers.PRIVACY[key],
        )
    return out


def missing_mechanisms() -> list[str]:
    """Expected mechanisms that are not (yet) implemented in the package."""
    return [key for key in EXPECTED if _find(key)[1] is None]
