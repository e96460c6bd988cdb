"""The sim phone behind the Device interface: actions, screens, snapshots,
layout perturbation and injected faults."""

from __future__ import annotations

import json
import random

import pytest

from prorex.device import Device, DeviceCrashed, DeviceError, DeviceHung, DeviceOffline
from prorex.schemas import Action, Task, TaskSetup
from prorex.sim import FaultConfig, LayoutConfig, SimDevice
from prorex.sim.tasks import FAMILIES
from prorex.ui import parse_hierarchy, render_screen


def task(name: str = "expenses_dedup", seed: int = 0) -> Task:
    params = FAMILIES[name].sample(random.Random(seed))
    return Task(id="t", goal="g", setup=TaskSetup(sim={"family": name, "params": params, "seed": seed}))


def els(dev):
    return parse_hierarchy(dev.observe().xml)


def find(dev, label):
    hits = [e for e in els(dev) if label in (e.text, e.content_desc, e.hint)]
    assert hits, f"{label!r} not on screen:\n{render_screen(els(dev))}"
    return hits[-1]


def click(dev, label):
    e = find(dev, label)
    dev.act(Action(action_type="click", index=e.index))


def title(dev) -> str:
    return next(e.text for e in els(dev) if e.resource_id.endswith(":id/toolbar_title"))


def test_is_a_device_and_screen_looks_like_a_dump():
    dev = SimDevice()
    assert isinstance(dev, Device) and dev.backend == "sim"
    obs = dev.reset_to(task())
    assert obs.xml.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">")
    assert obs.package == "com.prorex.launcher" and obs.screen_size == (1080, 2400)
    assert obs.screenshot_png[:8] == b"\x89PNG\r\n\x1a\n"
    e = parse_hierarchy(obs.xml)
    assert e[0].package == "com.android.systemui"
    assert {"Files", "Notes", "Settings", "Expenses", "Recipes"} <= {x.content_desc for x in e}
    for attr in ("index=", "resource-id=", "content-desc=", "checkable=", "long-clickable=", "password=",
                 "selected=", "bounds="):
        assert attr in obs.xml
    assert dev.health().ok


def test_every_action_type():
    dev = SimDevice(screenshots=False)
    dev.reset_to(task("notes_create"))
    dev.act(Action(action_type="open_app", app_name="NOTES"))
    assert title(dev) == "Notes"
    fab = find(dev, "New note")
    dev.act(Action(action_type="click", x=fab.center[0], y=fab.center[1]))  # by point
    field = find(dev, "Title")
    dev.act(Action(action_type="input_text", text="abc", target=field))  # by target
    assert any(p.package == "com.google.android.inputmethod.latin" for p in els(dev))  # soft keyboard
    dev.act(Action(action_type="clear_text", index=find(dev, "Title").index))
    dev.act(Action(action_type="input_text", text="plan.md", index=find(dev, "Title").index))
    dev.act(Action(action_type="input_text", text="line one", index=find(dev, "Start writing…").index))
    dev.act(Action(action_type="keyboard_enter"))
    dev.act(Action(action_type="input_text", text="line two"))  # into the focused field
    assert find(dev, "Start writing…").text == "line one\nline two"
    dev.act(Action(action_type="navigate_back"))  # hides the keyboard
    assert not any(p.package == "com.google.android.inputmethod.latin" for p in els(dev))
    click(dev, "Save")
    assert title(dev) == "Notes" and find(dev, "plan.md")
    dev.act(Action(action_type="long_press", index=find(dev, "plan.md").index))
    dev.act(Action(action_type="double_tap", index=find(dev, "plan.md").index))
    assert title(dev) == "plan.md"
    t0 = dev.observe().time
    dev.act(Action(action_type="wait"))
    assert dev.observe().time > t0
    for a in (Action(action_type="answer", text="x"), Action(action_type="status", goal_status="complete")):
        before = dev.snapshot().data
        dev.act(a)
        assert dev.snapshot().data == before
    dev.act(Action(action_type="scroll", direction="down"))
    dev.act(Action(action_type="swipe", direction="up"))
    dev.act(Action(action_type="navigate_home"))
    assert dev.observe().package == "com.prorex.launcher"
    dev.act(Action(action_type="click", x=5, y=2000))  # empty space: nothing happens, no error


def test_bad_actions_raise_clear_errors():
    dev = SimDevice(screenshots=False)
    dev.reset_to(task())
    with pytest.raises(DeviceError, match="index 999 out of range"):
        dev.act(Action(action_type="click", index=999))
    with pytest.raises(DeviceError, match="no app named"):
        dev.act(Action(action_type="open_app", app_name="Chrome"))


@pytest.mark.parametrize(
    ("sim", "field"),
    [
        ({"family": "files_move", "params": {}}, "seed"),
        ({"family": "nope", "params": {}, "seed": 1}, "family"),
        ({"family": "files_move", "params": {}, "seed": 1}, "params"),
        (None, "setup.sim"),
    ],
)
def test_bad_setup_names_the_field(sim, field):
    with pytest.raises(DeviceError, match=field):
        SimDevice().reset_to(Task(id="bad", goal="g", setup=TaskSetup(sim=sim)))


def test_long_lists_show_only_what_fits_and_scroll_reveals_the_rest():
    dev = SimDevice(screenshots=False)
    dev.reset_to(task("expenses_dedup"))
    state_names = [e.name for e in dev.phone.state.expenses]
    dev.act(Action(action_type="open_app", app_name="Expenses"))
    first = [e.text for e in els(dev) if e.resource_id.endswith(":id/title")]
    assert len(first) < len(state_names) and first == state_names[: len(first)]
    assert state_names[-1] not in dev.observe().xml or state_names[-1] in first
    lst = next(e for e in els(dev) if e.scrollable)
    seen = list(first)
    for _ in range(5):
        dev.act(Action(action_type="scroll", direction="down", index=lst.index))
        seen += [e.text for e in els(dev) if e.resource_id.endswith(":id/title")]
    assert set(seen) == set(state_names)


def test_dialogs_confirm_and_discard():
    dev = SimDevice(screenshots=False)
    dev.reset_to(task("notes_create"))
    dev.act(Action(action_type="open_app", app_name="Notes"))
    click(dev, "New note")
    dev.act(Action(action_type="input_text", text="draft.md", index=find(dev, "Title").index))
    dev.act(Action(action_type="navigate_back"))
    dev.act(Action(action_type="navigate_back"))
    assert find(dev, "Discard changes?")
    click(dev, "Discard")
    assert title(dev) == "Notes" and "draft.md" not in dev.observe().xml


def test_open_app_resumes_where_the_app_was_left():
    dev = SimDevice(screenshots=False)
    dev.reset_to(task("notes_create"))
    dev.act(Action(action_type="open_app", app_name="Notes"))  # first open since reset: main page
    assert title(dev) == "Notes"
    click(dev, "New note")
    dev.act(Action(action_type="input_text", text="half.md", index=find(dev, "Title").index))
    dev.act(Action(action_type="navigate_home"))
    assert dev.observe().package == "com.prorex.launcher"
    dev.act(Action(action_type="open_app", app_name="Files"))  # another app in between
    click(dev, "Documents")
    dev.act(Action(action_type="open_app", app_name="Notes"))  # Files goes to the background
    assert title(dev) == "New note" and find(dev, "Title").text == "half.md"  # the unsaved form is kept
    dev.act(Action(action_type="navigate_home"))
    click(dev, "Files")  # the launcher icon resumes too
    assert title(dev) == "Documents"
    # backing out of the app's root page closes it: the next open starts afresh
    dev.act(Action(action_type="navigate_back"))
    dev.act(Action(action_type="navigate_back"))
    assert dev.observe().package == "com.prorex.launcher"
    dev.act(Action(action_type="open_app", app_name="Files"))
    assert title(dev) != "Documents" and find(dev, "Documents")
    # a reset forgets every app's stack
    dev.reset_to(task("notes_create"))
    dev.act(Action(action_type="open_app", app_name="Notes"))
    assert title(dev) == "Notes" and "half.md" not in dev.observe().xml


def test_snapshots_carry_background_app_stacks():
    a = SimDevice(screenshots=False)
    a.reset_to(task("files_move", 3))
    a.act(Action(action_type="open_app", app_name="Files"))
    click(a, "Documents")
    a.act(Action(action_type="open_app", app_name="Notes"))
    click(a, "New note")
    a.act(Action(action_type="input_text", text="draft.md", index=find(a, "Title").index))
    a.act(Action(action_type="navigate_home"))
    snap = a.snapshot()
    assert set(json.loads(snap.data)["tasks"]) == {"files", "notes"}
    b = SimDevice(screenshots=False, layout=LayoutConfig.for_worker(1))
    b.restore(snap)
    assert b.snapshot().data == snap.data  # round-trips byte for byte
    b.act(Action(action_type="open_app", app_name="Files"))
    assert title(b) == "Documents"
    b.act(Action(action_type="open_app", app_name="Notes"))
    assert find(b, "Title").text == "draft.md"
    bad = json.loads(snap.data)
    bad["tasks"]["files"][0]["page"] = "nowhere"
    with pytest.raises(DeviceError, match="files/nowhere"):
        b.restore(snap.model_copy(update={"data": json.dumps(bad).encode()}))


def test_snapshot_restores_on_another_layout():
    a = SimDevice(screenshots=False)
    a.reset_to(task("files_move", 3))
    a.act(Action(action_type="open_app", app_name="Files"))
    click(a, "Documents")
    snap = a.snapshot()
    assert snap.portable and snap.backend == "sim"
    assert a.snapshot().data == snap.data  # deterministic bytes
    json.loads(snap.data)  # plain JSON, not a pickle
    b = SimDevice(screenshots=False, layout=LayoutConfig.for_worker(1))
    obs = b.restore(snap)
    assert b.snapshot().data == snap.data
    assert title(b) == "Documents" and obs.screen_size == (1440, 3200)
    with pytest.raises(DeviceError):
        b.restore(snap.model_copy(update={"data": b"{}x"}))


def test_layout_perturbation_changes_bounds_order_and_ids():
    default = LayoutConfig()
    layouts = [LayoutConfig.for_worker(i) for i in range(6)]
    assert all(lay != default for lay in layouts) and len(set(layouts)) == 6
    screens = {}
    for lay in [default, *layouts]:
        dev = SimDevice(screenshots=False, layout=lay)
        dev.reset_to(task("recipes_delete", 2))
        dev.act(Action(action_type="open_app", app_name="Recipes"))
        screens[lay] = [e for e in els(dev) if e.resource_id.endswith(":id/title") or
                        (lay.id_style == "none" and e.text and e.package == "com.prorex.recipes")]
    base = [e.text for e in screens[default]]
    rev = next(lay for lay in layouts if lay.list_order == "reversed")
    flav = next(lay for lay in layouts if lay.id_style == "flavor")
    assert [e.text for e in screens[rev]] != base
    assert all(e.resource_id.startswith("com.prorex.recipes.beta:id/") for e in screens[flav])
    dev = SimDevice(screenshots=False, layout=next(lay for lay in layouts if lay.id_style == "none"))
    dev.reset_to(task("recipes_delete", 2))
    dev.act(Action(action_type="open_app", app_name="Recipes"))
    assert all(not e.resource_id or e.resource_id.startswith("android:") for e in els(dev)
               if e.package == "com.prorex.recipes")
    assert screens[layouts[0]][0].bounds != screens[default][0].bounds


def test_faults():
    with pytest.raises(DeviceOffline):
        SimDevice(faults=FaultConfig(offline_p=1.0)).observe()
    with pytest.raises(DeviceHung):
        SimDevice(faults=FaultConfig(hang_p=1.0, hang_s=0.01)).observe()
    dev = SimDevice(faults=FaultConfig(crash_p=1.0))
    with pytest.raises(DeviceCrashed):
        dev.act(Action(action_type="navigate_home"))
    assert not dev.health().ok and dev.health().state == "crashed"
    with pytest.raises(DeviceCrashed):
        dev.reset_to(task())
    # seeded: the same fault config fails on the same calls
    runs = []
    for _ in range(2):
        d = SimDevice(screenshots=False, faults=FaultConfig(offline_p=0.3, seed=5))
        out = []
        for _ in range(20):
            try:
                d.observe()
                out.append(0)
            except DeviceOffline:
                out.append(1)
        runs.append(out)
    assert runs[0] == runs[1] and 0 < sum(runs[0]) < 20


def test_latency(monkeypatch):
    slept = []
    monkeypatch.setattr("prorex.sim.device.time.sleep", slept.append)
    dev = SimDevice(screenshots=False, latency_s=0.25)
    dev.act(Action(action_type="navigate_home"))
    assert slept == [0.25]


def test_every_app_screen_parses_on_every_layout():
    for lay in [LayoutConfig(), LayoutConfig.for_worker(0), LayoutConfig.for_worker(4)]:
        dev = SimDevice(layout=lay)
        dev.reset_to(task("expenses_from_gallery"))
        for app in ("files", "notes", "contacts", "clock", "settings", "calendar", "expenses", "camera",
                    "gallery", "recipes"):
            dev.act(Action(action_type="open_app", app_name=app))
            obs = dev.observe()
            parsed = parse_hierarchy(obs.xml)
            assert parsed[-1].index == len(parsed) - 1
            assert obs.screenshot_png and obs.screen_size == (lay.width, lay.height)
            clickable = [e for e in parsed if e.clickable and e.package.startswith("com.prorex.")]
            assert clickable, app


def test_same_spec_same_state_on_any_layout():
    snaps = set()
    for lay in (LayoutConfig(), LayoutConfig.for_worker(0), LayoutConfig.for_worker(2)):
        dev = SimDevice(screenshots=False, layout=lay)
        dev.reset_to(task("calendar_qa_events", 4))
        snaps.add(dev.snapshot().data)
    assert len(snaps) == 1
