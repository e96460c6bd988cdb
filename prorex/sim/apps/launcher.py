"""Home screen: a grid of app icons."""

from __future__ import annotations

from prorex.sim.apps.common import App
from prorex.sim.render import Page, Row, W

APP = App(key="launcher", name="Launcher", package="com.prorex.launcher", main="home")

ICONS = ("camera", "calendar", "clock", "contacts", "expenses", "files", "gallery", "notes",
         "recipes", "settings")


@APP.page
def page_home(phone, scr) -> Page:
    from prorex.sim.apps import APPS

    cells = []
    for key in ICONS:
        app = APPS[key]
        cells.append(W("text", text=app.name, desc=app.name, rid="icon",
                       on_click=lambda k=key: phone.launch(k)))
    rows = [Row(cells[i : i + 4], layout="hbox", height=260, rid="workspace_row", key=f"r{i}")
            for i in range(0, len(cells), 4)]
    return Page(package=APP.package, activity=APP.activity("HomeActivity"), title=None,
                header=rows, back=lambda: None)
