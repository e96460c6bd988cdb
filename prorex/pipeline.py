"""RewardPipeline: one reward request in, one ``RewardResult`` out.

``prore`` (paper §3): policy claims once per request; the reasoner schedules
probing goals; for each of R rounds, K probes run over the backend's slots,
each from the replayed final state; each probe trace becomes evaluator claims
and one judgment, which is a vote; the reasoner revises the goals from what
the round collected; the reward is the majority (``prorex.voting``).
``static-last`` / ``static-full`` are LLM-as-judge baselines over the
policy's own screens: one judge call, one vote.

Failures are explicit: an LLM error while writing policy claims or probing
goals makes the whole result an ``error`` (no reward); a failing probe,
diverged replay, device error or unparseable evaluator-claims/judge reply is
one ``error`` vote. ``WorkerLost`` propagates so the fleet can retry the
request on another worker.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

from prorex import claims as claims_mod
from prorex import judge as judge_mod
from prorex import probe as probe_mod
from prorex import reasoner
from prorex.config import METHODS, ModelConfig, ProbeConfig
from prorex.device import Snapshot
from prorex.llm.client import LLMClient, LLMError
from prorex.schemas import Claim, ProbeTrace, ReplayReport, RewardRequest, RewardResult, Usage, Vote
from prorex.voting import decided, tally


class WorkerLost(RuntimeError):
    """The worker holding a slot is gone (actor died, node lost): retry elsewhere."""


@runtime_checkable
class ProbeBackend(Protocol):
    """Devices leased for one request, one slot each (see ``ProbeRunner``)."""

    slots: int

    async def prepare(
        self, slot: int, request: RewardRequest, want_snapshot: bool
    ) -> tuple[ReplayReport, Snapshot | None]: ...

    async def restore(self, slot: int, snapshot: Snapshot) -> None: ...

    async def probe(
        self, slot: int, request: RewardRequest, goals: list[str], round: int, probe: int
    ) -> ProbeTrace: ...


class _Timer:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        t0 = time.monotonic()
        try:
            yield
        finally:
            self.seconds[name] += time.monotonic() - t0


class _Slots:
    """Which state each slot can reach the policy's final state from.

    The first preparation of a request asks for a snapshot (when sharing);
    a portable one lets the other slots restore instead of replaying, a
    non-portable one serves only its own slot.
    """

    def __init__(self, n: int, share: bool) -> None:
        self.share = share
        self.own: dict[int, Snapshot] = {}
        self.shared: Snapshot | None = None
        self.first_done = asyncio.Event()
        self.first_slot: int | None = None
        self.replays = 0
        self.restored_shared = False
        self.fresh: dict[int, bool] = dict.fromkeys(range(n), False)

    def snapshot_for(self, slot: int) -> Snapshot | None:
        return self.own.get(slot) or self.shared


class RewardPipeline:
    def __init__(
        self,
        models: ModelConfig,
        probe_cfg: ProbeConfig,
        method: str = "prore",
        llm: LLMClient | None = None,
    ) -> None:
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
        self.models = models
        self.cfg = probe_cfg
        self.method = method
        self.llm = llm or LLMClient(models)

    # ----------------------------------------------------------------- public

    async def reward(
        self, request: RewardRequest, backend: ProbeBackend | None = None
    ) -> RewardResult:
        t0 = time.monotonic()
        timer = _Timer()
        usage = Usage()
        result = RewardResult(
            task_id=request.task.id,
            method=self.method,
            reward=None,
            status="error",
            label=request.label,
            family=request.task.family,
        )
        try:
            if self.method == "prore":
                if backend is None:
                    raise ValueError("method prore needs a probe backend")
                await self._prore(request, backend, result, timer, usage)
            else:
                await self._static(request, result, timer, usage)
        finally:
            result.usage = usage
            result.timings = {f"{k}_s": round(v, 4) for k, v in timer.seconds.items()}
            result.timings["total_s"] = round(time.monotonic() - t0, 4)
        return result

    # ----------------------------------------------------------------- static

    async def _static(
        self, request: RewardRequest, result: RewardResult, timer: _Timer, usage: Usage
    ) -> None:
        with timer("judge"):
            try:
                j = await judge_mod.astatic_judge(self.llm, request, self.method, usage)
                vote = Vote(
                    round=0,
                    probe=0,
                    outcome="success" if j.success else "failure",
                    analysis=j.analysis,
                )
            except LLMError as exc:
                vote = Vote(round=0, probe=0, outcome="error", error=str(exc))
        result.votes = [vote]
        _finish(result)

    # ------------------------------------------------------------------ prore

    async def _prore(
        self,
        request: RewardRequest,
        backend: ProbeBackend,
        result: RewardResult,
        timer: _Timer,
        usage: Usage,
    ) -> None:
        goal = request.task.goal
        try:
            with timer("claims"):
                policy_claims = await claims_mod.apolicy_claims(self.llm, request, usage)
            with timer("schedule"):
                plan = await reasoner.aschedule(self.llm, goal, usage)
        except LLMError as exc:
            result.error = f"reasoner: {exc}"
            return
        result.policy_claims = policy_claims
        goals = plan.goals
        result.probe_goals = list(goals)
        k, rounds = self.cfg.parallel, self.cfg.rounds
        planned = k * rounds
        votes: list[Vote] = []
        slots = _Slots(backend.slots, self.cfg.share_snapshots)
        for r in range(rounds):
            if self.cfg.early_stop and votes and decided(votes, planned - len(votes)):
                break
            round_votes: list[Vote] = []
            round_seen: list[tuple[str, str, list[Claim]]] = []
            by_slot: dict[int, list[int]] = defaultdict(list)
            for i in range(k):
                by_slot[i % backend.slots].append(i)

            async def run_slot(
                slot: int,
                probes: list[int],
                r: int = r,
                goals: list[str] = goals,
                round_votes: list[Vote] = round_votes,
                round_seen: list[tuple[str, str, list[Claim]]] = round_seen,
            ) -> None:
                for i in probes:
                    if self.cfg.early_stop and decided(votes, planned - len(votes)):
                        return
                    vote, trace = await self._one_probe(
                        request, backend, slots, slot, goals, r, i, policy_claims, timer, usage
                    )
                    votes.append(vote)
                    round_votes.append(vote)
                    if trace is not None:
                        result.probes += 1
                        round_seen.append((trace.stopped, trace.error or "", vote.evaluator_claims))

            await asyncio.gather(*(run_slot(s, ps) for s, ps in by_slot.items()))
            if r + 1 < rounds and not (
                self.cfg.early_stop and decided(votes, planned - len(votes))
            ):
                try:
                    with timer("schedule"):
                        plan = await reasoner.arevise(
                            self.llm, goal, goals, reasoner.collected_info(round_seen), usage
                        )
                except LLMError as exc:
                    result.votes = sorted(votes, key=lambda v: (v.round, v.probe))
                    result.replays = slots.replays
                    result.error = f"reasoner (revision): {exc}"
                    return
                goals = plan.goals
                result.probe_goals.extend(g for g in goals if g not in result.probe_goals)
        result.votes = sorted(votes, key=lambda v: (v.round, v.probe))
        result.replays = slots.replays
        result.snapshot_shared = slots.restored_shared
        _finish(result)

    async def _reach_final_state(
        self, backend: ProbeBackend, slots: _Slots, slot: int, request: RewardRequest
    ) -> None:
        """Put ``slot`` in the policy's final state: restore a snapshot if one serves, else replay."""
        if slots.share and slots.first_slot is not None and slots.first_slot != slot:
            await slots.first_done.wait()
        snap = slots.snapshot_for(slot)
        if snap is not None:
            await backend.restore(slot, snap)
            if snap is slots.shared and slots.first_slot != slot:
                slots.restored_shared = True
            return
        first = slots.first_slot is None
        if first:
            slots.first_slot = slot
        try:
            slots.replays += 1
            _report, new = await backend.prepare(slot, request, slots.share)
            if new is not None:
                if new.portable and slots.share:
                    slots.shared = new
                else:
                    slots.own[slot] = new
        finally:
            if first:
                slots.first_done.set()

    async def _one_probe(
        self,
        request: RewardRequest,
        backend: ProbeBackend,
        slots: _Slots,
        slot: int,
        goals: list[str],
        r: int,
        i: int,
        policy_claims: list[Claim],
        timer: _Timer,
        usage: Usage,
    ) -> tuple[Vote, ProbeTrace | None]:
        goal_text = probe_mod.goal_text(goals)
        try:
            with timer("probe"):
                await self._reach_final_state(backend, slots, slot, request)
                trace = await backend.probe(slot, request, list(goals), r, i)
        except WorkerLost:
            raise
        except Exception as exc:  # a device or transport fault on this probe: no vote from it
            return Vote(
                round=r,
                probe=i,
                outcome="error",
                goal=goal_text,
                error=f"{type(exc).__name__}: {exc}",
            ), None
        usage.add(trace.usage)
        if trace.error:
            return _error_vote(trace, r, i, trace.error), trace
        try:
            with timer("claims"):
                ev_claims = await claims_mod.aevaluator_claims(self.llm, request, trace, usage)
            with timer("judge"):
                j = await judge_mod.ajudge(
                    self.llm, request.task.goal, policy_claims, trace.goal, ev_claims, usage
                )
        except LLMError as exc:
            return _error_vote(trace, r, i, str(exc)), trace
        return (
            Vote(
                round=r,
                probe=i,
                outcome="success" if j.success else "failure",
                goal=trace.goal,
                worker=trace.worker,
                evaluator_claims=ev_claims,
                analysis=j.analysis,
                evidence=j.evidence,
            ),
            trace,
        )


def _error_vote(trace: ProbeTrace, r: int, i: int, error: str) -> Vote:
    """No vote from this probe: its trace, claims or judgment failed."""
    return Vote(
        round=r, probe=i, outcome="error", goal=trace.goal, worker=trace.worker, error=error
    )


def _finish(result: RewardResult) -> None:
    t = tally(result.votes)
    result.confidence = t.confidence
    if t.outcome == "error":
        result.status = "error"
        result.reward = None
        first = next((v.error for v in result.votes if v.error), "no votes")
        result.error = f"all {len(result.votes)} votes were errors: {first}"
    else:
        result.status = "ok"
        result.reward = t.reward


def run_sync(
    pipeline: RewardPipeline, request: RewardRequest, backend: ProbeBackend | None = None
) -> RewardResult:
    """Convenience for scripts and tests outside an event loop."""
    return asyncio.run(pipeline.reward(request, backend))
