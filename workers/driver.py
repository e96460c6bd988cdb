"""The job driver: reward a list of requests on Ray, resumably.

- Requests come from ``prorex.inputs.load_requests`` (bad lines reported and
  counted as ``invalid_lines``); results go to ``prorex.rewards_log.RewardsLog``.
- At most ``max_inflight`` requests are in flight. Each leases up to K workers
  from the fleet (none for static judges) and awaits the reasoner actor under
  the request's deadline. A lost worker (``WorkerLost``, a dead actor) is
  reported to the fleet, which replaces it, and the request is retried on
  other workers while its retry budget lasts; then it is written as an error.
- Every result is appended to ``rewards.jsonl`` as one line, flushed and
  fsynced as it finishes, so a killed driver loses only work in flight.
  ``--resume`` drops a torn last line, skips finished task ids and appends.
- At the end ``summary.json`` covers every line of ``rewards.jsonl``
  (resumed ones included) and a table goes to stdout. Ctrl-C stops
  submitting, cancels what is in flight, keeps what was written, writes the
  summary and exits 130.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel, ConfigDict, Field
from ray.exceptions import RayActorError, RayTaskError

from prorex.config import ModelConfig, ProbeConfig
from prorex.metrics import summarize
from prorex.pipeline import WorkerLost
from prorex.rewards_log import RewardsLog, error_result
from prorex.schemas import RewardRequest, RewardResult, Summary
from workers.fleet import Fleet, FleetExhausted, FleetStats
from workers.progress import Progress
from workers.reasoner_actor import PipelineFactory, start_reasoner
from workers.remote import call, describe_error

log = logging.getLogger("prorex.job")

#: Methods that probe devices; the static judges need no workers.
PROBING_METHODS = frozenset({"prore"})
EXIT_INTERRUPTED = 130


class JobConfig(BaseModel):
    """Everything a job needs besides its requests (built from CLI flags or by callers)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    method: str = "prore"
    workers: int = Field(default=2, ge=1)
    device: str = "sim"
    device_options: dict[str, Any] = Field(default_factory=dict)
    #: per device index, options merged over ``device_options`` (fault injection in tests)
    worker_options: dict[int, dict[str, Any]] = Field(default_factory=dict)
    models: ModelConfig = Field(default_factory=ModelConfig)
    probe: ProbeConfig = Field(default_factory=ProbeConfig)
    max_inflight: int | None = Field(default=None, ge=1)
    retries: int = Field(default=2, ge=0)
    deadline_s: float = Field(default=600.0, gt=0)
    call_timeout_s: float = Field(default=300.0, gt=0)
    health_interval_s: float = Field(default=5.0, gt=0)
    quarantine_after: int = Field(default=3, ge=1)
    progress: bool = True

    @property
    def inflight(self) -> int:
        return self.max_inflight or 2 * self.workers

    @property
    def needs_workers(self) -> bool:
        return self.method in PROBING_METHODS


class JobReport(BaseModel):
    """What ``run_job`` hands back: this run's results and the summary of the whole file."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    results: list[RewardResult]
    summary: Summary
    skipped: int = 0
    interrupted: bool = False
    #: seconds from the reasoner being ready to the last result (no start-up)
    run_s: float = 0.0
    fleet: FleetStats | None = None
    rewards_path: str
    summary_path: str


class JobDriver:
    """Runs one method over a list of requests with a fleet and a reasoner actor."""

    def __init__(
        self,
        config: JobConfig,
        *,
        fleet: Fleet | None = None,
        pipeline_factory: PipelineFactory | None = None,
    ) -> None:
        self.config = config
        self.fleet = fleet
        self.pipeline_factory = pipeline_factory
        self.reasoner: Any = None
        self.retried = 0

    async def _reward_one(self, request: RewardRequest) -> RewardResult:
        import ray

        cfg = self.config
        k = cfg.probe.parallel if cfg.needs_workers else 0
        start: float | None = None
        attempts = 0
        avoid: set[int] = set()
        while True:
            attempts += 1
            last_error = ""  # set below when this attempt lost a worker or the reasoner
            try:
                workers = await self.fleet.lease(k, avoid) if k and self.fleet else []
            except FleetExhausted as exc:
                return error_result(request, cfg.method, f"no worker can serve it: {exc}", attempts, 0.0)
            if start is None:
                start = time.monotonic()  # the deadline starts once the request has its workers
            remaining = cfg.deadline_s - (time.monotonic() - start)
            failed: set[str] = set()
            ref = None
            try:
                if remaining <= 0:
                    raise TimeoutError
                ref = self.reasoner.reward.remote(request, workers)
                result: RewardResult = await call(ref, remaining)
            except TimeoutError:
                if ref is not None:
                    ray.cancel(ref)
                return error_result(
                    request, cfg.method, f"deadline of {cfg.deadline_s:.0f}s exceeded", attempts, time.monotonic() - start
                )
            except asyncio.CancelledError:
                if ref is not None:
                    ray.cancel(ref)
                raise
            except RayTaskError as exc:
                cause = exc.cause
                if not isinstance(cause, WorkerLost):
                    return error_result(request, cfg.method, describe_error(cause or exc), attempts, time.monotonic() - start)
                lost = getattr(cause, "worker_id", None) or (cause.args[0] if cause.args else "")
                failed.add(str(lost))
                last_error = f"worker {lost} lost"
            except RayActorError as exc:  # the reasoner actor died; Ray restarts it
                last_error = f"reasoner actor lost: {describe_error(exc)}"
            finally:
                if workers and self.fleet is not None:
                    self.fleet.release(workers, failed)
            if not last_error:
                result.attempts = attempts
                return result
            avoid |= {w.index for w in workers if w.worker_id in failed}
            if attempts > cfg.retries:
                return error_result(
                    request, cfg.method, f"gave up after {attempts} attempts: {last_error}", attempts, time.monotonic() - start
                )
            self.retried += 1
            log.info("retrying %s after: %s", request.task.id, last_error)

    async def run(
        self,
        requests: list[RewardRequest],
        out_dir: str | Path,
        *,
        resume: bool = False,
        invalid_lines: int = 0,
        stop: asyncio.Event | None = None,
        stream: TextIO | None = None,
    ) -> JobReport:
        import ray

        cfg = self.config
        out = Path(out_dir)
        rewards = RewardsLog(out / "rewards.jsonl")
        finished = rewards.open(resume=resume)
        for note in rewards.notes:
            print(note, file=sys.stderr)
        todo = [r for r in requests if r.task.id not in finished]
        skipped = len(requests) - len(todo)
        stop = stop or asyncio.Event()
        own_fleet = False
        if cfg.needs_workers and self.fleet is None and todo:
            self.fleet = Fleet(
                cfg.workers,
                kind=cfg.device,
                device_options=cfg.device_options,
                worker_options=cfg.worker_options,
                models=cfg.models,
                probe_cfg=cfg.probe,
                health_interval_s=cfg.health_interval_s,
                hung_after_s=cfg.call_timeout_s,
                quarantine_after=cfg.quarantine_after,
            )
            own_fleet = True
        progress = Progress(
            len(requests), already_done=skipped, enabled=cfg.progress, stream=stream, label=cfg.method
        )
        results: list[RewardResult] = []
        t0 = time.monotonic()
        run_s = 0.0
        interrupted = False
        try:
            if todo:
                if own_fleet:
                    await self.fleet.start()
                self.reasoner = start_reasoner(
                    cfg.models,
                    cfg.probe,
                    cfg.method,
                    call_timeout_s=cfg.call_timeout_s,
                    pipeline_factory=self.pipeline_factory,
                )
                # Fail early if the pipeline cannot even be built (bad model config).
                await call(self.reasoner.ping.remote())
                t_ready = time.monotonic()
                interrupted = await self._drive(todo, rewards, results, progress, stop)
                run_s = time.monotonic() - t_ready
        finally:
            rewards.close()
            progress.finish()
            if self.reasoner is not None:
                ray.kill(self.reasoner, no_restart=True)
                self.reasoner = None
            fleet_stats = self.fleet.snapshot_stats() if self.fleet is not None else None
            if own_fleet:
                await self.fleet.close()
                self.fleet = None
        wall = time.monotonic() - t0
        everything = rewards.read_all()
        summary = summarize(everything, wall, invalid_lines=invalid_lines, method=cfg.method)
        summary_path = out / "summary.json"
        tmp = summary_path.with_suffix(".json.tmp")
        tmp.write_text(summary.model_dump_json(indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, summary_path)
        return JobReport(
            results=results,
            summary=summary,
            skipped=skipped,
            interrupted=interrupted,
            run_s=run_s,
            fleet=fleet_stats,
            rewards_path=str(rewards.path),
            summary_path=str(summary_path),
        )

    async def _drive(
        self,
        todo: list[RewardRequest],
        rewards: RewardsLog,
        results: list[RewardResult],
        progress: Progress,
        stop: asyncio.Event,
    ) -> bool:
        """Keep ``inflight`` requests going; write each result as it lands. True if stopped."""
        queue = iter(todo)
        pending: dict[asyncio.Task[RewardResult], RewardRequest] = {}
        stopper = asyncio.create_task(stop.wait())
        exhausted = False

        def collect(task: asyncio.Task[RewardResult], request: RewardRequest) -> None:
            try:
                result = task.result()
            except Exception as exc:  # a driver-side bug must not lose the other results
                log.exception("request %s failed in the driver", request.task.id)
                result = error_result(request, self.config.method, describe_error(exc), 1, 0.0)
            rewards.append(result)
            results.append(result)
            progress.update(error=result.status == "error")

        try:
            while True:
                while not stop.is_set() and not exhausted and len(pending) < self.config.inflight:
                    request = next(queue, None)
                    if request is None:
                        exhausted = True
                        break
                    pending[asyncio.create_task(self._reward_one(request))] = request
                if not pending or stop.is_set():
                    break
                done, _ = await asyncio.wait({*pending, stopper}, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    if task is not stopper:
                        collect(task, pending.pop(task))
        finally:
            stopper.cancel()
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            # A request that finished while we were stopping is still worth keeping.
            for task, request in pending.items():
                if not task.cancelled():
                    collect(task, request)
        return stop.is_set()


async def run_job(
    config: JobConfig,
    requests: list[RewardRequest],
    out_dir: str | Path,
    *,
    resume: bool = False,
    fleet: Fleet | None = None,
    invalid_lines: int = 0,
    stop: asyncio.Event | None = None,
    pipeline_factory: PipelineFactory | None = None,
    stream: TextIO | None = None,
) -> JobReport:
    """Reward ``requests`` into ``out_dir`` (Ray must be initialised). Reuses ``fleet`` if given."""
    driver = JobDriver(config, fleet=fleet, pipeline_factory=pipeline_factory)
    return await driver.run(
        requests, out_dir, resume=resume, invalid_lines=invalid_lines, stop=stop, stream=stream
    )
