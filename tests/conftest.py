import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from bookpaths import cap_blas_threads  # noqa: E402

# Kernels started by papermill inherit this: one BLAS thread each under `pytest
# -n auto`.
cap_blas_threads()
