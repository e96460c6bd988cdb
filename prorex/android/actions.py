"""Carry out an ``Action`` with uiautomator2 calls.

| action          | uiautomator2 calls                                            |
|-----------------|---------------------------------------------------------------|
| click           | ``click(x, y)``                                               |
| double_tap      | ``double_click(x, y)``                                        |
| long_press      | ``long_click(x, y, duration=LONG_PRESS_S)``                   |
| input_text      | [``click(x, y)`` if pointed] ``send_keys(text, clear=True)``  |
| clear_text      | [``click(x, y)`` if pointed] ``clear_text()``                 |
| scroll          | ``swipe(...)`` against ``direction`` inside the element/screen |
| swipe           | ``swipe(...)`` with the finger moving in ``direction``        |
| keyboard_enter  | ``press("enter")``                                            |
| navigate_back   | ``press("back")``                                             |
| navigate_home   | ``press("home")``                                             |
| open_app        | ``app_start(package)`` (name looked up in the app table)      |
| wait            | nothing on the device; sleeps ``wait_s``                      |
| answer, status  | nothing                                                       |

The point of a pointed action is, in order of preference, the centre of its
recorded ``target`` (replay retargets it onto the live screen), the centre
of element ``index`` of the last observed screen, or ``x``/``y``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from prorex.android.apps import AppTable
from prorex.device import DeviceError
from prorex.schemas import Action, UIElement

Region = tuple[int, int, int, int]

#: Android's long-press threshold is 0.5 s; hold well past it.
LONG_PRESS_S = 1.0
#: Slow enough to scroll by about the distance moved rather than fling.
SWIPE_S = 0.4
#: Share of the region a scroll or swipe travels, centred in the region.
TRAVEL = 0.5

_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


class U2Like(Protocol):
    """The part of ``uiautomator2.Device`` prorex uses."""

    def click(self, x: int, y: int) -> Any: ...
    def double_click(self, x: int, y: int) -> Any: ...
    def long_click(self, x: int, y: int, duration: float = ...) -> Any: ...
    def swipe(self, fx: int, fy: int, tx: int, ty: int, duration: float | None = ...) -> Any: ...
    def send_keys(self, text: str, clear: bool = ...) -> Any: ...
    def clear_text(self) -> Any: ...
    def press(self, key: str) -> Any: ...
    def app_start(self, package_name: str) -> Any: ...


def pointed_element(action: Action, elements: Callable[[], list[UIElement]]) -> UIElement | None:
    """The element an action names, by recorded target or by index."""
    if action.target is not None:
        return action.target
    if action.index is not None:
        screen = elements()
        if not 0 <= action.index < len(screen):
            raise DeviceError(
                f"{action.action_type}: index {action.index} is not on the last observed screen "
                f"({len(screen)} elements); observe() before acting by index"
            )
        return screen[action.index]
    return None


def action_point(action: Action, elements: Callable[[], list[UIElement]]) -> tuple[int, int] | None:
    """Where a pointed action touches, or None if it names no place."""
    el = pointed_element(action, elements)
    if el is not None:
        if el.area == 0:
            raise DeviceError(
                f"{action.action_type}: element {el.label or el.class_name!r} has no on-screen area"
            )
        return el.center
    if action.x is not None and action.y is not None:
        return action.x, action.y
    return None


def main_area(screen: tuple[int, int]) -> Region:
    """The screen without status and navigation bars (roughly)."""
    w, h = screen
    return 0, int(h * 0.15), w, int(h * 0.85)


def finger_path(direction: str, region: Region) -> tuple[int, int, int, int]:
    """A swipe whose finger moves in ``direction`` across the middle of ``region``."""
    x1, y1, x2, y2 = region
    cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
    half_w, half_h = int((x2 - x1) * TRAVEL / 2), int((y2 - y1) * TRAVEL / 2)
    if direction == "up":
        return cx, cy + half_h, cx, cy - half_h
    if direction == "down":
        return cx, cy - half_h, cx, cy + half_h
    if direction == "left":
        return cx + half_w, cy, cx - half_w, cy
    if direction == "right":
        return cx - half_w, cy, cx + half_w, cy
    raise DeviceError(f"unknown direction {direction!r}")


def swipe_from(
    point: tuple[int, int], direction: str, screen: tuple[int, int]
) -> tuple[int, int, int, int]:
    """A swipe starting at ``point``, a third of the screen long, kept on screen."""
    w, h = screen
    x, y = point
    dx, dy = {"up": (0, -h // 3), "down": (0, h // 3), "left": (-w // 3, 0), "right": (w // 3, 0)}[
        direction
    ]
    tx = min(max(x + dx, 1), w - 1)
    ty = min(max(y + dy, 1), h - 1)
    return x, y, tx, ty


def perform(
    d: U2Like,
    action: Action,
    *,
    screen_size: tuple[int, int],
    elements: Callable[[], list[UIElement]],
    apps: AppTable,
    sleep: Callable[[float], None],
    wait_s: float = 1.0,
) -> bool:
    """Carry out ``action`` on ``d``; returns whether the device was touched."""
    t = action.action_type
    if t in ("answer", "status"):
        return False
    if t == "wait":
        sleep(wait_s)
        return False
    if t in ("click", "double_tap", "long_press"):
        point = action_point(action, elements)
        assert point is not None  # the Action validator requires a place
        x, y = point
        if t == "click":
            d.click(x, y)
        elif t == "double_tap":
            d.double_click(x, y)
        else:
            d.long_click(x, y, duration=LONG_PRESS_S)
        return True
    if t in ("input_text", "clear_text"):
        point = action_point(action, elements)
        if point is not None:
            d.click(*point)
        if t == "input_text":
            d.send_keys(action.text or "", clear=True)
        else:
            d.clear_text()
        return True
    if t == "scroll":
        el = pointed_element(action, elements)
        region = el.bounds if el is not None and el.area > 0 else main_area(screen_size)
        fx, fy, tx, ty = finger_path(_OPPOSITE[action.direction or "down"], region)
        d.swipe(fx, fy, tx, ty, duration=SWIPE_S)
        return True
    if t == "swipe":
        point = action_point(action, elements)
        direction = action.direction or "up"
        if point is None:
            fx, fy, tx, ty = finger_path(direction, main_area(screen_size))
        else:
            fx, fy, tx, ty = swipe_from(point, direction, screen_size)
        d.swipe(fx, fy, tx, ty, duration=SWIPE_S)
        return True
    if t == "keyboard_enter":
        d.press("enter")
        return True
    if t == "navigate_back":
        d.press("back")
        return True
    if t == "navigate_home":
        d.press("home")
        return True
    if t == "open_app":
        d.app_start(apps.package_for(action.app_name or ""))
        return True
    raise DeviceError(f"action type {t!r} has no Android mapping")
