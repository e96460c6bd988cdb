"""adb server access: a client that never starts a server behind our back.

``adbutils`` answers a refused connection by running ``adb start-server`` on
the *default* port, which would leave a stray server running and hide the
real problem (the worker was pointed at the wrong host or port). Every
connection here fails instead, with a message naming the server.
"""

from __future__ import annotations

import socket
import subprocess
import time
from dataclasses import dataclass, field

import adbutils
from adbutils.errors import AdbConnectionError, AdbError, AdbTimeout

from prorex.device import DeviceError, DeviceHung, DeviceOffline


class AdbServerUnreachable(DeviceError):
    """Nothing answers at the adb server's host:port."""


def server_hint(host: str, port: int) -> str:
    return f"adb server at {host}:{port}"


def unreachable(host: str, port: int, reason: str) -> AdbServerUnreachable:
    start = (
        f"adb -P {port} start-server"
        if host in ("127.0.0.1", "localhost")
        else f"an adb server on {host}"
    )
    return AdbServerUnreachable(
        f"{server_hint(host, port)} is not reachable ({reason}); start one (`{start}`) "
        "or pass the right --adb-host/--adb-port"
    )


class _NoAutostartConnection(adbutils.AdbConnection):
    def _safe_connect(self):  # noqa: D401 - adbutils hook
        # The base class falls back to `adb start-server` here; we do not.
        return self._create_socket()


class AdbClient(adbutils.AdbClient):
    """``adbutils.AdbClient`` bound to one server, without auto-start."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 5037, socket_timeout: float | None = None
    ):
        super().__init__(host=host, port=port, socket_timeout=socket_timeout)
        self._timeout = socket_timeout

    def make_connection(self, timeout: float | None = None) -> adbutils.AdbConnection:
        timeout = timeout or self._timeout
        try:
            conn = _NoAutostartConnection(self.host, self.port)
        except AdbTimeout as exc:
            raise AdbConnectionError(
                f"connect to {server_hint(self.host, self.port)} timed out"
            ) from exc
        except AdbConnectionError as exc:
            raise AdbConnectionError(f"{server_hint(self.host, self.port)}: {exc}") from exc
        if timeout:
            conn.conn.settimeout(timeout)
        return conn


def server_reachable(host: str, port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


@dataclass(frozen=True)
class DeviceEntry:
    """One line of ``adb devices -l``."""

    serial: str
    state: str
    tags: dict[str, str] = field(default_factory=dict)

    @property
    def model(self) -> str:
        return self.tags.get("model", "")

    @property
    def product(self) -> str:
        return self.tags.get("product", "")


def list_devices(client: AdbClient) -> list[DeviceEntry]:
    """Every device the server knows, whatever its state.

    Raises ``AdbServerUnreachable`` when nothing answers at host:port.
    """
    try:
        infos = client.list(extended=True)
    except AdbConnectionError as exc:
        raise unreachable(client.host, client.port, connection_reason(exc)) from exc
    except AdbError as exc:
        raise DeviceError(
            f"{server_hint(client.host, client.port)} answered with an error: {exc}"
        ) from exc
    return [DeviceEntry(i.serial, i.state, dict(i.tags or {})) for i in infos]


def connection_reason(exc: BaseException) -> str:
    text = str(exc)
    if "Connection refused" in text or "Errno 111" in text:
        return "connection refused"
    if "timed out" in text or "timeout" in text:
        return "timed out"
    return text or type(exc).__name__


def require_device(client: AdbClient, serial: str) -> adbutils.AdbDevice:
    """The ``AdbDevice`` for ``serial``, checked to be attached and ready."""
    entries = list_devices(client)
    for entry in entries:
        if entry.serial != serial:
            continue
        if entry.state == "device":
            return client.device(serial)
        raise DeviceOffline(
            f"device {serial} on {server_hint(client.host, client.port)} is {entry.state}"
            + (
                " (accept the debugging prompt on the phone)"
                if entry.state == "unauthorized"
                else ""
            )
        )
    known = ", ".join(f"{e.serial} ({e.state})" for e in entries) or "no devices attached"
    raise DeviceError(
        f"device {serial} is not attached to {server_hint(client.host, client.port)}; it knows: {known}"
    )


def adb_argv(
    adb_binary: str | None, host: str, port: int, serial: str | None, *args: str
) -> list[str]:
    """Command line for the adb client binary, aimed at one server (and device)."""
    argv = [adb_binary or adbutils.adb_path(), "-H", host, "-P", str(port)]
    if serial:
        argv += ["-s", serial]
    return argv + list(args)


def run_adb(argv: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """Run an adb client command; a timeout becomes ``DeviceHung``."""
    try:
        return subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise DeviceHung(f"`{' '.join(argv[1:])}` did not finish within {timeout:g}s") from exc
    except OSError as exc:
        raise DeviceError(f"cannot run adb ({argv[0]}): {exc}") from exc


LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def ensure_local_server(
    host: str, port: int, adb_binary: str | None = None, *, timeout: float = 20.0
) -> bool:
    """Make sure an adb server answers at host:port; returns whether we started it.

    Only for workers that launch their own emulator: the emulator registers
    with the server on this port, so one must exist. The server is a daemon
    shared by every worker on the node, so it is deliberately left running.
    A remote host is never started from here.
    """
    if server_reachable(host, port):
        return False
    if host not in LOCAL_HOSTS:
        raise unreachable(host, port, "connection refused")
    proc = run_adb(adb_argv(adb_binary, host, port, None, "start-server"), timeout)
    deadline = time.monotonic() + timeout
    while not server_reachable(host, port, timeout=0.5):
        if time.monotonic() > deadline:
            detail = (proc.stderr or proc.stdout or "").strip()[-300:]
            raise unreachable(
                host, port, f"`adb start-server` did not bring it up: {detail or proc.returncode}"
            )
        time.sleep(0.1)
    return True
