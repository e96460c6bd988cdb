"""Small facts about single elements that parsing, rendering and matching share."""

from __future__ import annotations

import re

from prorex.schemas import UIElement

SYSTEM_UI_PACKAGE = "com.android.systemui"

# Classes that take typed text even when a dump does not say so otherwise.
_TEXT_INPUT_SUFFIXES = (
    "EditText",
    "AutoCompleteTextView",
    "SearchAutoComplete",
    "TextField",
    "TextInput",
)

_WS = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")

# Numbers that change between runs without the thing changing: clock times,
# counts with a unit ("3 new", "12 min", "85%"), and bare numbers (badges).
# Numbers that name things ("Task 18", "Column 3") are not in this set.
TIME_NUMBER = re.compile(r"\b\d{1,2}:\d{2}\b")
COUNT_NUMBER = re.compile(
    r"\b\d[\d,.]*(?=\s*(?:%|[kKmM]\b|sec|min|hour|hr|day|week|month|year|ago|new|unread|item|like|comment|"
    r"follower|following|post|view|message|notification|member|review|result|photo|video|file|[smhdw]\b))",
    re.IGNORECASE,
)
NUMERIC_ONLY = re.compile(r"^[\s\d,.:+%/-]*\d[\s\d,.:+%/-]*$")


def mask_numbers(value: str) -> str:
    """Every digit run as ``0``."""
    return _DIGITS.sub("0", value)


def mask_dynamic(value: str) -> str:
    """Only the numbers that are expected to change between runs as ``0``."""
    if NUMERIC_ONLY.match(value):
        return _DIGITS.sub("0", value)
    value = TIME_NUMBER.sub(lambda m: _DIGITS.sub("0", m.group(0)), value)
    return COUNT_NUMBER.sub(lambda m: _DIGITS.sub("0", m.group(0)), value)


def short_class(class_name: str) -> str:
    """``android.widget.Button`` -> ``Button``; an empty class reads as ``View``."""
    return class_name.rsplit(".", 1)[-1] or "View"


def id_name(resource_id: str) -> str:
    """The identity part of a resource id: ``com.app:id/save`` -> ``save``.

    The package prefix is dropped because the same widget may be inflated
    from a library or a flavoured package on another build.
    """
    if ":id/" in resource_id:
        return resource_id.split(":id/", 1)[1]
    return resource_id.rsplit("/", 1)[-1]


#: Containers whose children are list content even when they do not scroll
#: (a RecyclerView that fits the screen reports scrollable=false).
LIST_CLASS_SUFFIXES = ("ListView", "RecyclerView", "GridView", "ScrollView", "ViewPager")


def is_list_class(class_name: str) -> bool:
    return class_name.endswith(LIST_CLASS_SUFFIXES)


def is_editable(el: UIElement) -> bool:
    return short_class(el.class_name).endswith(_TEXT_INPUT_SUFFIXES)


def is_interactive(el: UIElement) -> bool:
    return el.clickable or el.long_clickable or el.scrollable or el.checkable or is_editable(el)


def clean_text(value: str) -> str:
    """Collapse whitespace (newlines, tabs, NBSP) to single spaces."""
    return _WS.sub(" ", value).strip()


def screen_size(elements: list[UIElement]) -> tuple[int, int] | None:
    """The screen an element list was parsed from (or the extent of its boxes)."""
    for el in elements:
        if el.screen:
            return el.screen
    boxes = [el.bounds for el in elements if el.area > 0]
    if not boxes:
        return None
    return (max(b[2] for b in boxes), max(b[3] for b in boxes))


def system_bar_windows(elements: list[UIElement]) -> set[int]:
    """Window numbers (``path[0]``) of the status and navigation bars.

    A bar is a System UI window that is thin along one side of the screen;
    a large System UI window (notification shade, a permission dialog) is
    content and is kept.
    """
    size = screen_size(elements)
    bars: set[int] = set()
    if size is None:
        return bars
    w, h = size
    for el in elements:
        if el.parent is not None or el.package != SYSTEM_UI_PACKAGE or not el.path:
            continue
        x1, y1, x2, y2 = el.bounds
        if (y2 - y1) <= 0.12 * h or (x2 - x1) <= 0.12 * w:
            bars.add(el.path[0])
    return bars


def foreground_package(elements: list[UIElement]) -> str:
    """The app a screen belongs to: the package of its largest non-system window."""
    best, best_area = "", -1
    for el in elements:
        if el.parent is None and el.package != SYSTEM_UI_PACKAGE and el.area > best_area:
            best, best_area = el.package, el.area
    if best:
        return best
    for el in elements:
        if el.package:
            return el.package
    return ""
