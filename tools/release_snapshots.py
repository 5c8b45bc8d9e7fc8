"""Every release of the package under fixed seeds, as values.

For every mechanism of ``PrivatePCA`` × centring (``False``, ``True``, a
public vector) on a small fixed data set (N = 400 rows, d = 6, k = 2) with an
integer ``random_state``, and for every functional entry point with
``rng=int``: the released arrays themselves (a few dozen numbers each), the
guarantee records' ``as_dict()`` and the spent budget. Printed as JSON
(sorted keys, floats written so that they read back exactly);
``tests/data/release_snapshots.json`` keeps the expected output and
``tests/policy/test_release_snapshots.py`` compares it with a tolerance (see there
why values, not hashes of their bytes: the last bits of a float result
depend on the CPU's BLAS kernels and SIMD paths).

Each array is stored with a ``kind``: ``"subspace"`` for orthonormal
vectors (``components_`` rows, or the columns of a returned ``V``), whose
signs an eigensolver may choose differently on another CPU, so the test
compares each vector's projector ``v vᵀ``; ``"integer"`` for integer draws
(compared exactly); ``"values"`` for everything else.

The tool imports only names that exist before and after the package's
reshaping (issue 28): public ``dppca`` names, or the old and the new module
path tried in turn.

Usage: ``python tools/release_snapshots.py [--out FILE]``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import warnings

import numpy as np

import dppca
from dppca import PrivatePCA


def mechanisms() -> dict:
    """Every mechanism of ``PrivatePCA``, from the registry
    (``dppca.mechanisms.registry.MECHANISMS``, in its order), with the
    parameters a fit of it needs beyond the defaults: its spec's
    ``example_options``, the opt-in a release not fully proved with the
    default noise needs (``allow_unproved`` by name; ``allow_not_dp`` for
    one that is not DP), and a ``delta`` when it uses one."""
    from dppca.mechanisms import registry

    out = {}
    for name, spec in registry.MECHANISMS.items():
        extra = {"delta": 1e-5 if spec.uses_delta else None}
        if spec.example_options:
            extra["mechanism_options"] = dict(spec.example_options)
        if spec.notion == "not_dp":
            extra["allow_not_dp"] = True
        elif not spec.additive_noise or not _proved(spec, extra["delta"]):
            extra["allow_unproved"] = name
        out[name] = extra
    return out


def _proved(spec, delta) -> bool:
    """Whether the mechanism's record with the default (safe) noise, at the
    snapshots' settings, is fully proved (an additive mechanism may not be:
    the spiked model's eigen-decomposition margin is assumed)."""
    return spec.guarantee(N, D, K, 2.0, delta, {"noise": "safe"}).proved


N, D, K, SEED = 400, 6, 2, 20240611

#: Fitted attributes that are not released values (stored elsewhere: the
#: records and the spent budget) or are public (the input width).
NOT_RELEASES = {"privacy_releases_", "privacy_spent_", "n_features_in_"}

#: Functional entry points run a second time with ``noise="float"`` (the
#: float64 samplers, which the default safe noise does not exercise).
FLOAT_NOISE = (
    "analyze_gauss",
    "mod_sulq",
    "laplace_input_perturbation",
    "gaussian_subspace_recovery",
    "complex_gaussian_approximation",
    "trace_sensitive_covariance",
    "coinpress_covariance",
    "dp_pca_oja",
    "noisy_power_method",
)


def module(*names):
    """The first of ``names`` that imports (old path, new path)."""
    for name in names:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    raise ModuleNotFoundError(" or ".join(names))


def stored(value, kind: str = "values") -> dict:
    """One released array as JSON: its kind, dtype, shape and entries."""
    array = np.asarray(value)
    if kind == "values" and np.issubdtype(array.dtype, np.integer):
        kind = "integer"
    entries = array.ravel().tolist()
    return {
        "kind": kind,
        "dtype": array.dtype.str,
        "shape": list(array.shape),
        "values": entries,
    }


def stored_records(records) -> list:
    """The guarantee records as plain JSON values (``repr`` for the rest)."""
    rows = [record.as_dict() for record in records if record is not None]
    return json.loads(json.dumps(rows, sort_keys=True, default=repr))


def subspace_kind(array) -> str:
    """``"subspace"`` for a matrix with orthonormal columns (a returned
    ``V``), else ``"values"``."""
    a = np.asarray(array)
    if a.ndim == 2 and a.shape[1] < a.shape[0]:
        if np.allclose(a.T @ a, np.eye(a.shape[1]), atol=1e-8):
            return "subspace"
    return "values"


def data():
    """Fixed rows: anisotropic Gaussian, shifted, scaled into the unit
    ball (so the functional entry points accept them too)."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((N, D)) * np.linspace(2.0, 0.3, D) + 0.4
    X /= 1.01 * np.linalg.norm(X, axis=1).max()
    return X


def estimator_snapshots(X):
    out = {}
    centres = {
        "false": False,
        "true": True,
        "public": np.full(D, 0.05),
    }
    for name, extra in mechanisms().items():
        for label, center in centres.items():
            pca = PrivatePCA(
                K,
                epsilon=2.0,
                mechanism=name,
                data_norm=1.0,
                center=center,
                random_state=SEED,
                **extra,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pca.fit(X)
            arrays, fitted = {}, {}
            for attribute, value in sorted(vars(pca).items()):
                if not attribute.endswith("_") or attribute.startswith("_"):
                    continue
                if attribute in NOT_RELEASES:
                    continue
                if isinstance(value, (np.ndarray, float, int, np.number)):
                    # components_ signed: the estimator fixes each sign
                    arrays[attribute] = stored(value)
                else:  # names and public settings: compared exactly
                    fitted[attribute] = json.loads(
                        json.dumps(value, default=repr)
                    )
            out[f"PrivatePCA/{name}/center={label}"] = {
                "arrays": arrays,
                "fitted": fitted,
                "records": stored_records(pca.privacy_releases_),
                # nan (no δ proved) as text: nan != nan
                "spent": [
                    float(v) if v == v else "nan" for v in pca.privacy_spent_
                ],
            }
    return out


def functional_snapshots(X):
    gaussian_approx = module(
        "dppca.gaussian_approx", "dppca.mechanisms.gaussian_approx"
    )
    complex_gaussian = module(
        "dppca.complex_gaussian", "dppca.mechanisms.complex_gaussian"
    )
    trace_sensitive = module(
        "dppca.trace_sensitive", "dppca.mechanisms.trace_sensitive"
    )
    coinpress = module("dppca.mechanisms.coinpress")
    adaptive = module("dppca.mechanisms.adaptive_kpca")
    streaming = module("dppca.streaming", "dppca.mechanisms.streaming")
    power_method = module("dppca.power_method", "dppca.mechanisms.power_method")
    wishart = module(  # not DP, so not exported at the top level
        "dppca.input_perturbation", "dppca.mechanisms.input_perturbation"
    )
    private_bounds = dppca.privacy.private_bounds
    calls = {  # each takes the keyword arguments of one variant
        "analyze_gauss": lambda **kw: dppca.analyze_gauss(
            X, epsilon=1.0, delta=1e-5, rng=SEED, **kw
        ),
        "mod_sulq": lambda **kw: dppca.mod_sulq(
            X, epsilon=1.0, delta=1e-5, rng=SEED, **kw
        ),
        "laplace_input_perturbation": lambda **kw: (
            dppca.laplace_input_perturbation(X, epsilon=1.0, rng=SEED, **kw)
        ),
        "wishart_input_perturbation": lambda **kw: (
            wishart.wishart_input_perturbation(X, epsilon=1.0, rng=SEED, **kw)
        ),
        "wishart_input_perturbation_delta": lambda **kw: (
            dppca.wishart_input_perturbation_delta(
                X, delta=1e-5, rng=SEED, **kw
            )
        ),
        "ppca": lambda **kw: dppca.ppca(X, K, epsilon=2.0, rng=SEED, **kw),
        "amin_subspace": lambda **kw: dppca.amin_subspace(
            X, K, epsilon=2.0, rng=SEED, **kw
        ),
        "gaussian_subspace_recovery": lambda **kw: (
            gaussian_approx.gaussian_subspace_recovery(
                X, K, epsilon=1.0, delta=1e-5, rng=SEED, **kw
            )
        ),
        "complex_gaussian_approximation": lambda **kw: (
            complex_gaussian.complex_gaussian_approximation(
                X, K, epsilon=1.0, delta=1e-5, rng=SEED, **kw
            )
        ),
        "trace_sensitive_covariance": lambda **kw: (
            trace_sensitive.trace_sensitive_covariance(
                X, epsilon=1.0, delta=1e-5, rng=SEED, **kw
            )
        ),
        "coinpress_covariance": lambda **kw: coinpress.coinpress_covariance(
            X, epsilon=1.0, delta=1e-5, rng=SEED, **kw
        ),
        "dp_pca_oja": lambda **kw: streaming.dp_pca_oja(
            X, K, epsilon=1.0, delta=1e-5, eigengap=0.05, rng=SEED, **kw
        ),
        "adaptive_kpca": lambda **kw: adaptive.adaptive_kpca(
            X, K, epsilon=1.0, delta=1e-5, rng=SEED, **kw
        ),
        "noisy_power_method": lambda **kw: power_method.noisy_power_method(
            X, K, epsilon=1.0, delta=1e-5, rng=SEED, **kw
        ),
        "norm_quantile": lambda **kw: private_bounds.norm_quantile(
            X, 0.9, 1.0, lower=0.01, upper=10.0, rng=SEED, **kw
        ),
    }
    variants = [(name, call, {}, "") for name, call in calls.items()]
    variants += [
        (name, calls[name], {"noise": "float"}, "/noise=float")
        for name in FLOAT_NOISE
    ]
    out = {}
    for name, call, options, suffix in variants:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = call(**options)
        if hasattr(value, "bound"):  # a PrivateBound
            arrays = {
                "bound": stored(np.float64(value.bound)),
                "index": stored(np.int64(value.index)),
            }
            records = [value.guarantee]
        else:
            array = np.asarray(value)
            arrays = {"release": stored(array, subspace_kind(array))}
            records = [dppca.guarantee_of(value)]
        out[f"function/{name}{suffix}"] = {
            "arrays": arrays,
            "records": stored_records(records),
        }
    return out


def snapshots() -> dict:
    X = data()
    return {**estimator_snapshots(X), **functional_snapshots(X)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", help="write the JSON here (default stdout)")
    args = parser.parse_args(argv)
    text = json.dumps(snapshots(), indent=1, sort_keys=True) + "\n"
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
