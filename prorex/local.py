"""LocalProbeBackend: the ProbeBackend over in-process devices (tests, no Ray).

One ``ProbeRunner`` per device; each call runs in a thread so slots probe in
parallel while the event loop keeps judging.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from prorex.config import ModelConfig, ProbeConfig
from prorex.device import Device, Snapshot
from prorex.llm.client import LLMClient
from prorex.probe import ProbeRunner
from prorex.schemas import ProbeTrace, ReplayReport, RewardRequest


class LocalProbeBackend:
    def __init__(
        self,
        devices: Sequence[Device],
        models: ModelConfig | None = None,
        probe: ProbeConfig | None = None,
        llm: LLMClient | None = None,
    ) -> None:
        if not devices:
            raise ValueError("LocalProbeBackend needs at least one device")
        models = models or ModelConfig()
        probe = probe or ProbeConfig()
        llm = llm or LLMClient(models)
        self.runners = [ProbeRunner(d, models, probe, llm) for d in devices]
        self.slots = len(self.runners)

    async def prepare(
        self, slot: int, request: RewardRequest, want_snapshot: bool
    ) -> tuple[ReplayReport, Snapshot | None]:
        return await asyncio.to_thread(self.runners[slot].prepare, request, want_snapshot)

    async def restore(self, slot: int, snapshot: Snapshot) -> None:
        await asyncio.to_thread(self.runners[slot].restore, snapshot)

    async def probe(
        self, slot: int, request: RewardRequest, goals: list[str], round: int, probe: int
    ) -> ProbeTrace:
        return await asyncio.to_thread(self.runners[slot].probe, request, goals, round, probe)
