"""The grid search's choice is a release (issue 38, items 4 and 5).

``budgeted_grid_search`` used to pick ``best_params_`` by GridSearchCV's
scores on the raw held-out rows, outside the ledger, and to keep those
scores (``cv_results_``, ``best_score_``); and for a classifier its folds
were StratifiedKFold's, which move training rows when one label changes.
Here: two neighbouring data sets whose non-private choice differs every time,
while the private choice is random with probabilities within ``e^{ε_sel}``
of each other; the choice's record in the ledger; the refusals; folds that
ignore the labels; no raw score left on the result.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy.stats import beta
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline

from dppca import PrivacyWarning, PrivatePCA, PrivateStandardScaler
from dppca import model_selection as fc
from dppca.privacy.accounting import Accountant

#: Two public centres on either side of the origin; the data's mean sits
#: between them, one row to one side or the other.
CENTRES = [np.array([0.25, 0.0]), np.array([-0.25, 0.0])]
GRID = {"center": CENTRES}


def neighbours():
    """``D``: 41 rows alternating (0.5, 0) and (−0.5, 0), one more at
    +0.5; ``D′``: the last row replaced by (−0.5, 0). On both, every
    candidate's top axis is e₁, and the variance about centre ``c``
    captured by the held-out rows is Σ (x₁ − c₁)²: one row decides which
    centre captures more."""
    D = np.zeros((41, 2))
    D[:, 0] = np.where(np.arange(41) % 2 == 0, 0.5, -0.5)
    D_prime = D.copy()
    D_prime[40, 0] = -0.5
    return D, D_prime


def pca():
    return PrivatePCA(1, data_norm=1.0, delta=1e-6)


def held_out_variance(estimator, X, y=None):
    """A caller's own (non-private) score: held-out captured variance."""
    Z = estimator.transform(X)
    return float(np.mean(np.sum(Z**2, axis=1)))


def non_private_choice(X, seed):
    ledger = Accountant(1e4, 1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = fc.budgeted_grid_search(
            pca().set_params(random_state=seed),
            GRID,
            ledger,
            X,
            cv=3,
            scoring=held_out_variance,
            selection="non_private",
        )
    return int(search.best_index_)


def test_the_non_private_choice_follows_one_row():
    D, D_prime = neighbours()
    # at a large budget the fits are nearly exact and the choice is fixed:
    # centre (−0.25, 0) on D, (0.25, 0) on D′, at every seed
    assert {non_private_choice(D, seed) for seed in range(4)} == {1}
    assert {non_private_choice(D_prime, seed) for seed in range(4)} == {0}


def _permute_and_flip_law(utilities, eps) -> np.ndarray:
    """The exact law of permute-and-flip: over the orders π, the first
    candidate whose coin ``exp(−ε (u* − u_r)/2)`` lands heads."""
    u = np.asarray(utilities, dtype=float)
    p = np.exp(-float(eps) * (u.max() - u) / 2)
    law = np.zeros(u.size)
    orders = list(itertools.permutations(range(u.size)))
    for order in orders:
        tails = 1.0
        for r in order:
            law[r] += tails * p[r] / len(orders)
            tails *= 1 - p[r]
    return law


def private_choice(X, monkeypatch, seed, selection_epsilon=1.0):
    """The private search on ``X``, with the utilities and the ε the draw
    was given captured on the way (the result keeps neither)."""
    from dppca import model_selection

    seen = {}
    draw = model_selection.permute_and_flip

    def spy(utilities, epsilon, rng=None, penalty=None):
        seen["utilities"], seen["epsilon"] = np.array(utilities), epsilon
        return draw(utilities, epsilon, rng)

    monkeypatch.setattr(model_selection, "permute_and_flip", spy)
    ledger = Accountant(1e4, 1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = fc.budgeted_grid_search(
            pca(),
            GRID,
            ledger,
            X,
            cv=3,
            selection_epsilon=selection_epsilon,
            random_state=seed,
        )
    return search, seen, ledger


def test_the_private_choice_is_within_e_to_the_epsilon_on_neighbours(
    monkeypatch,
):
    from dppca.model_selection import SCORE_LEVELS

    D, D_prime = neighbours()
    eps_sel = 1.0
    laws = []
    for X in (D, D_prime):
        search, seen, ledger = private_choice(X, monkeypatch, 0, eps_sel)
        u = seen["utilities"]
        # one unit of U is 1/L of a row's score; each row is held out once
        assert seen["epsilon"] <= eps_sel / SCORE_LEVELS
        # the gap is half a row's score, as the construction says
        assert abs(abs(u[0] - u[1]) / SCORE_LEVELS - 0.5) < 1e-3
        laws.append(_permute_and_flip_law(u, seen["epsilon"]))
    law_D, law_D_prime = laws
    # random on both: neither candidate is certain
    assert law_D.min() > 0.3 and law_D_prime.min() > 0.3
    # the favourite flips with the row, as the non-private choice does
    assert np.argmax(law_D) == 1 and np.argmax(law_D_prime) == 0
    # ... but the probabilities stay within e^ε_sel of each other
    ratio = np.max(np.maximum(law_D / law_D_prime, law_D_prime / law_D))
    assert 1.2 < ratio <= math.exp(eps_sel)
    # the closed form is the sampler's law: a Monte Carlo of the package's
    # own draw on the captured utilities, inside a 99.9% Clopper-Pearson
    from dppca.privacy.private_bounds import permute_and_flip

    rng = np.random.default_rng(1)
    trials = 3000
    hits = sum(
        permute_and_flip(u, seen["epsilon"], rng) == 0 for _ in range(trials)
    )
    low = beta.ppf(0.0005, hits, trials - hits + 1)
    high = beta.ppf(0.9995, hits + 1, trials - hits)
    assert low <= law_D_prime[0] <= high


def test_the_private_search_chooses_both_candidates_over_seeds(monkeypatch):
    D, _ = neighbours()
    chosen = {
        private_choice(D, monkeypatch, seed)[0].best_index_
        for seed in range(12)
    }
    assert chosen == {0, 1}


def test_the_selection_is_charged_planned_and_within_the_budget():
    D, _ = neighbours()
    for compose in (False, True):
        ledger = Accountant(4.0, 1e-5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search = fc.budgeted_grid_search(
                pca(), GRID, ledger, D, cv=3, compose=compose, random_state=0
            )
        record = search.selection_guarantee_
        assert record in ledger.releases
        assert ledger.charges.count("private model selection") == 1
        assert record.kind == "pure" and record.proved
        assert record.epsilon == pytest.approx(0.4)  # a tenth of what was left
        assert len(ledger.charges) == search.n_budgeted_fits_ + 1 == 8
        eps, delta = ledger.spent
        assert eps <= 4.0 * (1 + 1e-9) and delta <= 1e-5
    # the dry run includes the selection: a budget that pays for the fits
    # but not for the fits and the selection is refused before any fit
    from dppca.privacy.accounting import BudgetExceededError

    ledger = Accountant(1.0, 1e-5)
    with pytest.raises(BudgetExceededError, match="selection_epsilon"):
        fc.budgeted_grid_search(
            pca(), GRID, ledger, D, cv=3, selection_epsilon=1.0
        )
    assert ledger.charges == ()


class _CountingPCA(PrivatePCA):
    """Records every fit, with the random_state it ran with."""

    fits: list = []

    def fit(self, X, y=None):
        _CountingPCA.fits.append(self.random_state)
        return super().fit(X, y)


def test_a_private_selection_refuses_non_private_steps_before_any_fit():
    X = np.random.default_rng(0).normal(size=(300, 5)) / 3
    y = (X[:, 0] > 0).astype(int)
    counting = _CountingPCA(2, data_norm=1.0, delta=1e-6)
    cases = [
        (make_pipeline(counting, LogisticRegression()), {}, "non_private"),
        (counting, {"scoring": held_out_variance}, "scoring must be None"),
        (counting, {"verbose": 1}, "options"),
        (
            PrivateStandardScaler((np.full(5, -2.0), np.full(5, 2.0))),
            {},
            "must be one",
        ),
    ]
    for estimator, extra, message in cases:
        _CountingPCA.fits.clear()
        ledger = Accountant(5.0, 1e-5)
        grid = {
            k: v
            for k, v in estimator.get_params().items()
            if k.endswith("n_components") or k.endswith("with_mean")
        }
        grid = {k: [v] for k, v in grid.items()}
        with pytest.raises(ValueError, match=message):
            fc.budgeted_grid_search(
                estimator, grid, ledger, X, y, cv=3, **extra
            )
        assert _CountingPCA.fits == [] and ledger.charges == ()


def test_every_fit_draws_its_own_noise():
    X = np.random.default_rng(0).normal(size=(300, 5)) / 3
    for random_state in (None, 7):
        _CountingPCA.fits.clear()
        ledger = Accountant(5.0, 1e-5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search = fc.budgeted_grid_search(
                _CountingPCA(data_norm=1.0, delta=1e-6, random_state=3),
                {"n_components": [1, 2]},
                ledger,
                X,
                cv=3,
                random_state=random_state,
            )
        seeds = _CountingPCA.fits
        assert len(seeds) == search.n_budgeted_fits_ == 7
        if random_state is None:  # fresh entropy at every fit
            assert seeds == [None] * 7
        else:  # a distinct seed per fit, none the estimator's own
            assert len(set(seeds)) == 7 and 3 not in seeds


def test_labels_do_not_move_the_folds():
    X = np.random.default_rng(0).normal(size=(90, 5)) / 3
    y_one, y_two = np.random.default_rng(5).integers(0, 2, size=(2, 90))
    strat = [
        [t.tolist() for _, t in StratifiedKFold(3).split(X, y)]
        for y in (y_one, y_two)
    ]
    assert strat[0] != strat[1]  # StratifiedKFold's folds follow y
    folds = []
    for y in (y_one, y_two):
        pipe = make_pipeline(
            PrivatePCA(2, data_norm=1.0, delta=1e-6), LogisticRegression()
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search = fc.budgeted_grid_search(
                pipe,
                {"logisticregression__C": [1.0]},
                Accountant(5.0, 1e-5),
                X,
                y,
                cv=3,
                selection="non_private",
            )
        folds.append([test.tolist() for _, test in search.cv])
    assert (
        folds[0]
        == folds[1]
        == [
            list(range(0, 30)),
            list(range(30, 60)),
            list(range(60, 90)),
        ]
    )
    # a splitter that reads y is refused before any fit
    ledger = Accountant(5.0, 1e-5)
    with pytest.raises(ValueError, match="depend on n alone"):
        fc.budgeted_grid_search(
            pipe,
            {"logisticregression__C": [1.0]},
            ledger,
            X,
            y_one,
            cv=StratifiedKFold(3),
            selection="non_private",
        )
    assert ledger.charges == ()


def test_no_raw_score_is_kept_and_the_non_private_choice_says_so(monkeypatch):
    D, _ = neighbours()
    search, seen, _ = private_choice(D, monkeypatch, 0)
    for name in ("cv_results_", "best_score_", "scorer_", "multimetric_"):
        assert not hasattr(search, name), name
    kept = set(vars(search))
    assert kept == {
        "best_index_",
        "best_params_",
        "best_estimator_",
        "candidates_",
        "n_splits_",
        "refit",
        "selection_epsilon_",
        "selection_guarantee_",
        "budget_per_fit_",
        "n_budgeted_fits_",
    }
    values = [v for v in vars(search).values() if isinstance(v, (int, float))]
    assert not set(seen["utilities"].tolist()) & set(values)
    assert search.selection_ == "private"
    assert search.best_params_ == search.candidates_[search.best_index_]
    assert search.transform(D).shape == (41, 1)
    # the non-private choice: by request only, warned and marked
    pipe = make_pipeline(pca(), LogisticRegression())
    y = (D[:, 0] > 0).astype(int)
    with pytest.warns(
        PrivacyWarning, match="none of this is covered by the accountant"
    ):
        other = fc.budgeted_grid_search(
            pipe,
            {"logisticregression__C": [0.1, 1.0]},
            Accountant(5.0, 1e-5),
            D,
            y,
            cv=3,
            selection="non_private",
        )
    assert other.selection_ == "non_private"
    assert other.non_private_steps_ == ("logisticregression",)
    assert "logisticregression" in other.privacy_note_


def test_a_private_scaler_then_pca_is_searched_privately():
    X = np.random.default_rng(2).normal(size=(240, 4)) + 3.0
    bounds = (np.full(4, -2.0), np.full(4, 8.0))
    pipe = make_pipeline(
        PrivateStandardScaler(bounds),
        "passthrough",
        PrivatePCA(1, data_norm=4.0, delta=1e-6, centered_norm=None),
    )
    ledger = Accountant(6.0, 1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = fc.budgeted_grid_search(
            pipe,
            {"privatepca__center_share": [0.1, 0.3]},
            ledger,
            X,
            cv=2,
            random_state=0,
        )
    assert search.best_params_ in search.candidates_
    assert search.transform(X).shape == (240, 1)
    # two private steps per fit, five fits, and the choice
    assert ledger.charges.count("private model selection") == 1
    assert len(ledger.charges) == 2 * search.n_budgeted_fits_ + 1
    assert ledger.spent[0] <= 6.0 * (1 + 1e-9)
