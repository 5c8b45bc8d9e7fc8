"""The private subspace mechanisms, one module per family, and the registry.

Its modules:

input_perturbation
    A noisy second moment: MOD-SULQ, Analyze Gauss, Laplace and Wishart input
    perturbation.
exponential
    PPCA, the exponential mechanism on subspaces (samplers in
    :mod:`dppca.samplers.bingham`).
gaussian_approx
    Mangoubi and Vishnoi's Gaussian mechanism for subspace recovery.
complex_gaussian
    Mangoubi and Vishnoi's complex Gaussian mechanism.
trace_sensitive
    Dong, Liang and Yi's trace-sensitive covariance.
streaming
    One-pass DP-PCA (Oja with private clipping; deflation for k > 1).
power_method
    The noisy power method.
covariance
    Amin et al.'s iterative eigenvector sampling.
spec
    ``MechanismSpec``: how one mechanism is declared, once, in its family
    module.
registry
    Every mechanism by name (``MECHANISMS``), collected from the family
    modules' declarations; :class:`dppca.PrivatePCA`, the book's experiments,
    its guide and its plots all read it.
"""
