"""The evaluator agent: a GUI agent that inspects the state the policy left.

It runs the probing goals in sequence within one step budget: observe, render
the screen compactly, ask the evaluator model for one JSON action, check it
with the action guard, act. It records its own trace (each step's screen and
the action with its ``target`` element). Probing must not change the state it
is judging, so by default the guard blocks destructive actions — anything
aimed at an element named like delete / send / save / pay / confirm ..., and
typing into fields; a blocked action is recorded and not executed.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from prorex.device import Device
from prorex.llm.client import ROLE_DEFAULT, LLMClient, LLMError, Temperature
from prorex.llm.parsing import ParseError, extract_json
from prorex.prompts import render
from prorex.schemas import POINTED_ACTIONS, Action, Observation, ProbeTrace, Step, UIElement, Usage
from prorex.ui import HierarchyError, parse_hierarchy, render_screen
from prorex.ui.traits import id_name, short_class

DESTRUCTIVE_WORDS = (
    "delete",
    "remove",
    "trash",
    "erase",
    "clear",
    "wipe",
    "format",
    "reset",
    "uninstall",
    "send",
    "share",
    "save",
    "apply",
    "submit",
    "confirm",
    "ok",
    "yes",
    "accept",
    "allow",
    "discard",
    "pay",
    "buy",
    "purchase",
    "checkout",
    "transfer",
    "move",
    "rename",
    "done",
)
#: Actions that write into the device (typing, clearing, submitting).
WRITING_ACTIONS = frozenset({"input_text", "clear_text", "keyboard_enter"})
HISTORY_LINES = 12


class ActionGuard:
    """Blocks actions that could change the state being judged."""

    def __init__(self, enabled: bool = True, words: Sequence[str] = DESTRUCTIVE_WORDS) -> None:
        self.enabled = enabled
        self._pattern = re.compile(
            r"\b(" + "|".join(re.escape(w) for w in words) + r")s?\b", re.IGNORECASE
        )

    def check(
        self, action: Action, target: UIElement | None, elements: Sequence[UIElement] = ()
    ) -> str | None:
        """Why ``action`` must not run, or None when it may.

        ``elements`` (the screen the action was chosen on) lets the guard see
        that a tapped label sits on a row with a switch: tapping it toggles.
        """
        if not self.enabled:
            return None
        if action.action_type in WRITING_ACTIONS:
            return f"{action.action_type} changes content"
        if action.action_type in POINTED_ACTIONS and target is not None:
            if target.checkable or any(
                e.checkable and e.parent is not None and e.parent in (target.parent, target.index)
                for e in elements
            ):
                return f"target {target.label[:40]!r} toggles a switch or checkbox"
            button = short_class(target.class_name).endswith("Button")
            for label in (
                target.text,
                target.content_desc,
                target.hint,
                id_name(target.resource_id).replace("_", " "),
            ):
                label = (label or "").strip()
                # A command names its verb first ("Delete recipe", "Send"); a list row that merely
                # contains the word ("Team lunch - confirm") is content, unless it is a button.
                m = self._pattern.match(label) or (self._pattern.search(label) if button else None)
                if m:
                    return f"target {label[:40]!r} looks destructive ({m.group(1).lower()})"
        return None


def element_at(elements: Sequence[UIElement], x: int, y: int) -> UIElement | None:
    """The smallest clickable element under a point (else the smallest at all)."""
    hits = [
        e
        for e in elements
        if e.bounds[0] <= x < e.bounds[2] and e.bounds[1] <= y < e.bounds[3] and e.area > 0
    ]
    clickable = [e for e in hits if e.clickable or e.long_clickable or e.checkable]
    pool = clickable or hits
    return min(pool, key=lambda e: e.area) if pool else None


def resolve_target(action: Action, elements: Sequence[UIElement]) -> UIElement | None:
    if action.index is not None:
        return elements[action.index] if 0 <= action.index < len(elements) else None
    if action.x is not None and action.y is not None:
        return element_at(elements, action.x, action.y)
    return None


def parse_action(reply: str, n_elements: int) -> tuple[Action, str]:
    """The JSON action in an evaluator reply, validated against the screen."""
    data = extract_json(reply, keys=("action_type",))
    data = {k: v for k, v in data.items() if k in Action.model_fields and k != "target"}
    try:
        action = Action.model_validate(data)
    except ValidationError as exc:
        raise ParseError(f"invalid action: {exc.errors()[0]['msg']}") from None
    if action.index is not None and not 0 <= action.index < n_elements:
        raise ParseError(f"index {action.index} is not on the screen")
    m = re.search(r"reason\s*:\s*(.+)", reply, re.IGNORECASE)
    return action, (m.group(1).strip()[:200] if m else "")


@dataclass
class _Seen:
    screen: str
    elements: list[UIElement]


class EvaluatorAgent:
    """Runs probing goals on a device and records a ``ProbeTrace``."""

    def __init__(self, device: Device, llm: LLMClient, *, guard: ActionGuard | None = None) -> None:
        self.device = device
        self.llm = llm
        self.guard = guard or ActionGuard()

    def _look(self, obs: Observation) -> _Seen:
        try:
            elements = parse_hierarchy(obs.xml)
        except HierarchyError as exc:
            return _Seen(f"(screen could not be read: {exc})", [])
        return _Seen(render_screen(elements), elements)

    def run(
        self,
        goals: Sequence[str],
        budget: int,
        trace: ProbeTrace,
        usage: Usage | None = None,
        *,
        temperature: Temperature = ROLE_DEFAULT,
        seed: int | None = None,
    ) -> ProbeTrace:
        """Probe from the current device state; device errors propagate.

        ``temperature`` / ``seed`` reach the evaluator model on every step (each step gets
        its own seed derived from ``seed``), so a sampled probe is reproducible.
        """
        t0 = time.monotonic()
        history: list[str] = []
        step_no = 0
        obs = self.device.observe()
        seen = self._look(obs)
        trace.stopped = "budget"
        for g, goal in enumerate(goals):
            history.append(f"(goal {g + 1} of {len(goals)}: {goal})")
            finished = False
            while step_no < budget:
                prompt = render(
                    "evaluator_step",
                    goal=goal,
                    screen=seen.screen,
                    history="\n".join(history[-HISTORY_LINES:]) or "(none yet)",
                    steps_left=budget - step_no,
                )
                images = [obs.screenshot_png] if obs.screenshot_png else []
                n = len(seen.elements)
                try:
                    action, reason = self.llm.complete(
                        "evaluator",
                        prompt,
                        lambda r, n=n: parse_action(r, n),
                        images=images,
                        usage=usage,
                        temperature=temperature,
                        seed=step_seed(seed, step_no),
                    )
                except LLMError as exc:
                    trace.error = str(exc)
                    trace.stopped = "error"
                    trace.final_observation = obs
                    trace.wall_s = time.monotonic() - t0
                    return trace
                target = resolve_target(action, seen.elements)
                if target is not None:
                    action = action.model_copy(update={"target": target})
                blocked = self.guard.check(action, target, seen.elements)
                note = reason
                if blocked:
                    trace.blocked_actions += 1
                    note = f"blocked by guard: {blocked}" + (f"; {reason}" if reason else "")
                trace.steps.append(
                    Step(index=step_no, observation=obs, action=action, thought=note)
                )
                step_no += 1
                if action.action_type in ("status", "answer"):
                    history.append(f"{step_no}. {action.short()}")
                    finished = True
                    break
                if blocked:
                    history.append(
                        f"{step_no}. {action.short()} -> BLOCKED ({blocked}); choose a non-destructive action"
                    )
                    continue
                self.device.act(action)
                obs = self.device.observe()
                before = seen.screen
                seen = self._look(obs)
                outcome = "screen unchanged" if seen.screen == before else "screen changed"
                history.append(f"{step_no}. {action.short()} -> {outcome}")
            if not finished:
                break
            if g == len(goals) - 1:
                trace.stopped = "done"
        trace.final_observation = obs
        trace.wall_s = time.monotonic() - t0
        return trace


def step_seed(seed: int | None, step: int) -> int | None:
    # Distinct per step, so a sampling model does not draw the same number at every step.
    return None if seed is None else (seed * 1_000_003 + step) % 2**31


