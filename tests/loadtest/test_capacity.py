"""``make capacity`` on a short sweep: three series against live servers, a CSV with every step, the
plot, and the knee read off the rows it wrote."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from loadtest import capacity
from loadtest.corpus import generate
from loadtest.replay import CORPUS_ENV


def test_a_short_sweep_writes_the_curve_and_its_knee(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    generate(tmp_path / "corpus", hands=9, stress=1)  # a small corpus: the realistic mix of 9 hands
    monkeypatch.setenv(CORPUS_ENV, str(tmp_path / "corpus"))
    argv = ["--seconds", "0.4", "--shares", "0.1,1.3", "--plays", "1000", "--out", str(tmp_path)]
    assert capacity.main(argv) == 0
    with (tmp_path / "capacity.csv").open(encoding="utf-8") as rows:
        table = list(csv.DictReader(rows))
    assert [row["series"] for row in table] == ["unary", "unary", "batch 16", "batch 16", "echo", "echo"]
    assert set(table[0]) == set(capacity.COLUMNS)
    assert all(int(row["errors"]) == 0 for row in table[::2])  # 10 % of the peak: nothing refused
    for light, heavy in zip(table[::2], table[1::2], strict=True):
        # 130 % of the peak is an overload: a server may shed some of it (RESOURCE_EXHAUSTED), and a
        # loaded machine decides how much, so the knee (below) is what reads the errors.
        # 13 times the offered load: more verdicts answered, whatever the machine's speed
        assert float(heavy["offered_verdicts_per_s"]) == pytest.approx(
            13 * float(light["offered_verdicts_per_s"]), rel=0.01
        )
        assert float(heavy["achieved_verdicts_per_s"]) > float(light["achieved_verdicts_per_s"])
    png = (tmp_path / "capacity.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    out = capsys.readouterr().out
    for row in table[::2]:
        knee = [
            line for line in out.splitlines() if line.strip().startswith(row["series"]) and "offered" in line
        ]
        under = [
            r
            for r in table
            if r["series"] == row["series"]
            and int(r["errors"]) == 0
            and float(r["p99_ms"]) < capacity.KNEE_P99_MS
        ]
        assert bool(knee) == bool(under), (row["series"], knee, under)
