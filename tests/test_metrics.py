"""summarize / cli_summary: confusion counts, errors kept out of accuracy."""

from __future__ import annotations

import json

import pytest

from prorex.metrics import by_family, cli_summary, summarize
from prorex.schemas import RewardResult, Usage, Vote, dump_jsonl_line


def r(reward, label, status="ok", family="f", probes=0):
    return RewardResult(
        task_id=f"t{reward}{label}",
        method="prore",
        reward=reward,
        status=status,
        label=label,
        family=family,
        probes=probes,
        votes=[Vote(round=0, probe=0, outcome="success" if reward else "failure")]
        if status == "ok"
        else [],
        usage=Usage(calls=1, prompt_tokens=10, completion_tokens=5, cost_usd=0.01),
    )


def test_confusion_and_scores():
    results = [
        r(1, True),
        r(1, True),
        r(1, False),
        r(0, False),
        r(0, True),
        r(None, True, status="error"),
    ]
    s = summarize(results, wall_s=3.5)
    assert (s.tp, s.fp, s.tn, s.fn) == (2, 1, 1, 1)
    assert s.n == 6 and s.labelled == 5 and s.errors == 1
    assert s.accuracy == pytest.approx(3 / 5)
    assert s.precision == pytest.approx(2 / 3) and s.recall == pytest.approx(2 / 3)
    assert s.f1 == pytest.approx(2 / 3)
    assert s.tokens == 90 and s.cost_usd == pytest.approx(0.06) and s.votes == 5
    assert s.method == "prore" and s.wall_s == 3.5


def test_unlabelled_and_empty():
    s = summarize([r(1, None)], 0.0)
    assert s.labelled == 0 and s.accuracy is None and s.f1 is None
    assert summarize([], 0.0).n == 0


def test_by_family():
    fams = by_family([r(1, True, family="a"), r(0, True, family="b")])
    assert fams["a"].accuracy == 1.0 and fams["b"].accuracy == 0.0


def test_cli_summary_writes_summary_json_and_counts_bad_lines(tmp_path, capsys):
    path = tmp_path / "rewards.jsonl"
    path.write_text(
        "\n".join([dump_jsonl_line(r(1, True)), "{not json", dump_jsonl_line(r(0, False))]) + "\n"
    )
    assert cli_summary([str(tmp_path), "--wall-s", "2"]) == 0
    data = json.loads((tmp_path / "summary.json").read_text())
    assert (
        data["n"] == 2
        and data["accuracy"] == 1.0
        and data["invalid_lines"] == 1
        and data["wall_s"] == 2.0
    )
    assert "rewards.jsonl:2" in capsys.readouterr().err
    assert cli_summary([str(tmp_path / "missing")]) == 2
