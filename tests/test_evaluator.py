"""The evaluator agent loop and its action guard."""

from __future__ import annotations

import litellm
import pytest

from prorex.config import ModelConfig
from prorex.evaluator import ActionGuard, EvaluatorAgent, parse_action
from prorex.llm.client import LLMClient
from prorex.llm.parsing import ParseError
from prorex.schemas import Action, Observation, ProbeTrace, UIElement

_ATTRS = (
    'resource-id="" checkable="false" checked="false" enabled="true" focusable="false" '
    'focused="false" scrollable="false" long-clickable="false" password="false" selected="false"'
)


def _node(text: str, cls: str, bounds: str, clickable: bool = True, desc: str = "") -> str:
    return (
        f'<node index="0" text="{text}" class="{cls}" package="com.example.files" content-desc="{desc}" '
        f'clickable="{str(clickable).lower()}" {_ATTRS} bounds="{bounds}" />'
    )


SCREEN = (
    '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">'
    f'<node index="0" text="" class="android.widget.FrameLayout" package="com.example.files" content-desc="" '
    f'clickable="false" {_ATTRS} bounds="[0,0][1080,2400]">'
    + _node("Documents", "android.widget.TextView", "[0,200][1080,300]", clickable=False)
    + _node("", "android.widget.ImageButton", "[900,200][1080,300]", desc="Delete")
    + _node("report.txt", "android.widget.TextView", "[0,400][1080,500]")
    + _node("", "android.widget.EditText", "[0,600][1080,700]")
    + "</node></hierarchy>"
)
# Document order: 0 frame, 1 title, 2 Delete, 3 report.txt, 4 field.


class FakeDevice:
    backend = "fake"

    def __init__(self):
        self.acted: list[Action] = []

    def observe(self) -> Observation:
        return Observation(xml=SCREEN, package="com.example.files")

    def act(self, action: Action) -> None:
        self.acted.append(action)


def _agent(
    monkeypatch, replies: list[str], guard: bool = True
) -> tuple[EvaluatorAgent, FakeDevice]:
    queue = list(replies)

    def fake_completion(**kw):
        text = queue.pop(0) if len(queue) > 1 else queue[0]
        return litellm.ModelResponse(
            choices=[{"index": 0, "message": {"role": "assistant", "content": text}}]
        )

    monkeypatch.setattr(litellm, "completion", fake_completion)
    device = FakeDevice()
    llm = LLMClient(ModelConfig(reasoner="openai/x", evaluator="openai/x"), sleep=lambda s: None)
    return EvaluatorAgent(device, llm, guard=ActionGuard(enabled=guard)), device


def _el(**kw) -> UIElement:
    return UIElement(**kw)


@pytest.mark.parametrize(
    "label",
    [
        "Delete",
        "Remove from list",
        "SEND",
        "Save",
        "Pay now",
        "Confirm",
        "Discard",
        "Submit",
        "Buy",
        "Erase all",
        "Reset",
    ],
)
def test_guard_blocks_destructive_targets(label):
    guard = ActionGuard()
    assert guard.check(Action(action_type="click", index=1), _el(text=label)) is not None
    assert guard.check(Action(action_type="click", index=1), _el(content_desc=label)) is not None


@pytest.mark.parametrize(
    "label",
    [
        "Documents",
        "Saved items",
        "Deleted files",
        "Settings",
        "Sender info",
        "Team lunch - confirm",
    ],
)
def test_guard_allows_navigation_targets(label):
    assert ActionGuard().check(Action(action_type="click", index=1), _el(text=label)) is None


def test_guard_blocks_buttons_naming_a_destructive_verb_anywhere():
    button = _el(text="Yes, delete", class_name="android.widget.Button")
    assert ActionGuard().check(Action(action_type="click", index=1), button) is not None


def test_guard_blocks_tapping_a_switch_row():
    row = _el(text="Use Wi-Fi", index=3, parent=2)
    switch = _el(checkable=True, index=4, parent=2)
    assert "switch" in ActionGuard().check(Action(action_type="click", index=3), row, [row, switch])


def test_guard_blocks_typing_and_can_be_disabled():
    typing = Action(action_type="input_text", text="hello")
    assert ActionGuard().check(typing, None) is not None
    assert ActionGuard(enabled=False).check(typing, None) is None
    assert (
        ActionGuard(enabled=False).check(Action(action_type="click", index=1), _el(text="Delete"))
        is None
    )
    assert ActionGuard().check(Action(action_type="scroll", direction="down"), None) is None


def test_agent_records_blocked_action_without_executing_it(monkeypatch):
    agent, device = _agent(
        monkeypatch,
        [
            'Reason: clean up\nAction: {"action_type": "click", "index": 2}',
            'Action: {"action_type": "click", "index": 3}',
            '{"action_type": "status", "goal_status": "complete"}',
        ],
    )
    trace = agent.run(["Find report.txt"], budget=10, trace=ProbeTrace(goal="Find report.txt"))
    assert trace.blocked_actions == 1
    assert [a.target.text for a in device.acted] == [
        "report.txt"
    ]  # Delete never reached the device
    assert trace.steps[0].action.target.content_desc == "Delete"
    assert "blocked" in trace.steps[0].thought
    assert trace.stopped == "done" and trace.error is None
    assert trace.final_observation is not None


def test_agent_stops_at_budget(monkeypatch):
    agent, device = _agent(monkeypatch, ['{"action_type": "scroll", "direction": "down"}'])
    trace = agent.run(["Find x"], budget=4, trace=ProbeTrace(goal="Find x"))
    assert trace.stopped == "budget" and len(trace.steps) == 4 and len(device.acted) == 4


def test_goals_run_in_sequence_within_one_budget(monkeypatch):
    agent, _ = _agent(monkeypatch, ['{"action_type": "status", "goal_status": "complete"}'])
    trace = agent.run(["Find a", "Find b"], budget=5, trace=ProbeTrace(goal="a / b"))
    assert trace.stopped == "done" and len(trace.steps) == 2


def test_unparseable_action_stops_with_error(monkeypatch):
    agent, device = _agent(monkeypatch, ["I would look around a bit."])
    trace = agent.run(["Find x"], budget=5, trace=ProbeTrace(goal="Find x"))
    assert trace.stopped == "error" and "unparseable" in trace.error and device.acted == []


def test_parse_action_checks_index_against_screen():
    action, reason = parse_action(
        'Reason: open it\nAction: {"action_type": "click", "index": 3}', 5
    )
    assert action.index == 3 and reason == "open it"
    with pytest.raises(ParseError):
        parse_action('{"action_type": "click", "index": 9}', 5)
    with pytest.raises(ParseError):
        parse_action('{"action_type": "fly"}', 5)


def test_probe_seeds_are_stable_and_distinct():
    from prorex.config import ProbeConfig
    from prorex.llm.client import ROLE_DEFAULT
    from prorex.probe import probe_seed, sampling
    from prorex.schemas import RewardRequest, Task, Trajectory

    assert probe_seed(0, "t1", 0, 1) == probe_seed(0, "t1", 0, 1)
    seeds = {
        probe_seed(b, t, r, p)
        for b in (0, 1)
        for t in ("t1", "t2")
        for r in (0, 1)
        for p in (0, 1, 2)
    }
    assert len(seeds) == 24 and all(0 <= s < 2**31 for s in seeds)
    request = RewardRequest(task=Task(id="t1", goal="g"), trajectory=Trajectory())
    cfg = ProbeConfig(probe_temperature=0.9)
    assert sampling(cfg, request, 1, 0)[0] is ROLE_DEFAULT  # probe 0 stays the plain agent
    assert sampling(cfg, request, 1, 2) == (0.9, probe_seed(0, "t1", 1, 2))


def test_parallel_probes_explore_on_the_sim_and_probe_zero_stays_greedy():
    sim = pytest.importorskip("prorex.sim")
    from prorex.config import ProbeConfig
    from prorex.probe import ProbeRunner
    from prorex.reasoner import schedule
    from prorex.sim.dataset import build_dataset

    models = ModelConfig()
    llm = LLMClient(models)
    explore = ProbeRunner(sim.SimDevice(screenshots=False), models, ProbeConfig(), llm)
    greedy = ProbeRunner(
        sim.SimDevice(screenshots=False), models, ProbeConfig(probe_temperature=0.0), llm
    )

    def actions(runner, request, goals, probe):
        runner.prepare(request, False)
        return [s.action.short() for s in runner.probe(request, goals, 0, probe).steps]

    differing = 0
    for request in build_dataset(24, seed=5):
        goals = schedule(llm, request.task.goal).goals
        plain = actions(greedy, request, goals, 1)  # temperature 0: probe index does not matter
        assert actions(explore, request, goals, 0) == plain
        sampled = [actions(explore, request, goals, p) for p in (1, 2)]
        assert actions(explore, request, goals, 1) == sampled[0]  # reproducible
        differing += any(s != plain for s in sampled)
    assert differing >= 1


def test_trace_keeps_the_screenshots_the_device_gave(monkeypatch):
    # Traces carry screenshots by value, so a vision claims model and the worker's
    # screenshot files get them; nothing held by the worker is referenced.
    agent, device = _agent(monkeypatch, ['{"action_type": "scroll", "direction": "down"}'])
    device.observe = lambda: Observation(
        xml=SCREEN, package="com.example.files", screenshot_png=b"\x89PNG shot"
    )
    trace = agent.run(["Find x"], budget=2, trace=ProbeTrace(goal="Find x"))
    shots = [s.observation.screenshot_png for s in trace.steps] + [
        trace.final_observation.screenshot_png
    ]
    assert shots == [b"\x89PNG shot"] * 3
