"""State filtering (paper §3.4) on synthetic trajectories built from real dumps."""

from __future__ import annotations

import pytest

from prorex.filtering import estimate_tokens, filter_states, is_home_package
from prorex.schemas import Action, Observation, Step, Trajectory
from prorex.ui import parse_hierarchy, render_screen

HOME = "com.miui.home__vpn-bot__1.xml"
A = "com.android.settings__Site-Blocker__1.xml"
B = "com.whatsapp__auto-zap__1.xml"
C = "com.twitter.android__TrendX__1.xml"


@pytest.fixture(scope="module")
def screens(real_dumps_dir):
    return {n: (real_dumps_dir / n).read_text(encoding="utf-8") for n in (HOME, A, B, C)}


def traj(screens, names: list[str]) -> Trajectory:
    steps = [
        Step(
            index=i,
            observation=Observation(xml=screens[n] if n in screens else n),
            action=Action(action_type="wait"),
        )
        for i, n in enumerate(names)
    ]
    return Trajectory(steps=steps)


def test_launchers_are_home_screens():
    for pkg in (
        "com.android.launcher3",
        "com.google.android.apps.nexuslauncher",
        "com.miui.home",
        "com.sec.android.app.launcher",
        "com.prorex.launcher",
    ):
        assert is_home_package(pkg)
    assert not is_home_package("com.android.settings") and not is_home_package("com.whatsapp")


def test_home_duplicates_and_loops(screens):
    t = traj(screens, [HOME, A, A, B, A, C, C])
    r = filter_states(t)
    assert r.dropped == {
        0: "home screen",
        1: "identical to the next state",
        5: "identical to the next state",
    }
    assert r.kept == [2, 3, 4, 6]
    assert [(x.start, x.end, x.period) for x in r.loops] == [(2, 4, 2)]
    per = {n: estimate_tokens(render_screen(parse_hierarchy(screens[n]))) for n in (HOME, A, B, C)}
    assert r.tokens_before == per[HOME] + 3 * per[A] + per[B] + 2 * per[C]
    assert r.tokens_after == 2 * per[A] + per[B] + per[C]
    assert r.saved == per[HOME] + per[A] + per[C] > 0
    print(
        f"\nfiltering saved {r.saved} of {r.tokens_before} prompt tokens ({r.saved / r.tokens_before:.0%})"
    )


def test_drop_loops_removes_the_detour(screens):
    r = filter_states(traj(screens, [A, B, C, A, B]), drop_loops=True)
    assert (r.loops[0].start, r.loops[0].end) == (0, 3)
    assert r.kept == [0, 4]
    assert all(r.dropped[i].startswith("loop back to step 0") for i in (1, 2, 3))


def test_unparseable_screen_is_kept_and_reported(screens):
    r = filter_states(traj(screens, [A, "<html/>", B]))
    assert r.kept == [0, 1, 2]
    assert "root element is <html>" in r.errors[1]


def test_accepts_a_list_of_steps(screens):
    t = traj(screens, [B, B])
    assert filter_states(t.steps).kept == [1]


def test_app_grid_detected_without_a_known_package(real_dump_files, screens):
    from prorex.filtering import looks_like_app_grid

    renamed = screens[HOME].replace('package="com.miui.home"', 'package="org.example.shell"')
    els = parse_hierarchy(renamed)
    assert looks_like_app_grid(els)
    r = filter_states(traj({**screens, "grid": renamed}, ["grid", A]))
    assert r.dropped == {0: "home screen"}
    # no app screen among the real dumps (keyboards, photo grids, lists) looks like one
    for path in real_dump_files:
        if "launcher" in path.name or "miui.home" in path.name:
            continue
        assert not looks_like_app_grid(parse_hierarchy(path.read_text(encoding="utf-8"))), path.name


def test_a_cycle_gone_round_twice_is_one_loop(screens):
    r = filter_states(traj(screens, [A, B, C, A, B, C, A]))
    assert [(x.start, x.end, x.period) for x in r.loops] == [(0, 6, 3)]
    assert r.kept == list(range(7))  # reported, not dropped, unless asked


def test_sim_loop_trajectory():
    """A scripted agent that goes round in circles through the sim's launcher."""
    sim = pytest.importorskip("prorex.sim")
    from prorex.sim.dataset import make_request

    req = make_request("settings_wifi", 0, 5, {"loop": 1.0}, sim.SimDevice(screenshots=False))
    assert req.meta["outcome"] == "loop"
    r = filter_states(req.trajectory)
    home = [s.index for s in req.trajectory.steps if s.observation.package == "com.prorex.launcher"]
    assert home and all(r.dropped.get(i) == "home screen" for i in home)
    assert len(r.loops) == 1 and r.loops[0].period >= 1
    assert 0 < r.saved < r.tokens_before


def test_a_cycle_with_a_detour_inside_is_one_loop(screens):
    # A-B-A-C round twice: revisits of period 2 (A) and 4 (B, C) overlap: one loop.
    r = filter_states(traj(screens, [A, B, A, C, A, B, A, C]))
    assert [(x.start, x.end, x.period) for x in r.loops] == [(0, 7, 4)]
