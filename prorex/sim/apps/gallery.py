"""Gallery: photos newest first; the viewer shows what a picture contains."""

from __future__ import annotations

from prorex.sim.apps.common import App, confirm_delete, drop_index, icon, item, label
from prorex.sim.render import Page

APP = App(key="gallery", name="Gallery", package="com.prorex.gallery", main="home")


def _ordered(phone):
    return sorted(enumerate(phone.state.photos), key=lambda p: (p[1].taken, p[0]), reverse=True)


@APP.page
def page_home(phone, scr) -> Page:
    rows = [item(p.name, p.taken, key=p.name,
                 on_click=lambda i=i: phone.push("gallery", "viewer", i=i)) for i, p in _ordered(phone)]
    return Page(package=APP.package, activity=APP.activity("MainActivity"), title="Gallery",
                items=rows, empty="No photos")


@APP.page
def page_viewer(phone, scr) -> Page:
    i = scr.args["i"]
    photos = phone.state.photos
    p = photos[i] if 0 <= i < len(photos) else None
    body = (p.content or f"Photo taken {p.taken}") if p else ""
    return Page(package=APP.package, activity=APP.activity("ViewPagerActivity"),
                title=p.name if p else "Photo", up=phone.pop,
                header=[label(body, rid="photo_text")],
                menu=[icon("Delete", lambda: phone.show_dialog("delete"))])


@APP.dialog
def dialog_delete(phone, scr, args):
    i = scr.args["i"]
    return confirm_delete(phone, "Delete photo?", "", lambda: drop_index(phone.state.photos, i))
