"""The timing helper every benchmark script shares (imported as a sibling
module: the scripts run as ``python benchmarks/bench_*.py``)."""

from __future__ import annotations

import time


def best_time(fn, repeats: int = 3, clock=time.perf_counter) -> float:
    """The smallest of ``repeats`` timings of ``fn()`` by ``clock``: the
    least disturbed run, which is what a ratio measured in one run needs."""
    times = []
    for _ in range(int(repeats)):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)
