"""Every benchmark runs to the end in its quick mode (small sizes, one
repetition), so that an API change that breaks one fails ``make test``
instead of ``make bench`` (issue 27)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from bookpaths import ROOT

BENCHMARKS = sorted((ROOT / "benchmarks").glob("bench_*.py"))


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.stem)
def test_benchmark_runs_in_quick_mode(script):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, str(script), "--quick"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert done.stdout.strip(), "a benchmark prints its measurements"
