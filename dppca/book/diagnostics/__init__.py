"""Diagnostics the chapters run on the library's samplers and mechanisms:
checks of convergence, audits of a noise sampler, Monte Carlo draws of a
release's error and reference laws to compare them with. One module per
family: :mod:`.bingham` (the Bingham samplers of chapters 4 and 11),
:mod:`.complex_gaussian` (chapter 16).
"""
