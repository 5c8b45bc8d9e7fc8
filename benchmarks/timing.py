"""The timing helper every benchmark script shares (imported as a sibling
module: the scripts run as ``python benchmarks/bench_*.py``)."""

from __future__ import annotations

import sys
import time

#: ``--quick`` on the command line (removed from ``sys.argv`` here, before a
#: script parses its own arguments): small sizes and one repetition, so that
#: ``make test`` runs every benchmark to the end in seconds
#: (tests/policy/test_benchmarks.py) and an API change that breaks one fails CI.
QUICK = "--quick" in sys.argv[1:]
if QUICK:
    sys.argv.remove("--quick")


def quick_note() -> None:
    """In quick mode, say that the ratios printed are not measurements."""
    if QUICK:
        print(
            "quick mode: small sizes, one repetition; the ratios above only "
            "show that the script runs, not how fast the package is"
        )


def size(full, quick):
    """``quick`` in quick mode, else ``full``."""
    return quick if QUICK else full


def best_time(fn, repeats: int = 3, clock=time.perf_counter) -> float:
    """The smallest of ``repeats`` timings of ``fn()`` by ``clock``: the
    least disturbed run, which is what a ratio measured in one run needs."""
    times = []
    for _ in range(int(repeats)):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)


def interleaved_best_times(
    fns: dict, repeats: int = 3, clock=time.perf_counter
) -> dict:
    """The smallest of ``repeats`` timings of each ``fn()`` of ``fns``
    (name -> callable), the functions run in turn, round after round, so
    that a change in the machine's load falls on all of them alike: the
    ratios of the results are measured in one run."""
    best = {name: float("inf") for name in fns}
    for _ in range(int(repeats)):
        for name, fn in fns.items():
            start = clock()
            fn()
            best[name] = min(best[name], clock() - start)
    return best


def eigh_and_gram_times(X, A) -> tuple[float, float]:
    """``(t_eigh, t_gram)``: one ``numpy.linalg.eigh`` of ``A`` (best of 5)
    and one ``XᵀX`` (best of 2), the units the benchmarks' ratios use."""
    import numpy as np

    t_eigh = best_time(lambda: np.linalg.eigh(A), 5)
    t_gram = best_time(lambda: X.T @ X, 2)
    return t_eigh, t_gram


def print_ratios(ratios: dict) -> None:
    """One aligned line per ratio to one ``eigh``."""
    width = max(len(key) for key in ratios)
    for key, value in ratios.items():
        print(f"{key:<{width}}  {value:8.1f} x eigh")
