"""The sim phone's apps: one module per app, each exporting ``APP``."""

from __future__ import annotations

from prorex.sim.apps import (
    calendar,
    camera,
    clock,
    contacts,
    expenses,
    files,
    gallery,
    launcher,
    notes,
    recipes,
    settings,
)
from prorex.sim.apps.common import App

APPS: dict[str, App] = {
    m.APP.key: m.APP
    for m in (launcher, files, notes, contacts, clock, settings, calendar, expenses, camera, gallery, recipes)
}


def package_of(key: str) -> str:
    return APPS[key].package


__all__ = ["APPS", "App", "package_of"]
