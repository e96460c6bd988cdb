"""The emulator worker actor: one device, owned for the actor's lifetime.

A thin async shell over ``prorex.probe.ProbeRunner``. Every device call runs
in a thread (``asyncio.to_thread``) under one lock, so the event loop stays
free for ``ping``/``health`` while a slow or hung device call is in progress,
and the device never sees two operations at once. Results travel by value
(screenshots as PNG bytes, or as files when ``screenshot_dir`` is set):
nothing returned is an object that lives in this process.

The class is plain Python (its async methods can be driven without Ray);
``start_worker`` wraps it as an actor. Restarts are the fleet's job, so the
actor itself is created with ``max_restarts=0``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from prorex.config import ModelConfig, ProbeConfig
from prorex.device import (
    Device,
    DeviceCrashed,
    DeviceError,
    DeviceHung,
    DeviceOffline,
    Health,
    Snapshot,
)
from prorex.schemas import Observation, ProbeTrace, ReplayReport, RewardRequest
from workers.remote import actor_class

#: Device failures after which the device is unusable until restarted.
LOST_DEVICE_ERRORS = (DeviceCrashed, DeviceHung, DeviceOffline)

RunnerFactory = Callable[[Device, ModelConfig, ProbeConfig], Any]


def _default_runner(device: Device, models: ModelConfig, probe_cfg: ProbeConfig) -> Any:
    from prorex.probe import ProbeRunner

    return ProbeRunner(device, models, probe_cfg)


def _models_see_screens(models: ModelConfig) -> bool:
    """Whether a model reads probe screenshots: the evaluator, or the claims writer."""
    from prorex.llm.client import LLMClient

    client = LLMClient(models)
    return client.vision("evaluator") or client.vision("claims")


def worker_id_for(index: int, generation: int) -> str:
    """A worker incarnation's id: device index and restart generation."""
    return f"w{index}.{generation}"


class WorkerRef(BaseModel):
    """A leased worker as the reasoner sees it: which incarnation, and its handle."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    worker_id: str
    index: int
    handle: Any
    #: increases with every lease of this device; the worker refuses calls from an older lease
    lease: int = 0


class StaleLease(RuntimeError):
    """A call from a lease that has ended reached the worker after a newer lease's call."""


class EmulatorWorker:
    """Owns one device and the probe runner on it.

    ``hung_after_s``: an operation running longer than this makes ``health``
    report the device hung, so the fleet replaces the worker even though its
    event loop still answers.
    """

    def __init__(
        self,
        kind: str,
        worker_index: int,
        device_options: dict[str, Any] | None,
        models: ModelConfig,
        probe_cfg: ProbeConfig,
        *,
        generation: int = 0,
        hung_after_s: float = 300.0,
        screenshot_dir: str | None = None,
        runner_factory: RunnerFactory | None = None,
    ) -> None:
        self.kind = kind
        self.index = worker_index
        self.worker_id = worker_id_for(worker_index, generation)
        self._device_options = dict(device_options or {})
        self._models = models
        self._probe_cfg = probe_cfg
        self._hung_after_s = hung_after_s
        self._screenshot_dir = Path(screenshot_dir) if screenshot_dir else None
        self._runner_factory = runner_factory or _default_runner
        self._lock = asyncio.Lock()
        self._busy_op: str | None = None
        self._busy_since: float | None = None
        self._broken: str | None = None
        self._lease = 0
        self.stats: dict[str, float] = {
            "prepare_s": 0.0,
            "restore_s": 0.0,
            "probe_s": 0.0,
            "prepare": 0,
            "restore": 0,
            "probe": 0,
            "device_errors": 0,
        }
        self.device, self.runner = self._build()

    def _build(self) -> tuple[Device, Any]:
        from prorex.devices import make_device

        options = dict(self._device_options)
        if self.kind == "sim" and "screenshots" not in options:
            # Drawing sim screenshots makes a replay ~9x slower; replay never looks
            # at them and text-only models are not sent them.
            options["screenshots"] = _models_see_screens(self._models)
        device = make_device(self.kind, self.index, options)
        return device, self._runner_factory(device, self._models, self._probe_cfg)

    # ---------------------------------------------------------------- plumbing

    async def _device_call(self, op: str, lease: int, fn: Callable[..., Any], *args: Any) -> Any:
        async with self._lock:
            # A request that ended (lost a sibling worker, timed out) may leave calls in
            # flight; once the next lease has used the device they must not touch it.
            if lease < self._lease:
                raise StaleLease(f"{self.worker_id}: call from lease {lease} after lease {self._lease}")
            self._lease = lease
            if self._broken is not None:
                raise DeviceCrashed(f"{self.worker_id}: device lost earlier ({self._broken}); restart it")
            self._busy_op, self._busy_since = op, time.monotonic()
            try:
                return await asyncio.to_thread(fn, *args)
            except LOST_DEVICE_ERRORS as exc:
                self._broken = f"{type(exc).__name__}: {exc}"
                self.stats["device_errors"] += 1
                raise
            except DeviceError:
                self.stats["device_errors"] += 1
                raise
            finally:
                self.stats[f"{op}_s"] += time.monotonic() - self._busy_since
                self.stats[op] += 1
                self._busy_op, self._busy_since = None, None

    def _detach_screenshots(self, trace: ProbeTrace, task_id: str) -> None:
        """Write screenshots to files (shared storage) instead of carrying bytes."""
        if self._screenshot_dir is None:
            return
        folder = self._screenshot_dir / task_id
        folder.mkdir(parents=True, exist_ok=True)
        observations: list[tuple[str, Observation | None]] = [
            (f"s{step.index}", step.observation) for step in trace.steps
        ]
        observations.append(("final", trace.final_observation))
        for name, obs in observations:
            if obs is None or obs.screenshot_png is None:
                continue
            path = folder / f"r{trace.round}p{trace.probe}-{self.worker_id}-{name}.png"
            path.write_bytes(obs.screenshot_png)
            obs.screenshot = str(path)
            obs.screenshot_png = None

    # ------------------------------------------------------------------ methods

    async def ping(self) -> str:
        return self.worker_id

    async def info(self) -> dict[str, Any]:
        return {
            "worker_id": self.worker_id,
            "index": self.index,
            "kind": self.kind,
            "backend": getattr(self.device, "backend", ""),
            "busy": self._busy_op,
            "broken": self._broken,
            "stats": dict(self.stats),
        }

    async def health(self) -> Health:
        if self._broken is not None:
            return Health(ok=False, state="crashed", detail=self._broken)
        if self._busy_since is not None:
            busy_for = time.monotonic() - self._busy_since
            if busy_for > self._hung_after_s:
                return Health(ok=False, state="hung", detail=f"{self._busy_op} running for {busy_for:.0f}s")
            # The device is in use; asking it now would queue behind the operation.
            return Health(ok=True, state="busy", detail=f"{self._busy_op} for {busy_for:.1f}s")
        async with self._lock:
            try:
                return await asyncio.to_thread(self.device.health)
            except DeviceError as exc:
                return Health(ok=False, state="crashed", detail=f"{type(exc).__name__}: {exc}")

    async def prepare(
        self, request: RewardRequest, want_snapshot: bool, lease: int = 0
    ) -> tuple[ReplayReport, Snapshot | None]:
        return await self._device_call("prepare", lease, self.runner.prepare, request, want_snapshot)

    async def restore(self, snapshot: Snapshot, lease: int = 0) -> None:
        await self._device_call("restore", lease, self.runner.restore, snapshot)

    async def probe(
        self, request: RewardRequest, goals: list[str], round: int, probe: int, lease: int = 0
    ) -> ProbeTrace:
        trace: ProbeTrace = await self._device_call(
            "probe", lease, self.runner.probe, request, goals, round, probe
        )
        if not trace.worker:
            trace.worker = self.worker_id
        self._detach_screenshots(trace, request.task.id)
        return trace

    async def restart_device(self) -> str:
        """Close the device and build a fresh one (and its runner) in place."""
        async with self._lock:
            old = self.device
            try:
                await asyncio.wait_for(asyncio.to_thread(old.close), timeout=30)
            except (TimeoutError, DeviceError):
                pass  # the old device is being discarded either way
            self.device, self.runner = await asyncio.to_thread(self._build)
            self._broken = None
            return self.worker_id

    async def close(self) -> None:
        """Close the device before the actor is killed: an emulator the device
        launched runs in its own session and would outlive the actor. Does not
        wait for the device lock, so a hung operation cannot keep it open."""
        await asyncio.to_thread(self.device.close)


def start_worker(*args: Any, max_concurrency: int = 16, **kwargs: Any) -> Any:
    """Start one ``EmulatorWorker`` actor (arguments as its constructor) holding
    one unit of the ``emulator`` resource."""
    return actor_class(EmulatorWorker).options(
        resources={"emulator": 1},
        num_cpus=0,
        max_restarts=0,
        max_concurrency=max_concurrency,
    ).remote(*args, **kwargs)
