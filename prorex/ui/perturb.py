"""Rewrite a window dump the way another device or another run would show it.

Used to measure element matching on real dumps (tests, bench) and to feed
fake devices in replay tests. Each function edits an ``Element`` tree in
place and is deterministic given its ``random.Random``. Trees come from
``load_tree`` (``parse_tree``, defusedxml) and go back to text with ``dump_tree``.

Families: another resolution (``scale``), a taller status bar
(``shift``), list rows in another order (``reorder``), unrelated nodes
missing (``drop``), times and counters changed (``dynamic_text``), and the
target gone (``remove``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from xml.etree.ElementTree import Element, tostring

from prorex.ui.parse import parse_bounds, parse_tree
from prorex.ui.traits import COUNT_NUMBER, NUMERIC_ONLY, TIME_NUMBER, is_list_class

TAG = "prorex-key"  # attribute that follows a node through perturbations
_DIGITS = re.compile(r"\d+")


def load_tree(xml: str) -> Element:
    return parse_tree(xml)


def dump_tree(root: Element) -> str:
    return tostring(root, encoding="unicode")


def tag_nodes(root: Element) -> list[Element]:
    """Give every node a key equal to its document-order index; return them."""
    nodes = list(root.iter("node"))
    for k, n in enumerate(nodes):
        n.set(TAG, str(k))
    return nodes


def keys_in_order(root: Element) -> list[str]:
    """The key of each node in document order (= ``parse_hierarchy`` index)."""
    return [n.get(TAG, "") for n in root.iter("node")]


def parent_map(root: Element) -> dict[Element, Element]:
    return {c: p for p in root.iter() for c in p}


def _set_bounds(n: Element, b: tuple[int, int, int, int]) -> None:
    n.set("bounds", f"[{b[0]},{b[1]}][{b[2]},{b[3]}]")


def _map_bounds(
    root: Element, fn: Callable[[tuple[int, int, int, int]], tuple[int, int, int, int]]
) -> None:
    for n in root.iter("node"):
        if n.get("bounds"):
            _set_bounds(n, fn(parse_bounds(n.get("bounds"))))


def screen_of(root: Element) -> tuple[int, int]:
    boxes = [parse_bounds(n.get("bounds")) for n in root if n.tag == "node"]
    boxes = [b for b in boxes if b[2] > b[0] and b[3] > b[1]] or [(0, 0, 1080, 2400)]
    return max(b[2] for b in boxes), max(b[3] for b in boxes)


def scale(root: Element, sx: float, sy: float) -> None:
    """Another resolution (and possibly aspect ratio)."""
    _map_bounds(
        root, lambda b: (round(b[0] * sx), round(b[1] * sy), round(b[2] * sx), round(b[3] * sy))
    )


def shift(root: Element, dy: int) -> None:
    """A status bar ``dy`` pixels taller: app windows move down, clipped at the bottom."""
    _, h = screen_of(root)

    def move(b: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        return (b[0], min(b[1] + dy, h), b[2], min(b[3] + dy, h))

    for win in root:
        if win.tag != "node" or win.get("package") == "com.android.systemui":
            continue
        for n in win.iter("node"):
            _set_bounds(n, move(parse_bounds(n.get("bounds"))))


def _translate(node: Element, dx: int, dy: int) -> None:
    for n in node.iter("node"):
        b = parse_bounds(n.get("bounds"))
        _set_bounds(n, (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy))


def _is_list(node: Element) -> bool:
    return node.get("scrollable") == "true" or is_list_class(node.get("class", ""))


def reorder(root: Element, rng: random.Random, p: float = 0.5) -> int:
    """Put the rows of some lists (scrollable containers) in another order.

    Same-class rows trade places and each takes the screen slot of the one
    it replaced, as when a list is sorted differently or items arrived in
    another order. Returns how many lists were reordered.
    """
    done = 0
    for parent in list(root.iter("node")):
        if not _is_list(parent):
            continue
        kids = [c for c in parent if c.tag == "node"]
        by_class: dict[str, list[int]] = {}
        for i, c in enumerate(kids):
            by_class.setdefault(c.get("class", ""), []).append(i)
        groups = [g for g in by_class.values() if len(g) >= 2]
        if not groups or rng.random() >= p:
            continue
        for g in groups:
            order = g[:]
            rng.shuffle(order)
            if order == g:
                order = g[1:] + g[:1]
            slots = [parse_bounds(kids[i].get("bounds")) for i in g]
            moved = [kids[i] for i in order]
            for slot, node in zip(slots, moved, strict=True):
                b = parse_bounds(node.get("bounds"))
                _translate(node, slot[0] - b[0], slot[1] - b[1])
            for i, node in zip(g, moved, strict=True):
                kids[i] = node
        for c in list(parent):
            if c.tag == "node":
                parent.remove(c)
        for c in kids:
            parent.append(c)
        done += 1
    return done


def drop(root: Element, rng: random.Random, keep: Iterable[Element] = (), p: float = 0.15) -> int:
    """Remove random subtrees, except ``keep`` nodes, their ancestors and descendants.

    Returns how many subtrees were removed.
    """
    parents = parent_map(root)
    protected: set[Element] = set()
    for k in keep:
        protected.update(k.iter("node"))
        a = k
        while a in parents:
            protected.add(a)
            a = parents[a]
    removed = 0
    for n in list(root.iter("node")):
        if n in protected or n not in parents or parents[n] is root:
            continue
        if rng.random() < p:
            parent = parents[n]
            if n in list(parent):
                parent.remove(n)
                removed += 1
    return removed


def dynamic_text(root: Element, rng: random.Random) -> int:
    """Change what changes between runs: clock times, counters, badges, percentages.

    Numbers that name things ("Task 18", "Galaxy S9") are left alone.
    """
    changed = 0

    def new_number(m: re.Match[str]) -> str:
        s = m.group(0)
        if len(s) == 1:
            return str((int(s) + rng.randint(1, 9)) % 10)
        return str(rng.randint(10 ** (len(s) - 1), 10 ** len(s) - 1))

    def new_digits(m: re.Match[str]) -> str:
        return _DIGITS.sub(new_number, m.group(0))

    for n in root.iter("node"):
        for attr in ("text", "content-desc"):
            v = n.get(attr)
            if not v or not _DIGITS.search(v):
                continue
            if NUMERIC_ONLY.match(v):
                new = _DIGITS.sub(new_number, v)
            else:
                new = COUNT_NUMBER.sub(new_digits, TIME_NUMBER.sub(new_digits, v))
            if new != v:
                n.set(attr, new)
                changed += 1
    return changed


def remove(root: Element, nodes: Iterable[Element]) -> int:
    parents = parent_map(root)
    removed = 0
    for n in nodes:
        p = parents.get(n)
        if p is not None and n in list(p):
            p.remove(n)
            removed += 1
    return removed
