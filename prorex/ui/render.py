"""The compact text form of a screen that models read.

One line per element worth naming (text-bearing or interactive; a text
already on its interactive ancestor's line is not repeated), numbered
with ``UIElement.index`` so an answer like "click [12]" maps straight back to
``parse_hierarchy(xml)[12]``. The format is a contract other modules parse:

    App: com.example.notes  Screen: 1080x2400
    [12] Button "Save" click @top-right
    [22] ImageButton desc="More options" click @top-right

Double quotes inside values are written as single quotes and whitespace
runs as one space, so every value is one quoted token.
"""

from __future__ import annotations

from prorex.schemas import UIElement
from prorex.ui.traits import (
    clean_text,
    foreground_package,
    is_editable,
    is_interactive,
    screen_size,
    short_class,
    system_bar_windows,
)

MAX_VALUE = 80


def _value(raw: str) -> str:
    v = clean_text(raw).replace('"', "'")
    if len(v) > MAX_VALUE:
        v = v[: MAX_VALUE - 1] + "…"
    return v


def _where(el: UIElement, w: int, h: int) -> str:
    cx, cy = el.center
    col = "left" if cx < w / 3 else "center" if cx < 2 * w / 3 else "right"
    row = "top" if cy < h / 3 else "middle" if cy < 2 * h / 3 else "bottom"
    return f"@{row}-{col}"


def element_line(el: UIElement, size: tuple[int, int]) -> str:
    """One element in the rendering format (without checking it should be kept)."""
    text = _value(el.text)
    desc = _value(el.content_desc)
    hint = _value(el.hint)
    parts = [f"[{el.index}]", short_class(el.class_name)]
    if text:
        parts.append(f'"{text}"')
    if desc and desc != text:
        parts.append(f'desc="{desc}"')
    if hint and hint != text:
        parts.append(f'hint="{hint}"')
    if el.clickable:
        parts.append("click")
    if el.long_clickable:
        parts.append("long-click")
    if el.scrollable:
        parts.append("scroll")
    if is_editable(el):
        parts.append("editable")
    if el.checkable:
        parts.append("checked=on" if el.checked else "checked=off")
    if el.selected:
        parts.append("selected")
    if el.focused:
        parts.append("focused")
    if not el.enabled:
        parts.append("disabled")
    if el.password:
        parts.append("password")
    parts.append(_where(el, *size))
    return " ".join(parts)


def visible_elements(elements: list[UIElement]) -> list[UIElement]:
    """The elements a rendering keeps, in document order."""
    size = screen_size(elements)
    if size is None:
        return []
    w, h = size
    bars = system_bar_windows(elements)
    by_index = {el.index: el for el in elements}
    said: dict[int, str] = {}  # index -> label ('' if none) of kept interactive elements
    kept = []
    for el in elements:
        if not el.visible or el.area == 0:
            continue
        if el.path and el.path[0] in bars:
            continue
        cx, cy = el.center
        if not (0 <= cx < w and 0 <= cy < h):
            continue
        label = clean_text(el.text) or clean_text(el.content_desc)
        if is_interactive(el):
            kept.append(el)
            said[el.index] = label.casefold()
        elif label and not _said_above(el, label.casefold(), said, by_index):
            kept.append(el)
    return kept


def _said_above(
    el: UIElement, label: str, said: dict[int, str], by_index: dict[int, UIElement]
) -> bool:
    """Whether the nearest interactive ancestor's line already carries this label.

    An app icon is often a clickable container with desc "Chrome", an image
    with desc "Chrome" and a caption "Chrome": one line says it all.
    """
    p = el.parent
    while p is not None:
        if p in said:
            return label in said[p]
        parent = by_index.get(p)
        p = parent.parent if parent is not None else None
    return False


def render_screen(elements: list[UIElement], *, max_elements: int = 120) -> str:
    """Header line, then one line per kept element (at most ``max_elements``)."""
    size = screen_size(elements)
    app = foreground_package(elements) or "unknown"
    if size is None:
        return f"App: {app}  Screen: unknown"
    lines = [f"App: {app}  Screen: {size[0]}x{size[1]}"]
    kept = visible_elements(elements)
    lines.extend(element_line(el, size) for el in kept[:max_elements])
    if len(kept) > max_elements:
        lines.append(f"... {len(kept) - max_elements} more elements not shown")
    return "\n".join(lines)
