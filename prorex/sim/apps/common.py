"""Building blocks apps share: the app record and common row/dialog shapes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from prorex.sim.render import Dialog, Handler, Page, Row, W
from prorex.sim.state import Screen

if TYPE_CHECKING:
    from prorex.sim.phone import Phone

PageFn = Callable[["Phone", Screen], Page]
DialogFn = Callable[["Phone", Screen, dict[str, Any]], Dialog]


@dataclass
class App:
    key: str
    name: str
    package: str
    main: str
    pages: dict[str, PageFn] = field(default_factory=dict)
    dialogs: dict[str, DialogFn] = field(default_factory=dict)

    def page(self, fn: PageFn) -> PageFn:
        self.pages[fn.__name__.removeprefix("page_")] = fn
        return fn

    def dialog(self, fn: DialogFn) -> DialogFn:
        self.dialogs[fn.__name__.removeprefix("dialog_")] = fn
        return fn

    def activity(self, name: str) -> str:
        return f"{self.package}/.{name}"


def item(
    text: str,
    secondary: str = "",
    *,
    on_click: Handler | None = None,
    on_long: Handler | None = None,
    selected: bool = False,
    trailing: list[W] | None = None,
    key: str = "",
    icon: str = "",
) -> Row:
    ws: list[W] = [W("text", text=text, rid="title")]
    if secondary:
        ws.append(W("text", text=secondary, rid="summary"))
    if icon:
        ws.insert(0, W("image", desc=icon, rid="icon", trailing=False, width=100))
    ws.extend(trailing or [])
    return Row(ws, on_click=on_click, on_long=on_long, selected=selected, rid="item_row",
               key=key or text, height=190 if secondary else 168)


def toggle(label: str, checked: bool, on_toggle: Handler, summary: str = "", key: str = "") -> Row:
    ws = [W("text", text=label, rid="title")]
    if summary:
        ws.append(W("text", text=summary, rid="summary"))
    ws.append(W("switch", text="", rid="switch_widget", checked=checked, trailing=True, width=160))
    return Row(ws, on_click=on_toggle, rid="toggle_row", key=key or label,
               height=190 if summary else 168)


def edit(phone: Phone, key: str, hint: str, *, initial: str = "", lines: int = 1, rid: str = "") -> Row:
    scr = phone.top
    value = scr.form.get(key, initial)
    return Row(
        [W("edit", text=value, hint=hint, field=key, focused=scr.focus == key, lines=lines,
           rid=rid or key.removeprefix("dlg_"))],
        layout="hbox",
        height=150,
        key=key,
    )


def label(text: str, *, rid: str = "text", lines: int | None = None, height: int = 120) -> Row:
    n = lines if lines is not None else max(1, text.count("\n") + 1 + len(text) // 48)
    return Row([W("text", text=text, rid=rid, lines=n)], layout="hbox", height=height, key=text)


def buttons(*ws: W) -> Row:
    return Row(list(ws), layout="hbox", height=150, rid="button_bar")


def btn(text: str, on_click: Handler | None, *, rid: str = "", enabled: bool = True) -> W:
    return W("button", text=text, on_click=on_click, rid=rid, enabled=enabled)


def icon(desc: str, on_click: Handler | None, *, rid: str = "") -> W:
    return W("ibutton", desc=desc, on_click=on_click, rid=rid)


def confirm(title: str, message: str, ok: str, on_ok: Handler, phone: Phone) -> Dialog:
    return Dialog(
        title=title,
        message=message,
        buttons=[btn("Cancel", phone.close_dialog), btn(ok, on_ok)],
    )


def confirm_delete(phone: Phone, title: str, message: str, remove: Handler) -> Dialog:
    """Cancel / Delete; Delete runs ``remove``, closes the dialog and leaves the deleted thing's page."""

    def ok() -> None:
        remove()
        phone.close_dialog()
        phone.pop()

    return confirm(title, message, "Delete", ok, phone)


def drop_index(items: list[Any], i: int) -> None:
    """Delete ``items[i]`` if it is still there (the list may have changed under an open dialog)."""
    if 0 <= i < len(items):
        del items[i]


def form_dialog(title: str, rows: list[Row], ok: str, on_ok: Handler, phone: Phone) -> Dialog:
    return Dialog(title=title, rows=rows, buttons=[btn("Cancel", phone.close_dialog), btn(ok, on_ok)])
