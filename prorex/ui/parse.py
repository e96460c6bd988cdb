"""Parse a uiautomator window dump into ``UIElement`` records.

Real dumps are messy: several top-level windows (status bar, keyboard,
overlays), inverted or zero-area bounds, extra attributes, a BOM, CRLF or
tabs, and text printed after ``</hierarchy>`` by ``uiautomator dump``. All of
that is accepted. What is not a hierarchy (invalid XML, another root
element, DTDs and entity declarations, which only an attack needs) raises
``HierarchyError`` with a message that says what is wrong and where.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from xml.etree.ElementTree import Element, ParseError

import defusedxml
from defusedxml.ElementTree import fromstring

from prorex.schemas import UIElement
from prorex.ui.traits import clean_text, is_list_class

_BOUNDS = re.compile(r"\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]")
_START = re.compile(r"<\?xml|<hierarchy|<node")
_END_TAG = "</hierarchy>"

#: How many nearby texts an element carries, and how long each may be.
CONTEXT_SIZE = 3
CONTEXT_CHARS = 80


class HierarchyError(ValueError):
    """The input is not a parseable uiautomator hierarchy."""


def parse_bounds(value: str | None) -> tuple[int, int, int, int]:
    # Inverted bounds are kept as given (UIElement.area reads them as 0);
    # a missing or malformed value means the node has no on-screen box.
    if not value:
        return (0, 0, 0, 0)
    m = _BOUNDS.search(value)
    if m is None:
        return (0, 0, 0, 0)
    return (int(m[1]), int(m[2]), int(m[3]), int(m[4]))


def _flag(attrs: dict[str, str], name: str, default: bool = False) -> bool:
    value = attrs.get(name)
    if value is None:
        return default
    return value.strip().lower() == "true"


def clip_dump(xml: str | bytes) -> tuple[str, int]:
    """Drop a BOM, junk before the document and after ``</hierarchy>``.

    Returns the text to parse and how many lines were cut from the front, so
    error line numbers still point into the caller's input.
    """
    if isinstance(xml, bytes | bytearray):
        xml = bytes(xml).decode("utf-8-sig", errors="replace")
    text = xml.lstrip("\ufeff")
    head_lines = 0
    m = _START.search(text)
    if m is not None and m.start() > 0 and text[: m.start()].strip():
        head_lines = text.count("\n", 0, m.start())
        text = text[m.start() :]
    end = text.rfind(_END_TAG)
    if end >= 0:
        text = text[: end + len(_END_TAG)]
    return text, head_lines


def parse_tree(xml: str | bytes) -> Element:
    """The dump as an element tree rooted at ``<hierarchy>``: the one place XML is parsed
    (defusedxml, no DTD, entities or external references). Raises ``HierarchyError``."""
    text, head_lines = clip_dump(xml)
    if not text.strip():
        raise HierarchyError("empty input: no uiautomator hierarchy to parse")
    try:
        # forbid_dtd: a window dump never has a DTD; refusing it up front also
        # stops entity-expansion bombs before any expansion happens.
        root = fromstring(text, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except defusedxml.DTDForbidden as exc:
        raise HierarchyError(
            f"forbidden DTD / document type declaration <!DOCTYPE {exc.name}>"
        ) from None
    except defusedxml.EntitiesForbidden as exc:
        raise HierarchyError(f"forbidden entity declaration {exc.name!r}") from None
    except defusedxml.ExternalReferenceForbidden as exc:
        raise HierarchyError(f"forbidden external reference {exc.sysid or exc.pubid!r}") from None
    except defusedxml.DefusedXmlException as exc:
        raise HierarchyError(f"forbidden XML construct: {exc}") from None
    except ParseError as exc:
        line, col = exc.position
        msg = str(exc).split(":", 1)[0]
        raise HierarchyError(
            f"invalid XML at line {line + head_lines}, column {col + 1}: {msg}"
        ) from None
    if root.tag == "node":  # a dump of one window without the wrapper
        return _wrap(root)
    if root.tag != "hierarchy":
        raise HierarchyError(f"not a uiautomator hierarchy: root element is <{root.tag}>")
    return root


def _wrap(node: Element) -> Element:
    root = Element("hierarchy")
    root.append(node)
    return root


def parse_hierarchy(xml: str | bytes) -> list[UIElement]:
    """Every ``node`` of a dump, in document order, with structure and context.

    Fills ``index`` (document order), ``depth``, ``parent``, ``path``
    (window position, then child positions), ``screen`` (the extent of the
    window roots) and ``context`` (a few texts near the element, see
    ``_contexts``). Raises ``HierarchyError`` on anything that is not a dump.
    """
    root = parse_tree(xml)
    rows: list[dict] = []
    roots: list[int] = []
    # Iterative walk: a hostile dump nested thousands deep must not hit
    # Python's recursion limit.
    stack: list[tuple[Element, int, int | None, tuple[int, ...]]] = []
    top = [c for c in root if c.tag == "node"]
    for w in range(len(top) - 1, -1, -1):
        stack.append((top[w], 0, None, (w,)))
    while stack:
        node, depth, parent, path = stack.pop()
        i = len(rows)
        if parent is None:
            roots.append(i)
        a = node.attrib
        rows.append(
            {
                "text": a.get("text", ""),
                "resource_id": a.get("resource-id", ""),
                "content_desc": a.get("content-desc", ""),
                "class_name": a.get("class", ""),
                "package": a.get("package", ""),
                "hint": a.get("hint", ""),
                "bounds": parse_bounds(a.get("bounds")),
                "checkable": _flag(a, "checkable"),
                "checked": _flag(a, "checked"),
                "clickable": _flag(a, "clickable"),
                "long_clickable": _flag(a, "long-clickable"),
                "scrollable": _flag(a, "scrollable"),
                "focusable": _flag(a, "focusable"),
                "focused": _flag(a, "focused"),
                "selected": _flag(a, "selected"),
                "enabled": _flag(a, "enabled", True),
                "password": _flag(a, "password"),
                "visible": _flag(a, "visible-to-user", True),
                "index": i,
                "depth": depth,
                "parent": parent,
                "path": path,
            }
        )
        kids = [c for c in node if c.tag == "node"]
        for k in range(len(kids) - 1, -1, -1):
            stack.append((kids[k], depth + 1, i, path + (k,)))
    # Each subtree is a contiguous run in document order: [i, ends[i]).
    ends = [i + 1 for i in range(len(rows))]
    for i in range(len(rows) - 1, -1, -1):
        p = rows[i]["parent"]
        if p is not None and ends[i] > ends[p]:
            ends[p] = ends[i]

    screen = _screen([rows[r]["bounds"] for r in roots])
    contexts = _contexts(rows, ends)
    out = []
    for row, ctx in zip(rows, contexts, strict=True):
        row["context"] = ctx
        row["screen"] = screen
        # Values come straight from the parser in the right types, so skip
        # pydantic validation: it would triple the cost of a large screen.
        out.append(UIElement.model_construct(**row))
    return out


def _screen(root_bounds: list[tuple[int, int, int, int]]) -> tuple[int, int] | None:
    """Screen size from the window roots: the extent that covers them all.

    Overlay windows (a keyboard, a floating button) sit inside the app
    window, so the far corner of the union is the display size even when
    the app window itself starts below a status bar.
    """
    boxes = [b for b in root_bounds if b[2] > b[0] and b[3] > b[1]]
    if not boxes:
        return None
    return (max(b[2] for b in boxes), max(b[3] for b in boxes))


def _label(row: dict) -> str:
    if not row["visible"]:
        return ""
    value = clean_text(row["text"]) or clean_text(row["content_desc"])
    return value[:CONTEXT_CHARS]


def _contexts(rows: list[dict], ends: list[int]) -> list[tuple[str, ...]]:
    """Nearby text for each element, for telling look-alikes apart.

    The scope is the element itself if it contains other text (a clickable
    row wrapping its labels), else its nearest ancestor that does (the list
    row around a "Delete" button). From that scope the texts closest to the
    element in document order are kept, up to ``CONTEXT_SIZE``, in document
    order, without the element's own label. Never crosses into another
    window, and never takes list content from outside the element's own
    row: rows scroll, reorder and change, so a floating button's
    surroundings are the toolbar, and a row's are its own texts.
    """
    labels = [_label(r) for r in rows]
    # Texts inside a list the element is not part of are that list's
    # content, which scrolls, reorders and changes: not surroundings.
    # owner[j]: the list j is content of; row[j]: the row of that list holding j.
    owner: list[int | None] = []
    row: list[int] = []
    for j, r in enumerate(rows):
        p = r["parent"]
        if p is None:
            owner.append(None)
            row.append(j)
        elif rows[p]["scrollable"] or is_list_class(rows[p]["class_name"]):
            owner.append(p)
            row.append(j)
        else:
            owner.append(owner[p])
            row.append(row[p])
    positions = [i for i, lab in enumerate(labels) if lab]
    out: list[tuple[str, ...]] = []
    for i in range(len(rows)):
        own = labels[i]
        scope = i
        picked: list[int] = []
        while True:
            lo = bisect_left(positions, scope)
            hi = bisect_left(positions, ends[scope])
            if hi - lo > (1 if own else 0):
                picked = _nearest(positions, lo, hi, i, labels, own, owner, row, ends)
                if picked:
                    break
            parent = rows[scope]["parent"]
            if parent is None:
                break
            scope = parent
        out.append(tuple(labels[j] for j in sorted(picked)))
    return out


def _nearest(
    positions: list[int],
    lo: int,
    hi: int,
    i: int,
    labels: list[str],
    own: str,
    owner: list[int | None],
    row: list[int],
    ends: list[int],
) -> list[int]:
    """Up to CONTEXT_SIZE label positions in ``positions[lo:hi]`` nearest to ``i``."""
    mid = bisect_left(positions, i, lo, hi)
    left, right = mid - 1, mid
    picked: list[int] = []
    seen = {own} if own else set()
    while len(picked) < CONTEXT_SIZE and (left >= lo or right < hi):
        # Take whichever side is closer in document order; ties go forward,
        # where a row's trailing texts (time, counter) usually are.
        if right < hi and (left < lo or positions[right] - i <= i - positions[left]):
            j = positions[right]
            right += 1
        else:
            j = positions[left]
            left -= 1
        if j == i or labels[j] in seen:
            continue
        o = owner[j]
        if o is not None and not (row[j] <= i < ends[row[j]]):
            continue  # another row's content, or a list the element is not in
        seen.add(labels[j])
        picked.append(j)
    return picked
