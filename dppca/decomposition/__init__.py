"""Private PCA, scikit-learn style: :class:`dppca.PrivatePCA` and what only
it reads.

Its modules, in the order a fit uses them:

pca
    ``PrivatePCA``: its parameters, ``fit`` (plan, then release, then
    post-processing into the fitted attributes), ``transform`` and the rest
    of scikit-learn's PCA surface.
parameters
    The checks of its parameters, each read from the parameters alone (no
    forecast): refused before any budget is charged.
plan
    A fit's release plan, from public parameters only (the ``"auto"``
    choices, the budget's split, every guarantee record), and the dry run
    of its charges (``planned_records``).
release
    The steps that spend the budget and read the rows: the charges, the
    private bounds and mean, the centred rows and the mechanism's run.
persons
    Several rows per person (``fit(X, groups=...)`` with
    ``max_rows_per_person``): the checks, the choice of at most m rows per
    person, the padded sums and the proof that the mechanisms which work
    from the second moment are private per person with ``n`` the number of
    persons.

``dppca.PrivatePCA`` is the public name, and ``from dppca.decomposition
import PrivatePCA`` works too; this package imports none of its modules
until ``PrivatePCA`` is asked for (a module ``__getattr__``), since
:mod:`dppca.forecast` reads :mod:`dppca.decomposition.parameters` and
:mod:`dppca.decomposition.pca` imports the forecast.
"""


def __getattr__(name: str):
    """``PrivatePCA``, imported from :mod:`dppca.decomposition.pca` on first
    use (PEP 562)."""
    if name == "PrivatePCA":
        from .pca import PrivatePCA

        return PrivatePCA
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PrivatePCA"]
