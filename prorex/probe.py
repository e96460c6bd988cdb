"""ProbeRunner: what one worker does with its device for one reward request.

``prepare`` puts the device in the policy's final state (reset to the task's
start, replay the recorded actions) and optionally snapshots it; ``restore``
loads a snapshot instead; ``probe`` runs the evaluator agent from the current
state. A probe after a diverged replay is not run: the state is unknown, so
its trace carries an error and the pipeline records no vote from it. Device
errors propagate as ``DeviceError`` for the caller to record.

Parallel probes are samples, not copies (paper §3.5): probe 0 of each round
runs the evaluator at its own temperature, the others at
``ProbeConfig.probe_temperature``, each with a seed derived from
``(ProbeConfig.seed, task id, round, probe)`` so a run can be reproduced.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from prorex.config import ModelConfig, ProbeConfig
from prorex.device import Device, Snapshot
from prorex.evaluator import ActionGuard, EvaluatorAgent
from prorex.llm.client import ROLE_DEFAULT, LLMClient, Temperature
from prorex.schemas import ProbeTrace, ReplayReport, RewardRequest


def step_budget(request: RewardRequest, cfg: ProbeConfig) -> int:
    """The configured budget, or the policy trajectory's length, clamped."""
    if cfg.step_budget is not None:
        return cfg.step_budget
    n = len(request.trajectory.steps)
    return max(cfg.min_step_budget, min(cfg.max_step_budget, n))


def probe_seed(base: int, task_id: str, round: int, probe: int) -> int:
    """A sampling seed stable across processes and runs (``hash()`` is salted per process)."""
    digest = hashlib.sha256(f"{base}/{task_id}/{round}/{probe}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def sampling(
    cfg: ProbeConfig, request: RewardRequest, round: int, probe: int
) -> tuple[Temperature, int]:
    """Temperature and seed for one probe: probe 0 of a round keeps the evaluator's own
    temperature (so K=1 is the plain agent); the others explore at ``probe_temperature``."""
    temp: Temperature = cfg.probe_temperature if probe > 0 else ROLE_DEFAULT
    return temp, probe_seed(cfg.seed, request.task.id, round, probe)


def goal_text(goals: Sequence[str]) -> str:
    if len(goals) == 1:
        return goals[0]
    return " ".join(f"({i}) {g}" for i, g in enumerate(goals, 1))


class ProbeRunner:
    """Owns one device; plain and synchronous so a Ray actor can wrap it."""

    def __init__(
        self, device: Device, models: ModelConfig, probe: ProbeConfig, llm: LLMClient | None = None
    ) -> None:
        self.device = device
        self.models = models
        self.cfg = probe
        self.llm = llm or LLMClient(models)
        self.agent = EvaluatorAgent(device, self.llm, guard=ActionGuard(enabled=probe.guard))
        self._replay: ReplayReport | None = None
        self._restored = False

    @property
    def worker(self) -> str:
        return str(
            getattr(self.device, "device_id", "") or getattr(self.device, "serial", "") or ""
        )

    def prepare(
        self, request: RewardRequest, want_snapshot: bool
    ) -> tuple[ReplayReport, Snapshot | None]:
        from prorex.replay import replay

        self.device.reset_to(request.task)
        report = replay(self.device, request.trajectory, min_score=self.cfg.min_replay_score)
        self._replay = report
        self._restored = False
        snap = None
        if want_snapshot and not report.diverged:
            snap = self.device.snapshot(f"{request.task.id}-replayed")
        return report, snap

    def restore(self, snapshot: Snapshot) -> None:
        self.device.restore(snapshot)
        self._restored = True

    def probe(self, request: RewardRequest, goals: list[str], round: int, probe: int) -> ProbeTrace:
        trace = ProbeTrace(
            goal=goal_text(goals),
            round=round,
            probe=probe,
            worker=self.worker,
            replay=None if self._restored else self._replay,
            restored_from_snapshot=self._restored,
        )
        if not self._restored and self._replay is None:
            trace.error = "probe before prepare/restore: device state unknown"
            trace.stopped = "error"
            return trace
        if not self._restored and self._replay is not None and self._replay.diverged:
            trace.error = (
                f"replay diverged at step {self._replay.divergence_step}: {self._replay.reason}"
            )
            trace.stopped = "diverged"
            return trace
        temperature, seed = sampling(self.cfg, request, round, probe)
        self.agent.run(
            goals,
            step_budget(request, self.cfg),
            trace,
            usage=trace.usage,
            temperature=temperature,
            seed=seed,
        )
        # The device now holds the evaluator's changes: the next probe must prepare or restore again.
        self._replay = None
        self._restored = False
        return trace
