"""adb servers: unreachable, one that reports odd device states, and a real one."""

from __future__ import annotations

import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import adbutils
import pytest

from prorex.android import AndroidDevice
from prorex.android.adb import AdbClient, AdbServerUnreachable, list_devices, server_reachable
from prorex.android.fake import FakeAdbServer
from prorex.cli import main
from prorex.device import DeviceError, DeviceOffline


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def adb_spy(tmp_path, monkeypatch) -> Path:
    """Point adbutils at a recording fake adb, to catch any server auto-start."""
    log = tmp_path / "adb-calls.txt"
    script = tmp_path / "adb"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nopen({str(log)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("ADBUTILS_ADB_PATH", str(script))
    return log


# ----------------------------------------------------------- unreachable server


def test_unreachable_server_is_a_clear_error_and_starts_nothing(adb_spy):
    port = free_port()
    with pytest.raises(AdbServerUnreachable) as info:
        AndroidDevice("emulator-5554", adb_port=port)
    msg = str(info.value)
    assert (
        f"127.0.0.1:{port}" in msg
        and "not reachable" in msg
        and f"adb -P {port} start-server" in msg
    )
    assert not adb_spy.exists(), "adbutils tried to start an adb server"
    assert not server_reachable("127.0.0.1", port)


def test_prorex_devices_on_unreachable_server(adb_spy, capsys):
    port = free_port()
    rc = main(["devices", "--adb-port", str(port)])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and f"127.0.0.1:{port}" in err and "not reachable" in err
    assert "Traceback" not in err
    assert not adb_spy.exists()


# ------------------------------------------------- a scripted adb server protocol


@pytest.fixture
def scripted_server():
    server = FakeAdbServer(
        "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64xa transport_id:1\n"
        "emulator-5556          offline transport_id:2\n"
        "R58M123ABC             unauthorized usb:1-1 transport_id:3\n"
    )
    yield server
    server.close()


def test_prorex_devices_lists_every_state(scripted_server, capsys):
    rc = main(["devices", "--adb-host", "127.0.0.1", "--adb-port", str(scripted_server.port)])
    out, _ = capsys.readouterr()
    assert rc == 0
    rows = [line.split() for line in out.strip().splitlines()]
    assert rows[0] == ["SERIAL", "STATE", "MODEL", "PRODUCT"]
    assert rows[1] == ["emulator-5554", "device", "sdk_gphone64_x86_64", "sdk_gphone64_x86_64"]
    assert rows[2] == ["emulator-5556", "offline"]
    assert rows[3] == ["R58M123ABC", "unauthorized"]
    assert scripted_server.requests == ["host:devices-l"]


def test_connecting_to_a_device_that_is_not_ready(scripted_server):
    with pytest.raises(DeviceOffline, match="emulator-5556.*offline"):
        AndroidDevice("emulator-5556", adb_port=scripted_server.port)
    with pytest.raises(DeviceOffline, match="unauthorized.*accept"):
        AndroidDevice("R58M123ABC", adb_port=scripted_server.port)


def test_transport_failure_while_connecting_uiautomator2(scripted_server):
    # The real uiautomator2.connect path: the device is listed as ready, then its
    # transport fails; the library error comes out as a device error naming it.
    t0 = time.monotonic()
    with pytest.raises(DeviceOffline, match="emulator-5554.*not found"):
        AndroidDevice("emulator-5554", adb_port=scripted_server.port)
    assert time.monotonic() - t0 < 10
    assert "host:tport:serial:emulator-5554" in scripted_server.requests


def test_unknown_serial_lists_what_the_server_knows(scripted_server):
    with pytest.raises(DeviceError) as info:
        AndroidDevice("emulator-5600", adb_port=scripted_server.port)
    msg = str(info.value)
    assert "emulator-5600 is not attached" in msg and "emulator-5556 (offline)" in msg
    entries = list_devices(AdbClient("127.0.0.1", scripted_server.port))
    assert [(e.serial, e.state) for e in entries] == [
        ("emulator-5554", "device"),
        ("emulator-5556", "offline"),
        ("R58M123ABC", "unauthorized"),
    ]


# --------------------------------------------------------- a real adb server


@pytest.fixture
def real_adb_server(tmp_path):
    """``adb server nodaemon`` from adbutils' bundled binary, on a free port."""
    adb = adbutils.adb_path()
    port = free_port()
    # A private HOME keeps the server's keys out of the tester's ~/.android.
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen(
        [adb, "-P", str(port), "server", "nodaemon"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 15
    while not server_reachable("127.0.0.1", port, timeout=0.2):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait(5)
            pytest.skip(f"bundled adb server did not start (exit {proc.returncode})")
        time.sleep(0.05)
    yield adb, port, proc, env
    if proc.poll() is None:
        proc.kill()
        proc.wait(5)


@pytest.mark.slow
def test_real_adb_server_no_devices_then_shutdown(real_adb_server, capsys):
    adb, port, proc, env = real_adb_server
    rc = main(["devices", "--adb-port", str(port)])
    out, err = capsys.readouterr()
    assert rc == 0 and "no devices attached" in out, err

    with pytest.raises(DeviceError, match=r"emulator-5580 is not attached.*no devices attached"):
        AndroidDevice("emulator-5580", adb_port=port)

    subprocess.run(
        [adb, "-P", str(port), "kill-server"], env=env, timeout=20, check=True, capture_output=True
    )
    assert proc.wait(timeout=10) is not None
    assert not server_reachable("127.0.0.1", port)
    assert main(["devices", "--adb-port", str(port)]) == 2
