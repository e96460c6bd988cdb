"""Android emulators: console snapshots and a per-worker process lifecycle.

Snapshots go through the emulator console with ``adb -s emulator-PORT emu
avd snapshot save|load NAME``. The adb client talks to the console port
directly and exits 0 whatever the console said, so the reply text decides:
a ``KO`` line is a failure.

An ``EmulatorProcess`` launches one headless emulator on a free console/adb
port pair, waits for boot, turns animations off, and on ``close`` stops only
the process group it started.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from prorex.android.adb import AdbClient, adb_argv, run_adb
from prorex.device import DeviceCrashed, DeviceError, DeviceHung, DeviceOffline

#: Console ports the emulator accepts (adb port = console port + 1).
FIRST_PORT = 5554
LAST_PORT = 5682

_EMULATOR_SERIAL = re.compile(r"^emulator-(\d+)$")
_SNAPSHOT_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")

#: Flags every launch has; repeating them in ``extra_args`` is harmless but noisy.
FIXED_FLAGS = ("-no-window", "-no-snapshot-save", "-no-boot-anim")
#: Options ``extra_args`` must not set: the worker chooses them.
OWN_OPTIONS = frozenset({"-avd", "-port", "-ports"})

ANIMATION_SETTINGS = (
    "window_animation_scale",
    "transition_animation_scale",
    "animator_duration_scale",
)


def console_port(serial: str) -> int | None:
    """The console port of an emulator serial (``emulator-5554`` -> 5554)."""
    m = _EMULATOR_SERIAL.match(serial)
    return int(m[1]) if m else None


def check_snapshot_name(name: str) -> str:
    # The console splits its command line on spaces; keep names plain.
    if not _SNAPSHOT_NAME.match(name):
        raise DeviceError(f"snapshot name {name!r} must be 1-128 of letters, digits, '_', '.', '-'")
    return name


# --------------------------------------------------------------------- console


class EmulatorConsole:
    """Console commands for one emulator, through the adb client binary."""

    def __init__(
        self,
        serial: str,
        *,
        adb_host: str = "127.0.0.1",
        adb_port: int = 5037,
        adb_binary: str | None = None,
    ):
        if console_port(serial) is None:
            raise DeviceError(
                f"{serial} is not an emulator (serial emulator-NNNN): snapshots need the emulator console"
            )
        self.serial = serial
        self._host = adb_host
        self._port = adb_port
        self._adb = adb_binary

    def command(self, *args: str, timeout: float) -> str:
        """Run a console command and return its reply; ``KO`` raises ``DeviceError``."""
        argv = adb_argv(self._adb, self._host, self._port, self.serial, "emu", *args)
        what = " ".join(args)
        proc = run_adb(argv, timeout)
        out = (proc.stdout or "").replace("\r", "")
        err = (proc.stderr or "").strip()
        if proc.returncode != 0 or err.startswith("error"):
            raise DeviceOffline(
                f"{self.serial}: console command `{what}` failed: {err or out.strip() or proc.returncode}"
            )
        for line in out.splitlines():
            if line.startswith("KO"):
                raise DeviceError(
                    f"{self.serial}: console refused `{what}`: {line[2:].lstrip(': ').strip() or 'KO'}"
                )
        return out.strip()

    def snapshot_save(self, name: str, timeout: float) -> None:
        self.command("avd", "snapshot", "save", check_snapshot_name(name), timeout=timeout)

    def snapshot_load(self, name: str, timeout: float) -> None:
        self.command("avd", "snapshot", "load", check_snapshot_name(name), timeout=timeout)


# ------------------------------------------------------------------- lifecycle


class EmulatorSpec(BaseModel):
    """How a worker launches its own emulator."""

    model_config = ConfigDict(extra="forbid")

    avd: str = Field(min_length=1)
    emulator_binary: str = "emulator"
    extra_args: list[str] = Field(default_factory=list)
    boot_timeout_s: float = Field(default=300.0, gt=0)
    port: int | None = None  # console port; None: first free pair in 5554..5682

    @field_validator("extra_args")
    @classmethod
    def _no_own_options(cls, v: list[str]) -> list[str]:
        clash = sorted(OWN_OPTIONS.intersection(v))
        if clash:
            raise ValueError(f"{', '.join(clash)} is set by the worker; remove it from extra_args")
        return v

    @field_validator("port")
    @classmethod
    def _even_port(cls, v: int | None) -> int | None:
        if v is not None and (v % 2 or not FIRST_PORT <= v <= LAST_PORT):
            raise ValueError(f"console port must be even and in {FIRST_PORT}..{LAST_PORT}, got {v}")
        return v


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether nothing listens on ``port`` (and we could bind it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


class PortLease:
    """A console port pair held by this process through a lock file.

    Workers on one machine allocate at the same time; an exclusive ``flock``
    per port stops two of them picking the same free pair before either
    emulator has bound it. The lock goes when the lease is released or the
    process dies.
    """

    def __init__(self, port: int, fd: int, path: Path):
        self.port = port
        self._fd: int | None = fd
        self.path = path

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
                os.close(self._fd)
            self._fd = None


def _lock_dir() -> Path:
    d = Path(tempfile.gettempdir()) / "prorex-emulator-ports"
    d.mkdir(exist_ok=True)
    return d


def _try_lock(port: int) -> PortLease | None:
    path = _lock_dir() / f"{port}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return PortLease(port, fd, path)


def lease_port(
    port: int | None = None,
    *,
    first: int = FIRST_PORT,
    last: int = LAST_PORT,
    is_free: Callable[[int], bool] = port_free,
) -> PortLease:
    """Lease ``port`` (checked), or the first even pair in range with both ports free."""
    candidates = [port] if port is not None else list(range(first + first % 2, last + 1, 2))
    for p in candidates:
        if not (is_free(p) and is_free(p + 1)):
            continue
        lease = _try_lock(p)
        if lease is not None:
            return lease
    if port is not None:
        raise DeviceError(
            f"emulator console port {port} (or adb port {port + 1}) is already in use"
        )
    raise DeviceError(f"no free emulator port pair in {first}..{last}")


class EmulatorProcess:
    """One emulator this object launched, and only that one."""

    def __init__(
        self,
        spec: EmulatorSpec,
        *,
        adb_host: str = "127.0.0.1",
        adb_port: int = 5037,
        log_dir: str | os.PathLike[str] | None = None,
    ):
        self.spec = spec
        self._adb_host = adb_host
        self._adb_port = adb_port
        self._log_dir = Path(log_dir) if log_dir else None
        self._proc: subprocess.Popen[bytes] | None = None
        self._lease: PortLease | None = None
        self.log_path: Path | None = None

    @property
    def port(self) -> int | None:
        return self._lease.port if self._lease else None

    @property
    def serial(self) -> str | None:
        return f"emulator-{self.port}" if self.port is not None else None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def command(self, port: int) -> list[str]:
        return [
            self.spec.emulator_binary,
            "-avd",
            self.spec.avd,
            "-port",
            str(port),
            *FIXED_FLAGS,
            *(a for a in self.spec.extra_args if a not in FIXED_FLAGS),
        ]

    def launch(self) -> str:
        """Start the emulator process on a leased port; returns its serial."""
        if self._proc is not None:
            raise DeviceError(f"emulator {self.serial} already launched by this worker")
        self._lease = lease_port(self.spec.port)
        port = self._lease.port
        env = dict(os.environ)
        # The emulator announces itself to the adb server on this port.
        env["ANDROID_ADB_SERVER_PORT"] = str(self._adb_port)
        log_dir = self._log_dir or Path(tempfile.gettempdir())
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"prorex-emulator-{port}.log"
        try:
            with open(self.log_path, "wb") as log:
                self._proc = subprocess.Popen(
                    self.command(port),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=env,
                    start_new_session=True,  # own process group: close() kills it and its children only
                )
        except OSError as exc:
            self._lease.release()
            self._lease = None
            raise DeviceError(
                f"cannot launch emulator {self.spec.emulator_binary!r}: {exc}"
            ) from exc
        return f"emulator-{port}"

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, n: int = 20) -> str:
        if not self.log_path or not self.log_path.exists():
            return ""
        lines = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(lines[-n:])

    def _check_running(self) -> None:
        if not self.alive():
            code = self._proc.returncode if self._proc else None
            raise DeviceCrashed(
                f"emulator {self.serial} (avd {self.spec.avd}) exited with {code}:\n{self.log_tail()}"
            )

    def wait_boot(
        self,
        shell: Callable[[str], str],
        *,
        poll_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Poll ``sys.boot_completed`` through ``shell`` until it reads 1."""
        deadline = clock() + self.spec.boot_timeout_s
        last = ""
        while True:
            self._check_running()
            try:
                last = shell("getprop sys.boot_completed").strip()
            except DeviceError as exc:  # not attached or offline yet
                last = str(exc)
            if last == "1":
                return
            if clock() >= deadline:
                raise DeviceHung(
                    f"emulator {self.serial} did not boot within {self.spec.boot_timeout_s:g}s (last: {last!r})"
                )
            time.sleep(poll_s)

    @staticmethod
    def disable_animations(shell: Callable[[str], str]) -> None:
        for key in ANIMATION_SETTINGS:
            shell(f"settings put global {key} 0")

    def close(self, timeout: float = 15.0) -> None:
        """Stop the emulator this object launched (its whole process group)."""
        proc, self._proc = self._proc, None
        try:
            if proc is not None and proc.poll() is None:
                _kill_group(proc, signal.SIGTERM)
                try:
                    proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    _kill_group(proc, signal.SIGKILL)
                    proc.wait(timeout=5)
            elif proc is not None:
                # The leader is gone; children it left in its group must go too.
                _kill_group(proc, signal.SIGKILL)
        finally:
            if self._lease is not None:
                self._lease.release()
                self._lease = None


def _kill_group(proc: subprocess.Popen[Any], sig: signal.Signals) -> None:
    # start_new_session made the child a group leader: its pgid is its pid.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def adb_shell_fn(client: AdbClient, serial: str, timeout: float = 20.0) -> Callable[[str], str]:
    """A ``shell(cmd) -> output`` for boot polling, with adb errors as ``DeviceError``."""
    from adbutils.errors import AdbError

    def shell(cmd: str) -> str:
        try:
            return client.device(serial).shell(cmd, timeout=timeout)
        except AdbError as exc:
            raise DeviceOffline(f"{serial}: {exc}") from exc

    return shell
