"""AndroidDevice against a recording fake of uiautomator2: exact calls per action."""

from __future__ import annotations

import json
import stat
import sys
import time
from pathlib import Path
from typing import get_args

import pytest
from adbutils.errors import AdbError, AdbTimeout
from uiautomator2 import exceptions as u2e

from prorex.android import AndroidDevice, AndroidDeviceConfig, AppTable
from prorex.android.actions import LONG_PRESS_S, SWIPE_S
from prorex.android.fake import FakeU2
from prorex.device import Device, DeviceCrashed, DeviceError, DeviceHung, DeviceOffline
from prorex.schemas import Action, ActionType, Observation
from prorex.ui import parse_hierarchy

NODE = (
    'checkable="false" checked="false" enabled="true" focused="false" '
    'long-clickable="false" password="false" selected="false"'
)
XML = f"""<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.notes"
  content-desc="" clickable="false" focusable="false" scrollable="false" {NODE} bounds="[0,0][1080,2400]">
 <node index="0" text="Notes" class="android.widget.TextView" package="com.example.notes" {NODE}
   bounds="[0,100][1080,200]" />
 <node index="1" text="" hint="Title" resource-id="com.example.notes:id/title" class="android.widget.EditText"
   package="com.example.notes" clickable="true" focusable="true" {NODE} bounds="[40,300][1040,400]" />
 <node index="2" class="androidx.recyclerview.widget.RecyclerView" package="com.example.notes"
   scrollable="true" {NODE} bounds="[0,500][1080,2000]">
  <node index="0" text="Groceries.md" class="android.widget.TextView" package="com.example.notes"
    clickable="true" {NODE} bounds="[0,500][1080,650]" />
 </node>
 <node index="3" text="Save" class="android.widget.Button" package="com.example.notes" clickable="true" {NODE}
   bounds="[800,2100][1040,2250]" />
</node>
</hierarchy>"""

# Centres and regions computed by hand from the bounds above (1080x2400 screen).
SAVE = (920, 2175)
TITLE = (540, 350)
# Screen main area (0, 360, 1080, 2040): centre (540, 1200), half travel 420 down, 270 across.
# RecyclerView (0, 500, 1080, 2000): centre (540, 1250), half travel 375.


def _el(text_or_hint: str):
    for el in parse_hierarchy(XML):
        if text_or_hint in (el.text, el.hint) or (text_or_hint == "list" and el.scrollable):
            return el
    raise AssertionError(text_or_hint)


class Sleeps(list):
    def __call__(self, s: float) -> None:
        self.append(s)


def make_device(fake: FakeU2, **kw) -> tuple[AndroidDevice, Sleeps]:
    sleeps = Sleeps()
    kw.setdefault("settle_s", 0.25)
    kw.setdefault("wait_s", 2.0)
    dev = AndroidDevice("emulator-5554", u2_factory=lambda serial, client: fake, sleep=sleeps, **kw)
    return dev, sleeps


@pytest.fixture
def fake() -> FakeU2:
    return FakeU2(XML, package="com.example.notes", activity=".NotesActivity")


@pytest.fixture
def device(fake):
    dev, sleeps = make_device(fake)
    dev.observe()
    fake.calls.clear()
    yield dev, fake, sleeps
    dev.close()


def save_idx() -> int:
    return _el("Save").index


CASES = [
    (
        "click-target",
        lambda: Action(action_type="click", target=_el("Save")),
        [("click", SAVE, {})],
    ),
    ("click-index", lambda: Action(action_type="click", index=save_idx()), [("click", SAVE, {})]),
    ("click-xy", lambda: Action(action_type="click", x=10, y=20), [("click", (10, 20), {})]),
    (
        "double_tap",
        lambda: Action(action_type="double_tap", index=save_idx()),
        [("double_click", SAVE, {})],
    ),
    (
        "long_press",
        lambda: Action(action_type="long_press", target=_el("Save")),
        [("long_click", SAVE, {"duration": LONG_PRESS_S})],
    ),
    (
        "input_text-into-field",
        lambda: Action(action_type="input_text", text="milk", index=_el("Title").index),
        [("click", TITLE, {}), ("send_keys", ("milk",), {"clear": True})],
    ),
    (
        "input_text-focused",
        lambda: Action(action_type="input_text", text="eggs"),
        [("send_keys", ("eggs",), {"clear": True})],
    ),
    (
        "clear_text-field",
        lambda: Action(action_type="clear_text", target=_el("Title")),
        [("click", TITLE, {}), ("clear_text", (), {})],
    ),
    ("clear_text-focused", lambda: Action(action_type="clear_text"), [("clear_text", (), {})]),
    # scroll: direction is where the content goes; down = finger moves up.
    (
        "scroll-down-screen",
        lambda: Action(action_type="scroll", direction="down"),
        [("swipe", (540, 1620, 540, 780), {"duration": SWIPE_S})],
    ),
    (
        "scroll-up-screen",
        lambda: Action(action_type="scroll", direction="up"),
        [("swipe", (540, 780, 540, 1620), {"duration": SWIPE_S})],
    ),
    (
        "scroll-right-screen",
        lambda: Action(action_type="scroll", direction="right"),
        [("swipe", (810, 1200, 270, 1200), {"duration": SWIPE_S})],
    ),
    (
        "scroll-left-screen",
        lambda: Action(action_type="scroll", direction="left"),
        [("swipe", (270, 1200, 810, 1200), {"duration": SWIPE_S})],
    ),
    (
        "scroll-down-in-list",
        lambda: Action(action_type="scroll", direction="down", index=_el("list").index),
        [("swipe", (540, 1625, 540, 875), {"duration": SWIPE_S})],
    ),
    # swipe: direction is where the finger goes.
    (
        "swipe-up-screen",
        lambda: Action(action_type="swipe", direction="up"),
        [("swipe", (540, 1620, 540, 780), {"duration": SWIPE_S})],
    ),
    (
        "swipe-left-from-point",
        lambda: Action(action_type="swipe", direction="left", x=500, y=1000),
        [("swipe", (500, 1000, 140, 1000), {"duration": SWIPE_S})],
    ),
    ("keyboard_enter", lambda: Action(action_type="keyboard_enter"), [("press", ("enter",), {})]),
    ("navigate_back", lambda: Action(action_type="navigate_back"), [("press", ("back",), {})]),
    ("navigate_home", lambda: Action(action_type="navigate_home"), [("press", ("home",), {})]),
    (
        "open_app-name",
        lambda: Action(action_type="open_app", app_name="markor"),
        [("app_start", ("net.gsantner.markor",), {})],
    ),
    (
        "open_app-spaced-name",
        lambda: Action(action_type="open_app", app_name="  simple CALENDAR pro "),
        [("app_start", ("com.simplemobiletools.calendar.pro",), {})],
    ),
    (
        "open_app-package",
        lambda: Action(action_type="open_app", app_name="org.example.todo"),
        [("app_start", ("org.example.todo",), {})],
    ),
    ("wait", lambda: Action(action_type="wait"), []),
    ("answer", lambda: Action(action_type="answer", text="42"), []),
    ("status", lambda: Action(action_type="status", goal_status="complete"), []),
]


def _norm(calls):
    return [(name, tuple(args), kwargs) for name, args, kwargs in calls]


@pytest.mark.parametrize("make_action,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_action_makes_exact_calls(device, make_action, expected):
    dev, fake, sleeps = device
    dev.act(make_action())
    assert _norm(fake.calls) == [(n, tuple(a), k) for n, a, k in expected]


def test_every_action_type_has_a_mapping_case():
    covered = {c[1]().action_type for c in CASES}
    assert covered == set(get_args(ActionType))


def test_device_actions_settle_and_no_device_actions_do_not(device):
    dev, fake, sleeps = device
    dev.act(Action(action_type="click", x=1, y=1))
    assert sleeps == [0.25]
    sleeps.clear()
    fake.calls.clear()
    dev.act(Action(action_type="wait"))
    assert sleeps == [2.0] and fake.calls == []
    sleeps.clear()
    dev.act(Action(action_type="answer", text="x"))
    dev.act(Action(action_type="status", goal_status="infeasible"))
    assert sleeps == [] and fake.calls == []


def test_observe_builds_an_observation(fake):
    dev, _ = make_device(fake)
    obs = dev.observe()
    assert fake.names() == ["dump_hierarchy", "screenshot", "window_size", "app_current"]
    assert isinstance(obs, Observation)
    assert obs.package == "com.example.notes" and obs.activity == ".NotesActivity"
    assert obs.screen_size == (1080, 2400)
    assert obs.screenshot_png is not None and obs.screenshot_png.startswith(b"\x89PNG\r\n\x1a\n")
    assert [e.text for e in parse_hierarchy(obs.xml) if e.text] == ["Notes", "Groceries.md", "Save"]
    assert obs.time is not None and abs(obs.time - time.time()) < 60
    assert isinstance(dev, Device) and dev.backend == "android"


@pytest.mark.parametrize(
    "exc", [u2e.DeviceError("Couldn't get focused app"), AdbError("Couldn't get focused app")]
)
def test_observe_without_focused_app_reports_no_package(fake, exc):
    dev, _ = make_device(fake)
    fake.fail_next("app_current", exc)
    obs = dev.observe()
    assert (obs.package, obs.activity) == ("", "")
    fake.fail_next("app_current", AdbError("device offline"))
    with pytest.raises(DeviceOffline):
        dev.observe()


def test_index_needs_a_fresh_observation(fake):
    dev, _ = make_device(fake)
    with pytest.raises(DeviceError, match="observe"):
        dev.act(Action(action_type="click", index=1))
    dev.observe()
    dev.act(Action(action_type="click", index=save_idx()))
    # The click changed the screen: the old indices are stale now.
    with pytest.raises(DeviceError, match="observe"):
        dev.act(Action(action_type="click", index=save_idx()))


def test_index_out_of_range_is_an_error(device):
    dev, fake, _ = device
    with pytest.raises(DeviceError, match="index 99"):
        dev.act(Action(action_type="click", index=99))
    assert fake.action_calls() == []


def test_unknown_app_names_it_and_lists_known_names(device):
    dev, fake, _ = device
    with pytest.raises(DeviceError) as info:
        dev.act(Action(action_type="open_app", app_name="Tetris Deluxe"))
    msg = str(info.value)
    assert "Tetris Deluxe" in msg and "Markor" in msg and "Settings" in msg
    assert fake.action_calls() == []


def test_app_table_overrides_and_validates():
    table = AppTable({"Notes": "com.example.notes", "Files": "com.android.documentsui"})
    assert table.package_for("notes") == "com.example.notes"
    assert table.package_for("FILES") == "com.android.documentsui"
    with pytest.raises(ValueError, match="not a package"):
        AppTable({"Bad": "not a package"})


@pytest.mark.parametrize(
    "exc,kind",
    [
        (u2e.UiAutomationNotConnectedError("UiAutomation not connected"), DeviceCrashed),
        (u2e.HTTPError("Unable to connect to uiautomator2 server"), DeviceCrashed),
        (AdbTimeout("adb read timeout"), DeviceHung),
        (AdbError("device 'emulator-5554' not found"), DeviceOffline),
        (RuntimeError("something odd"), DeviceError),
    ],
)
def test_library_errors_become_device_errors_naming_the_serial(device, exc, kind):
    dev, fake, _ = device
    fake.fail_next("click", exc)
    with pytest.raises(kind) as info:
        dev.act(Action(action_type="click", x=5, y=5))
    assert type(info.value) is kind
    assert "emulator-5554" in str(info.value)


def test_a_hung_call_is_abandoned_as_device_hung(fake):
    dev, _ = make_device(fake, action_timeout_s=0.2)

    def slow_click(x, y):
        time.sleep(1.0)

    fake.click = slow_click
    t0 = time.monotonic()
    with pytest.raises(DeviceHung, match="emulator-5554.*within 0.2s"):
        dev.act(Action(action_type="click", x=1, y=1))
    assert time.monotonic() - t0 < 0.9


def test_real_dumps_observe_and_click_every_clickable_by_index(real_dump_files):
    for path in real_dump_files:
        xml = path.read_text(encoding="utf-8", errors="replace")
        fake = FakeU2(xml)
        dev, _ = make_device(fake)
        obs = dev.observe()
        elements = parse_hierarchy(obs.xml)
        clickable = [e for e in elements if e.clickable and e.area > 0][:8]
        for el in clickable:
            dev.observe()
            fake.calls.clear()
            dev.act(Action(action_type="click", index=el.index))
            assert fake.calls == [("click", el.center, {})], path.name
        for el in [e for e in elements if e.scrollable and e.area > 0][:2]:
            dev.observe()
            fake.calls.clear()
            dev.act(Action(action_type="scroll", direction="down", index=el.index))
            ((name, (fx, fy, tx, ty), _),) = fake.calls
            x1, y1, x2, y2 = el.bounds
            assert name == "swipe" and fy > ty and fx == tx, path.name
            assert x1 <= fx <= x2 and y1 <= ty < fy <= y2, path.name


# ------------------------------------------------------------------ health


def _fake_adb(tmp_path: Path) -> tuple[str, Path]:
    log = tmp_path / "adb-argv.txt"
    script = tmp_path / "adb"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nopen({str(log)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script), log


def test_health_ready_pings_uiautomator(device):
    dev, fake, _ = device
    h = dev.health()
    assert h.ok and h.state == "ready" and h.serial == "emulator-5554"
    assert fake.names() == ["info"]


def test_health_restarts_uiautomator_when_not_connected(device):
    dev, fake, _ = device
    fake.fail_next("info", u2e.UiAutomationNotConnectedError("UiAutomation not connected"))
    h = dev.health()
    assert h.ok and h.state == "ready" and "restarted" in h.detail
    assert fake.names() == ["info", "reset_uiautomator", "info"]


def test_health_reports_crash_when_restart_does_not_help(device):
    dev, fake, _ = device
    fake.fail_next("info", u2e.UiAutomationNotConnectedError("gone"))
    fake.fail_next("info", u2e.UiAutomationNotConnectedError("still gone"))
    h = dev.health()
    assert not h.ok and h.state == "crashed" and "still gone" in h.detail


def test_health_reconnects_an_offline_device(fake, tmp_path):
    adb, log = _fake_adb(tmp_path)
    dev, _ = make_device(fake, adb_binary=adb, adb_port=5099)
    fake.fail_next("info", AdbError("device offline"))
    h = dev.health()
    assert not h.ok and h.state == "offline" and "reconnect offline" in h.detail
    assert log.read_text().split() == ["-H", "127.0.0.1", "-P", "5099", "reconnect", "offline"]


def test_closed_device_refuses_work_and_stops_its_u2_session(device):
    dev, fake, _ = device
    dev.close()
    assert "stop_uiautomator" in fake.names()
    with pytest.raises(DeviceError, match="closed"):
        dev.observe()
    assert not dev.health().ok


def test_from_config_validates_and_names_the_field(fake):
    dev = AndroidDevice.from_config(
        {
            "serial": "emulator-5556",
            "adb_port": 5038,
            "settle_s": 0,
            "app_packages": {"Notes": "com.example.notes"},
        },
        u2_factory=lambda s, c: fake,
    )
    assert dev.serial == "emulator-5556" and dev.adb_port == 5038
    dev.act(Action(action_type="open_app", app_name="Notes"))
    assert fake.action_calls() == [("app_start", ("com.example.notes",), {})]
    with pytest.raises(DeviceError, match="adb_port"):
        AndroidDevice.from_config({"serial": "x", "adb_port": "many"})
    with pytest.raises(DeviceError, match="emulator.port"):
        AndroidDevice.from_config({"emulator": {"avd": "Pixel", "port": 5555}})
    with pytest.raises(DeviceError, match="'Bad'.*not a package"):
        AndroidDevice.from_config({"serial": "x", "app_packages": {"Bad": "bad name"}})
    with pytest.raises(DeviceError, match="adb_prot"):
        AndroidDevice.from_config({"serial": "x", "adb_prot": 1})
    assert set(AndroidDeviceConfig.model_fields) >= {
        "serial",
        "adb_host",
        "adb_port",
        "emulator",
        "app_packages",
    }


def test_cluster_devices_file_is_a_valid_android_config():
    # cluster/devices.json is what `prorex run --device android` gets on a cluster.
    path = Path(__file__).resolve().parent.parent / "cluster" / "devices.json"
    if not path.exists():
        pytest.skip("no cluster/devices.json in this checkout")
    entries = json.loads(path.read_text())["devices"]
    assert entries
    for entry in entries:
        AndroidDeviceConfig.model_validate(entry)
