"""The private subspace mechanisms, one module per family, and the registry.

Its modules:

input_perturbation
    A noisy second moment: MOD-SULQ, Analyze Gauss, Laplace and Wishart input
    perturbation (the family's declarations); its parts are
    ``input_perturbation_wishart`` (the Wishart mechanisms, one float64 matrix
    of noise) and ``input_perturbation_guarantees`` (the records).
exponential
    PPCA, the exponential mechanism on subspaces (samplers in
    :mod:`dppca.samplers.bingham`).
gaussian_approx
    Mangoubi and Vishnoi's Gaussian mechanism for subspace recovery.
complex_gaussian
    Mangoubi and Vishnoi's complex Gaussian mechanism.
trace_sensitive
    Dong, Liang and Yi's trace-sensitive covariance; its parts in
    ``trace_sensitive_calibration`` (every step's noise),
    ``trace_sensitive_radius`` (the radius selection) and
    ``trace_sensitive_spectrum`` (the linear algebra of the releases).
coinpress
    Biswas, Dong, Kamath and Ullman's CoinPress covariance (iterative
    whitening with weak priors).
streaming
    One-pass DP-PCA (Oja with private clipping; deflation for k > 1); its
    parts in ``streaming_schedule`` (the plan, the budget, the learning
    rate), ``streaming_step`` (one step), ``streaming_rows`` (the rows of a
    stream) and ``streaming_pass`` (the pass).
power_method
    The noisy power method.
covariance
    Amin et al.'s iterative eigenvector sampling.
padding
    ``max_samples``: the functional entry points under add/remove-one
    neighbours (zero rows padded to a public cap).
spec
    ``MechanismSpec``: how one mechanism is declared, once, in its family
    module.
registry
    Every mechanism by name (``MECHANISMS``), collected from the family
    modules' declarations; :class:`dppca.PrivatePCA`, the book's experiments,
    its guide and its plots all read it.
"""
