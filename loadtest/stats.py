"""The one set of statistics every bench, load run and test reports through.

* **Percentiles are nearest-rank**: the p-th percentile of n values is the smallest value that at least
  ``p`` of them do not exceed (the ``ceil(p * n)``-th smallest). It is always a value that was measured,
  never an interpolation, and for histograms of counts it is the same definition.
* **A median of rounds** is ``statistics.median`` (the mean of the two middle values of an even count),
  and ``median_by`` picks the round itself (the upper middle one), to report that round's other figures.
* **Timed medians** (``median_micros``) time a call in batches sized by ``timeit``'s autorange and report
  the median batch, which ignores a batch that the machine's noise slowed down.
"""

from __future__ import annotations

import math
import statistics
import time
import timeit
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

T = TypeVar("T")


def percentiles(values: Iterable[float], *fractions: float, empty: float = math.nan) -> tuple[float, ...]:
    """The nearest-rank percentiles of ``values`` at each of ``fractions`` (0 < fraction <= 1), sorting
    once; ``empty`` for each when there are no values.

    >>> percentiles(range(1, 101), 0.5, 0.99, 1.0)
    (50, 99, 100)
    >>> percentiles([], 0.5, empty=0.0)
    (0.0,)
    """
    ordered = sorted(values)
    if not ordered:
        return tuple(empty for _ in fractions)
    return tuple(ordered[_rank(fraction, len(ordered))] for fraction in fractions)


def percentile(values: Iterable[float], fraction: float, *, empty: float = math.nan) -> float:
    """The nearest-rank percentile of ``values`` at ``fraction``; ``empty`` when there are none.

    >>> percentile([3.0, 1.0, 2.0], 0.5), percentile([5.0], 0.99), percentile([1, 2, 3, 4], 0.75)
    (2.0, 5.0, 3)
    """
    return percentiles(values, fraction, empty=empty)[0]


def histogram_percentile(counts: Mapping[int, int], fraction: float, *, empty: float = 0.0) -> float:
    """The nearest-rank percentile of a histogram of whole values (value -> how many times it was seen),
    such as Locust's response times in rounded milliseconds.

    >>> from collections import Counter
    >>> histogram_percentile(Counter({1: 98, 2: 1, 30: 1}), 0.99), histogram_percentile(Counter(), 0.5)
    (2, 0.0)
    """
    total = sum(counts.values())
    if not total:
        return empty
    wanted, seen = _rank(fraction, total), 0
    for value in sorted(counts):
        seen += counts[value]
        if seen > wanted:
            return value
    raise AssertionError("unreachable: the counts add up to total")  # pragma: no cover


def _rank(fraction: float, count: int) -> int:
    """The 0-based index of the nearest-rank percentile: ceil(fraction * count) - 1, within 0..count-1."""
    return min(max(math.ceil(fraction * count) - 1, 0), count - 1)


def median(values: Iterable[float]) -> float:
    """The median of some rounds (the mean of the middle two of an even count).

    >>> median([3.0, 1.0, 2.0]), median([4, 1, 2, 3])
    (2.0, 2.5)
    """
    return statistics.median(values)


def median_by(items: Sequence[T], key: Callable[[T], float]) -> T:
    """The item whose ``key`` is the median (the upper middle one of an even count): the median round,
    whose other figures are then reported with it.

    >>> median_by(["ccc", "a", "bb", "dddd"], len)
    'ccc'
    """
    return sorted(items, key=key)[len(items) // 2]


def median_micros(
    call: Callable[[], object],
    *,
    repeat: int = 7,
    budget: float = 0.2,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Median time of ``call`` in µs over ``repeat`` batches sized to take about ``budget`` seconds each
    (``clock=time.process_time``: this process's CPU time, steadier on a busy machine)."""
    timer = timeit.Timer(call, timer=clock)
    number, _ = timer.autorange()  # at least 0.2 s
    number = max(1, int(number * budget / 0.2))
    return median(t / number for t in timer.repeat(repeat, number)) * 1e6


def quick_micros(
    call: Callable[[], object],
    *,
    repeat: int = 3,
    budget: float = 0.01,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """``median_micros`` for many small positions: batches sized from one timed call, not ``autorange``."""
    timer = timeit.Timer(call, timer=clock)
    number = max(1, int(budget / max(timer.timeit(1), 1e-7)))
    return median(t / number for t in timer.repeat(repeat, number)) * 1e6
