"""Knobs that change how the sim phone looks and fails, not what it holds.

``LayoutConfig`` perturbs the rendering between runs (resolution, status bar,
list order, resource-id renames) so a replay on another worker must retarget
recorded elements by matching. ``FaultConfig`` injects device failures.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ListOrder = Literal["default", "reversed", "shuffled"]
IdStyle = Literal["default", "flavor", "none"]

# Worker layouts cycle through these; every one differs from LayoutConfig().
_WORKER_SIZES = ((720, 1600), (1440, 3200), (1080, 2340), (1080, 2400), (800, 1280))
_WORKER_BARS = (48, 84, 66, 90, 40)
_WORKER_ORDERS: tuple[ListOrder, ...] = ("reversed", "default", "shuffled")
_WORKER_IDS: tuple[IdStyle, ...] = ("flavor", "default", "none", "flavor")


class LayoutConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    width: int = Field(default=1080, ge=320, le=4000)
    height: int = Field(default=2400, ge=480, le=8000)
    status_bar_h: int = Field(default=63, ge=0, le=300)
    nav_bar_h: int = Field(default=63, ge=0, le=300)
    list_order: ListOrder = "default"
    list_seed: int = 0
    id_style: IdStyle = "default"

    @property
    def scale(self) -> float:
        return self.width / 1080.0

    @classmethod
    def for_worker(cls, i: int) -> LayoutConfig:
        """A deterministic layout for worker ``i`` that is never the default one."""
        if i < 0:
            raise ValueError("worker index must be >= 0")
        w, h = _WORKER_SIZES[i % len(_WORKER_SIZES)]
        cfg = cls(
            width=w,
            height=h,
            status_bar_h=_WORKER_BARS[i % len(_WORKER_BARS)],
            nav_bar_h=_WORKER_BARS[(i + 2) % len(_WORKER_BARS)],
            list_order=_WORKER_ORDERS[i % len(_WORKER_ORDERS)],
            list_seed=1000 + i,
            id_style=_WORKER_IDS[i % len(_WORKER_IDS)],
        )
        if cfg == cls():  # cannot happen with the tables above, but keep the promise
            cfg = cfg.model_copy(update={"status_bar_h": 70})
        return cfg


class FaultConfig(BaseModel):
    """Per ``act``/``observe`` call probabilities of a device failure."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    crash_p: float = Field(default=0.0, ge=0.0, le=1.0)
    hang_p: float = Field(default=0.0, ge=0.0, le=1.0)
    offline_p: float = Field(default=0.0, ge=0.0, le=1.0)
    hang_s: float = Field(default=30.0, ge=0.0)
    seed: int = 0
