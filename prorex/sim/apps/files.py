"""File manager: top-level folders of the shared storage, with select, delete,
move (folder picker + "Move here"), rename and new folder."""

from __future__ import annotations

from prorex.sim.apps.common import App, btn, buttons, confirm, edit, form_dialog, icon, item
from prorex.sim.render import Page
from prorex.sim.state import STORAGE, FileItem

APP = App(key="files", name="Files", package="com.prorex.files", main="home")


def _size(n: int) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.0f} kB"
    return f"{n} B"


def _find(phone, folder: str, name: str) -> FileItem | None:
    for f in phone.state.files.get(folder, []):
        if f.name == name:
            return f
    return None


@APP.page
def page_home(phone, scr) -> Page:
    rows = [
        item(name, f"{len(files)} items", key=name,
             on_click=lambda n=name: phone.push("files", "folder", folder=n))
        for name, files in sorted(phone.state.files.items())
    ]
    return Page(
        package=APP.package, activity=APP.activity("MainActivity"), title=STORAGE,
        menu=[icon("New folder", lambda: phone.show_dialog("new_folder"))],
        items=rows, reorder=True, empty="No folders",
    )


@APP.page
def page_folder(phone, scr) -> Page:
    folder = scr.args["folder"]
    sel = scr.selected

    def tap(name: str) -> None:
        if sel:
            if name in sel:
                sel.remove(name)
            else:
                sel.append(name)
        phone.changed()

    def press(name: str) -> None:
        if name not in sel:
            sel.append(name)
        phone.changed()

    rows = [
        item(f.name, f"{_size(f.size)}, {f.modified}", key=f.name, selected=f.name in sel,
             on_click=lambda n=f.name: tap(n), on_long=lambda n=f.name: press(n))
        for f in phone.state.files.get(folder, [])
    ]
    if sel:
        menu = [
            icon("Delete", lambda: phone.show_dialog("delete")),
            icon("Move to", lambda: phone.push("files", "picker", src=folder, names=list(sel), mode="move")),
            icon("Copy to", lambda: phone.push("files", "picker", src=folder, names=list(sel), mode="copy")),
        ]
        if len(sel) == 1:
            menu.append(icon("Rename", lambda: phone.show_dialog("rename", name=sel[0])))
        title = f"{len(sel)} selected"
    else:
        menu, title = [], folder
    return Page(package=APP.package, activity=APP.activity("FolderActivity"), title=title,
                up=phone.pop, menu=menu, items=rows, reorder=True, empty="No files in this folder")


@APP.page
def page_picker(phone, scr) -> Page:
    chosen = scr.args.get("chosen")

    def pick(name: str) -> None:
        scr.args["chosen"] = name
        phone.changed()

    def done() -> None:
        src, names, mode = scr.args["src"], scr.args["names"], scr.args["mode"]
        files = phone.state.files
        for n in names:
            f = _find(phone, src, n)
            if f is None:
                continue
            dst = files.setdefault(chosen, [])
            if any(g.name == n for g in dst):
                continue  # a name clash: real file managers would ask; we skip it
            dst.append(f.model_copy())
            if mode == "move":
                files[src] = [g for g in files[src] if g.name != n]
        phone.pop()
        phone.top.selected = []
        phone.changed()

    rows = [item(name, "Folder", key=name, selected=name == chosen,
                 on_click=lambda n=name: pick(n))
            for name in sorted(phone.state.files)]
    verb = "Move here" if scr.args["mode"] == "move" else "Copy here"
    return Page(
        package=APP.package, activity=APP.activity("PickerActivity"),
        title="Move to" if scr.args["mode"] == "move" else "Copy to",
        up=phone.pop, items=rows, reorder=True,
        footer=[buttons(btn("Cancel", phone.pop), btn(verb, done if chosen else None, enabled=bool(chosen)))],
    )


@APP.dialog
def dialog_delete(phone, scr, args):
    folder, names = scr.args["folder"], list(scr.selected)

    def ok() -> None:
        phone.state.files[folder] = [f for f in phone.state.files[folder] if f.name not in names]
        scr.selected = []
        phone.close_dialog()

    what = names[0] if len(names) == 1 else f"{len(names)} items"
    return confirm("Delete?", f"Delete {what} permanently?", "Delete", ok, phone)


@APP.dialog
def dialog_rename(phone, scr, args):
    folder, old = scr.args["folder"], args["name"]

    def ok() -> None:
        new = phone.value("dlg_name", old).strip()
        f = _find(phone, folder, old)
        if f is not None and new and _find(phone, folder, new) is None:
            f.name = new
        scr.selected = []
        phone.close_dialog()

    return form_dialog("Rename", [edit(phone, "dlg_name", "File name", initial=old)], "OK", ok, phone)


@APP.dialog
def dialog_new_folder(phone, scr, args):
    def ok() -> None:
        name = phone.value("dlg_name").strip()
        if name:
            phone.state.files.setdefault(name, [])
        phone.close_dialog()

    return form_dialog("New folder", [edit(phone, "dlg_name", "Folder name")], "Create", ok, phone)
