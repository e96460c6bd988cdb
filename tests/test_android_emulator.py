"""Emulator lifecycle with a fake ``emulator`` binary: command line, ports, boot wait, kill scope."""

from __future__ import annotations

import json
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from prorex.android import AndroidDevice
from prorex.android.adb import AdbServerUnreachable, ensure_local_server
from prorex.android.emulator import (
    FIRST_PORT,
    LAST_PORT,
    EmulatorProcess,
    EmulatorSpec,
    lease_port,
    port_free,
)
from prorex.android.fake import FakeAdbServer
from prorex.device import DeviceCrashed, DeviceError, DeviceHung, DeviceOffline

FAKE_EMULATOR = """#!{python}
# Stands in for the Android emulator: records how it was started, starts a
# child of its own (as the real one does with qemu), then waits to be killed.
import json, os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
with open({out!r} + ".tmp", "w") as fh:
    json.dump({{"argv": sys.argv[1:], "pid": os.getpid(), "child": child.pid,
               "adb_port": os.environ.get("ANDROID_ADB_SERVER_PORT")}}, fh)
os.replace({out!r} + ".tmp", {out!r})
if {exit_code} is not None:
    print("PANIC: Unknown AVD name", flush=True)
    sys.exit({exit_code})
time.sleep(120)
"""


def write_fake_emulator(tmp_path: Path, exit_code: int | None = None) -> tuple[str, Path]:
    out = tmp_path / "launched.json"
    script = tmp_path / "emulator"
    script.write_text(
        FAKE_EMULATOR.format(python=sys.executable, out=str(out), exit_code=exit_code)
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script), out


def read_launch(out: Path, timeout: float = 10.0) -> dict:
    deadline = time.monotonic() + timeout
    while not out.exists():
        assert time.monotonic() < deadline, "fake emulator did not start"
        time.sleep(0.02)
    return json.loads(out.read_text())


def running(pid: int) -> bool:
    """Alive and not a zombie (PID 1 in a container may not reap orphans)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


def wait_gone(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.fixture
def bystander():
    """A process this worker did not start (stands for another worker's emulator)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True
    )
    yield proc
    proc.kill()
    proc.wait(5)


@pytest.fixture
def emulators():
    started: list[EmulatorProcess] = []
    yield started
    for emu in started:
        emu.close(timeout=5)


def test_launch_command_port_and_env(tmp_path, emulators):
    binary, out = write_fake_emulator(tmp_path)
    spec = EmulatorSpec(
        avd="Pixel_6_API_33",
        emulator_binary=binary,
        extra_args=["-no-window", "-gpu", "swiftshader_indirect"],
    )
    emu = EmulatorProcess(spec, adb_port=5199, log_dir=tmp_path)
    emulators.append(emu)
    serial = emu.launch()
    info = read_launch(out)
    port = emu.port
    assert serial == f"emulator-{port}" and port % 2 == 0 and FIRST_PORT <= port <= LAST_PORT
    assert info["argv"] == [
        "-avd", "Pixel_6_API_33", "-port", str(port),
        "-no-window", "-no-snapshot-save", "-no-boot-anim",
        "-gpu", "swiftshader_indirect",
    ]  # fmt: skip
    assert info["adb_port"] == "5199"
    assert info["pid"] == emu.pid and emu.alive()


def test_close_kills_only_what_it_started(tmp_path, emulators, bystander):
    binary, out = write_fake_emulator(tmp_path)
    emu = EmulatorProcess(EmulatorSpec(avd="a", emulator_binary=binary), log_dir=tmp_path)
    emulators.append(emu)
    emu.launch()
    info = read_launch(out)
    assert running(info["pid"]) and running(info["child"])
    emu.close(timeout=5)
    assert wait_gone(info["pid"]) and wait_gone(info["child"])
    assert running(bystander.pid) and bystander.poll() is None
    assert not emu.alive()
    emu.close()  # twice is fine


def test_two_workers_get_different_port_pairs(tmp_path, emulators):
    binary, _ = write_fake_emulator(tmp_path)
    a = EmulatorProcess(EmulatorSpec(avd="a", emulator_binary=binary), log_dir=tmp_path / "a")
    b = EmulatorProcess(EmulatorSpec(avd="b", emulator_binary=binary), log_dir=tmp_path / "b")
    emulators += [a, b]
    a.launch()
    b.launch()
    assert a.port != b.port and abs(a.port - b.port) >= 2


def test_lease_skips_pairs_with_a_busy_port():
    busy = {FIRST_PORT, FIRST_PORT + 3}  # console of the 1st pair, adb of the 2nd
    lease = lease_port(is_free=lambda p: p not in busy)
    try:
        assert lease.port == FIRST_PORT + 4
        other = lease_port(is_free=lambda p: p not in busy)  # same pair is locked now
        try:
            assert other.port == FIRST_PORT + 6
        finally:
            other.release()
    finally:
        lease.release()


def test_explicit_port_in_use_is_refused():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        taken = s.getsockname()[1]
        assert not port_free(taken)
        with pytest.raises(DeviceError, match=f"{taken}.*in use"):
            lease_port(taken - taken % 2)


def test_extra_args_cannot_choose_avd_or_port():
    with pytest.raises(ValueError, match="-port is set by the worker"):
        EmulatorSpec(avd="a", extra_args=["-port", "5560"])


def test_explicit_port_must_be_an_even_console_port():
    with pytest.raises(ValueError, match="even"):
        EmulatorSpec(avd="a", port=5555)
    assert EmulatorSpec(avd="a", port=5600).port == 5600


def test_missing_binary_is_a_clear_error(tmp_path):
    emu = EmulatorProcess(
        EmulatorSpec(avd="a", emulator_binary=str(tmp_path / "no-emulator")), log_dir=tmp_path
    )
    with pytest.raises(DeviceError, match="cannot launch emulator"):
        emu.launch()
    assert emu.port is None  # the port lease was given back


def test_wait_boot_polls_until_boot_completed(tmp_path, emulators):
    binary, _ = write_fake_emulator(tmp_path)
    emu = EmulatorProcess(EmulatorSpec(avd="a", emulator_binary=binary), log_dir=tmp_path)
    emulators.append(emu)
    emu.launch()
    answers: list = [DeviceOffline("device offline"), "", "0", "1"]
    asked: list[str] = []

    def shell(cmd: str) -> str:
        asked.append(cmd)
        a = answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a

    emu.wait_boot(shell, poll_s=0.0)
    assert asked == ["getprop sys.boot_completed"] * 4
    EmulatorProcess.disable_animations(asked.append)
    assert asked[4:] == [
        "settings put global window_animation_scale 0",
        "settings put global transition_animation_scale 0",
        "settings put global animator_duration_scale 0",
    ]


def test_wait_boot_times_out(tmp_path, emulators):
    binary, _ = write_fake_emulator(tmp_path)
    spec = EmulatorSpec(avd="a", emulator_binary=binary, boot_timeout_s=0.2)
    emu = EmulatorProcess(spec, log_dir=tmp_path)
    emulators.append(emu)
    emu.launch()
    with pytest.raises(DeviceHung, match="did not boot within 0.2s"):
        emu.wait_boot(lambda cmd: "0", poll_s=0.02)


def test_emulator_that_dies_during_boot_reports_its_log(tmp_path, emulators):
    binary, out = write_fake_emulator(tmp_path, exit_code=3)
    emu = EmulatorProcess(EmulatorSpec(avd="nope", emulator_binary=binary), log_dir=tmp_path)
    emulators.append(emu)
    emu.launch()
    info = read_launch(out)
    with pytest.raises(DeviceCrashed, match=r"(?s)exited with 3.*Unknown AVD"):
        emu.wait_boot(lambda cmd: "", poll_s=0.05)
    emu.close(timeout=5)
    # The leader exited on its own; the child it left behind in its group is gone too.
    assert wait_gone(info["child"])


def test_close_escalates_to_sigkill(tmp_path, emulators):
    script = tmp_path / "stubborn"
    script.write_text(
        f"#!{sys.executable}\nimport signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        f"open({str(tmp_path / 'ready')!r}, 'w').close()\ntime.sleep(120)\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    emu = EmulatorProcess(EmulatorSpec(avd="a", emulator_binary=str(script)), log_dir=tmp_path)
    emulators.append(emu)
    emu.launch()
    pid = emu.pid
    while not (tmp_path / "ready").exists():
        time.sleep(0.02)
    emu.close(timeout=0.3)
    assert pid is not None and wait_gone(pid)


# ------------------------------------------------ AndroidDevice launching one


def _recording_adb(tmp_path: Path) -> tuple[str, Path]:
    log = tmp_path / "adb-argv.txt"
    script = tmp_path / "adb"
    script.write_text(
        f"#!{sys.executable}\nimport sys\n"
        f"open({str(log)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script), log


def test_local_adb_server_is_started_for_a_launching_worker(tmp_path):
    adb, log = _recording_adb(tmp_path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # The fake adb does not really start one: the failure says so, naming the server.
    with pytest.raises(AdbServerUnreachable, match=f"127.0.0.1:{port}.*start-server"):
        ensure_local_server("127.0.0.1", port, adb, timeout=0.3)
    assert log.read_text().split() == ["-H", "127.0.0.1", "-P", str(port), "start-server"]


def test_remote_adb_server_is_never_started(tmp_path):
    adb, log = _recording_adb(tmp_path)
    with pytest.raises(AdbServerUnreachable, match="127.0.0.2"):
        ensure_local_server("127.0.0.2", 1, adb, timeout=0.3)
    assert not log.exists()


def test_device_cleans_up_an_emulator_that_dies_while_booting(tmp_path):
    binary, out = write_fake_emulator(tmp_path, exit_code=7)
    server = FakeAdbServer("")  # reachable, knows no devices yet
    try:
        spec = EmulatorSpec(avd="broken", emulator_binary=binary, boot_timeout_s=30)
        t0 = time.monotonic()
        with pytest.raises(
            DeviceCrashed, match=r"(?s)emulator-\d+ \(avd broken\) exited with 7.*Unknown AVD"
        ):
            AndroidDevice(emulator=spec, adb_port=server.port, u2_factory=lambda s, c: None)
        assert time.monotonic() - t0 < 15
        info = read_launch(out)
        assert wait_gone(info["child"])
        # Its port pair was handed back: the same explicit port can be leased again.
        lease = lease_port(int(info["argv"][3]))
        lease.release()
    finally:
        server.close()
