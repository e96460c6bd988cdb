"""The fleet: a driver-side scheduler of emulator workers.

Not ``ray.util.ActorPool``: that pool puts a dead actor back in its idle list.
Here every worker slot (one per device index) has a state, and:

- ``lease(k)`` hands out up to ``min(k, live)`` idle workers, first come
  first served (a request waits until it can have all it asked for, so wide
  requests are not starved by narrow ones);
- ``release(workers, failed)`` returns them; a failed one is replaced by a
  new actor with a new device on the same index;
- a health loop asks every worker for ``health`` with a timeout; no answer,
  a hung operation or a lost device gets the worker killed and replaced;
- a device index that fails ``quarantine_after`` times within
  ``quarantine_window_s`` is quarantined (not restarted) while at least one
  other worker remains.

Worker ids carry a generation (``w1.2``): a release or a failure report about
an incarnation that was already replaced is ignored.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field
from ray.exceptions import RayActorError, RayTaskError

from prorex.config import ModelConfig, ProbeConfig
from prorex.device import Health
from workers.emulator_worker import RunnerFactory, WorkerRef, start_worker, worker_id_for
from workers.remote import call, describe_error

log = logging.getLogger("prorex.fleet")

SlotState = Literal["starting", "idle", "busy", "restarting", "quarantined"]


class QuarantineRecord(BaseModel):
    index: int
    failures: int
    reason: str


class FleetStats(BaseModel):
    """What happened to the fleet during a run (reported in the job's table)."""

    workers: int
    live: int
    restarts: int = 0
    failures: int = 0
    health_failures: int = 0
    quarantined: list[QuarantineRecord] = Field(default_factory=list)


class FleetExhausted(RuntimeError):
    """Every device is quarantined: no request can be served."""


class _Slot:
    def __init__(self, index: int) -> None:
        self.index = index
        self.generation = -1
        self.handle: Any = None
        self.state: SlotState = "starting"
        self.ever_up = False
        self.leases = 0
        self.failures: deque[float] = deque()
        self.last_reason = ""

    @property
    def worker_id(self) -> str:
        return worker_id_for(self.index, self.generation)

    def ref(self) -> WorkerRef:
        return WorkerRef(worker_id=self.worker_id, index=self.index, handle=self.handle, lease=self.leases)


class Fleet:
    def __init__(
        self,
        size: int,
        *,
        kind: str = "sim",
        device_options: dict[str, Any] | None = None,
        worker_options: dict[int, dict[str, Any]] | None = None,
        models: ModelConfig | None = None,
        probe_cfg: ProbeConfig | None = None,
        health_interval_s: float = 5.0,
        health_timeout_s: float = 15.0,
        hung_after_s: float = 300.0,
        start_timeout_s: float = 120.0,
        close_timeout_s: float = 20.0,
        quarantine_after: int = 3,
        quarantine_window_s: float = 600.0,
        screenshot_dir: str | None = None,
        runner_factory: RunnerFactory | None = None,
    ) -> None:
        if size < 1:
            raise ValueError("a fleet needs at least one worker")
        self.size = size
        self.kind = kind
        self.device_options = dict(device_options or {})
        self.worker_options = {int(k): dict(v) for k, v in (worker_options or {}).items()}
        self.models = models or ModelConfig()
        self.probe_cfg = probe_cfg or ProbeConfig()
        self.health_interval_s = health_interval_s
        self.health_timeout_s = health_timeout_s
        self.hung_after_s = hung_after_s
        self.start_timeout_s = start_timeout_s
        self.close_timeout_s = close_timeout_s
        self.quarantine_after = quarantine_after
        self.quarantine_window_s = quarantine_window_s
        self.screenshot_dir = screenshot_dir
        self.runner_factory = runner_factory
        self.slots = [_Slot(i) for i in range(size)]
        self.stats = FleetStats(workers=size, live=size)
        self._waiters: deque[tuple[int, frozenset[int], asyncio.Future[list[WorkerRef]]]] = deque()
        self._tasks: set[asyncio.Task[Any]] = set()
        #: workers being closed and killed; ``close`` waits for them instead of cancelling
        self._retiring: set[asyncio.Task[None]] = set()
        self._health_task: asyncio.Task[None] | None = None
        self._closed = False
        self._exhausted: str | None = None

    # ---------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Start every worker; return once all answer ``ping``, or after ``start_timeout_s``
        with at least one up (the rest join when their slots free up or start)."""
        tasks = [self._spawn(self._start_slot(slot)) for slot in self.slots]
        _, pending = await asyncio.wait(tasks, timeout=self.start_timeout_s)
        while pending and not any(s.state == "idle" for s in self.slots):
            _, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        if not any(s.state == "idle" for s in self.slots):
            raise FleetExhausted(f"no emulator worker could start: {self.slots[0].last_reason}")
        if pending:
            log.warning("%d of %d workers are not up yet; starting with the others", len(pending), self.size)
        self._health_task = asyncio.create_task(self._health_loop())

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def close(self) -> None:
        self._closed = True
        if self._health_task is not None:
            self._health_task.cancel()
        for task in list(self._tasks):
            task.cancel()
        waiting = [*self._tasks, *([self._health_task] if self._health_task else [])]
        await asyncio.gather(*waiting, return_exceptions=True)
        for _, _, fut in self._waiters:
            if not fut.done():
                fut.set_exception(RuntimeError("fleet closed"))
        self._waiters.clear()
        for slot in self.slots:
            if slot.handle is not None:
                self._retire(slot)
        await asyncio.gather(*self._retiring, return_exceptions=True)

    async def __aenter__(self) -> Fleet:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _retire(self, slot: _Slot) -> None:
        """Take ``slot``'s actor out of service: ask it to close its device, then kill it."""
        handle, worker_id = slot.handle, slot.worker_id
        slot.handle = None
        task = asyncio.create_task(self._close_and_kill(handle, worker_id))
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    async def _close_and_kill(self, handle: Any, worker_id: str) -> None:
        import ray

        try:
            await call(handle.close.remote(), self.close_timeout_s)
        except Exception as exc:  # noqa: BLE001 - dead, hung or unreachable: killing it is what is left
            log.warning("worker %s did not close its device: %s", worker_id, describe_error(exc))
        ray.kill(handle, no_restart=True)

    def _options_for(self, index: int) -> dict[str, Any]:
        return {**self.device_options, **self.worker_options.get(index, {})}

    async def _start_slot(self, slot: _Slot) -> None:
        """(Re)start ``slot``'s actor until it answers, or the slot is quarantined."""
        while not self._closed:
            slot.generation += 1
            slot.state = "restarting" if slot.ever_up else "starting"
            slot.handle = start_worker(
                self.kind,
                slot.index,
                self._options_for(slot.index),
                self.models,
                self.probe_cfg,
                generation=slot.generation,
                hung_after_s=self.hung_after_s,
                screenshot_dir=self.screenshot_dir,
                runner_factory=self.runner_factory,
            )
            try:
                await call(slot.handle.ping.remote(), self.start_timeout_s)
            except (TimeoutError, RayActorError, RayTaskError) as exc:
                self._retire(slot)
                reason = f"start failed: {describe_error(exc)}"
                if self._record_failure(slot, reason):
                    return
                await asyncio.sleep(min(5.0, 0.5 * len(slot.failures)))
                continue
            slot.state = "idle"
            slot.ever_up = True
            self._dispatch()
            return

    # ------------------------------------------------------------------ leasing

    @property
    def live(self) -> int:
        return sum(1 for s in self.slots if s.state != "quarantined")

    @property
    def servable(self) -> int:
        """Workers a lease may wait for: up, or coming back from a restart (not never-started)."""
        return sum(1 for s in self.slots if s.state in ("idle", "busy", "restarting"))

    def idle_count(self) -> int:
        return sum(1 for s in self.slots if s.state == "idle")

    async def lease(self, k: int, avoid: Iterable[int] = ()) -> list[WorkerRef]:
        """Up to ``min(k, live workers)`` idle workers; waits in FIFO order.

        ``avoid``: device indices to hand out only when no other idle worker
        is left (a retry prefers other devices than the one that failed).
        """
        if k < 1:
            return []
        if self._exhausted is not None:
            raise FleetExhausted(self._exhausted)
        fut: asyncio.Future[list[WorkerRef]] = asyncio.get_running_loop().create_future()
        self._waiters.append((k, frozenset(avoid), fut))
        self._dispatch()
        try:
            return await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                self.release(fut.result())  # granted just as the caller gave up
            else:
                self._waiters = deque(w for w in self._waiters if w[2] is not fut)
            raise

    def _dispatch(self) -> None:
        while self._waiters:
            k, avoid, fut = self._waiters[0]
            if fut.done():
                self._waiters.popleft()
                continue
            want = min(k, self.servable)
            if want == 0:
                return  # nothing up yet: wait for a start to finish
            idle = [s for s in self.slots if s.state == "idle"]
            if len(idle) < want:
                return
            idle.sort(key=lambda s: s.index in avoid)
            chosen = idle[:want]
            for slot in chosen:
                slot.state = "busy"
                slot.leases += 1
            self._waiters.popleft()
            fut.set_result([s.ref() for s in chosen])

    def release(self, workers: Iterable[WorkerRef], failed: Iterable[str] = ()) -> None:
        """Give leased workers back; those named in ``failed`` are replaced."""
        failed = set(failed)
        for ref in workers:
            slot = self.slots[ref.index]
            if slot.worker_id != ref.worker_id or slot.state != "busy":
                continue  # already replaced (health loop) or quarantined
            if ref.worker_id in failed:
                self._fail(slot, "reported lost by a request")
            else:
                slot.state = "idle"
        self._dispatch()

    def report_failure(self, worker_id: str, reason: str) -> None:
        """A worker failed outside a lease (e.g. found dead): replace it."""
        for slot in self.slots:
            if slot.worker_id == worker_id and slot.state in ("idle", "busy"):
                self._fail(slot, reason)
        self._dispatch()

    # --------------------------------------------------------- failure handling

    def _record_failure(self, slot: _Slot, reason: str) -> bool:
        """Count a failure; quarantine the slot if it fails too often. True if quarantined."""
        now = time.monotonic()
        slot.failures.append(now)
        while slot.failures and now - slot.failures[0] > self.quarantine_window_s:
            slot.failures.popleft()
        slot.last_reason = reason
        self.stats.failures += 1
        others_live = sum(1 for s in self.slots if s is not slot and s.state != "quarantined")
        # The last device standing gets more chances before the fleet gives up.
        limit = self.quarantine_after if others_live else 3 * self.quarantine_after
        if len(slot.failures) < limit:
            return False
        slot.state = "quarantined"
        self.stats.quarantined.append(QuarantineRecord(index=slot.index, failures=len(slot.failures), reason=reason))
        self.stats.live = self.live
        log.warning("quarantined device %d after %d failures: %s", slot.index, len(slot.failures), reason)
        if not others_live:
            self._exhausted = f"every device is quarantined; last failure: {reason}"
            for _, _, fut in self._waiters:
                if not fut.done():
                    fut.set_exception(FleetExhausted(self._exhausted))
            self._waiters.clear()
        self._dispatch()
        return True

    def _fail(self, slot: _Slot, reason: str) -> None:
        log.warning("worker %s failed: %s", slot.worker_id, reason)
        if slot.handle is not None:
            self._retire(slot)
        if self._record_failure(slot, reason):
            return
        slot.state = "restarting"
        self.stats.restarts += 1
        self._spawn(self._start_slot(slot))

    # ------------------------------------------------------------------- health

    async def _check(self, slot: _Slot) -> None:
        worker_id = slot.worker_id
        try:
            health: Health = await call(slot.handle.health.remote(), self.health_timeout_s)
        except TimeoutError:
            reason = f"no health answer within {self.health_timeout_s:.0f}s"
        except (RayActorError, RayTaskError) as exc:
            reason = f"health check failed: {describe_error(exc)}"
        else:
            if health.ok:
                return
            reason = f"unhealthy: {health.state} {health.detail}".strip()
        if slot.worker_id == worker_id and slot.state in ("idle", "busy"):
            self.stats.health_failures += 1
            self._fail(slot, reason)
            self._dispatch()

    async def _health_loop(self) -> None:
        while not self._closed:
            await asyncio.sleep(self.health_interval_s)
            slots = [s for s in self.slots if s.state in ("idle", "busy")]
            outcomes = await asyncio.gather(*(self._check(s) for s in slots), return_exceptions=True)
            for slot, outcome in zip(slots, outcomes, strict=True):
                # The loop must survive a check that broke, but not hide it.
                if isinstance(outcome, Exception):
                    log.warning("health check of %s raised %s", slot.worker_id, describe_error(outcome))

    async def check_now(self) -> None:
        """One health round immediately (tests, and before a job starts)."""
        await asyncio.gather(*(self._check(s) for s in self.slots if s.state in ("idle", "busy")))

    async def info(self) -> list[dict[str, Any]]:
        """Every live worker's ``info`` (per-stage time totals for the bench)."""
        out = []
        for slot in self.slots:
            if slot.handle is None or slot.state == "quarantined":
                continue
            try:
                out.append(await call(slot.handle.info.remote(), 30))
            except (TimeoutError, RayActorError, RayTaskError) as exc:
                log.warning("no info from worker %s: %s", slot.worker_id, describe_error(exc))
        return out

    def snapshot_stats(self) -> FleetStats:
        self.stats.live = self.live
        return self.stats.model_copy(deep=True)
