"""The two libraries that ship Amin et al. (2019), run through the book's
interfaces.

* **diffprivlib 0.6.6** (IBM): ``diffprivlib.models.PCA`` and its eigenvector
  sampler ``diffprivlib.mechanisms.Bingham``;
* **OpenDP 0.16** (``opendp[numpy]``, features ``contrib`` and
  ``idealized-numerics``):
  ``opendp.extras.sklearn.decomposition.make_private_pca`` (the measurement
  behind its ``PCA`` class) and its eigenvector measurement
  ``make_private_eigenvector``.

Both libraries are imported lazily (optional extra ``peers``). Every adapter
passes the public bounds explicitly (row norm 1, data centred at the known
origin 0, as in the book's protocol); none lets a library read a bound from the
data. The functions here call the libraries' real code; nothing of theirs is
copied.

**Seeding.** Every adapter takes ``rng`` (a seed or a NumPy ``Generator``)
and draws 256 bits from it, which seed a fresh PCG64 bit generator for the
library: as much as the library's randomness argument can hold (a PCG64 state
is 128 bits of state and 128 of increment). diffprivlib takes it through its
own ``random_state`` argument, which accepts a NumPy ``RandomState``; we pass
``RandomState(PCG64(...))`` (NumPy's legacy distributions on that bit
generator), so its draws are reproducible and no longer limited to the 31
bits of an integer seed. OpenDP has no randomness argument: its eigenvector
sampler draws from the generator returned by ``opendp._lib.get_np_csprng()``
(a NumPy ``Generator`` over OpenDP's cryptographically secure byte source,
cached in the module global ``opendp._lib._np_csprng``), which it looks up
each time the measurement is built, at release time. OpenDP offers no public
or documented hook to seed it, so for the duration of one call the adapters
put a seeded NumPy ``Generator`` in that global and restore the library's own
afterwards (:func:`seeded_opendp`). The library's code is unchanged: it calls
the same ``multivariate_normal`` and ``random`` methods on a ``Generator``
whose bits come from PCG64 instead of the operating system, so the law it
samples is the same (both are taken as ideal uniform bits); only the bits are
reproducible, and they are not cryptographically secure, which an experiment
does not need. With ``rng=None`` the OpenDP adapters leave the library's own
generator in place (fresh, unreproducible entropy). OpenDP's eigenvalues
(``make_private_pca``) are drawn in Rust from its own source, which cannot be
replaced; they do not enter ``V``.

**Work caps.** Both samplers draw by rejection, and the libraries' flipped
test can accept with probability below 1e-20 (chapter 12), so a release may
not return in any useful time. Every adapter takes ``max_proposals``: the
number of ACG proposals (calls of the generator's ``multivariate_normal``,
one per proposal in both libraries) the release may draw, over all its
eigenvectors. The generator passed to the library counts them and stops the
release with :class:`WorkCapExceeded` when the cap is reached. Whether a
release returns is then a function of the seed and the cap alone, the same on
every machine. :func:`proposal_cap` chooses a cap from the estimated
acceptance probability (:func:`first_vector_log10_acceptance`).

**The law they sample.** Both eigenvector samplers accept by a flipped
test and so draw from another law than the Bingham law of their privacy
proof: :mod:`dppca.book.flipped_bingham` computes that law and the cost of
the test (:func:`dppca.book.flipped_bingham.log10_acceptance_rates`).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..validation import (
    as_generator,
    check_data,
    check_epsilon,
    check_k,
    check_symmetric,
)
from . import install_hint
from .flipped_bingham import log10_acceptance_rates

#: Privacy notion of each adapter (what the library claims, and what the book
#: measured).
PRIVACY = {
    "diffprivlib_pca": "claimed ε-DP (Amin et al. 2019: ε/(k+1) for the "
    "eigenvalues and for "
    "each of k vectors, vectors ∝ exp(εᵢ/4 · uᵀCu)). Its Bingham sampler "
    "divides by "
    "(xᵀΩx)^(d/2) where the ACG envelope needs a multiplication, so it "
    "samples "
    "∝ exp(xᵀBx)(xᵀΩx)^(−d), not the Bingham law of the proof: the claim "
    "is "
    "not established for the law it samples (see the book's chapter on the "
    "libraries).",
    "opendp_pca": "claimed ε-DP under replace-one (unit ε per changed record; "
    "ε/2 for the "
    "eigenvalues, ε/(2k) per vector, vectors ∝ exp(εᵢ/4 · uᵀCu)). Same "
    "flipped "
    "acceptance test as diffprivlib, so it samples ∝ exp(x^T B x)(x^T Ω "
    "x)^(-d); the "
    "claim is not established for the law it samples.",
}


class WorkCapExceeded(RuntimeError):
    """A library release drew its cap of ACG proposals without accepting
    (``max_proposals`` of the adapters): an outcome of the experiment, not
    an error. ``proposals`` is the number drawn."""

    def __init__(self, proposals: int):
        super().__init__(
            f"no eigenvector accepted within {proposals:,} proposals"
        )
        self.proposals = int(proposals)


class WorkCount:
    """The proposals one release may draw (``cap``, None for no cap) and
    those it drew (``used``), filled in by the adapters."""

    def __init__(self, cap: int | None = None):
        if cap is not None:
            cap = int(cap)
            if cap < 1:
                raise ValueError(f"max_proposals must be >= 1, got {cap}")
        self.cap = cap
        self.used = 0
        self.exceeded = False

    def count(self) -> None:
        if self.cap is not None and self.used >= self.cap:
            self.exceeded = True
            raise WorkCapExceeded(self.used)
        self.used += 1


def _work(max_proposals) -> WorkCount:
    if isinstance(max_proposals, WorkCount):
        return max_proposals
    return WorkCount(max_proposals)


def _bit_generator(rng) -> np.random.PCG64:
    """A PCG64 bit generator seeded with 256 bits drawn from ``rng`` (the
    whole state of a PCG64: 128 bits of state, 128 of increment)."""
    words = as_generator(rng).integers(0, 2**64, size=4, dtype=np.uint64)
    return np.random.PCG64(np.random.SeedSequence([int(w) for w in words]))


class _CountingRandomState(np.random.RandomState):
    """NumPy's legacy ``RandomState`` (what diffprivlib's ``random_state``
    accepts) whose ``multivariate_normal`` (one call per ACG proposal of
    diffprivlib's Bingham sampler) is counted against a cap."""

    def __init__(self, bit_generator, work: WorkCount):
        super().__init__(bit_generator)
        self._work = work

    def multivariate_normal(self, *args, **kwargs):
        self._work.count()
        return super().multivariate_normal(*args, **kwargs)


class _CountingGenerator:
    """A NumPy ``Generator`` (what OpenDP's sampler draws from) whose
    ``multivariate_normal`` (one call per ACG proposal) is counted against a
    cap; every other method is the generator's own."""

    def __init__(self, generator: np.random.Generator, work: WorkCount):
        self._generator = generator
        self._work = work

    def multivariate_normal(self, *args, **kwargs):
        self._work.count()
        return self._generator.multivariate_normal(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._generator, name)


def _diffprivlib_random_state(rng, work: WorkCount):
    return _CountingRandomState(_bit_generator(rng), work)


class seeded_opendp:
    """Context manager: OpenDP's eigenvector sampler draws from a NumPy
    ``Generator`` seeded from ``rng`` and counted against ``work`` (see the
    module docstring, *Seeding*). It replaces the generator cached in
    ``opendp._lib._np_csprng`` (what ``get_np_csprng()`` returns) and
    restores it on exit. With ``rng=None`` the library's own generator is
    kept and only counted. An exception raised by the count inside OpenDP
    (which wraps it in its own ``OpenDPException``) leaves as
    :class:`WorkCapExceeded`."""

    def __init__(self, rng, work: WorkCount | None = None):
        self.rng, self.work = rng, _work(None) if work is None else work

    def __enter__(self):
        import opendp._lib as lib

        self._lib = lib
        self._saved = lib._np_csprng
        source = (
            lib.get_np_csprng()
            if self.rng is None
            else np.random.Generator(_bit_generator(self.rng))
        )
        lib._np_csprng = _CountingGenerator(source, self.work)
        return self.work

    def __exit__(self, kind, error, traceback):
        self._lib._np_csprng = self._saved
        if error is not None and self.work.exceeded:
            if not isinstance(error, WorkCapExceeded):
                raise WorkCapExceeded(self.work.used) from error
        return False


def import_diffprivlib():
    """``diffprivlib`` (raises ImportError naming the ``peers`` extra if
    missing)."""
    try:
        import diffprivlib
    except (
        ImportError
    ) as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "diffprivlib is not installed: " + install_hint("peers")
        ) from error
    return diffprivlib


def import_opendp():
    """``opendp.prelude`` with the features its PCA needs (``contrib``,
    ``idealized-numerics``)."""
    try:
        import opendp.prelude as dp
    except (
        ImportError
    ) as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "opendp is not installed: " + install_hint("peers")
        ) from error
    dp.enable_features("contrib", "idealized-numerics")
    return dp


def available() -> dict[str, bool]:
    """Which of the two libraries import here."""
    out = {}
    for key, importer in (
        ("diffprivlib", import_diffprivlib),
        ("opendp", import_opendp),
    ):
        try:
            importer()
            out[key] = True
        except Exception:  # noqa: BLE001 - a broken install counts as unavailable
            out[key] = False
    return out


# ------------------------------------------------------------------------------
# PCA estimators with the registry interface (X, k, epsilon, delta, rng) -> V
# ------------------------------------------------------------------------------
def diffprivlib_pca(
    X, k: int, epsilon, delta=None, rng=None, max_proposals=None
) -> np.ndarray:
    """``diffprivlib.models.PCA`` with ``data_norm=1`` and ``centered=True``
    (the book's
    uncentred second moment, no budget spent on a mean); returns ``V`` (``d x
    k``).

    ``delta`` is ignored (pure ε claimed). Reproducible under a seeded
    ``rng``; at most ``max_proposals`` proposals (an int, or a
    :class:`WorkCount` that records those drawn), else
    :class:`WorkCapExceeded`.
    """
    import_diffprivlib()
    from diffprivlib.models import PCA

    X = check_data(X)
    k = check_k(k, X.shape[1])
    model = PCA(
        n_components=k,
        epsilon=check_epsilon(epsilon),
        data_norm=1.0,
        centered=True,
        random_state=_diffprivlib_random_state(rng, _work(max_proposals)),
    )
    with warnings.catch_warnings():
        # diffprivlib's budget accountant warns when its global budget is
        # exceeded; the book accounts for ε itself.
        warnings.simplefilter("ignore", category=UserWarning)
        model.fit(X.copy())
    return np.ascontiguousarray(model.components_.T)


def opendp_pca(
    X, k: int, epsilon, delta=None, rng=None, max_proposals=None
) -> np.ndarray:
    """OpenDP's ``make_private_pca`` on the domain of ``n x d`` arrays with
    row norm ≤ 1 and known
    origin 0 (no budget spent on a mean); ``unit_epsilon = ε``, which its
    privacy map charges for one replaced row (``map(2) = ε``). Returns ``V``
    (``d x k``).

    This is the measurement OpenDP's ``PCA`` class builds, minus the private
    mean that the class always estimates. ``delta`` is ignored. ``rng``
    seeds the eigenvector sampler in place of OpenDP's own generator
    (:class:`seeded_opendp`); ``max_proposals`` as in
    :func:`diffprivlib_pca`.
    """
    dp = import_opendp()
    from opendp.extras.sklearn.decomposition import make_private_pca

    X = check_data(X)
    n, d = X.shape
    k = check_k(k, d)
    domain = dp.numpy.array2_domain(
        norm=1.0, p=2, origin=np.zeros(d), size=n, num_columns=d, T=float
    )
    measurement = make_private_pca(
        domain,
        dp.symmetric_distance(),
        float(check_epsilon(epsilon)),
        num_components=k,
    )
    with seeded_opendp(rng, _work(max_proposals)):
        released = measurement(X)
    return np.ascontiguousarray(released.Vt.T)


def opendp_pca_from_second_moment(
    A, n: int, k: int, epsilon, delta=None, rng=None, max_proposals=None
) -> np.ndarray:
    """The eigenvector half of OpenDP's PCA, run on ``C = n A`` directly: its
    ``make_private_eigenvectors`` measurement on the domain of SSCP matrices of
    ``n`` rows of norm ≤ 1, with the per-vector budgets its ``make_private_pca``
    uses for ``unit_epsilon = ε``
    (``ε/(2k)`` each). Same law of ``V`` as :func:`opendp_pca`, without
    forming ``X^T X``; seeded by ``rng`` and capped by ``max_proposals`` in
    the same way."""
    dp = import_opendp()
    from opendp.extras.numpy import _sscp_domain
    from opendp.extras.sklearn._make_eigenvector import (
        make_private_eigenvectors,
    )
    from opendp.extras.sklearn.decomposition import _split_pca_epsilon_evenly

    A = check_symmetric(A, name="A")
    d = A.shape[0]
    k = check_k(k, d)
    split = _split_pca_epsilon_evenly(float(check_epsilon(epsilon)), k)
    domain = _sscp_domain(num_features=d, norm=1.0, p=2, size=int(n))
    measurement = make_private_eigenvectors(
        domain, dp.symmetric_distance(), split.eigvecs
    )
    with seeded_opendp(rng, _work(max_proposals)):
        released = np.asarray(measurement(int(n) * A))
    return np.ascontiguousarray(released[:, :k])


def diffprivlib_pca_from_second_moment(
    A, n: int, k: int, epsilon, delta=None, rng=None, max_proposals=None
) -> np.ndarray:
    """The eigenvector half of diffprivlib's PCA (``centered=True``,
    ``data_norm=1``) on
    ``C = n A``: its ``mechanisms.Bingham(epsilon=ε/(k+1))`` drawn ``k`` times,
    each on ``C`` compressed to the complement of the vectors already drawn (as
    its ``covariance_eig`` does).
    Same law of ``V`` as :func:`diffprivlib_pca`, without the rows; seeded by
    ``rng`` and capped by ``max_proposals`` in the same way."""
    import_diffprivlib()
    import scipy.linalg
    from diffprivlib.mechanisms import Bingham

    A = check_symmetric(A, name="A")
    d = A.shape[0]
    k = check_k(k, d)
    C = int(n) * A
    mechanism = Bingham(
        epsilon=check_epsilon(epsilon) / (k + 1),
        random_state=_diffprivlib_random_state(rng, _work(max_proposals)),
    )
    basis = np.eye(d)  # rows span the complement of the vectors drawn so far
    V = np.empty((d, k))
    for i in range(k):
        V[:, i] = basis.T @ mechanism.randomise(basis @ C @ basis.T)
        basis = scipy.linalg.null_space(V[:, : i + 1].T).T
    return V


def opendp_pca_class(X, k: int, epsilon, delta=None, rng=None) -> np.ndarray:
    """OpenDP's ``PCA`` class itself (``row_norm=1``, ``n_samples``,
    ``n_features`` given): it
    always estimates and removes a private mean, spending a third of ε on it.
    The class also
    needs OpenDP's ``honest-but-curious`` feature (enabled here)."""
    dp = import_opendp()
    dp.enable_features("honest-but-curious")
    from opendp.extras.sklearn.decomposition import PCA

    X = check_data(X)
    n, d = X.shape
    model = PCA(
        epsilon=float(check_epsilon(epsilon)),
        row_norm=1.0,
        n_samples=n,
        n_features=d,
        n_components=check_k(k, d),
    )
    model.fit(X)
    return np.ascontiguousarray(model.components_.T)


# ------------------------------------------------------------------------------
# Their eigenvector samplers, called directly
# ------------------------------------------------------------------------------
def diffprivlib_bingham_draws(B, size: int, rng=None) -> np.ndarray:
    """``size`` draws of ``diffprivlib.mechanisms.Bingham(epsilon=4,
    sensitivity=1)`` on ``B``,
    whose target is ``∝ exp(ε/(4Δ) x^T B x) = exp(x^T B x)``. Shape ``(size,
    d)``."""
    import_diffprivlib()
    from diffprivlib.mechanisms import Bingham

    B = check_symmetric(B, name="B")
    mechanism = Bingham(
        epsilon=4.0,
        sensitivity=1.0,
        random_state=_diffprivlib_random_state(rng, WorkCount()),
    )
    return np.array([mechanism.randomise(B) for _ in range(int(size))])


def opendp_eigenvector_draws(B, size: int, rng=None) -> np.ndarray:
    """``size`` draws of OpenDP's
    ``make_private_eigenvector(unit_epsilon=4)`` on the SSCP
    matrix ``B`` (domain: row norm 1), whose target is ``∝ exp(x^T B x)``.
    Seeded by ``rng`` (:class:`seeded_opendp`; ``None``: OpenDP's own
    unseeded generator)."""
    dp = import_opendp()
    from opendp.extras.numpy import _sscp_domain
    from opendp.extras.sklearn._make_eigenvector import make_private_eigenvector

    B = check_symmetric(B, name="B")
    d = B.shape[0]
    domain = _sscp_domain(num_features=d, norm=1.0, p=2, size=max(d, 1))
    with seeded_opendp(rng):
        # the sampler looks its generator up when the measurement is built
        measurement = make_private_eigenvector(
            domain, dp.symmetric_distance(), 4.0
        )
        draws = [np.asarray(measurement(B)) for _ in range(int(size))]
    return np.array(draws)


def library_bingham_draws(library: str, B, size: int, rng=None) -> np.ndarray:
    """Draws of ``library``'s eigenvector sampler (``"diffprivlib"`` or
    ``"opendp"``) targeting
    ``∝ exp(x^T B x)``."""
    if library == "diffprivlib":
        return diffprivlib_bingham_draws(B, size, rng=rng)
    if library == "opendp":
        return opendp_eigenvector_draws(B, size, rng=rng)
    raise ValueError(
        f"library must be 'diffprivlib' or 'opendp'; got {library!r}"
    )


# ------------------------------------------------------------------------------
# What the flipped test costs: acceptance rates, and the work caps chosen
# from them
# ------------------------------------------------------------------------------


def vector_budget(key: str, epsilon: float, k: int) -> float:
    """The budget one eigenvector draw gets in library ``key``'s PCA:
    ``ε/(k+1)`` in diffprivlib (``models.PCA`` splits ε evenly over the
    eigenvalues and the k vectors), ``ε/(2k)`` in OpenDP (half of ε to the
    eigenvalues, the other half split over the vectors)."""
    epsilon, k = check_epsilon(epsilon), int(k)
    if k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    shares = {"diffprivlib_pca": 1.0 / (k + 1), "opendp_pca": 0.5 / k}
    if key not in shares:
        raise ValueError(f"unknown library PCA {key!r}; one of {list(shares)}")
    return epsilon * shares[key]


def first_vector_log10_acceptance(
    key: str, A, n: int, k: int, epsilon, size: int = 4000, rng=None
) -> float:
    """``log10`` of the mean acceptance probability per proposal of the first
    eigenvector draw of library ``key``'s PCA on second moment ``A`` of ``n``
    rows: its target is ``∝ exp(ε_1/4 · x^T (n A) x)`` with ``ε_1`` from
    :func:`vector_budget`, and it accepts by the libraries' (flipped) test.
    A draw takes on average ``10**(-value)`` proposals. Estimated from
    ``size`` proposals
    (:func:`dppca.book.flipped_bingham.log10_acceptance_rates`)."""
    A = check_symmetric(A, name="A")
    B = vector_budget(key, epsilon, k) / 4.0 * int(n) * A
    return log10_acceptance_rates(B, size, rng)[1]


#: Proposals per eigenvector, in units of the mean ``1/P``, that
#: :func:`proposal_cap` allows: a geometric number of proposals exceeds
#: ``s/P`` with probability about ``e^{-s}`` (``e^{-20}`` ≈ 2e-9).
CAP_SAFETY = 20.0


def proposal_cap(log10_acceptance, k: int, safety: float = CAP_SAFETY):
    """The work cap of one release of ``k`` eigenvectors whose first draw
    accepts with probability ``10**log10_acceptance`` per proposal:
    ``ceil(safety * k / P)`` proposals, ``safety`` times the mean number of
    proposals if every vector accepted as the first does. Returned as an
    int, or ``math.inf`` when it exceeds 1e18 (no such release can be run).
    A deterministic function of the estimate, so of the seed."""
    import math

    k, safety = int(k), float(safety)
    if k < 1 or not safety > 0:
        raise ValueError(f"need k >= 1 and safety > 0; got {k}, {safety}")
    log10_acceptance = float(log10_acceptance)
    if not math.log10(safety * k) - log10_acceptance <= 18:
        return math.inf
    return max(1, math.ceil(safety * k * 10.0 ** (-log10_acceptance)))


#: The fixed part of :func:`proposal_work`: the cost of one proposal beyond
#: its factorisation (NumPy's per-call overhead), in the same units; about
#: that of factorising a 60 x 60 matrix. A constant of the code, not a
#: measurement taken at run time.
PROPOSAL_OVERHEAD = 200_000


def proposal_work(d: int) -> int:
    """The work of one ACG proposal in dimension ``d``, in units of one
    floating-point operation, to a constant: both libraries draw each
    proposal with ``multivariate_normal``, which factorises the ``d x d``
    covariance again (``d**3``), plus a fixed overhead
    (:data:`PROPOSAL_OVERHEAD`). A work budget divided by this is a number
    of proposals."""
    return int(d) ** 3 + PROPOSAL_OVERHEAD
