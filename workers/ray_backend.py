"""``RayProbeBackend``: the pipeline's probe backend over leased worker actors.

One slot per leased ``EmulatorWorker``. A worker that dies, cannot be
reached, loses its device or does not answer within ``call_timeout_s``
surfaces as ``prorex.pipeline.WorkerLost(worker_id)``: the pipeline lets it
propagate and the job driver retries the request on other workers while the
fleet replaces the lost one. Any other failure is re-raised as the worker's
own exception, which the pipeline records as an error vote.

Worker calls are never cancelled from here: a cancelled call would release
the worker's device lock while its thread still drives the device. A worker
whose call timed out is replaced instead.
"""

from __future__ import annotations

from typing import Any

from ray.exceptions import ActorUnavailableError, RayActorError, RayTaskError

from prorex.device import Snapshot
from prorex.pipeline import WorkerLost
from prorex.schemas import ProbeTrace, ReplayReport, RewardRequest
from workers.emulator_worker import LOST_DEVICE_ERRORS, WorkerRef
from workers.remote import call

#: Errors that mean the actor itself is gone or unreachable.
ACTOR_LOST_ERRORS = (RayActorError, ActorUnavailableError)


class RayProbeBackend:
    """Implements ``prorex.pipeline.ProbeBackend`` over ``EmulatorWorker`` handles."""

    def __init__(self, workers: list[WorkerRef], *, call_timeout_s: float = 300.0) -> None:
        if not workers:
            raise ValueError("RayProbeBackend needs at least one worker")
        self.workers = list(workers)
        self.call_timeout_s = call_timeout_s
        self.closed = False

    def close(self) -> None:
        """The request is over: calls still coming from its leftover tasks are refused here."""
        self.closed = True

    @property
    def slots(self) -> int:
        return len(self.workers)

    def worker_id(self, slot: int) -> str:
        return self.workers[slot].worker_id

    async def _call(self, slot: int, method: str, *args: Any) -> Any:
        worker = self.workers[slot]
        if self.closed:
            raise RuntimeError(f"lease on {worker.worker_id} has ended")
        ref = getattr(worker.handle, method).remote(*args, lease=worker.lease)
        try:
            return await call(ref, self.call_timeout_s)
        except TimeoutError:
            raise WorkerLost(worker.worker_id) from None
        except ACTOR_LOST_ERRORS as exc:
            raise WorkerLost(worker.worker_id) from exc
        except RayTaskError as exc:
            cause = exc.cause
            if isinstance(cause, LOST_DEVICE_ERRORS):
                raise WorkerLost(worker.worker_id) from cause
            if isinstance(cause, BaseException):
                raise cause from None
            raise

    async def prepare(self, slot: int, request: RewardRequest, want_snapshot: bool) -> tuple[ReplayReport, Snapshot | None]:
        return await self._call(slot, "prepare", request, want_snapshot)

    async def restore(self, slot: int, snapshot: Snapshot) -> None:
        await self._call(slot, "restore", snapshot)

    async def probe(self, slot: int, request: RewardRequest, goals: list[str], round: int, probe: int) -> ProbeTrace:
        return await self._call(slot, "probe", request, goals, round, probe)
