"""``prorex dataset``: labelled, balanced, reproducible, fast enough."""

from __future__ import annotations

import json

import pytest

from prorex.cli import main
from prorex.schemas import RewardRequest, read_jsonl
from prorex.sim import dataset as ds
from prorex.sim.policies import parse_mix
from prorex.ui import parse_hierarchy


def test_same_seed_same_bytes_and_processes_do_not_matter(monkeypatch):
    one = [r.model_dump_json() for r in ds.build_dataset(40, 7)]
    assert one == [r.model_dump_json() for r in ds.build_dataset(40, 7)]
    monkeypatch.setattr(ds, "PARALLEL_MIN", 0)
    assert one == [r.model_dump_json() for r in ds.build_dataset(40, 7, workers=2)]
    assert one != [r.model_dump_json() for r in ds.build_dataset(40, 8)]


def test_default_dataset_is_balanced_and_mostly_hidden():
    reqs = ds.build_dataset(300, 0)
    s = ds.stats(reqs)
    assert s["positive_share"] >= 0.25 and 1 - s["positive_share"] >= 0.25, s
    assert s["hidden_share"] >= 0.30, s
    assert len(s["families"]) >= 25 and len(s["outcomes"]) == 8
    for r in reqs:
        assert r.task.setup.sim["family"] == r.task.family
        assert r.meta["agent"] == "scripted" and isinstance(r.meta["hidden_outcome"], bool)
        assert r.trajectory.steps[-1].action.action_type == "status"
        assert all(s.observation.screenshot_png is None for s in r.trajectory.steps)
    # labels follow the real final state, not the script's intent
    assert all(r.label for r in reqs if r.meta["outcome"] == "correct")
    # every screen a policy saw parses
    for r in reqs[:60]:
        for st in r.trajectory.steps:
            parse_hierarchy(st.observation.xml)


def test_mix_parsing():
    assert parse_mix("correct=1,loop=0.5") == {"correct": 1.0, "loop": 0.5}
    for bad in ("correct", "nope=1", "correct=x", "correct=-1", "correct=0"):
        with pytest.raises(ValueError):
            parse_mix(bad)
    reqs = ds.build_dataset(34, 1, "correct=1")
    assert {r.meta["outcome"] for r in reqs} == {"correct"} and all(r.label for r in reqs)


def test_cli_writes_requests_and_summary(tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["dataset", "--out", str(out), "--tasks", "40", "--seed", "3"]) == 0
    good, bad = read_jsonl(out / "requests.jsonl", RewardRequest)
    assert len(good) == 40 and not bad
    assert all(r.label is not None and r.task.family and r.task.app for r in good)
    summary = json.loads((out / "dataset.json").read_text())
    assert summary["n"] == 40 and sum(summary["families"].values()) == 40
    assert summary["positive"] + summary["negative"] == 40
    assert "wall" not in json.dumps(summary)
    first = (out / "requests.jsonl").read_bytes()
    assert main(["dataset", "--out", str(out), "--tasks", "40", "--seed", "3"]) == 0
    assert (out / "requests.jsonl").read_bytes() == first
    assert "wrote 40 requests" in capsys.readouterr().out
    assert main(["dataset", "--out", str(out), "--tasks", "5", "--mix", "bogus=1"]) == 2
