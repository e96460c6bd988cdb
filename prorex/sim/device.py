"""``SimDevice``: the sim phone behind the ``prorex.device.Device`` interface."""

from __future__ import annotations

import hashlib
import random
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from prorex.device import DeviceCrashed, DeviceError, DeviceHung, DeviceOffline, Health, Snapshot
from prorex.schemas import Action, Observation, Task
from prorex.sim.apps import APPS
from prorex.sim.layout import FaultConfig, LayoutConfig
from prorex.sim.phone import InputError, Phone
from prorex.sim.state import PhoneState

#: virtual seconds each action takes (``wait`` takes longer)
ACTION_S, WAIT_S = 2, 5


class SimSpec(BaseModel):
    """``Task.setup.sim``: which family's start state to build, and its seed."""

    model_config = ConfigDict(extra="forbid")

    family: str
    params: dict[str, Any]
    seed: int


class SimDevice:
    backend = "sim"

    def __init__(
        self,
        *,
        device_id: str = "sim-0",
        layout: LayoutConfig | None = None,
        faults: FaultConfig | None = None,
        latency_s: float = 0.0,
        screenshots: bool = True,
    ) -> None:
        self.device_id = device_id
        self.layout = layout or LayoutConfig()
        self.faults = faults or FaultConfig()
        self.latency_s = latency_s
        self.screenshots = screenshots
        self._rng = random.Random(self.faults.seed)
        self._crashed = False
        self._closed = False
        self.phone = Phone(PhoneState(), self.layout)

    # ---------------------------------------------------------------- faults
    def _alive(self) -> None:
        if self._closed:
            raise DeviceOffline(f"{self.device_id}: closed")
        if self._crashed:
            raise DeviceCrashed(f"{self.device_id}: the sim phone crashed earlier; build a new device")

    def _guard(self) -> None:
        """Liveness, then one roll of the injected faults (per act / observe call)."""
        self._alive()
        f = self.faults
        if not (f.crash_p or f.hang_p or f.offline_p):
            return
        r = self._rng.random()
        if r < f.crash_p:
            self._crashed = True
            raise DeviceCrashed(f"{self.device_id}: injected crash")
        if r < f.crash_p + f.hang_p:
            time.sleep(f.hang_s)
            raise DeviceHung(f"{self.device_id}: injected hang ({f.hang_s:g}s)")
        if r < f.crash_p + f.hang_p + f.offline_p:
            raise DeviceOffline(f"{self.device_id}: injected offline")

    # --------------------------------------------------------------- observe
    def observe(self) -> Observation:
        self._guard()
        return self._observation()

    def _observation(self) -> Observation:
        ph = self.phone
        frame = ph.frame()
        page = frame.page
        return Observation(
            xml=frame.xml,
            screenshot_png=ph.screenshot_png() if self.screenshots else None,
            package=page.package,
            activity=page.activity,
            screen_size=(self.layout.width, self.layout.height),
            time=float(ph.state.clock_s),
        )

    # ------------------------------------------------------------------- act
    def _point(self, action: Action) -> tuple[int, int] | None:
        if action.index is not None:
            try:
                node = self.phone.node_at_index(action.index)
            except InputError as exc:
                raise DeviceError(f"{self.device_id}: {action.action_type}: {exc}") from None
            x1, y1, x2, y2 = node.bounds
            return (x1 + x2) // 2, (y1 + y2) // 2
        if action.x is not None and action.y is not None:
            return action.x, action.y
        if action.target is not None:
            return action.target.center
        return None

    def act(self, action: Action) -> None:
        self._guard()
        if self.latency_s:
            time.sleep(self.latency_s)
        ph = self.phone
        t = action.action_type
        if t in ("answer", "status"):
            return
        if t == "wait":
            ph.tick(WAIT_S)
            return
        pt = self._point(action)
        if t == "click":
            ph.tap(*pt)
        elif t == "double_tap":
            ph.tap(*pt)
            ph.tap(*pt)
        elif t == "long_press":
            ph.long_press(*pt)
        elif t in ("input_text", "clear_text"):
            if pt is not None:
                ph.tap(*pt)
            if t == "input_text":
                ph.type_text(action.text or "")
            else:
                ph.clear_text()
        elif t == "keyboard_enter":
            ph.enter()
        elif t == "scroll":
            ph.scroll(action.direction)
        elif t == "swipe":
            flip = {"up": "down", "down": "up"}
            if action.direction in flip:
                ph.scroll(flip[action.direction])
        elif t == "navigate_back":
            ph.back()
        elif t == "navigate_home":
            ph.home()
        elif t == "open_app":
            try:
                ph.open_app(action.app_name or "")
            except InputError as exc:
                raise DeviceError(f"{self.device_id}: open_app: {exc}") from None
        ph.tick(ACTION_S)

    # ----------------------------------------------------------- lifecycle
    def reset_to(self, task: Task) -> Observation:
        self._alive()
        from prorex.sim.tasks import FAMILIES, build_state

        raw = task.setup.sim
        if raw is None:
            raise DeviceError(f"task {task.id}: setup.sim is missing; the sim needs a family spec")
        try:
            spec = SimSpec.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"])
            raise DeviceError(f"task {task.id}: setup.sim.{field}: {err['msg']}") from None
        if spec.family not in FAMILIES:
            raise DeviceError(f"task {task.id}: setup.sim.family: unknown family {spec.family!r}")
        try:
            state = build_state(spec.family, spec.params, spec.seed)
        except (KeyError, ValueError, TypeError) as exc:
            raise DeviceError(f"task {task.id}: setup.sim.params: {exc}") from None
        self.phone = Phone(state, self.layout)
        return self._observation()

    def snapshot(self, name: str | None = None) -> Snapshot:
        self._alive()
        data = self.phone.state.model_dump_json().encode()
        sid = name or "sim-" + hashlib.sha1(data).hexdigest()[:16]
        return Snapshot(id=sid, backend="sim", portable=True, data=data)

    def restore(self, snapshot: Snapshot) -> Observation:
        self._alive()
        if snapshot.backend != "sim" or snapshot.data is None:
            raise DeviceError(f"{self.device_id}: cannot restore a {snapshot.backend!r} snapshot without data")
        try:
            state = PhoneState.model_validate_json(snapshot.data)
        except ValidationError as exc:
            raise DeviceError(f"{self.device_id}: snapshot {snapshot.id} is not a sim phone state: {exc}") from None
        unknown = [
            f"{s.app}/{s.page}" for s in [*state.stack, *(x for t in state.tasks.values() for x in t)]
            if s.app not in APPS or s.page not in APPS[s.app].pages
            or (s.dialog is not None and s.dialog.get("kind") not in APPS[s.app].dialogs)
        ]
        if unknown or not state.stack:
            raise DeviceError(f"{self.device_id}: snapshot {snapshot.id} has unknown screens {unknown}")
        self.phone = Phone(state, self.layout)
        return self._observation()

    def health(self) -> Health:
        if self._closed:
            return Health(ok=False, state="offline", detail="closed", serial=self.device_id)
        if self._crashed:
            return Health(ok=False, state="crashed", detail="injected crash", serial=self.device_id)
        return Health(ok=True, state="ready", serial=self.device_id)

    def close(self) -> None:
        self._closed = True
