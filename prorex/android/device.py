"""``AndroidDevice``: the device interface on a real emulator or phone.

Connects by serial through an adb server of the caller's choosing (one per
worker is fine), drives the UI with uiautomator2, and resets through
emulator console snapshots plus per-task shell commands and file pushes.
The hierarchy always comes from the uiautomator2 server: ``adb shell
uiautomator dump`` would fight it for the accessibility connection.
"""

from __future__ import annotations

import io
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from adbutils.errors import AdbConnectionError, AdbError, AdbTimeout
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from prorex.android.actions import perform
from prorex.android.adb import (
    AdbClient,
    AdbServerUnreachable,
    adb_argv,
    connection_reason,
    ensure_local_server,
    require_device,
    run_adb,
    unreachable,
)
from prorex.android.apps import AppTable
from prorex.android.emulator import (
    EmulatorConsole,
    EmulatorProcess,
    EmulatorSpec,
    adb_shell_fn,
    check_snapshot_name,
    console_port,
)
from prorex.device import DeviceCrashed, DeviceError, DeviceHung, DeviceOffline, Health, Snapshot
from prorex.schemas import Action, Observation, Task, UIElement

T = TypeVar("T")
U2Factory = Callable[[str, AdbClient], Any]


class AndroidDeviceConfig(BaseModel):
    """One worker's Android device, as written in a ``--devices-config`` file."""

    model_config = ConfigDict(extra="forbid")

    serial: str | None = None  # None: the serial of the emulator this worker launches
    adb_host: str = "127.0.0.1"
    adb_port: int = Field(default=5037, ge=1, le=65535)
    adb_binary: str | None = None  # default: adb on PATH, else the one adbutils ships
    app_packages: dict[str, str] | None = None
    emulator: EmulatorSpec | None = None
    snapshot_timeout_s: float = Field(default=60.0, gt=0)
    action_timeout_s: float = Field(default=30.0, gt=0)
    settle_s: float = Field(default=0.5, ge=0)
    wait_s: float = Field(default=1.0, ge=0)


def _default_u2(serial: str, client: AdbClient) -> Any:
    import uiautomator2

    return uiautomator2.connect(require_device(client, serial))


class AndroidDevice:
    """A ``prorex.device.Device`` backed by adbutils + uiautomator2."""

    backend = "android"

    def __init__(
        self,
        serial: str | None = None,
        *,
        adb_host: str = "127.0.0.1",
        adb_port: int = 5037,
        app_packages: dict[str, str] | None = None,
        emulator: EmulatorSpec | None = None,
        snapshot_timeout_s: float = 60.0,
        action_timeout_s: float = 30.0,
        settle_s: float = 0.5,
        wait_s: float = 1.0,
        adb_binary: str | None = None,
        u2_factory: U2Factory | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if serial is None and emulator is None:
            raise DeviceError("AndroidDevice needs a serial, or an emulator spec to launch one")
        self.adb_host = adb_host
        self.adb_port = adb_port
        self.snapshot_timeout_s = snapshot_timeout_s
        self.action_timeout_s = action_timeout_s
        self.settle_s = settle_s
        self.wait_s = wait_s
        self._adb_binary = adb_binary
        try:
            self._apps = AppTable(app_packages)
        except ValueError as exc:
            raise DeviceError(f"{serial or 'android'}: {exc}") from exc
        # Bounded host queries: adbutils waits forever on a wedged server otherwise.
        self._client = AdbClient(adb_host, adb_port, socket_timeout=15.0)
        self._sleep = sleep
        self._last_xml: str | None = None
        self._last_elements: list[UIElement] | None = None
        self._screen: tuple[int, int] | None = None
        self._emulator: EmulatorProcess | None = None
        self._closed = False
        if emulator is not None:
            if emulator.port is None and serial is not None and console_port(serial) is not None:
                emulator = emulator.model_copy(update={"port": console_port(serial)})
            self._emulator = EmulatorProcess(emulator, adb_host=adb_host, adb_port=adb_port)
        self.serial = serial or ""
        try:
            if self._emulator is not None:
                self.serial = self._start_emulator()
            factory = u2_factory or _default_u2
            self._d = self._guard(
                "connect", lambda: factory(self.serial, self._client), timeout=120.0
            )
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_config(
        cls, config: dict[str, Any] | AndroidDeviceConfig, **overrides: Any
    ) -> AndroidDevice:
        """Build from a devices-config entry; a bad entry names its field."""
        if not isinstance(config, AndroidDeviceConfig):
            try:
                config = AndroidDeviceConfig.model_validate(config)
            except ValidationError as exc:
                err = exc.errors()[0]
                field = ".".join(str(p) for p in err["loc"]) or "(entry)"
                raise DeviceError(f"android device config: {field}: {err['msg']}") from exc
        kwargs = config.model_dump()
        serial = kwargs.pop("serial")
        kwargs["emulator"] = config.emulator
        kwargs.update(overrides)
        return cls(serial, **kwargs)

    # ----------------------------------------------------------------- errors

    def _translate(self, what: str, exc: BaseException) -> DeviceError:
        """A library error as a prorex device error naming this serial."""
        from uiautomator2 import exceptions as u2e

        where = f"{self.serial or 'android'}: {what}"
        if isinstance(exc, DeviceError):
            return exc
        if isinstance(exc, AdbConnectionError):
            return unreachable(self.adb_host, self.adb_port, connection_reason(exc))
        if isinstance(exc, AdbTimeout | u2e.HTTPTimeoutError | TimeoutError):
            return DeviceHung(f"{where} timed out: {exc}")
        if isinstance(
            exc, u2e.UiAutomationNotConnectedError | u2e.LaunchUiAutomationError | u2e.ConnectError
        ):
            return DeviceCrashed(f"{where}: uiautomator2 server is down: {exc}")
        if isinstance(exc, u2e.HTTPError):
            return DeviceCrashed(f"{where}: uiautomator2 server unreachable: {exc}")
        text = str(exc)
        if isinstance(exc, AdbError | u2e.AdbShellError) and (
            "offline" in text or "not found" in text
        ):
            return DeviceOffline(f"{where}: {text}")
        return DeviceError(f"{where} failed: {type(exc).__name__}: {text}")

    def _guard(self, what: str, fn: Callable[[], T], timeout: float | None = None) -> T:
        """Run ``fn`` with a deadline; errors become ``DeviceError`` subclasses.

        uiautomator2's own HTTP timeout is minutes long, so a hung call is
        abandoned here (its thread ends when the socket gives up).
        """
        if self._closed:
            raise DeviceError(f"{self.serial}: device is closed")
        limit = timeout or self.action_timeout_s
        box: dict[str, Any] = {}

        def run() -> None:
            try:
                box["value"] = fn()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                box["error"] = exc

        worker = threading.Thread(target=run, name=f"prorex-android-{what}", daemon=True)
        worker.start()
        worker.join(limit)
        if worker.is_alive():
            raise DeviceHung(f"{self.serial}: {what} did not finish within {limit:g}s")
        if "error" in box:
            raise self._translate(what, box["error"]) from box["error"]
        return box["value"]

    @contextmanager
    def _step(self, what: str) -> Iterator[None]:
        try:
            yield
        except DeviceError:
            raise
        except Exception as exc:
            raise self._translate(what, exc) from exc

    # ------------------------------------------------------------ observation

    def observe(self) -> Observation:
        d = self._d
        xml = self._guard("dump_hierarchy", d.dump_hierarchy)
        image = self._guard("screenshot", d.screenshot)
        size = self._guard("window_size", d.window_size)
        package, activity = self._guard("app_current", self._current_app)
        buf = io.BytesIO()
        with self._step("encode screenshot"):
            image.save(buf, format="PNG")
        self._last_xml = xml
        self._last_elements = None
        self._screen = (int(size[0]), int(size[1]))
        return Observation(
            xml=xml,
            screenshot_png=buf.getvalue(),
            package=package,
            activity=activity,
            screen_size=self._screen,
            time=time.time(),
        )

    def _current_app(self) -> tuple[str, str]:
        from uiautomator2 import exceptions as u2e

        try:
            info = self._d.app_current()
        except (u2e.DeviceError, AdbError) as exc:
            # No focused window (screen off, keyguard, a transition): no app.
            # adbutils raises this as AdbError, uiautomator2 as its DeviceError.
            if "focused app" in str(exc):
                return "", ""
            raise
        return str(info.get("package") or ""), str(info.get("activity") or "")

    def _elements(self) -> list[UIElement]:
        if self._last_xml is None:
            raise DeviceError(f"{self.serial}: an action by index needs an observe() first")
        if self._last_elements is None:
            from prorex.ui import HierarchyError, parse_hierarchy

            try:
                self._last_elements = parse_hierarchy(self._last_xml)
            except HierarchyError as exc:
                raise DeviceError(
                    f"{self.serial}: last observed hierarchy does not parse: {exc}"
                ) from exc
        return self._last_elements

    def _screen_size(self) -> tuple[int, int]:
        if self._screen is None:
            w, h = self._guard("window_size", self._d.window_size)
            self._screen = (int(w), int(h))
        return self._screen

    # ---------------------------------------------------------------- actions

    def act(self, action: Action) -> None:
        screen = self._screen_size() if action.action_type in ("scroll", "swipe") else (0, 0)
        touched = self._guard(
            action.action_type,
            lambda: perform(
                self._d,
                action,
                screen_size=screen,
                elements=self._elements,
                apps=self._apps,
                sleep=self._sleep,
                wait_s=self.wait_s,
            ),
            timeout=self.action_timeout_s + (self.wait_s if action.action_type == "wait" else 0.0),
        )
        if touched:
            # The hierarchy of the last screen no longer describes the device.
            self._last_elements = None
            self._last_xml = None
            if self.settle_s:
                self._sleep(self.settle_s)

    # ------------------------------------------------------- reset, snapshots

    def _console(self) -> EmulatorConsole:
        if console_port(self.serial) is None:
            raise DeviceError(
                f"{self.serial} is a physical device: snapshots need an emulator (serial emulator-NNNN); "
                "use setup.shell / setup.push for tasks on phones"
            )
        return EmulatorConsole(
            self.serial, adb_host=self.adb_host, adb_port=self.adb_port, adb_binary=self._adb_binary
        )

    def _load(self, name: str) -> None:
        console = self._console()
        console.snapshot_load(name, timeout=self.snapshot_timeout_s)
        self._last_xml = None
        self._last_elements = None

    def reset_to(self, task: Task) -> Observation:
        setup = task.setup
        android_parts = setup.snapshot is not None or setup.shell or setup.push
        if setup.sim is not None and not android_parts:
            raise DeviceError(
                f"task {task.id}: this task is for the sim device (its setup has only a sim part)"
            )
        if setup.snapshot is not None:
            self._load(setup.snapshot)
        elif not android_parts:
            # Nothing to restore: start from the launcher, like AndroidWorld's reset.
            self._guard("press home", lambda: self._d.press("home"))
        for cmd in setup.shell:
            self._shell(cmd, task.id)
        for local, remote in setup.push:
            path = Path(local)
            if not path.is_file():
                raise DeviceError(f"task {task.id}: setup.push source {local!r} is not a file")
            self._guard(
                f"push {local} -> {remote}", lambda p=path, r=remote: self._d.push(str(p), r)
            )
        if self.settle_s:
            self._sleep(self.settle_s)
        return self.observe()

    def _shell(self, cmd: str, task_id: str) -> str:
        resp = self._guard(
            f"shell {cmd!r}", lambda: self._d.shell(cmd, timeout=self.action_timeout_s)
        )
        output, code = _shell_result(resp)
        if code not in (0, None):
            raise DeviceError(
                f"task {task_id}: setup.shell {cmd!r} exited with {code} on {self.serial}: {output.strip()[:300]}"
            )
        return output

    def snapshot(self, name: str | None = None) -> Snapshot:
        name = check_snapshot_name(name or f"prorex-{uuid.uuid4().hex[:12]}")
        self._console().snapshot_save(name, timeout=self.snapshot_timeout_s)
        return Snapshot(id=name, backend=self.backend, portable=False)

    def restore(self, snapshot: Snapshot) -> Observation:
        if snapshot.backend != self.backend:
            raise DeviceError(
                f"{self.serial}: cannot restore a {snapshot.backend!r} snapshot on an android device"
            )
        self._load(snapshot.id)
        if self.settle_s:
            self._sleep(self.settle_s)
        return self.observe()

    # ----------------------------------------------------------------- health

    def health(self) -> Health:
        from uiautomator2 import exceptions as u2e

        if self._closed:
            return Health(ok=False, state="unknown", detail="closed", serial=self.serial)
        if self._emulator is not None and not self._emulator.alive():
            return Health(
                ok=False, state="crashed", detail="emulator process exited", serial=self.serial
            )
        try:
            self._guard("ping", lambda: self._d.info, timeout=min(self.action_timeout_s, 15.0))
            return Health(ok=True, state="ready", serial=self.serial)
        except DeviceHung as exc:
            return Health(ok=False, state="hung", detail=str(exc), serial=self.serial)
        except DeviceError as exc:
            cause = exc.__cause__
            if isinstance(cause, u2e.UiAutomationNotConnectedError | u2e.HTTPError):
                return self._restart_u2(exc)
            if isinstance(exc, AdbServerUnreachable):
                return Health(ok=False, state="offline", detail=str(exc), serial=self.serial)
            if isinstance(exc, DeviceOffline):
                return self._reconnect_offline(exc)
            return Health(ok=False, state="crashed", detail=str(exc), serial=self.serial)

    def _restart_u2(self, exc: DeviceError) -> Health:
        try:
            self._guard("reset_uiautomator", self._d.reset_uiautomator, timeout=90.0)
            self._guard("ping", lambda: self._d.info, timeout=15.0)
        except DeviceError as again:
            return Health(
                ok=False,
                state="crashed",
                detail=f"{exc}; restart failed: {again}",
                serial=self.serial,
            )
        return Health(
            ok=True, state="ready", detail="uiautomator2 server restarted", serial=self.serial
        )

    def _reconnect_offline(self, exc: DeviceError) -> Health:
        argv = adb_argv(
            self._adb_binary, self.adb_host, self.adb_port, None, "reconnect", "offline"
        )
        try:
            proc = run_adb(argv, timeout=30.0)
            detail = f"{exc}; ran `adb reconnect offline` (exit {proc.returncode})"
        except DeviceError as again:
            detail = f"{exc}; `adb reconnect offline` failed: {again}"
        return Health(ok=False, state="offline", detail=detail, serial=self.serial)

    # ------------------------------------------------------------- lifecycle

    def _start_emulator(self) -> str:
        emu = self._emulator
        assert emu is not None
        ensure_local_server(self.adb_host, self.adb_port, self._adb_binary)
        serial = emu.launch()
        self.serial = serial
        shell = adb_shell_fn(self._client, serial)
        emu.wait_boot(shell)
        emu.disable_animations(shell)
        return serial

    def close(self) -> None:
        """Stop what this object started: the uiautomator2 session and its own emulator."""
        if self._closed:
            return
        self._closed = True
        d = getattr(self, "_d", None)
        if d is not None and hasattr(d, "stop_uiautomator"):
            # The server runs inside an adb shell stream this process holds.
            try:
                d.stop_uiautomator(wait=False)
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
        if self._emulator is not None:
            self._emulator.close()

    def __enter__(self) -> AndroidDevice:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"AndroidDevice(serial={self.serial!r}, adb={self.adb_host}:{self.adb_port})"


def _shell_result(resp: Any) -> tuple[str, int | None]:
    """Output and exit code of a uiautomator2 ``ShellResponse`` (or a plain string)."""
    if isinstance(resp, str):
        return resp, None
    output = getattr(resp, "output", "")
    code = getattr(resp, "exit_code", None)
    return str(output), code
