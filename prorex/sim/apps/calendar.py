"""Calendar: month grid -> day view (events, taller rows so a busy day is
longer than a screen) -> event details; create and delete events."""

from __future__ import annotations

import calendar as _cal
from datetime import date

from prorex.sim.apps.common import App, btn, confirm_delete, edit, icon, item, label
from prorex.sim.render import Page, Row, W
from prorex.sim.state import Event

APP = App(key="calendar", name="Calendar", package="com.prorex.calendar", main="month")
MONTHS = _cal.month_name


def day_title(d: str) -> str:
    y, m, dd = (int(p) for p in d.split("-"))
    return f"{MONTHS[m]} {dd}, {y}"


def _events_on(phone, d: str) -> list[Event]:
    return sorted((e for e in phone.state.events if e.date == d), key=lambda e: e.time)


@APP.page
def page_month(phone, scr) -> Page:
    today = phone.state.now().date()
    y, m = scr.args.get("year", today.year), scr.args.get("month", today.month)

    def shift(k: int) -> None:
        mm = m + k
        scr.args["year"], scr.args["month"] = y + (mm - 1) // 12, (mm - 1) % 12 + 1
        phone.changed()

    weeks = _cal.Calendar(firstweekday=6).monthdayscalendar(y, m)
    rows = [Row([W("text", text=n, rid="weekday") for n in ("S", "M", "T", "W", "T", "F", "S")],
                layout="hbox", height=90, key="weekdays")]
    for wk in weeks:
        cells = []
        for dd in wk:
            if dd == 0:
                cells.append(W("view"))
                continue
            ds = date(y, m, dd).isoformat()
            n = len(_events_on(phone, ds))
            desc = f"{MONTHS[m]} {dd}" + (f", {n} event{'s' if n != 1 else ''}" if n else "")
            cells.append(W("text", text=str(dd), desc=desc, rid="day",
                           on_click=lambda ds=ds: phone.push("calendar", "day", date=ds)))
        rows.append(Row(cells, layout="hbox", height=200, key=f"week{wk}"))
    return Page(package=APP.package, activity=APP.activity("MainActivity"), title=f"{MONTHS[m]} {y}",
                menu=[icon("Previous month", lambda: shift(-1)), icon("Next month", lambda: shift(1))],
                header=rows,
                fab=icon("New event", lambda: phone.push("calendar", "editor",
                                                         date=today.isoformat())))


@APP.page
def page_day(phone, scr) -> Page:
    d = scr.args["date"]
    rows = []
    for e in _events_on(phone, d):
        r = item(e.title, e.time, key=e.title,
                 on_click=lambda e=e: phone.push("calendar", "event", date=d, title=e.title, time=e.time))
        r.height = 280
        rows.append(r)
    return Page(package=APP.package, activity=APP.activity("DayActivity"), title=day_title(d), up=phone.pop,
                items=rows, list_rid="events_list", empty="No events",
                fab=icon("New event", lambda: phone.push("calendar", "editor", date=d)))


@APP.page
def page_event(phone, scr) -> Page:
    a = scr.args
    return Page(package=APP.package, activity=APP.activity("EventInfoActivity"), title=a["title"],
                up=phone.pop, header=[label(f"{day_title(a['date'])} · {a['time']}", rid="when")],
                menu=[icon("Delete event", lambda: phone.show_dialog("delete"))])


@APP.dialog
def dialog_delete(phone, scr, args):
    a = scr.args

    def remove() -> None:
        evs = phone.state.events
        for i, e in enumerate(evs):
            if (e.title, e.date, e.time) == (a["title"], a["date"], a["time"]):
                del evs[i]
                break

    return confirm_delete(phone, "Delete event?", f"{a['title']} will be deleted.", remove)


def _valid_date(s: str) -> bool:
    try:
        date.fromisoformat(s)
    except ValueError:
        return False
    return True


def _valid_time(s: str) -> bool:
    parts = s.split(":")
    return (len(parts) == 2 and all(p.isdigit() for p in parts)
            and 0 <= int(parts[0]) < 24 and 0 <= int(parts[1]) < 60)


@APP.page
def page_editor(phone, scr) -> Page:
    d0 = scr.args["date"]

    def save() -> None:
        t = phone.value("title").strip()
        ds, tm = phone.value("date", d0).strip(), phone.value("time", "09:00").strip()
        if not t or not _valid_date(ds) or not _valid_time(tm):
            return
        h, m = tm.split(":")
        phone.state.events.append(Event(title=t, date=ds, time=f"{int(h):02d}:{int(m):02d}"))
        phone.pop()

    return Page(package=APP.package, activity=APP.activity("EditEventActivity"), title="New event",
                up=phone.pop, menu=[btn("Save", save, rid="action_done")],
                header=[edit(phone, "title", "Title"), edit(phone, "date", "Date (YYYY-MM-DD)", initial=d0),
                        edit(phone, "time", "Start time (HH:MM)", initial="09:00")])
