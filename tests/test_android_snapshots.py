"""Snapshots and task reset through the emulator console.

A small TCP server plays the emulator console; the real adb client binary
(the one adbutils ships) sends ``emu avd snapshot ...`` to it exactly as it
would to an emulator, so the command line, the reply parsing (OK / KO) and
the timeout are all exercised end to end.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from prorex.android import AndroidDevice, EmulatorConsole
from prorex.android.fake import FakeShellResponse, FakeTcpServer, FakeU2
from prorex.device import DeviceError, DeviceHung, Snapshot
from prorex.schemas import Task, TaskSetup

XML = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    '<node index="0" text="Home" class="android.widget.FrameLayout" package="com.android.launcher3" '
    'bounds="[0,0][720,1280]" /></hierarchy>'
)


class FakeConsole(FakeTcpServer):
    """Speaks enough of the emulator console protocol for ``adb emu``."""

    def __init__(self) -> None:
        self.commands: list[str] = []
        self.replies: dict[str, str] = {}  # command prefix -> reply line
        self.hang = False
        super().__init__()

    @property
    def serial(self) -> str:
        return f"emulator-{self.port}"

    def handle(self, conn: socket.socket) -> None:
        try:
            conn.sendall(b"Android Console: type 'help' for a list of commands\r\nOK\r\n")
            buf = b""
            while b"quit\n" not in buf:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                buf += chunk
            for line in buf.decode().splitlines():
                if line.startswith("auth "):  # a token in the tester's home
                    conn.sendall(b"Android Console: type 'help' for a list of commands\r\nOK\r\n")
                elif line and line != "quit":
                    self.commands.append(line)
                    if self.hang:
                        self._stop.wait(30)
                        return
                    reply = next((r for p, r in self.replies.items() if line.startswith(p)), "OK")
                    conn.sendall(reply.encode() + b"\r\n")
        except OSError:
            pass
        finally:
            conn.close()


@pytest.fixture
def console():
    c = FakeConsole()
    yield c
    c.close()


def make_device(serial: str, fake: FakeU2, **kw) -> AndroidDevice:
    kw.setdefault("settle_s", 0.0)
    kw.setdefault("snapshot_timeout_s", 20.0)
    return AndroidDevice(serial, u2_factory=lambda s, c: fake, **kw)


def test_snapshot_save_and_restore_go_through_the_console(console):
    fake = FakeU2(XML)
    dev = make_device(console.serial, fake)
    snap = dev.snapshot("after-replay")
    assert snap == Snapshot(id="after-replay", backend="android", portable=False)
    obs = dev.restore(snap)
    assert console.commands == ["avd snapshot save after-replay", "avd snapshot load after-replay"]
    assert obs.xml == XML and fake.names()[-4:] == [
        "dump_hierarchy",
        "screenshot",
        "window_size",
        "app_current",
    ]


def test_snapshot_without_name_gets_a_fresh_one(console):
    dev = make_device(console.serial, FakeU2(XML))
    a, b = dev.snapshot(), dev.snapshot()
    assert a.id != b.id and a.id.startswith("prorex-")
    assert console.commands == [f"avd snapshot save {a.id}", f"avd snapshot save {b.id}"]


def test_ko_reply_is_a_failure(console):
    console.replies["avd snapshot load"] = "KO: snapshot 'missing' does not exist"
    dev = make_device(console.serial, FakeU2(XML))
    with pytest.raises(DeviceError, match="does not exist") as info:
        dev.restore(Snapshot(id="missing", backend="android"))
    assert console.serial in str(info.value)


def test_console_that_never_answers_times_out(console):
    console.hang = True
    dev = make_device(console.serial, FakeU2(XML), snapshot_timeout_s=1.0)
    with pytest.raises(DeviceHung, match="1s"):
        dev.snapshot("slow")


def test_snapshot_names_are_checked_before_reaching_the_console(console):
    dev = make_device(console.serial, FakeU2(XML))
    with pytest.raises(DeviceError, match="snapshot name"):
        dev.snapshot("two words; kill")
    assert console.commands == []


def test_phone_has_no_snapshots():
    dev = make_device("R58M123ABC", FakeU2(XML))
    with pytest.raises(DeviceError, match="physical device"):
        dev.snapshot("s")
    with pytest.raises(DeviceError, match="physical device"):
        dev.reset_to(Task(id="t1", goal="g", setup=TaskSetup(snapshot="base")))
    with pytest.raises(DeviceError, match="not an emulator"):
        EmulatorConsole("R58M123ABC")


def test_sim_snapshot_does_not_restore_on_android(console):
    dev = make_device(console.serial, FakeU2(XML))
    with pytest.raises(DeviceError, match="'sim' snapshot"):
        dev.restore(Snapshot(id="x", backend="sim", portable=True, data=b"{}"))
    assert console.commands == []


def test_reset_loads_snapshot_then_runs_shell_then_pushes(console, tmp_path: Path):
    backup = tmp_path / "notes.tar"
    backup.write_bytes(b"data")
    fake = FakeU2(XML)
    dev = make_device(console.serial, fake)
    task = Task(
        id="markor-1",
        goal="Create a note",
        setup=TaskSetup(
            snapshot="markor_base",
            shell=["pm clear net.gsantner.markor", "mkdir -p /sdcard/Notes"],
            push=[(str(backup), "/sdcard/Notes/notes.tar")],
        ),
    )
    obs = dev.reset_to(task)
    assert console.commands == ["avd snapshot load markor_base"]
    assert fake.calls[:3] == [
        ("shell", ("pm clear net.gsantner.markor",), {}),
        ("shell", ("mkdir -p /sdcard/Notes",), {}),
        ("push", (str(backup), "/sdcard/Notes/notes.tar"), {}),
    ]
    assert obs.package == "com.example.app"


def test_reset_stops_on_a_failing_setup_command(console):
    fake = FakeU2(XML)
    fake.shell_results["pm clear com.missing"] = FakeShellResponse("Error: package not found", 1)
    dev = make_device(console.serial, fake)
    task = Task(id="t9", goal="g", setup=TaskSetup(shell=["pm clear com.missing", "echo never"]))
    with pytest.raises(
        DeviceError, match=r"t9.*pm clear com.missing.*exited with 1.*package not found"
    ):
        dev.reset_to(task)
    assert [c for c in fake.calls if c[0] == "shell"] == [("shell", ("pm clear com.missing",), {})]


def test_reset_rejects_missing_push_source(console, tmp_path):
    dev = make_device(console.serial, FakeU2(XML))
    task = Task(
        id="t2", goal="g", setup=TaskSetup(push=[(str(tmp_path / "nope.db"), "/sdcard/x.db")])
    )
    with pytest.raises(DeviceError, match="nope.db"):
        dev.reset_to(task)


def test_sim_only_task_is_refused(console):
    dev = make_device(console.serial, FakeU2(XML))
    task = Task(
        id="sim-7", goal="g", setup=TaskSetup(sim={"family": "notes", "params": {}, "seed": 1})
    )
    with pytest.raises(DeviceError, match="sim device"):
        dev.reset_to(task)
    assert console.commands == []


def test_task_without_setup_starts_from_home(console):
    fake = FakeU2(XML)
    dev = make_device(console.serial, fake)
    dev.reset_to(Task(id="free", goal="g"))
    assert fake.calls[0] == ("press", ("home",), {})
    assert console.commands == []
