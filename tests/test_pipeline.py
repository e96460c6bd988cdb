"""RewardPipeline over a fake backend and a fake LLM: votes, rounds, snapshots, errors."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from prorex.config import ModelConfig, ProbeConfig
from prorex.device import DeviceError, Snapshot
from prorex.llm.client import LLMError
from prorex.llm.parsing import ParseError
from prorex.pipeline import RewardPipeline, WorkerLost
from prorex.schemas import ProbeTrace, ReplayReport, RewardRequest, Task, Trajectory

CLAIMS = (
    'Claims: {"claims": [{"steps": [0], "reasoning": "seen", "claim": "a.txt is listed in Docs"}]}'
)


class FakeLLM:
    """Answers by prompt kind; judge verdicts come from a script (cycled)."""

    def __init__(self, verdicts=("success",), fail_on: str | None = None):
        self.verdicts = list(verdicts)
        self.calls: Counter[str] = Counter()
        self.fail_on = fail_on

    def _reply(self, prompt: str) -> tuple[str, str]:
        if "=== POLICY CLAIMS ===" in prompt:
            i = self.calls["judge"] % len(self.verdicts)
            return "judge", f"Analysis: compared.\nStatus: {self.verdicts[i]}"
        if "=== ROLE ===\npolicy" in prompt:
            return "claims_policy", CLAIMS
        if "=== ROLE ===\nevaluator" in prompt:
            return "claims_evaluator", CLAIMS
        if "=== PREVIOUS PROBING GOALS ===" in prompt:
            return "revise", "Analysis: refine.\nGoal: Scroll Docs to the end and find a.txt."
        if "=== SCREENS ===" in prompt:
            return "static", "Analysis: last screen.\nStatus: failure"
        return "schedule", "Analysis: look in Docs.\nGoal: Find a.txt in Docs."

    async def acomplete(self, role, prompt, parse, *, images=(), usage=None):
        kind, reply = self._reply(prompt)
        self.calls[kind] += 1
        if usage is not None:
            usage.calls += 1
        if kind == self.fail_on:
            raise LLMError(f"fake {kind} failure")
        try:
            return parse(reply)
        except ParseError as exc:
            raise LLMError(f"unparseable: {exc}") from exc


class FakeBackend:
    def __init__(self, slots=1, portable=True, fail_probe=None, lose_probe=None, diverge=False):
        self.slots = slots
        self.portable = portable
        self.fail_probe = fail_probe
        self.lose_probe = lose_probe
        self.diverge = diverge
        self.log: list[tuple] = []

    async def prepare(self, slot, request, want_snapshot):
        self.log.append(("prepare", slot))
        await asyncio.sleep(0)
        snap = (
            Snapshot(id=f"s{slot}", backend="fake", portable=self.portable, data=b"x")
            if want_snapshot
            else None
        )
        return ReplayReport(diverged=self.diverge), None if self.diverge else snap

    async def restore(self, slot, snapshot):
        self.log.append(("restore", slot, snapshot.id))

    async def probe(self, slot, request, goals, round, probe):
        self.log.append(("probe", slot, round, probe))
        await asyncio.sleep(0)
        if probe == self.lose_probe:
            raise WorkerLost("actor died")
        if probe == self.fail_probe:
            raise DeviceError("screen froze")
        trace = ProbeTrace(
            goal=" ".join(goals), round=round, probe=probe, worker=f"w{slot}", stopped="done"
        )
        if self.diverge:
            trace.error, trace.stopped = "replay diverged at step 2", "diverged"
        return trace

    def count(self, kind):
        return sum(1 for e in self.log if e[0] == kind)


def _request() -> RewardRequest:
    return RewardRequest(
        task=Task(id="t1", goal="Delete a.txt from the Docs folder.", family="files_delete"),
        trajectory=Trajectory(),
        label=True,
    )


def _run(method="prore", verdicts=("success",), backend=None, llm=None, **cfg):
    llm = llm or FakeLLM(verdicts)
    pipe = RewardPipeline(ModelConfig(), ProbeConfig(**cfg), method, llm=llm)
    return asyncio.run(pipe.reward(_request(), backend)), llm


def test_k_probes_one_vote_each_and_policy_claims_once():
    backend = FakeBackend(slots=3)
    result, llm = _run(backend=backend, parallel=3, early_stop=False)
    assert result.status == "ok" and result.reward == 1 and result.confidence == 1.0
    assert len(result.votes) == 3 and result.probes == 3
    assert llm.calls["claims_policy"] == 1
    assert llm.calls["claims_evaluator"] == 3 and llm.calls["judge"] == 3
    assert result.probe_goals == ["Find a.txt in Docs."]
    assert result.policy_claims[0].claim == "a.txt is listed in Docs"
    assert result.label is True and result.family == "files_delete"
    assert {"claims_s", "probe_s", "judge_s", "schedule_s", "total_s"} <= result.timings.keys()


def test_rounds_revise_goals_and_multiply_votes():
    result, llm = _run(backend=FakeBackend(slots=2), parallel=2, rounds=2, early_stop=False)
    assert len(result.votes) == 4
    assert sorted({v.round for v in result.votes}) == [0, 1]
    assert llm.calls["revise"] == 1 and llm.calls["claims_policy"] == 1
    assert result.probe_goals == ["Find a.txt in Docs.", "Scroll Docs to the end and find a.txt."]


def test_majority_with_tie_is_failure():
    result, _ = _run(
        verdicts=("success", "failure"), backend=FakeBackend(slots=2), parallel=2, early_stop=False
    )
    assert result.reward == 0 and result.confidence == 0.5


def test_early_stop_skips_votes_that_cannot_matter():
    backend = FakeBackend(slots=1)
    result, _ = _run(backend=backend, parallel=3, early_stop=True)
    assert result.reward == 1 and len(result.votes) == 2  # 2-0 with one vote left is settled
    assert backend.count("probe") == 2


def test_portable_snapshot_is_shared_across_slots():
    backend = FakeBackend(slots=3, portable=True)
    result, _ = _run(backend=backend, parallel=3, early_stop=False)
    assert backend.count("prepare") == 1 and backend.count("restore") == 2
    assert result.replays == 1 and result.snapshot_shared


def test_non_portable_snapshot_serves_only_its_slot():
    backend = FakeBackend(slots=2, portable=False)
    result, _ = _run(backend=backend, parallel=4, early_stop=False)
    assert backend.count("prepare") == 2  # one replay per slot
    assert backend.count("restore") == 2  # each slot's second probe restores its own snapshot
    assert not result.snapshot_shared


def test_device_error_is_an_error_vote_not_a_failure():
    result, _ = _run(backend=FakeBackend(slots=1, fail_probe=1), parallel=3, early_stop=False)
    outcomes = [v.outcome for v in result.votes]
    assert outcomes.count("error") == 1 and outcomes.count("success") == 2
    assert result.reward == 1


def test_diverged_replay_yields_no_vote_and_all_errors_is_error():
    result, llm = _run(backend=FakeBackend(slots=2, diverge=True), parallel=2, early_stop=False)
    assert [v.outcome for v in result.votes] == ["error", "error"]
    assert result.status == "error" and result.reward is None and "diverged" in result.error
    assert llm.calls["judge"] == 0


def test_worker_lost_propagates():
    with pytest.raises(WorkerLost):
        _run(backend=FakeBackend(slots=1, lose_probe=0), parallel=2)


def test_scheduling_error_is_an_error_result():
    result, _ = _run(backend=FakeBackend(), llm=FakeLLM(fail_on="schedule"))
    assert result.status == "error" and result.reward is None and "reasoner" in result.error
    assert result.votes == []


def test_judge_error_becomes_error_vote():
    result, _ = _run(
        backend=FakeBackend(slots=2), llm=FakeLLM(fail_on="judge"), parallel=2, early_stop=False
    )
    assert result.status == "error" and all(v.outcome == "error" for v in result.votes)


@pytest.mark.parametrize("method", ["static-last", "static-full"])
def test_static_methods_one_vote_no_backend(method):
    result, llm = _run(method=method)
    assert result.method == method and len(result.votes) == 1
    assert result.reward == 0 and llm.calls["static"] == 1 and result.probes == 0


def test_unknown_method_is_rejected():
    with pytest.raises(ValueError):
        RewardPipeline(ModelConfig(), ProbeConfig(), "vibes", llm=FakeLLM())


@pytest.mark.slow
def test_prore_beats_static_judges_on_the_sim_with_offline_models():
    """End to end: sim dataset, replay on differently laid-out devices, offline models."""
    sim = pytest.importorskip("prorex.sim")
    from prorex.llm.client import LLMClient
    from prorex.local import LocalProbeBackend
    from prorex.metrics import summarize
    from prorex.sim.dataset import build_dataset

    requests = build_dataset(40, seed=7)
    models, cfg = ModelConfig(), ProbeConfig(parallel=2)
    llm = LLMClient(models)
    devices = [
        sim.SimDevice(layout=sim.LayoutConfig.for_worker(i), screenshots=False) for i in range(2)
    ]
    backend = LocalProbeBackend(devices, models, cfg, llm)

    async def run(method):
        pipe = RewardPipeline(models, cfg, method, llm=llm)
        return [await pipe.reward(r, backend if method == "prore" else None) for r in requests]

    scores = {
        m: summarize(asyncio.run(run(m)), 0.0, method=m)
        for m in ("prore", "static-last", "static-full")
    }
    for m, s in scores.items():
        print(f"{m:12s} accuracy={s.accuracy:.3f} f1={s.f1:.3f} errors={s.errors} votes={s.votes}")
    prore = scores["prore"]
    assert prore.errors <= len(requests) // 4
    for baseline in ("static-last", "static-full"):
        assert prore.accuracy >= scores[baseline].accuracy
        assert prore.f1 >= scores[baseline].f1
