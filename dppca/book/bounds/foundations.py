"""Bounds on the sensitivity of the second-moment matrix stated in the seed
papers.

The exact values these bounds approximate live in
:mod:`dppca.privacy.sensitivity`.
"""

from __future__ import annotations

from ...validation import check_n


def jiang_lemma2_l1_sensitivity_bounds(d: int, n: int) -> tuple[float, float]:
    """Jiang, Xie and Zhang (2016), Lemma 2: the entrywise l1 sensitivity
    ``s_1`` of
    ``A = X^T X / n`` (all ``d^2`` entries) satisfies ``d/n <= s_1 < 2d/n``;
    returns ``(d/n, 2d/n)``.

    Algorithm 1 of the same paper calibrates its Laplace noise to the upper end,
    ``2d/n``.
    """
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise ValueError(f"d must be a positive integer; got {d!r}")
    n = check_n(n)
    return d / n, 2.0 * d / n


def jiang_theorem4_nuclear_bound(n: int) -> float:
    """Jiang, Xie and Zhang (2016), proof of Theorem 4: ``||(v v^T - w
    w^T)/n||_* <= 3/n``,
    which fixes the Wishart scale ``3 / (2 n epsilon)`` of Algorithm 2."""
    return 3.0 / check_n(n)


__all__ = ["jiang_lemma2_l1_sensitivity_bounds", "jiang_theorem4_nuclear_bound"]
