"""``prorex demo`` on a tiny dataset: every method runs, files and table appear."""

from __future__ import annotations

import argparse
import json

import pytest

from prorex.config import METHODS
from prorex.schemas import RewardResult, read_jsonl

pytestmark = [pytest.mark.ray, pytest.mark.slow]


def test_demo_writes_results_table_and_chart(ray_session, tmp_path, capsys):
    from workers.demo import cli_demo

    out = tmp_path / "demo_out"
    assert cli_demo(argparse.Namespace(out=str(out), tasks=12, no_progress=True)) == 0
    printed = capsys.readouterr().out
    requests = (out / "requests.jsonl").read_text().splitlines()
    assert len(requests) == 12
    for method in METHODS:
        results, bad = read_jsonl(out / method / "rewards.jsonl", RewardResult)
        assert not bad and len(results) == 12 and {r.method for r in results} == {method}
        summary = json.loads((out / method / "summary.json").read_text())
        assert summary["n"] == 12 and summary["method"] == method
        row = next(line for line in printed.splitlines() if line.startswith(method + " "))
        assert row.split()[1] == "12"
    prore = read_jsonl(out / "prore" / "rewards.jsonl", RewardResult)[0]
    assert all(1 <= len(r.votes) <= 4 for r in prore)  # K=2 x R=2 with early stop
    assert all(len(r.votes) == 1 for r in read_jsonl(out / "static-last" / "rewards.jsonl", RewardResult)[0])
    png = (out / "comparison.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    assert "total wall time" in printed
