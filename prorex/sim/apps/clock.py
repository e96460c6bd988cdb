"""Clock: alarms (on/off switch), timers (Save = not started, Start), stopwatch."""

from __future__ import annotations

from prorex.sim.apps.common import App, btn, buttons, edit, form_dialog, icon, item, label, toggle
from prorex.sim.render import Page, Row, W
from prorex.sim.state import Alarm, Timer

APP = App(key="clock", name="Clock", package="com.prorex.clock", main="alarms")
TABS = (("Alarm", "alarms"), ("Timer", "timers"), ("Stopwatch", "stopwatch"))


def _tabs(phone, current: str) -> Row:
    return Row([W("text", text=t, desc=t, rid="tab", selected=p == current,
                  on_click=lambda p=p: phone.replace("clock", p)) for t, p in TABS],
               layout="hbox", height=140, rid="tabs", key="tabs")


def _num(s: str) -> int | None:
    s = s.strip()
    return int(s) if s.isdigit() else None


def fmt_timer(t: Timer) -> str:
    return f"{t.hours:02d}:{t.minutes:02d}:{t.seconds:02d}"


@APP.page
def page_alarms(phone, scr) -> Page:
    ck = phone.state.clock

    def flip(a: Alarm) -> None:
        a.enabled = not a.enabled
        phone.changed()

    rows = [toggle(f"{a.hour:02d}:{a.minute:02d}", a.enabled, lambda a=a: flip(a), summary=a.label or "Alarm",
                   key=f"{a.hour:02d}:{a.minute:02d}") for a in ck.alarms]
    return Page(package=APP.package, activity=APP.activity("DeskClock"), title="Alarm",
                header=[_tabs(phone, "alarms")], items=rows, empty="No alarms",
                fab=icon("Add alarm", lambda: phone.show_dialog("alarm")))


@APP.dialog
def dialog_alarm(phone, scr, args):
    def ok() -> None:
        h, m = _num(phone.value("dlg_hour")), _num(phone.value("dlg_minute"))
        if h is None or m is None or not (0 <= h < 24 and 0 <= m < 60):
            return  # invalid time: the dialog stays open
        phone.state.clock.alarms.append(Alarm(hour=h, minute=m, enabled=True,
                                              label=phone.value("dlg_label").strip()))
        phone.close_dialog()

    rows = [edit(phone, "dlg_hour", "Hour (0-23)"), edit(phone, "dlg_minute", "Minute"),
            edit(phone, "dlg_label", "Label")]
    return form_dialog("Set alarm", rows, "OK", ok, phone)


@APP.page
def page_timers(phone, scr) -> Page:
    ck = phone.state.clock

    def flip(t: Timer) -> None:
        t.running = not t.running
        phone.changed()

    rows = [item(fmt_timer(t), "Running" if t.running else "Not started", key=fmt_timer(t),
                 trailing=[W("button", text="Pause" if t.running else "Start", rid="timer_start",
                             on_click=lambda t=t: flip(t), trailing=True, width=220)])
            for t in ck.timers]
    return Page(package=APP.package, activity=APP.activity("DeskClock"), title="Timer",
                header=[_tabs(phone, "timers")], items=rows, empty="No timers",
                fab=icon("Add timer", lambda: phone.push("clock", "new_timer")))


@APP.page
def page_new_timer(phone, scr) -> Page:
    def create(start: bool) -> None:
        vals = [_num(phone.value(k) or "0") for k in ("hours", "minutes", "seconds")]
        if any(v is None for v in vals) or sum(vals) == 0:
            return
        h, m, s = vals
        phone.state.clock.timers.append(Timer(hours=h, minutes=m, seconds=s, running=start))
        phone.pop()

    return Page(
        package=APP.package, activity=APP.activity("TimerSetupActivity"), title="New timer", up=phone.pop,
        header=[edit(phone, "hours", "Hours"), edit(phone, "minutes", "Minutes"),
                edit(phone, "seconds", "Seconds")],
        footer=[buttons(btn("Save", lambda: create(False)), btn("Start", lambda: create(True)))],
    )


@APP.page
def page_stopwatch(phone, scr) -> Page:
    ck = phone.state.clock

    def flip() -> None:
        ck.stopwatch_running = not ck.stopwatch_running
        phone.changed()

    def reset() -> None:
        ck.stopwatch_running, ck.stopwatch_s = False, 0
        phone.changed()

    m, s = divmod(ck.stopwatch_s, 60)
    return Page(
        package=APP.package, activity=APP.activity("DeskClock"), title="Stopwatch",
        header=[_tabs(phone, "stopwatch"), label(f"{m:02d}:{s:02d}", rid="stopwatch_time", height=300)],
        footer=[buttons(btn("Reset", reset), btn("Pause" if ck.stopwatch_running else "Start", flip))],
    )
