"""Samplers the exponential-family mechanisms draw from.

Its modules:

bingham
    The matrix and vector Bingham distributions on the Stiefel manifold and
    the sphere (Gibbs and rejection samplers, their acceptance bounds): the
    laws of PPCA and of Amin et al.'s mechanism.
dyson
    Dyson Brownian motion of the eigenvalues of a matrix under Gaussian
    noise: the drift behind the Mangoubi–Vishnoi analysis.
"""
