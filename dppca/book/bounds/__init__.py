"""Every theorem's bound as a plain function, one module per paper family.

Chapters and tests compare measurements with these functions, so each formula
exists once. Modules: :mod:`.input_perturbation` (MOD-SULQ, Laplace, Wishart),
:mod:`.exponential` (PPCA sample complexity), :mod:`.gaussian_approx`
(Mangoubi-Vishnoi 2022), :mod:`.complex_gaussian` (Mangoubi-Vishnoi 2023).
"""
