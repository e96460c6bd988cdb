"""Replay a recorded trajectory on another device (ProRe probes start here).

Each recorded action that touched an element carries that element
(``Action.target``); on the live screen it is found again with
``match_element`` (the device may differ in resolution, list order, ids),
and the action is rebuilt for the live screen (index and centre of the
matched element). Actions without a target replay as recorded, with x/y
rescaled to the live screen size. A target that cannot be found, even
after scrolling the screen's main list a few times, ends the replay as
diverged: a probe from a state that is not the policy's would vote on the
wrong thing. ``DeviceError`` propagates; the caller records it.
"""

from __future__ import annotations

import time

from prorex.device import Device
from prorex.schemas import (
    POINTED_ACTIONS,
    Action,
    Observation,
    ReplayReport,
    ReplayStepReport,
    Step,
    Trajectory,
    UIElement,
)
from prorex.ui import HierarchyError, match_element, parse_hierarchy

#: Actions whose recorded target must be found on the live screen.
_RETARGETED = POINTED_ACTIONS | {"input_text", "clear_text", "scroll", "swipe"}


class _Diverged(Exception):
    pass


def _recorded_target(step: Step) -> UIElement | None:
    a = step.action
    if a.target is not None:
        return a.target
    if a.index is None:
        return None
    try:
        elements = parse_hierarchy(step.observation.xml)
    except HierarchyError:
        return None
    return elements[a.index] if 0 <= a.index < len(elements) else None


def _largest_scrollable(elements: list[UIElement]) -> UIElement | None:
    lists = [e for e in elements if e.scrollable and e.visible and e.area > 0]
    return max(lists, key=lambda e: (e.area, -e.index)) if lists else None


def _live(device: Device) -> tuple[Observation, list[UIElement]]:
    obs = device.observe()
    try:
        return obs, parse_hierarchy(obs.xml)
    except HierarchyError as exc:
        raise _Diverged(f"live screen does not parse: {exc}") from None


def _search(device: Device, target: UIElement, elements: list[UIElement], max_scrolls: int):
    """Scroll the main list down, then back up and beyond, looking for ``target``.

    Returns (match or None, elements of the last screen, scrolls made).
    """
    scrolls = 0
    plan = ["down"] * max_scrolls + ["up"] * (2 * max_scrolls)
    for direction in plan:
        container = _largest_scrollable(elements)
        if container is None:
            break
        cx, cy = container.center
        device.act(
            Action(action_type="scroll", direction=direction, index=container.index, x=cx, y=cy)
        )
        scrolls += 1
        _, elements = _live(device)
        m = match_element(target, elements)
        if m is not None:
            return m, elements, scrolls
    return None, elements, scrolls


def _rescaled(action: Action, recorded: tuple[int, int], live: tuple[int, int]) -> Action:
    if action.x is None or action.y is None:
        return action
    sx = live[0] / recorded[0] if recorded[0] else 1.0
    sy = live[1] / recorded[1] if recorded[1] else 1.0
    return action.model_copy(
        update={"x": round(action.x * sx), "y": round(action.y * sy), "index": None}
    )


def replay(
    device: Device,
    trajectory: Trajectory,
    *,
    min_score: float = 0.0,
    max_search_scrolls: int = 3,
) -> ReplayReport:
    """Replay every step of ``trajectory`` on ``device``; stop at the first divergence."""
    t0 = time.monotonic()
    report = ReplayReport()
    for step in trajectory.steps:
        action = step.action
        kind = action.action_type
        if kind in ("answer", "status"):
            report.steps.append(
                ReplayStepReport(
                    index=step.index, action_type=kind, matched=True, note="no device action"
                )
            )
            continue
        target = _recorded_target(step) if kind in _RETARGETED else None
        try:
            if target is None:
                note = "replayed as recorded"
                live_action = action.model_copy(update={"target": None})
                if action.x is not None:
                    obs = device.observe()
                    recorded = step.observation.screen_size
                    live_action = _rescaled(live_action, recorded, obs.screen_size)
                    if recorded != obs.screen_size:
                        note = f"x/y rescaled {recorded[0]}x{recorded[1]} -> {obs.screen_size[0]}x{obs.screen_size[1]}"
                elif action.index is not None and kind in ("scroll", "swipe"):
                    live_action = live_action.model_copy(update={"index": None})  # direction only
                elif action.index is not None:
                    # An index into a recorded screen that cannot be read says
                    # nothing about the live one.
                    raise _Diverged(
                        f"step {step.index}: {kind} index {action.index} names no element"
                        " of the recorded screen"
                    )
                device.act(live_action)
                report.steps.append(
                    ReplayStepReport(index=step.index, action_type=kind, matched=True, note=note)
                )
                continue

            _, elements = _live(device)
            m = match_element(target, elements)
            scrolls = 0
            if m is None and max_search_scrolls > 0 and kind not in ("scroll", "swipe"):
                m, elements, scrolls = _search(device, target, elements, max_search_scrolls)
            if m is None or m[1] < min_score:
                what = target.label or target.resource_id or f"#{target.index}"
                if m is None and kind in ("scroll", "swipe") and action.direction:
                    # The list it scrolled is gone; the direction still means something.
                    device.act(
                        action.model_copy(
                            update={"target": None, "index": None, "x": None, "y": None}
                        )
                    )
                    report.steps.append(
                        ReplayStepReport(
                            index=step.index,
                            action_type=kind,
                            matched=False,
                            note=f"{what!r} not found; scrolled by direction",
                        )
                    )
                    continue
                why = (
                    "not found" if m is None else f"best match scored {m[1]:.2f} < {min_score:.2f}"
                )
                raise _Diverged(
                    f"step {step.index}: {kind} target {what!r} {why}"
                    + (f" after {scrolls} scrolls" if scrolls else "")
                )
            el, score = m
            cx, cy = el.center
            device.act(
                action.model_copy(update={"index": el.index, "x": cx, "y": cy, "target": el})
            )
            note = f"matched #{el.index}" + (f" after {scrolls} scrolls" if scrolls else "")
            report.steps.append(
                ReplayStepReport(
                    index=step.index, action_type=kind, matched=True, score=score, note=note
                )
            )
        except _Diverged as exc:
            report.steps.append(
                ReplayStepReport(index=step.index, action_type=kind, matched=False, note=str(exc))
            )
            report.diverged = True
            report.divergence_step = step.index
            report.reason = str(exc)
            break
    report.wall_s = time.monotonic() - t0
    return report
