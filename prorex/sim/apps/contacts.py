"""Contacts: list, details, add / edit (Save), delete, favourite star."""

from __future__ import annotations

from prorex.sim.apps.common import App, btn, confirm, confirm_delete, edit, icon, item
from prorex.sim.render import Page
from prorex.sim.state import Contact

APP = App(key="contacts", name="Contacts", package="com.prorex.contacts", main="home")


def find(phone, name: str) -> Contact | None:
    for c in phone.state.contacts:
        if c.name == name:
            return c
    return None


@APP.page
def page_home(phone, scr) -> Page:
    cs = sorted(phone.state.contacts, key=lambda c: (not c.favorite, c.name.lower()))
    rows = [item(c.name, "★ Favorite" if c.favorite else "", key=c.name,
                 on_click=lambda n=c.name: phone.push("contacts", "detail", name=n)) for c in cs]
    return Page(package=APP.package, activity=APP.activity("PeopleActivity"), title="Contacts",
                items=rows, reorder=True, empty="No contacts",
                fab=icon("Create contact", lambda: phone.push("contacts", "editor", name=None)))


@APP.page
def page_detail(phone, scr) -> Page:
    c = find(phone, scr.args["name"])
    rows = []
    if c is not None:
        if c.phone:
            rows.append(item(c.phone, "Mobile", key="phone", icon="Call"))
        if c.email:
            rows.append(item(c.email, "Email", key="email", icon="Email"))

    def star() -> None:
        if c is not None:
            c.favorite = not c.favorite
        phone.changed()

    fav = c is not None and c.favorite
    return Page(
        package=APP.package, activity=APP.activity("ContactDetailActivity"), title=scr.args["name"],
        up=phone.pop, items=rows,
        menu=[icon("Remove from favorites" if fav else "Add to favorites", star),
              icon("Edit contact", lambda: phone.push("contacts", "editor", name=scr.args["name"])),
              icon("Delete", lambda: phone.show_dialog("delete"))],
    )


@APP.page
def page_editor(phone, scr) -> Page:
    old = find(phone, scr.args["name"]) if scr.args.get("name") else None
    n0, p0, e0 = (old.name, old.phone, old.email) if old else ("", "", "")

    def save() -> None:
        name = phone.value("name", n0).strip()
        if not name:
            return
        ph, em = phone.value("phone", p0).strip(), phone.value("email", e0).strip()
        if old is not None:
            old.name, old.phone, old.email = name, ph, em
            phone.pop()
            phone.top.args["name"] = name
        else:
            phone.state.contacts.append(Contact(name=name, phone=ph, email=em))
            phone.replace("contacts", "detail", name=name)
        phone.changed()

    def back() -> None:
        if (phone.value("name", n0), phone.value("phone", p0), phone.value("email", e0)) != (n0, p0, e0):
            phone.show_dialog("discard")
        else:
            phone.pop()

    return Page(
        package=APP.package, activity=APP.activity("ContactEditorActivity"),
        title="Edit contact" if old else "Create contact", up=back, back=back,
        menu=[btn("Save", save, rid="editor_menu_save_button")],
        header=[edit(phone, "name", "Name", initial=n0), edit(phone, "phone", "Phone", initial=p0),
                edit(phone, "email", "Email", initial=e0)],
    )


@APP.dialog
def dialog_discard(phone, scr, args):
    def discard() -> None:
        phone.close_dialog()
        phone.pop()

    return confirm("Discard changes?", "", "Discard", discard, phone)


@APP.dialog
def dialog_delete(phone, scr, args):
    name = scr.args["name"]

    def remove() -> None:
        phone.state.contacts = [c for c in phone.state.contacts if c.name != name]

    return confirm_delete(phone, "Delete this contact?", f"{name} will be removed from your contacts.", remove)
