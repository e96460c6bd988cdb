"""The device interface every backend implements (sim phone, Android).

One small protocol, as AndroidWorld's ``env/interface.py`` has: observe,
act, reset to a task's start state, snapshot / restore, health. Backends
raise ``DeviceError`` subclasses; callers record them as errors, never as a
reward.
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from prorex.schemas import Action, Observation, Task


class DeviceError(RuntimeError):
    """A device failed to do what was asked."""


class DeviceCrashed(DeviceError):
    """The device (emulator, uiautomator server, sim) is gone; restart it."""


class DeviceHung(DeviceError):
    """The device did not answer within its timeout."""


class DeviceOffline(DeviceError):
    """The device is known to the server but not usable (offline, unauthorized)."""


class Snapshot(BaseModel):
    """A saved device state.

    ``portable`` snapshots carry their ``data`` and can be restored on another
    device of the same backend (the sim); others are a name only their own
    device (its emulator's snapshot storage) can load.
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    backend: str
    portable: bool = False
    data: bytes | None = Field(default=None, repr=False)


class Health(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ok: bool
    state: Literal["ready", "busy", "offline", "crashed", "hung", "unknown"] = "unknown"
    detail: str = ""
    serial: str = ""


@runtime_checkable
class Device(Protocol):
    """What the worker, the replayer and the evaluator agent may use."""

    backend: str

    def observe(self) -> Observation:
        """The current screen: hierarchy XML, screenshot, foreground app."""

    def act(self, action: Action) -> None:
        """Carry out one action; ``answer``/``status`` change nothing."""

    def reset_to(self, task: Task) -> Observation:
        """Put the device in the task's start state and return the screen."""

    def snapshot(self, name: str | None = None) -> Snapshot:
        """Save the current state."""

    def restore(self, snapshot: Snapshot) -> Observation:
        """Load a saved state and return the screen."""

    def health(self) -> Health:
        """Cheap liveness check."""

    def close(self) -> None:
        """Release the device and stop whatever this object started."""
