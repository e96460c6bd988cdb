"""Markdown notes with folders: create (FAB -> editor -> Save), view, edit,
rename, move between folders, delete. Leaving an editor with unsaved text
asks "Discard changes?"."""

from __future__ import annotations

from prorex.sim.apps.common import (
    App,
    btn,
    buttons,
    confirm_delete,
    edit,
    form_dialog,
    icon,
    item,
    label,
)
from prorex.sim.render import Dialog, Page
from prorex.sim.state import Note

APP = App(key="notes", name="Notes", package="com.prorex.notes", main="folder")
ROOT_TITLE = "Notes"


def _title(folder: str) -> str:
    return folder or ROOT_TITLE


def find(phone, folder: str, title: str) -> Note | None:
    for n in phone.state.notes.get(folder, []):
        if n.title == title:
            return n
    return None


@APP.page
def page_folder(phone, scr) -> Page:
    folder = scr.args.get("folder", "")
    rows = []
    if folder == "":
        rows += [item(name, "Folder", key=name,
                      on_click=lambda f=name: phone.push("notes", "folder", folder=f))
                 for name in sorted(phone.state.notes) if name]
    rows += [item(n.title, n.modified, key=n.title,
                  on_click=lambda t=n.title: phone.push("notes", "view", folder=folder, title=t))
             for n in phone.state.notes.get(folder, [])]
    return Page(
        package=APP.package, activity=APP.activity("MainActivity"), title=_title(folder),
        up=phone.pop if folder else None, items=rows, reorder=True, empty="No notes yet",
        fab=icon("New note", lambda: phone.push("notes", "editor", folder=folder, title=None)),
        menu=[icon("New folder", lambda: phone.show_dialog("new_folder"))] if not folder else [],
    )


@APP.page
def page_view(phone, scr) -> Page:
    folder, title = scr.args["folder"], scr.args["title"]
    note = find(phone, folder, title)
    body = note.body if note else ""
    return Page(
        package=APP.package, activity=APP.activity("DocumentActivity"), title=title, up=phone.pop,
        menu=[
            icon("Edit", lambda: phone.push("notes", "editor", folder=folder, title=title)),
            icon("Rename", lambda: phone.show_dialog("rename")),
            icon("Move", lambda: phone.push("notes", "picker", folder=folder, title=title)),
            icon("Delete", lambda: phone.show_dialog("delete")),
        ],
        header=[label(body or "(empty)", rid="note_body")],
    )


@APP.page
def page_editor(phone, scr) -> Page:
    folder, title = scr.args["folder"], scr.args["title"]
    note = find(phone, folder, title) if title else None
    t0, b0 = (note.title, note.body) if note else ("", "")

    def dirty() -> bool:
        return phone.value("title", t0) != t0 or phone.value("body", b0) != b0

    def save() -> None:
        new_title = phone.value("title", t0).strip()
        if not new_title:
            return  # an untitled note is not saved; the editor stays open
        body = phone.value("body", b0)
        notes = phone.state.notes.setdefault(folder, [])
        if note is not None:
            note.title, note.body, note.modified = new_title, body, phone.state.stamp()
            phone.pop()
            if phone.top.page == "view":
                phone.top.args["title"] = new_title
        else:
            existing = find(phone, folder, new_title)
            if existing is not None:
                existing.body, existing.modified = body, phone.state.stamp()
            else:
                notes.append(Note(title=new_title, body=body, modified=phone.state.stamp()))
            phone.pop()
        phone.changed()

    def back() -> None:
        if dirty():
            phone.show_dialog("discard")
        else:
            phone.pop()

    return Page(
        package=APP.package, activity=APP.activity("EditorActivity"),
        title="Edit note" if note else "New note", up=back, back=back,
        menu=[btn("Save", save, rid="action_save")],
        header=[edit(phone, "title", "Title", initial=t0, rid="note_title"),
                edit(phone, "body", "Start writing…", initial=b0, rid="note_body",
                     lines=max(4, phone.value("body", b0).count("\n") + 2))],
    )


@APP.page
def page_picker(phone, scr) -> Page:
    folder, title = scr.args["folder"], scr.args["title"]
    chosen = scr.args.get("chosen")

    def pick(name: str) -> None:
        scr.args["chosen"] = name
        phone.changed()

    def done() -> None:
        note = find(phone, folder, title)
        dst = phone.state.notes.setdefault(chosen, [])
        if note is not None and chosen != folder and find(phone, chosen, title) is None:
            dst.append(note.model_copy())
            phone.state.notes[folder] = [n for n in phone.state.notes[folder] if n.title != title]
        phone.pop()  # picker
        phone.pop()  # the note's page: it lives elsewhere now
        phone.changed()

    names = [""] + sorted(n for n in phone.state.notes if n)
    rows = [item(_title(n), "Folder", key=_title(n), selected=n == chosen,
                 on_click=lambda f=n: pick(f)) for n in names]
    return Page(
        package=APP.package, activity=APP.activity("MoveActivity"), title="Move to", up=phone.pop,
        items=rows, footer=[
            label(f"Moving {title}", rid="subtitle", height=100),
            buttons(
                btn("Cancel", phone.pop), btn("Move here", done if chosen is not None else None,
                                              enabled=chosen is not None)),
        ],
    )


@APP.dialog
def dialog_discard(phone, scr, args) -> Dialog:
    def discard() -> None:
        phone.close_dialog()
        phone.pop()

    return Dialog(title="Discard changes?", message="Your unsaved changes will be lost.",
                  buttons=[btn("Keep editing", phone.close_dialog), btn("Discard", discard)])


@APP.dialog
def dialog_delete(phone, scr, args) -> Dialog:
    folder, title = scr.args["folder"], scr.args["title"]

    def remove() -> None:
        phone.state.notes[folder] = [n for n in phone.state.notes.get(folder, []) if n.title != title]

    return confirm_delete(phone, "Delete note?", f"{title} will be deleted.", remove)


@APP.dialog
def dialog_rename(phone, scr, args) -> Dialog:
    folder, title = scr.args["folder"], scr.args["title"]

    def ok() -> None:
        new = phone.value("dlg_name", title).strip()
        note = find(phone, folder, title)
        if note is not None and new and find(phone, folder, new) is None:
            note.title = new
            scr.args["title"] = new
        phone.close_dialog()

    return form_dialog("Rename", [edit(phone, "dlg_name", "Name", initial=title)], "OK", ok, phone)


@APP.dialog
def dialog_new_folder(phone, scr, args) -> Dialog:
    def ok() -> None:
        name = phone.value("dlg_name").strip()
        if name:
            phone.state.notes.setdefault(name, [])
        phone.close_dialog()

    return form_dialog("New folder", [edit(phone, "dlg_name", "Folder name")], "Create", ok, phone)
