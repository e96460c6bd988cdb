"""A stand-in for ``uiautomator2.Device`` that records every call.

It serves a fixed hierarchy (a real dump or a sim screen) and a blank
screenshot, so ``AndroidDevice`` can be exercised without a phone: tests
inject it through ``u2_factory`` and compare ``calls`` with the exact
uiautomator2 calls an action must make. Errors can be queued per method to
rehearse failures (a dead uiautomator2 server, an offline device).
"""

from __future__ import annotations

import re
import socket
import threading
from abc import ABC, abstractmethod
from typing import Any, NamedTuple

from PIL import Image

_ROOT_BOUNDS = re.compile(r'bounds="\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]"')

#: Methods whose calls describe what the device was asked to *do*.
ACTION_METHODS = frozenset(
    {
        "click",
        "double_click",
        "long_click",
        "swipe",
        "send_keys",
        "clear_text",
        "press",
        "app_start",
    }
)


class FakeShellResponse(NamedTuple):
    output: str
    exit_code: int


class FakeU2:
    """Records ``(method, args, kwargs)`` for each call in ``calls``."""

    def __init__(
        self,
        xml: str,
        *,
        size: tuple[int, int] | None = None,
        package: str = "com.example.app",
        activity: str = ".MainActivity",
    ):
        self.xml = xml
        self.size = size or _size_from_xml(xml)
        self.package = package
        self.activity = activity
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self.errors: dict[str, list[BaseException]] = {}
        self.shell_results: dict[str, FakeShellResponse] = {}

    # ------------------------------------------------------------ bookkeeping

    def fail_next(self, method: str, exc: BaseException) -> None:
        """Make the next call of ``method`` raise ``exc``."""
        self.errors.setdefault(method, []).append(exc)

    def _record(self, method: str, *args: Any, **kwargs: Any) -> None:
        self.calls.append((method, args, kwargs))
        queued = self.errors.get(method)
        if queued:
            raise queued.pop(0)

    def action_calls(self) -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
        return [c for c in self.calls if c[0] in ACTION_METHODS]

    def names(self) -> list[str]:
        return [c[0] for c in self.calls]

    # ------------------------------------------------------------ observation

    def dump_hierarchy(self) -> str:
        self._record("dump_hierarchy")
        return self.xml

    def screenshot(self) -> Image.Image:
        self._record("screenshot")
        # Small and blank: the bytes matter, not the picture.
        return Image.new(
            "RGB", (max(1, self.size[0] // 10), max(1, self.size[1] // 10)), (240, 240, 240)
        )

    def window_size(self) -> tuple[int, int]:
        self._record("window_size")
        return self.size

    def app_current(self) -> dict[str, Any]:
        self._record("app_current")
        return {"package": self.package, "activity": self.activity, "pid": 0}

    @property
    def info(self) -> dict[str, Any]:
        self._record("info")
        return {
            "currentPackageName": self.package,
            "displayWidth": self.size[0],
            "displayHeight": self.size[1],
        }

    # ---------------------------------------------------------------- actions

    def click(self, x: int, y: int) -> None:
        self._record("click", x, y)

    def double_click(self, x: int, y: int, duration: float = 0.1) -> None:
        self._record("double_click", x, y)

    def long_click(self, x: int, y: int, duration: float = 0.5) -> None:
        self._record("long_click", x, y, duration=duration)

    def swipe(
        self,
        fx: int,
        fy: int,
        tx: int,
        ty: int,
        duration: float | None = None,
        steps: int | None = None,
    ) -> None:
        self._record("swipe", fx, fy, tx, ty, duration=duration)

    def send_keys(self, text: str, clear: bool = False) -> None:
        self._record("send_keys", text, clear=clear)

    def clear_text(self) -> None:
        self._record("clear_text")

    def press(self, key: str | int) -> None:
        self._record("press", key)

    def app_start(self, package_name: str, activity: str | None = None, **kwargs: Any) -> None:
        self._record("app_start", package_name)
        self.package = package_name

    # ------------------------------------------------------------- management

    def shell(self, cmd: str | list[str], timeout: float = 60) -> FakeShellResponse:
        self._record("shell", cmd)
        key = cmd if isinstance(cmd, str) else " ".join(cmd)
        return self.shell_results.get(key, FakeShellResponse("", 0))

    def push(self, src: str, dst: str, mode: int = 0o644) -> None:
        self._record("push", src, dst)

    def reset_uiautomator(self) -> None:
        self._record("reset_uiautomator")

    def stop_uiautomator(self, wait: bool = True) -> None:
        self._record("stop_uiautomator")


def _size_from_xml(xml: str) -> tuple[int, int]:
    # The first node is the root window; its box is the screen.
    m = _ROOT_BOUNDS.search(xml)
    if m is None:
        return (1080, 2400)
    w, h = int(m[3]), int(m[4])
    return (w, h) if w > 0 and h > 0 else (1080, 2400)


class FakeTcpServer(ABC):
    """A loopback TCP server on a free port; each connection is handled by
    ``handle(conn)`` in its own thread. ``close`` stops accepting, closes the
    connections still open and joins the accept thread."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.1)  # lets the accept loop notice close()
        self.port = self.sock.getsockname()[1]
        self._conns: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @abstractmethod
    def handle(self, conn: socket.socket) -> None:
        """Answer one connection (each fake server speaks its own protocol)."""

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._conns.append(conn)
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def close(self) -> None:
        self._stop.set()
        self.sock.close()
        for conn in self._conns:
            try:
                conn.close()
            except OSError:
                pass  # already closed by its handler
        self._thread.join(5)


class FakeAdbServer(FakeTcpServer):
    """An adb server that lists fixed devices and fails every transport.

    Enough of the adb host protocol for ``adb devices -l`` and for the first
    steps of a connection: it proves the client's parsing of device states
    and the error path of a device that vanishes mid-connect.
    """

    def __init__(self, listing: str):
        self.listing = listing.encode()
        self.requests: list[str] = []
        super().__init__()

    def handle(self, conn: socket.socket) -> None:
        with conn:
            header = conn.recv(4)
            if len(header) < 4:  # a bare reachability probe
                return
            size = int(header, 16)
            request = conn.recv(size).decode()
            self.requests.append(request)
            if request in ("host:devices-l", "host:devices"):
                conn.sendall(b"OKAY" + f"{len(self.listing):04x}".encode() + self.listing)
            elif request == "host:version":
                conn.sendall(b"OKAY" + b"0004" + b"0029")  # adb 1.0.41
            else:
                # Every transport fails, as when a device drops off mid-connect.
                msg = f"device '{request.rsplit(':', 1)[-1]}' not found".encode()
                conn.sendall(b"FAIL" + f"{len(msg):04x}".encode() + msg)
