"""What every Ray-facing module of ``workers`` does the same way: start a
local cluster, make an actor class, await a remote call, name its failure."""

from __future__ import annotations

import asyncio
import functools
import os
from typing import Any

from ray.exceptions import RayActorError


def start_local_ray(emulators: int) -> bool:
    """Start a local Ray cluster offering ``emulators`` emulator slots, unless Ray
    is already up in this process. True if this call started it (shut it down after)."""
    import ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    if ray.is_initialized():
        return False
    ray.init(
        num_cpus=max(2, os.cpu_count() or 2),
        resources={"emulator": emulators},
        include_dashboard=False,
        log_to_driver=False,
    )
    return True


@functools.cache
def actor_class(cls: type) -> Any:
    """``ray.remote(cls)``, made once per process (Ray is imported only when needed)."""
    import ray

    return ray.remote(cls)


async def call(ref: Any, timeout_s: float | None = None) -> Any:
    """Await a remote call's ``ObjectRef`` from asyncio; ``TimeoutError`` after ``timeout_s``.

    The remote task itself is not cancelled on a timeout: that is the caller's
    decision (``ray.cancel``), as a cancelled worker call could leave a device
    mid-operation.
    """
    return await asyncio.wait_for(asyncio.wrap_future(ref.future()), timeout_s)


def describe_error(exc: BaseException) -> str:
    """One line naming what went wrong; for an actor whose constructor raised, its exception."""
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    if isinstance(exc, RayActorError) and getattr(exc, "actor_init_failed", False) and len(lines) > 1:
        return lines[-1][:300]  # the traceback's last line: "module.Error: message"
    return f"{type(exc).__name__}: {lines[0][:300] if lines else ''}"
