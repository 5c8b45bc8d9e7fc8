from bookpaths import cap_blas_threads  # noqa: E402

# Kernels started by papermill inherit this: one BLAS thread each under `pytest
# -n auto`.
cap_blas_threads()

# The xdist controller rebuilds the workers' warnings by importing their
# classes' modules; importing dppca once here, before any worker reports,
# keeps two reports from importing the package concurrently.
import dppca  # noqa: E402, F401
import dppca.privacy.guarantees  # noqa: E402, F401
