"""``loadtest.stats``, the one place benches and tests take percentiles and medians from."""

from __future__ import annotations

import doctest
import random
from collections import Counter

from loadtest import stats


def test_the_doctests_hold() -> None:
    failed, tried = doctest.testmod(stats)
    assert tried > 0 and failed == 0


def test_a_percentile_is_the_smallest_value_that_enough_values_do_not_exceed() -> None:
    """Nearest rank, against its definition by brute force, on lists and on the same values as a
    histogram: a measured value v with at least ``fraction`` of the values <= v, and no smaller one."""
    rng = random.Random(19)
    for _ in range(300):
        values = [rng.randrange(40) for _ in range(rng.randrange(1, 60))]
        fraction = rng.choice((0.01, 0.5, 0.9, 0.99, 0.999, 1.0, rng.random() or 0.5))
        found = stats.percentile(values, fraction)
        enough = [v for v in set(values) if sum(x <= v for x in values) >= fraction * len(values)]
        assert found == min(enough), (values, fraction)
        assert stats.histogram_percentile(Counter(values), fraction) == found


def test_medians() -> None:
    rounds = [{"rps": 900.0, "p99": 3.0}, {"rps": 1100.0, "p99": 2.0}, {"rps": 1000.0, "p99": 9.0}]
    assert stats.median(r["rps"] for r in rounds) == 1000.0
    assert stats.median_by(rounds, lambda r: r["rps"])["p99"] == 9.0  # the median round, whole
    assert stats.median_micros(lambda: None, repeat=3, budget=0.01) > 0
