"""Privacy reports (issue 30.1): PrivatePCA.privacy_report() and
Accountant.report(), their JSON round trip (nan δ as null, valid JSON), and
the plain-English text."""

import json
import math
import pickle
import warnings

import numpy as np
import pytest

import dppca
from dppca import PrivacyWarning, PrivatePCA
from dppca.privacy.accounting import Accountant, compose
from dppca.report import PrivacyReport


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).standard_normal((500, 5))


def fit(X, **kw):
    params = {"epsilon": 1.0, "data_norm": 5.0, "random_state": 3, **kw}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        return PrivatePCA(2, **params).fit(X)


def strict_loads(text):
    def refuse(name):
        raise ValueError(f"invalid JSON literal {name}")

    return json.loads(text, parse_constant=refuse)


def test_report_of_a_gaussian_fit(X):
    est = fit(X, delta=1e-5)
    report = est.privacy_report()
    data = report.to_dict()
    assert (data["epsilon"], data["delta"]) == est.privacy_spent_
    assert "basic composition" in data["composition"]
    assert data["charges"][0]["releases"] == [
        r.as_dict() for r in est.privacy_releases_
    ]
    assert report.releases == [r.as_dict() for r in est.privacy_releases_]
    assert data["proved"] is True and data["caveats"] == []
    assert data["noise"] == ["safe"]
    assert data["version"] == dppca.__version__
    assert data["parameters"]["mechanism"] == "auto"
    assert data["parameters"]["delta"] == 1e-5
    # the seed is withheld: it would let anyone recompute the noise
    assert "3" not in str(data["parameters"]["random_state"])
    assert "withheld" in data["parameters"]["random_state"]
    # two Gaussian/zCDP releases: compose can do better, and does
    assert "compose([est], delta)" in data["tighter"]
    assert compose([est], 1e-5)[0] < report.epsilon


def test_json_round_trip(X):
    report = fit(X, delta=1e-5, center=np.zeros(5)).privacy_report()
    text = report.to_json()
    assert strict_loads(text) == report.to_dict()
    assert PrivacyReport.from_json(text) == report
    assert PrivacyReport.from_json(text).to_json() == text


def test_nan_delta_of_a_gibbs_chain_is_json_null(X):
    est = fit(X, mechanism="ppca", allow_unproved="ppca")
    assert math.isnan(est.privacy_spent_[1])
    report = est.privacy_report()
    text = report.to_json()
    assert "NaN" not in text
    data = strict_loads(text)
    assert data["delta"] is None and data == report.to_dict()
    assert PrivacyReport.from_json(text) == report
    assert data["proved"] is False and data["caveats"]
    assert "float sampler" in data["noise"]
    words = str(report)
    assert "NO (ε, δ) guarantee is proved" in words
    assert "NOT fully proved" in words
    assert data["tighter"] == ""  # compose refuses the chain


def test_the_text_a_compliance_reader_gets(X):
    report = fit(X, delta=1e-5).privacy_report()
    words = str(report)
    lines = words.splitlines()
    assert 5 <= len(lines) <= 16 and max(map(len, lines)) <= 76
    for fragment in (
        "ε = 1, δ = 1e-05",
        "neighbours",
        "differ in one row",
        "Row bound: ‖x_i‖₂ ≤ 5",
        f"dppca {dppca.__version__}",
        "proved",
    ):
        assert fragment in words, fragment
    assert "Release(" not in words and "{" not in words
    pure = str(fit(X, delta=0.0).privacy_report())
    assert "δ = 0 (pure differential privacy)" in pure


def test_a_report_needs_a_fit():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        PrivatePCA(data_norm=1.0, delta=0.0).privacy_report()
    with pytest.raises(ValueError, match="not a privacy report"):
        PrivacyReport.from_dict({"epsilon": 1.0})


def test_accountant_report_lists_every_charge(X):
    ledger = Accountant(3.0, 1e-5)
    first = fit(X, delta=1e-6, accountant=ledger)
    second = fit(X, delta=0.0, accountant=ledger)
    report = ledger.report()
    data = report.to_dict()
    assert [c["label"] for c in data["charges"]] == list(ledger.charges)
    charged = first.privacy_releases_ + second.privacy_releases_
    # each default fit: the private mean, the centred rows' private bound,
    # the private count of rows clipped to it, the mechanism
    assert len(report.releases) == len(charged) == 8
    assert [len(c["releases"]) for c in data["charges"]] == [4, 4]
    assert (data["epsilon"], data["delta"]) == ledger.spent
    assert data["budget"]["remaining"] == list(ledger.remaining())
    assert "compose" in data["composition"]
    assert strict_loads(report.to_json()) == data
    assert PrivacyReport.from_json(report.to_json()) == report
    words = str(report)
    assert "2 charge(s)" in words and "Budget: ε = 3" in words
    # a copy in another process reports the same charges
    copy = pickle.loads(pickle.dumps(ledger))
    assert copy is ledger  # same process: the live ledger
    empty = Accountant(1.0).report()
    assert empty.epsilon == 0 and empty.charges == []
    assert "none yet" in str(empty)
