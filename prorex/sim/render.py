"""Turn an app's page description into a uiautomator screen.

Apps describe *what* is on a page (toolbar, rows, fields, dialog); this module
decides *where* (bounds for the given ``LayoutConfig``), which list rows fit on
screen, and writes the hierarchy XML a real ``uiautomator dump`` would give,
plus a Pillow screenshot of the same nodes. Rows below the fold are not in
the XML: an agent has to scroll to see them, as on a device.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as dc_field

from prorex.sim.layout import LayoutConfig

Handler = Callable[[], None]

CLASSES = {
    "text": "android.widget.TextView",
    "button": "android.widget.Button",
    "ibutton": "android.widget.ImageButton",
    "edit": "android.widget.EditText",
    "switch": "android.widget.Switch",
    "check": "android.widget.CheckBox",
    "radio": "android.widget.RadioButton",
    "seek": "android.widget.SeekBar",
    "image": "android.widget.ImageView",
    "fab": "com.google.android.material.floatingactionbutton.FloatingActionButton",
    "row": "android.widget.LinearLayout",
    "list": "androidx.recyclerview.widget.RecyclerView",
    "frame": "android.widget.FrameLayout",
    "view": "android.view.View",
    "group": "android.view.ViewGroup",
}
KEYBOARD_PKG = "com.google.android.inputmethod.latin"
SYSTEMUI_PKG = "com.android.systemui"


@dataclass(eq=False)
class W:
    """One widget. ``field`` names the form field an EditText edits."""

    kind: str
    text: str = ""
    desc: str = ""
    rid: str = ""
    hint: str = ""
    on_click: Handler | None = None
    on_long: Handler | None = None
    checked: bool | None = None
    selected: bool = False
    enabled: bool = True
    field: str | None = None
    focused: bool = False
    lines: int = 1
    trailing: bool = False  # sits at the right end of an item row
    width: int = 0  # fixed width (1080-scale), 0 = automatic


@dataclass(eq=False)
class Row:
    """A horizontal container: ``item`` stacks texts left and trailing widgets right,
    ``hbox`` shares the width equally (buttons, grid cells)."""

    widgets: list[W]
    layout: str = "item"
    on_click: Handler | None = None
    on_long: Handler | None = None
    selected: bool = False
    height: int = 168
    rid: str = ""
    key: str = ""  # identity of the data item this row shows (for evidence checks)


@dataclass(eq=False)
class Dialog:
    title: str = ""
    message: str = ""
    rows: list[Row] = dc_field(default_factory=list)
    buttons: list[W] = dc_field(default_factory=list)


@dataclass(eq=False)
class Page:
    package: str
    activity: str
    title: str | None  # None: no toolbar (launcher, camera)
    up: Handler | None = None
    menu: list[W] = dc_field(default_factory=list)
    header: list[Row] = dc_field(default_factory=list)
    items: list[Row] = dc_field(default_factory=list)
    list_rid: str = "list"
    reorder: bool = False  # a data list: LayoutConfig.list_order applies
    footer: list[Row] = dc_field(default_factory=list)
    fab: W | None = None
    dialog: Dialog | None = None
    empty: str = ""
    back: Handler | None = None  # overrides the default "pop the stack"
    on_enter: Handler | None = None  # keyboard enter on this page


@dataclass(eq=False)
class Node:
    cls: str
    package: str
    bounds: tuple[int, int, int, int]
    text: str = ""
    rid: str = ""
    desc: str = ""
    hint: str = ""
    checkable: bool = False
    checked: bool = False
    clickable: bool = False
    long_clickable: bool = False
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    selected: bool = False
    enabled: bool = True
    on_click: Handler | None = None
    on_long: Handler | None = None
    field: str | None = None
    window: int = 0
    children: list[Node] = dc_field(default_factory=list)

    def contains(self, x: int, y: int) -> bool:
        x1, y1, x2, y2 = self.bounds
        return x1 <= x < x2 and y1 <= y < y2


@dataclass(eq=False)
class Frame:
    """A rendered screen: nodes in document order, list visibility, XML."""

    page: Page
    layout: LayoutConfig
    roots: list[Node]
    nodes: list[Node]
    xml: str
    offset: int
    visible_rows: list[Row]
    total_rows: int
    next_down: int
    next_up: int
    keyboard: bool
    dialog_window: int | None
    png: bytes | None = None  # the screenshot, drawn once per frame

    @property
    def truncated(self) -> bool:
        return len(self.visible_rows) < self.total_rows

    def hit(self, x: int, y: int, *, long: bool = False) -> Node | None:
        """The topmost element at (x, y) that takes this kind of touch."""
        for node in reversed(self.nodes):
            if not node.contains(x, y):
                continue
            if self.keyboard and node.package == KEYBOARD_PKG:
                return None  # a key press, not a tap on the app
            if self.dialog_window is not None and node.window != self.dialog_window:
                continue  # modal dialog: the app behind does not get touches
            if long and node.long_clickable:
                return node
            if not long and (node.clickable or node.field is not None) and node.enabled:
                return node
        return None


class _Builder:
    def __init__(self, layout: LayoutConfig, package: str) -> None:
        self.layout = layout
        self.s = layout.scale
        self.package = package
        self.window = 0

    def px(self, v: float) -> int:
        return int(round(v * self.s))

    def rid(self, short: str, package: str | None = None) -> str:
        if not short:
            return ""
        if short.startswith("android:"):
            return short
        style = self.layout.id_style
        if style == "none":
            return ""
        pkg = package or self.package
        if style == "flavor":
            pkg = pkg + ".beta"
        return f"{pkg}:id/{short}"

    def node(self, kind: str, bounds: tuple[int, int, int, int], **kw) -> Node:
        pkg = kw.pop("package", self.package)
        rid = self.rid(kw.pop("rid", ""), pkg)
        return Node(CLASSES[kind], pkg, bounds, rid=rid, window=self.window, **kw)

    def widget(self, w: W, bounds: tuple[int, int, int, int]) -> Node:
        editable = w.field is not None
        n = self.node(
            w.kind,
            bounds,
            text=w.text,
            rid=w.rid,
            desc=w.desc,
            hint=w.hint,
            checkable=w.checked is not None,
            checked=bool(w.checked),
            clickable=w.on_click is not None or editable,
            long_clickable=w.on_long is not None or editable,
            focusable=w.on_click is not None or editable,
            focused=w.focused,
            selected=w.selected,
            enabled=w.enabled,
        )
        n.on_click, n.on_long, n.field = w.on_click, w.on_long, w.field
        return n

    def row_height(self, row: Row) -> int:
        lines = max((w.lines for w in row.widgets), default=1)
        return self.px(max(row.height, 56 * lines + 48))

    def row(self, row: Row, x1: int, y1: int, x2: int) -> Node:
        h = self.row_height(row)
        y2 = y1 + h
        c = self.node(
            "row",
            (x1, y1, x2, y2),
            rid=row.rid,
            clickable=row.on_click is not None,
            long_clickable=row.on_long is not None,
            focusable=row.on_click is not None,
            selected=row.selected,
        )
        c.on_click, c.on_long = row.on_click, row.on_long
        if row.layout == "hbox":
            n = max(1, len(row.widgets))
            pad = self.px(12)
            step = (x2 - x1) / n
            for i, w in enumerate(row.widgets):
                a, b = int(x1 + i * step) + pad, int(x1 + (i + 1) * step) - pad
                c.children.append(self.widget(w, (a, y1 + pad, b, y2 - pad)))
            return c
        lead = [w for w in row.widgets if not w.trailing and w.kind == "image"]
        left = [w for w in row.widgets if not w.trailing and w.kind != "image"]
        right = [w for w in row.widgets if w.trailing]
        pad = self.px(42)
        for w in lead:  # a leading icon, vertically centred
            iw = self.px(w.width or 96)
            top = y1 + (h - iw) // 2
            c.children.append(self.widget(w, (x1 + pad, top, x1 + pad + iw, top + iw)))
            x1 += iw + self.px(36)
        rx = x2 - pad
        trailing_nodes = []
        for w in reversed(right):
            tw = self.px(w.width or 150)
            trailing_nodes.insert(0, self.widget(w, (rx - tw, y1 + self.px(30), rx, y2 - self.px(30))))
            rx -= tw + self.px(12)
        if left:
            # the first widget takes the remaining height, later ones a caption line each
            cap = self.px(54)
            main_h = h - cap * (len(left) - 1)
            yy = y1
            for i, w in enumerate(left):
                hh = main_h if i == 0 else cap
                if len(left) > 1 and i == 0:
                    hh -= self.px(10)
                c.children.append(self.widget(w, (x1 + pad, yy, rx, yy + hh)))
                yy += hh
        c.children.extend(trailing_nodes)
        return c


def _order(rows: list[Row], layout: LayoutConfig, page: Page) -> list[Row]:
    if not page.reorder or layout.list_order == "default" or len(rows) < 2:
        return rows
    if layout.list_order == "reversed":
        return rows[::-1]
    rng = random.Random(f"{layout.list_seed}:{page.title}:{len(rows)}")
    out = list(rows)
    rng.shuffle(out)
    return out


def render(
    page: Page,
    layout: LayoutConfig,
    *,
    offset: int,
    keyboard: bool,
    clock_text: str,
    status_icons: list[str],
) -> Frame:
    W_, H = layout.width, layout.height
    b = _Builder(layout, page.package)
    sb, nb = layout.status_bar_h, layout.nav_bar_h
    roots: list[Node] = []

    # status bar window
    b.window = 0
    bar = b.node("frame", (0, 0, W_, sb), package=SYSTEMUI_PKG)
    inner = b.node("frame", (0, 0, W_, sb), package=SYSTEMUI_PKG, rid="status_bar")
    inner.children.append(
        b.node("text", (b.px(40), 0, b.px(200), sb), package=SYSTEMUI_PKG, rid="clock", text=clock_text)
    )
    x = W_ - b.px(40)
    for icon in status_icons:
        inner.children.append(b.node("image", (x - b.px(50), 0, x, sb), package=SYSTEMUI_PKG, desc=icon))
        x -= b.px(60)
    bar.children.append(inner)
    roots.append(bar)

    # app window
    b.window = 1
    kb_h = b.px(860) if keyboard else 0
    bottom = H - nb - kb_h
    app = b.node("frame", (0, 0, W_, H))
    content = b.node("frame", (0, sb, W_, H - nb), rid="android:id/content")
    app.children.append(content)
    root = b.node("row", (0, sb, W_, bottom), rid="main_layout")
    content.children.append(root)
    y = sb
    if page.title is not None:
        th = b.px(147)
        tb = b.node("group", (0, y, W_, y + th), rid="toolbar")
        x_title = b.px(42)
        if page.up is not None:
            tb.children.append(
                b.widget(W("ibutton", desc="Navigate up", on_click=page.up), (0, y, th, y + th))
            )
            x_title = th + b.px(20)
        mx = W_
        menu_nodes = []
        for w in reversed(page.menu):
            mw = b.px(w.width or (126 if not w.text else 60 + 28 * len(w.text)))
            menu_nodes.insert(0, b.widget(w, (mx - mw, y, mx, y + th)))
            mx -= mw
        tb.children.append(b.node("text", (x_title, y, mx, y + th), rid="toolbar_title", text=page.title))
        tb.children.extend(menu_nodes)
        root.children.append(tb)
        y += th
    for row in page.header:
        n = b.row(row, 0, y, W_)
        root.children.append(n)
        y = n.bounds[3]
    footer_h = sum(b.row_height(r) for r in page.footer)
    list_bottom = bottom - footer_h
    rows = _order(page.items, layout, page)
    heights = [b.row_height(r) for r in rows]
    area = max(0, list_bottom - y)

    def fit_from(start: int) -> int:
        used, k = 0, 0
        for hh in heights[start:]:
            if used + hh > area:
                break
            used += hh
            k += 1
        return k

    # the largest start that still fills the screen to the end of the list
    max_off = len(rows)
    used = 0
    for i in range(len(rows) - 1, -1, -1):
        if used + heights[i] > area:
            break
        used += heights[i]
        max_off = i
    max_off = min(max_off, max(0, len(rows) - 1)) if rows else 0
    offset = max(0, min(offset, max_off))
    k = fit_from(offset)
    visible = rows[offset : offset + k]
    step = max(1, k - 1)
    next_down = min(offset + step, max_off)
    next_up = max(0, offset - step)
    if page.items or page.empty:
        scrollable = len(visible) < len(rows)
        lst = b.node("list", (0, y, W_, list_bottom), rid=page.list_rid, scrollable=scrollable)
        yy = y
        for row in visible:
            n = b.row(row, 0, yy, W_)
            lst.children.append(n)
            yy = n.bounds[3]
        if not rows and page.empty:
            lst.children.append(b.node("text", (b.px(42), y + b.px(40), W_ - b.px(42), y + b.px(140)),
                                       rid="empty_view", text=page.empty))
        root.children.append(lst)
    y = list_bottom
    for row in page.footer:
        n = b.row(row, 0, y, W_)
        root.children.append(n)
        y = n.bounds[3]
    if page.fab is not None:
        f = b.px(168)
        x2, y2 = W_ - b.px(48), list_bottom - b.px(48)
        content.children.append(b.widget(page.fab, (x2 - f, y2 - f, x2, y2)))
    app.children.append(b.node("view", (0, H - nb, W_, H), rid="android:id/navigationBarBackground"))
    roots.append(app)

    dialog_window = None
    if page.dialog is not None:
        b.window = dialog_window = 2
        d = page.dialog
        pad = b.px(60)
        parts = []
        if d.title:
            parts.append(("title", b.px(130)))
        if d.message:
            lines = 1 + len(d.message) // 36
            parts.append(("message", b.px(56 * lines + 50)))
        body_h = sum(h for _, h in parts) + sum(b.row_height(r) for r in d.rows) + b.px(140)
        top = max(sb, (bottom + sb) // 2 - body_h // 2)
        win = b.node("frame", (pad, top, W_ - pad, top + body_h))
        panel = b.node("row", (pad, top, W_ - pad, top + body_h), rid="android:id/parentPanel")
        win.children.append(panel)
        yy = top
        for kind, h in parts:
            if kind == "title":
                panel.children.append(b.node("text", (pad + b.px(60), yy, W_ - pad - b.px(60), yy + h),
                                             rid="android:id/alertTitle", text=d.title))
            else:
                panel.children.append(b.node("text", (pad + b.px(60), yy, W_ - pad - b.px(60), yy + h),
                                             rid="android:id/message", text=d.message))
            yy += h
        for row in d.rows:
            n = b.row(row, pad, yy, W_ - pad)
            panel.children.append(n)
            yy = n.bounds[3]
        btns = b.node("row", (pad, yy, W_ - pad, yy + b.px(140)), rid="android:id/buttonPanel")
        bx = W_ - pad - b.px(30)
        nodes = []
        for i, w in enumerate(reversed(d.buttons)):
            bw = b.px(60 + 30 * len(w.text))
            wn = b.widget(w, (bx - bw, yy + b.px(20), bx, yy + b.px(120)))
            wn.rid = f"android:id/button{i + 1}"
            nodes.insert(0, wn)
            bx -= bw + b.px(20)
        btns.children.extend(nodes)
        panel.children.append(btns)
        roots.append(win)

    if keyboard:
        b.window = 3
        kb = b.node("frame", (0, bottom, W_, H - nb), package=KEYBOARD_PKG)
        kb.children.append(b.node("view", (0, bottom, W_, H - nb), package=KEYBOARD_PKG,
                                  rid="keyboard_view", desc=""))
        roots.append(kb)

    nodes: list[Node] = []

    def walk(n: Node) -> None:
        nodes.append(n)
        for ch in n.children:
            walk(ch)

    for r in roots:
        walk(r)
    return Frame(
        page=page,
        layout=layout,
        roots=roots,
        nodes=nodes,
        xml=to_xml(roots),
        offset=offset,
        visible_rows=visible,
        total_rows=len(rows),
        next_down=next_down,
        next_up=next_up,
        keyboard=keyboard,
        dialog_window=dialog_window,
    )


_ESC = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;"})


def _b(v: bool) -> str:
    return "true" if v else "false"


def to_xml(roots: list[Node]) -> str:
    out: list[str] = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"]

    def emit(n: Node, idx: int) -> None:
        x1, y1, x2, y2 = n.bounds
        out.append(
            f'<node index="{idx}" text="{n.text.translate(_ESC)}" resource-id="{n.rid}" '
            f'class="{n.cls}" package="{n.package}" content-desc="{n.desc.translate(_ESC)}" '
            f'checkable="{_b(n.checkable)}" checked="{_b(n.checked)}" clickable="{_b(n.clickable)}" '
            f'enabled="{_b(n.enabled)}" focusable="{_b(n.focusable)}" focused="{_b(n.focused)}" '
            f'scrollable="{_b(n.scrollable)}" long-clickable="{_b(n.long_clickable)}" '
            f'password="false" selected="{_b(n.selected)}" '
            f'bounds="[{x1},{y1}][{x2},{y2}]" hint="{n.hint.translate(_ESC)}"'
        )
        if n.children:
            out.append(">")
            for i, ch in enumerate(n.children):
                emit(ch, i)
            out.append("</node>")
        else:
            out.append(" />")

    for i, r in enumerate(roots):
        emit(r, i)
    out.append("</hierarchy>")
    return "".join(out)


_FONTS: dict[int, object] = {}
_GLYPHS = {"Navigate up": "<", "Delete": "x", "Take photo": "o", "Search settings": "?"}


def _font(size: int):
    from PIL import ImageFont

    if size not in _FONTS:
        try:
            _FONTS[size] = ImageFont.load_default(size=size)
        except (TypeError, OSError):  # Pillow without FreeType: the fixed bitmap font
            _FONTS[size] = ImageFont.load_default()
    return _FONTS[size]


def screenshot(frame: Frame) -> bytes:
    """A PNG drawing of the frame's nodes: boxes, texts, switch states."""
    from PIL import Image, ImageDraw

    lay = frame.layout
    # a palette image: a handful of colours, and a third of the bytes to compress
    img = Image.new("P", (lay.width, lay.height), 0)
    img.putpalette([250, 250, 250])
    d = ImageDraw.Draw(img)
    size = max(10, int(34 * lay.scale))
    font = _font(size)
    line_h = size + 6
    dark = (30, 30, 30)
    for n in frame.nodes:
        x1, y1, x2, y2 = n.bounds
        if x2 <= x1 or y2 <= y1:
            continue
        if n.package == SYSTEMUI_PKG and n.rid.endswith("status_bar"):
            d.rectangle(n.bounds, fill=(40, 40, 40))
        elif n.package == KEYBOARD_PKG:
            d.rectangle(n.bounds, fill=(210, 214, 220))
        elif n.cls == CLASSES["group"]:
            d.rectangle(n.bounds, fill=(225, 232, 245))
        elif n.window == 2 and n.rid == "android:id/parentPanel":
            d.rectangle(n.bounds, fill=(255, 255, 255), outline=dark, width=3)
        elif n.cls in (CLASSES["button"], CLASSES["fab"], CLASSES["ibutton"]):
            d.rectangle(n.bounds, outline=(60, 90, 160), width=2)
        elif n.cls == CLASSES["edit"]:
            d.line((x1, y2 - 3, x2, y2 - 3), fill=(60, 90, 160), width=3)
        elif n.selected:
            d.rectangle(n.bounds, fill=(205, 222, 250))
        elif n.cls == CLASSES["row"] and n.clickable:
            d.line((x1, y2 - 1, x2, y2 - 1), fill=(220, 220, 220), width=1)
        if n.checkable:
            fill = (60, 120, 220) if n.checked else (180, 180, 180)
            d.rounded_rectangle((x2 - 120, y1 + 20, x2 - 10, max(y1 + 21, y2 - 20)), radius=20, fill=fill)
        if n.package == SYSTEMUI_PKG and n.cls == CLASSES["image"]:
            d.rectangle((x1 + 8, y1 + 16, x2 - 8, max(y1 + 17, y2 - 16)), fill=(230, 230, 230))
            continue
        label = n.text or (n.desc if n.cls != CLASSES["image"] or not n.desc else "") or n.hint
        if n.cls in (CLASSES["image"], CLASSES["ibutton"], CLASSES["fab"]) and n.desc and not n.text:
            # icons carry no text: draw a glyph, as a screenshot shows no label either
            r = min(x2 - x1, y2 - y1) // 4
            cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
            d.ellipse((cx - r, cy - r, cx + r, cy + r), outline=(70, 90, 140), width=3)
            d.text((cx - size // 3, cy - size // 2), _GLYPHS.get(n.desc, n.desc[:1]), fill=(70, 90, 140),
                   font=font)
            continue
        if label:
            color = (240, 240, 240) if n.package == SYSTEMUI_PKG else dark
            if not n.text and n.hint:
                color = (140, 140, 140)
            top = y1 + max(4, (y2 - y1 - line_h * (label.count("\n") + 1)) // 2)
            if n.cls in (CLASSES["edit"], CLASSES["text"]) and y2 - y1 > 6 * line_h:
                top = y1 + 12
            for j, line in enumerate(label.split("\n")[:12]):
                d.text((x1 + 12, top + line_h * j), line[:80], fill=color, font=font)
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()
