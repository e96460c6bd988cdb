"""The central reasoner actor: one async actor runs every request's pipeline.

All reasoner-side LLM calls (probe goals, claims, judgments) go through this
one actor's ``RewardPipeline``, whose client enforces
``ModelConfig.max_concurrency``: that is the cluster-wide limit on concurrent
LLM calls. Many requests are in flight at once (``max_concurrency`` of the
actor), each fanning its probes out to the workers the driver leased for it.
A ``WorkerLost`` from a probe propagates to the driver, which retries the
request elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prorex.config import ModelConfig, ProbeConfig
from prorex.schemas import RewardRequest, RewardResult
from workers.emulator_worker import WorkerRef
from workers.remote import actor_class

PipelineFactory = Callable[[ModelConfig, ProbeConfig, str], Any]


def _default_pipeline(models: ModelConfig, probe_cfg: ProbeConfig, method: str) -> Any:
    from prorex.pipeline import RewardPipeline

    return RewardPipeline(models, probe_cfg, method)


class ReasonerActor:
    def __init__(
        self,
        models: ModelConfig,
        probe_cfg: ProbeConfig,
        method: str,
        *,
        call_timeout_s: float = 300.0,
        pipeline_factory: PipelineFactory | None = None,
    ) -> None:
        self.method = method
        self.call_timeout_s = call_timeout_s
        self.pipeline = (pipeline_factory or _default_pipeline)(models, probe_cfg, method)
        self.requests = 0

    async def ping(self) -> str:
        return self.method

    async def reward(self, request: RewardRequest, workers: list[WorkerRef]) -> RewardResult:
        from workers.ray_backend import RayProbeBackend

        self.requests += 1
        backend = RayProbeBackend(workers, call_timeout_s=self.call_timeout_s) if workers else None
        try:
            return await self.pipeline.reward(request, backend)
        finally:
            if backend is not None:
                backend.close()


def start_reasoner(
    models: ModelConfig,
    probe_cfg: ProbeConfig,
    method: str,
    *,
    call_timeout_s: float = 300.0,
    pipeline_factory: PipelineFactory | None = None,
    max_concurrency: int = 1000,
) -> Any:
    """Start the reasoner actor; Ray restarts it if its process dies (in-flight calls fail and are retried)."""
    return actor_class(ReasonerActor).options(
        num_cpus=0,
        max_restarts=3,
        max_task_retries=0,
        max_concurrency=max_concurrency,
    ).remote(models, probe_cfg, method, call_timeout_s=call_timeout_s, pipeline_factory=pipeline_factory)
