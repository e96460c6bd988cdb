"""Replay of recorded trajectories on a device whose screens differ from the recording."""

from __future__ import annotations

import copy
import random

import pytest

from prorex.device import DeviceHung
from prorex.replay import replay
from prorex.schemas import Action, Observation, Step, Trajectory
from prorex.ui import parse_hierarchy
from prorex.ui import perturb as P

SETTINGS = "com.android.settings__Site-Blocker__1.xml"
TASKS = "com.google.android.apps.tasks__google-tasks-crawler__1.xml"


class FakeDevice:
    """Serves fixed screens; clicks, scrolls and back move between them by rules."""

    backend = "fake"

    def __init__(
        self, trees: dict, start: str, *, clicks=None, scrolls=None, back=None, fail_observe=False
    ):
        self.trees = trees
        self.cur = start
        self.clicks = clicks or {}  # (screen, node key) -> screen
        self.scrolls = scrolls or {}  # (screen, direction) -> screen
        self.back = back or {}
        self.acted: list[tuple[str, Action]] = []
        self.fail_observe = fail_observe

    def observe(self) -> Observation:
        if self.fail_observe:
            raise DeviceHung("no answer in 30 s")
        root = self.trees[self.cur]
        return Observation(xml=P.dump_tree(root), screen_size=P.screen_of(root))

    def act(self, action: Action) -> None:
        self.acted.append((self.cur, action))
        if action.action_type == "click" and action.index is not None:
            key = P.keys_in_order(self.trees[self.cur])[action.index]
            self.cur = self.clicks.get((self.cur, key), self.cur)
        elif action.action_type == "scroll":
            self.cur = self.scrolls.get((self.cur, action.direction), self.cur)
        elif action.action_type == "navigate_back":
            self.cur = self.back.get(self.cur, self.cur)

    def key_of(self, screen: str, index: int) -> str:
        return P.keys_in_order(self.trees[screen])[index]


def tagged(real_dumps_dir, name):
    root = P.load_tree((real_dumps_dir / name).read_text(encoding="utf-8"))
    P.tag_nodes(root)
    return root


def other_device(root, seed=7):
    """The same screen on another device: resolution, status bar, list order, times."""
    r = copy.deepcopy(root)
    rng = random.Random(seed)
    P.scale(r, 0.75, 0.8)
    P.shift(r, 30)
    P.reorder(r, rng, p=1.0)
    P.dynamic_text(r, rng)
    return r


def step(i, root, action) -> Step:
    return Step(
        index=i,
        observation=Observation(xml=P.dump_tree(root), screen_size=P.screen_of(root)),
        action=action,
    )


def find(els, **kw):
    return next(e for e in els if all(getattr(e, k) == v for k, v in kw.items()))


def test_replay_retargets_on_another_device(real_dumps_dir):
    rec = tagged(real_dumps_dir, SETTINGS)
    els = parse_hierarchy(P.dump_tree(rec))
    switch = find(els, content_desc="Wireless debugging", checkable=True)
    usb_row = find(
        els, context=("USB debugging", "Debug mode when USB is connected"), clickable=True
    )
    traj = Trajectory(
        steps=[
            step(0, rec, Action(action_type="click", index=switch.index, target=switch)),
            step(
                1, rec, Action(action_type="click", index=usb_row.index)
            ),  # no target: taken from the screen
            step(2, rec, Action(action_type="scroll", direction="down")),
            step(3, rec, Action(action_type="click", x=360, y=700)),
            step(4, rec, Action(action_type="navigate_back")),
            step(5, rec, Action(action_type="answer", text="done")),
        ]
    )
    live = other_device(rec)
    dev = FakeDevice({"s": live}, "s")
    report = replay(dev, traj)
    assert not report.diverged, report.reason
    assert [s.matched for s in report.steps] == [True] * 6
    clicks = [a for _, a in dev.acted if a.action_type == "click"]
    assert dev.key_of("s", clicks[0].index) == str(switch.index)
    assert dev.key_of("s", clicks[1].index) == str(usb_row.index)
    live_els = parse_hierarchy(P.dump_tree(live))
    assert (clicks[0].x, clicks[0].y) == live_els[clicks[0].index].center
    assert clicks[0].target == live_els[clicks[0].index]
    # x/y without a target are rescaled from 720x1475 to the live screen
    w, h = P.screen_of(live)
    assert (clicks[2].x, clicks[2].y) == (round(360 * w / 720), round(700 * h / 1475))
    assert [a.action_type for _, a in dev.acted] == [
        "click",
        "click",
        "scroll",
        "click",
        "navigate_back",
    ]
    assert report.steps[0].score is not None and 0 < report.steps[0].score <= 1
    assert report.wall_s >= 0


def test_replay_scrolls_to_find_a_target_below(real_dumps_dir):
    rec = tagged(real_dumps_dir, TASKS)
    els = parse_hierarchy(P.dump_tree(rec))
    star = find(els, content_desc="Add star", context=("Task 12",))
    page0 = copy.deepcopy(rec)
    key = str(star.index)
    P.remove(page0, [n for n in page0.iter("node") if n.get(P.TAG) == key])
    dev = FakeDevice(
        {"p0": page0, "p1": copy.deepcopy(page0), "p2": copy.deepcopy(rec)},
        "p0",
        scrolls={
            ("p0", "down"): "p1",
            ("p1", "down"): "p2",
            ("p2", "up"): "p1",
            ("p1", "up"): "p0",
        },
    )
    traj = Trajectory(steps=[step(0, rec, Action(action_type="click", target=star))])
    report = replay(dev, traj)
    assert not report.diverged and "after 2 scrolls" in report.steps[0].note
    assert dev.cur == "p2" and dev.key_of("p2", dev.acted[-1][1].index) == key


def test_replay_diverges_when_the_target_is_gone(real_dumps_dir):
    rec = tagged(real_dumps_dir, SETTINGS)
    els = parse_hierarchy(P.dump_tree(rec))
    switch = find(els, content_desc="Wireless debugging", checkable=True)
    live = other_device(rec)
    P.remove(live, [n for n in live.iter("node") if n.get(P.TAG) == str(switch.index)])
    dev = FakeDevice({"s": live}, "s")
    traj = Trajectory(
        steps=[
            step(0, rec, Action(action_type="navigate_back")),
            step(1, rec, Action(action_type="click", target=switch)),
            step(2, rec, Action(action_type="navigate_back")),
        ]
    )
    report = replay(dev, traj, max_search_scrolls=2)
    assert report.diverged and report.divergence_step == 1
    assert "'Wireless debugging' not found after 6 scrolls" in report.reason
    assert [a.action_type for _, a in dev.acted] == ["navigate_back"] + ["scroll"] * 6
    assert len(report.steps) == 2 and report.steps[-1].matched is False


def test_min_score_turns_a_weak_match_into_divergence(real_dumps_dir):
    rec = tagged(real_dumps_dir, SETTINGS)
    switch = find(
        parse_hierarchy(P.dump_tree(rec)), content_desc="Wireless debugging", checkable=True
    )
    dev = FakeDevice({"s": other_device(rec)}, "s")
    traj = Trajectory(steps=[step(0, rec, Action(action_type="click", target=switch))])
    report = replay(dev, traj, min_score=0.999, max_search_scrolls=0)
    assert report.diverged and "scored" in report.reason


def test_device_errors_propagate(real_dumps_dir):
    rec = tagged(real_dumps_dir, SETTINGS)
    switch = find(
        parse_hierarchy(P.dump_tree(rec)), content_desc="Wireless debugging", checkable=True
    )
    dev = FakeDevice({"s": rec}, "s", fail_observe=True)
    with pytest.raises(DeviceHung):
        replay(dev, Trajectory(steps=[step(0, rec, Action(action_type="click", target=switch))]))


# ----------------------------------------------------------- on the sim phone


def _sim_requests(n: int):
    sim = pytest.importorskip("prorex.sim")
    from prorex.sim.dataset import family_order, make_request
    from prorex.sim.policies import parse_mix

    rec = sim.SimDevice(device_id="recorder", screenshots=False)
    return [make_request(f, i, 11, parse_mix(None), rec) for i, f in enumerate(family_order(n, 11))]


@pytest.mark.parametrize("worker", [1, 2, 3])
def test_sim_trajectories_replay_on_other_worker_layouts(worker):
    """Recorded on the default layout, replayed on another worker's layout
    (resolution, status bar, list order, renamed or missing ids). A replay
    that does not diverge must reproduce the recorded outcome."""
    from prorex.sim import LayoutConfig, SimDevice
    from prorex.sim.tasks import FAMILIES

    requests = _sim_requests(len(FAMILIES))
    live = SimDevice(
        device_id=f"sim-{worker}", layout=LayoutConfig.for_worker(worker), screenshots=False
    )
    diverged, reproduced = [], 0
    for req in requests:
        live.reset_to(req.task)
        report = replay(live, req.trajectory)
        if report.diverged:
            assert "not found" in report.reason
            diverged.append(f"{req.task.family}: {report.reason}")
            continue
        fam = FAMILIES[req.task.family]
        outcome = fam.is_successful(
            live.phone.state, req.task.setup.sim["params"], req.trajectory.answer
        )
        assert outcome == req.label, (req.task.id, report)
        reproduced += 1
    print(
        f"\nworker {worker}: {reproduced}/{len(requests)} replays reproduced the outcome; diverged: {diverged}"
    )
    # a divergence is only acceptable for look-alike duplicates a reorder makes ambiguous
    assert all("dedup" in d for d in diverged), diverged
    assert reproduced >= len(requests) - 2


def test_scroll_whose_list_is_gone_keeps_its_direction(real_dumps_dir):
    rec = tagged(real_dumps_dir, SETTINGS)
    lst = find(parse_hierarchy(P.dump_tree(rec)), scrollable=True)
    live = copy.deepcopy(rec)
    P.remove(live, [n for n in live.iter("node") if n.get(P.TAG) == str(lst.index)])
    dev = FakeDevice({"s": live}, "s")
    traj = Trajectory(
        steps=[
            step(
                0, rec, Action(action_type="scroll", direction="down", index=lst.index, target=lst)
            )
        ]
    )
    report = replay(dev, traj)
    assert not report.diverged and report.steps[0].matched is False
    assert "scrolled by direction" in report.steps[0].note
    assert len(dev.acted) == 1  # no search scrolling around for a list
    a = dev.acted[0][1]
    assert (a.action_type, a.direction, a.index, a.x) == ("scroll", "down", None, None)


def test_an_index_into_an_unreadable_recorded_screen_diverges(real_dumps_dir):
    rec = tagged(real_dumps_dir, SETTINGS)
    dev = FakeDevice({"s": rec}, "s")
    bad = Step(
        index=0, observation=Observation(xml="<html/>"), action=Action(action_type="click", index=3)
    )
    report = replay(dev, Trajectory(steps=[bad]))
    assert report.diverged and "names no element" in report.reason and dev.acted == []
