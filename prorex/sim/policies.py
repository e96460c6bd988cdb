"""Scripted policy agents: they see only what ``device.observe()`` returns,
find elements by the text on screen (through ``prorex.ui.parse_hierarchy``)
and act through ``device.act``, succeeding or failing in the ways real GUI
agents do.

A script is a list of ``Op`` (open an app, tap a text, type into the field
with a hint, read something off the screen, answer...). Each family has a
correct script and some failure variants; ``loop`` and ``gives_up`` are
derived from the correct script for every family.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prorex.device import Device
from prorex.schemas import Action, Observation, Step, Trajectory, UIElement
from prorex.ui import parse_hierarchy

OUTCOMES = ("correct", "wrong_target", "partial", "no_save", "wrong_answer", "collateral", "loop",
            "gives_up")
DEFAULT_MIX: dict[str, float] = {
    "correct": 0.42, "wrong_target": 0.1, "partial": 0.1, "no_save": 0.08, "wrong_answer": 0.08,
    "collateral": 0.08, "loop": 0.07, "gives_up": 0.07,
}
SYSTEM_PKGS = ("com.android.systemui", "com.google.android.inputmethod.latin")
Text = str | Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class Op:
    kind: str  # open tap long type clear focus enter back home scroll read collect answer done give_up
    text: Text = ""
    field: str = ""
    nth: int | None = None
    commit: bool = False  # the step that changes the state the task is about
    read: Callable[[list[UIElement]], str | None] | None = None
    key: str = ""


def open_(app: str) -> Op:
    return Op("open", app)


def tap(text: str, *, nth: int | None = None, commit: bool = False) -> Op:
    return Op("tap", text, nth=nth, commit=commit)


def long(text: str) -> Op:
    return Op("long", text)


def type_(hint: str, text: Text, *, commit: bool = False) -> Op:
    return Op("type", text, field=hint, commit=commit)


def clear(hint: str) -> Op:
    return Op("clear", field=hint)


def focus(hint: str) -> Op:
    return Op("focus", field=hint)


def enter() -> Op:
    return Op("enter")


def back() -> Op:
    return Op("back")


def home() -> Op:
    return Op("home")


def read(fn: Callable[[list[UIElement]], str | None], key: str = "answer") -> Op:
    return Op("read", read=fn, key=key)


def collect(key: str = "answer", *, scroll: bool = True) -> Op:
    """Read the titles of every list row, scrolling to the end when ``scroll``."""
    return Op("collect", key=key, nth=1 if scroll else 0)


def calc(fn: Callable[[dict[str, Any]], str], key: str = "answer") -> Op:
    """Work something out from what was read (a sum, a count)."""
    return Op("calc", text=fn, key=key)


def answer(key: str = "answer") -> Op:
    return Op("answer", key=key, commit=True)


# ------------------------------------------------------------ reading screens


def app_elements(els: list[UIElement]) -> list[UIElement]:
    return [e for e in els if e.package not in SYSTEM_PKGS]


def text_after(label: str) -> Callable[[list[UIElement]], str | None]:
    """The first text after the element showing ``label`` (a value under its caption)."""

    def fn(els: list[UIElement]) -> str | None:
        els = app_elements(els)
        for i, e in enumerate(els):
            if e.text == label:
                for f in els[i + 1 :]:
                    if f.text and f.class_name.endswith("TextView"):
                        return f.text
        return None

    return fn


def text_before(label: str) -> Callable[[list[UIElement]], str | None]:
    """The text just before the element showing ``label`` (a value above its caption)."""

    def fn(els: list[UIElement]) -> str | None:
        els = app_elements(els)
        for i, e in enumerate(els):
            if e.text == label:
                for f in reversed(els[:i]):
                    if f.text:
                        return f.text
        return None

    return fn


def list_rows(els: list[UIElement]) -> list[tuple[str, ...]]:
    """The texts of each row of the screen's list, row by row."""
    lists = [e for e in app_elements(els) if e.class_name.endswith("RecyclerView")]
    if not lists:
        return []
    lst = lists[0]
    out = []
    for r in (e for e in els if e.parent == lst.index):
        texts = []
        for e in els[r.index + 1 :]:
            if e.depth <= r.depth:
                break
            if e.text:
                texts.append(e.text)
        if texts:
            out.append(tuple(texts))
    return out


def list_titles(els: list[UIElement]) -> list[str]:
    """The first text of each row of the screen's list."""
    return [r[0] for r in list_rows(els)]


# ------------------------------------------------------------------- agent


class ScriptError(RuntimeError):
    """The scripted agent could not find what it looked for on screen."""


class ScriptedAgent:
    """Runs a script on a device and records the trajectory."""

    def __init__(self, device: Device, *, name: str = "scripted", max_scrolls: int = 6,
                 max_steps: int = 60) -> None:
        self.device = device
        self.name = name
        self.max_scrolls = max_scrolls
        self.max_steps = max_steps
        self.steps: list[Step] = []
        self.memory: dict[str, Any] = {}
        self._obs: Observation | None = None
        self._els: list[UIElement] | None = None
        # what each app looked like when first opened: opening it again resumes where it
        # was left, so the agent walks back to that screen before following its script
        self._mains: dict[str, tuple[str, str | None, bool]] = {}

    def _observe(self) -> Observation:
        if self._obs is None:
            self._obs = self.device.observe()
            self._obs.screenshot_png = None
            self._els = None
        return self._obs

    # the current screen, parsed once per observation and only when needed
    def _look(self) -> list[UIElement]:
        obs = self._observe()
        if self._els is None:
            self._els = parse_hierarchy(obs.xml)
        return self._els

    def _do(self, action: Action, thought: str = "") -> None:
        if len(self.steps) >= self.max_steps:
            raise ScriptError("step budget exhausted")
        self._observe()
        self.steps.append(Step(index=len(self.steps), observation=self._obs, action=action, thought=thought))
        self.device.act(action)
        self._obs = None

    def _find(self, pred: Callable[[UIElement], bool], nth: int | None) -> UIElement | None:
        hits = [e for e in app_elements(self._look()) if pred(e)]
        if not hits:
            return None
        if nth is not None:
            return hits[nth] if nth < len(hits) else None
        return hits[-1]  # the topmost one: a dialog's button over the page behind it

    def _scroll_list(self, direction: str, thought: str) -> bool | None:
        """Scroll the screen's first list. None: there is no list; False: the screen did not change."""
        lists = [e for e in app_elements(self._look()) if e.scrollable]
        if not lists:
            return None
        before = self._observe().xml
        self._do(Action(action_type="scroll", direction=direction, index=lists[0].index, target=lists[0]), thought)
        return self._observe().xml != before

    def _scroll_to(self, pred: Callable[[UIElement], bool], nth: int | None, what: str) -> UIElement:
        el = self._find(pred, nth)
        for direction in ("down", "up"):
            tries = 0
            while el is None and tries < self.max_scrolls:
                moved = self._scroll_list(direction, f"look for {what}")
                if moved is None:
                    break
                tries += 1
                el = self._find(pred, nth)
                if el is None and not moved:
                    break
            if el is not None:
                return el
        raise ScriptError(f"{what!r} is not on the screen")

    def _value(self, text: Text) -> str:
        return text(self.memory) if callable(text) else text

    def _screen_kind(self) -> tuple[str, str | None, bool]:
        obs = self._observe()
        up = any(e.content_desc == "Navigate up" for e in app_elements(self._look()))
        return obs.package, obs.activity, up

    def _open(self, app: str) -> None:
        """Open ``app`` and make sure it shows the screen it first opened on."""
        self._do(Action(action_type="open_app", app_name=app), f"open {app}")
        main = self._mains.setdefault(app, self._screen_kind())
        if self._screen_kind() == main:
            return
        package = self._observe().package
        for _ in range(self.max_scrolls * 2):
            if self._observe().package != package:
                break
            discard = self._find(lambda e: e.text == "Discard" and e.clickable, None)
            if discard is not None:
                self._do(Action(action_type="click", index=discard.index, target=discard),
                         "drop the unsaved changes")
            else:
                self._do(Action(action_type="navigate_back"), f"leave {app} to start it afresh")
        self._do(Action(action_type="open_app", app_name=app), f"open {app} again")

    def run_op(self, op: Op) -> None:
        k = op.kind
        if k == "open":
            self._open(str(op.text))
        elif k in ("tap", "long"):
            label = self._value(op.text)
            el = self._scroll_to(lambda e: label in (e.text, e.content_desc), op.nth, label)
            at = "click" if k == "tap" else "long_press"
            self._do(Action(action_type=at, index=el.index, target=el), f"{at} {label}")
        elif k in ("type", "clear", "focus"):
            el = self._scroll_to(lambda e: e.class_name.endswith("EditText") and op.field in (e.hint, e.text),
                                 None, op.field)
            if k == "type":
                a = Action(action_type="input_text", text=self._value(op.text), index=el.index, target=el)
            elif k == "clear":
                a = Action(action_type="clear_text", index=el.index, target=el)
            else:
                a = Action(action_type="click", index=el.index, target=el)
            self._do(a, f"{k} {op.field}")
        elif k == "enter":
            self._do(Action(action_type="keyboard_enter"))
        elif k == "back":
            self._do(Action(action_type="navigate_back"))
        elif k == "home":
            self._do(Action(action_type="navigate_home"))
        elif k == "read":
            value = op.read(self._look())
            if value is None:
                raise ScriptError(f"nothing to read for {op.key}")
            self.memory[op.key] = value
        elif k == "calc":
            self.memory[op.key] = self._value(op.text)
        elif k == "collect":
            seen: list[tuple[str, ...]] = list(self.memory.get(op.key + "_rows", []))
            for _ in range(self.max_scrolls + 1):
                for row in list_rows(self._look()):
                    if row not in seen:  # consecutive screens overlap by a row
                        seen.append(row)
                if not op.nth or not self._scroll_list("down", "read the rest of the list"):
                    break
            self.memory[op.key + "_rows"] = seen
            self.memory[op.key] = ", ".join(r[0] for r in seen)
        elif k == "answer":
            text = str(self.memory.get(op.key, ""))
            self.memory["__answer__"] = text
            self._do(Action(action_type="answer", text=text), "report the answer")
        elif k == "done":
            self._do(Action(action_type="status", goal_status="complete"), "task complete")
        elif k == "give_up":
            self._do(Action(action_type="status", goal_status="infeasible"), "cannot do this")
        else:
            raise ValueError(f"unknown op {k!r}")

    def run(self, ops: list[Op]) -> Trajectory:
        """Run the script; a step that cannot be found ends it with ``infeasible``."""
        try:
            for op in ops:
                self.run_op(op)
        except ScriptError:
            if len(self.steps) < self.max_steps:
                self._do(Action(action_type="status", goal_status="infeasible"), "could not find it")
        final = self.device.observe()
        final.screenshot_png = None
        return Trajectory(steps=self.steps, final_observation=final, answer=self.memory.get("__answer__"),
                          agent=self.name)


DONE, GIVE_UP = Op("done"), Op("give_up")

# ----------------------------------------------------------------- scripts

Plans = dict[str, list[Op]]
SCRIPTS: dict[str, Callable[[dict[str, Any], random.Random], Plans]] = {}


def script(name: str):
    def wrap(fn):
        SCRIPTS[name] = fn
        return fn

    return wrap


@script("files_delete")
def _files_delete(p, rng):
    def go(name, *extra, confirm="Delete"):
        return [open_("Files"), tap(p["folder"]), long(name), *extra, tap("Delete"),
                tap(confirm, commit=confirm == "Delete")]

    return {"correct": go(p["name"]), "wrong_target": go(p["look"]),
            "collateral": go(p["name"], tap(p["look"])), "partial": go(p["name"], confirm="Cancel")}


@script("files_move")
def _files_move(p, rng):
    def go(name, dst, *extra, finish=True):
        ops = [open_("Files"), tap(p["src"]), long(name), *extra, tap("Move to"), tap(dst)]
        return ops + [tap("Move here", commit=True)] if finish else ops + [back()]

    return {"correct": go(p["name"], p["dst"]), "partial": go(p["name"], p["wrong"]),
            "wrong_target": go(p["look"], p["dst"]), "no_save": go(p["name"], p["dst"], finish=False),
            "collateral": go(p["name"], p["dst"], tap(p["look"]))}


@script("files_rename")
def _files_rename(p, rng):
    def go(name, clear_first=True, ok="OK"):
        ops = [open_("Files"), tap(p["folder"]), long(name), tap("Rename")]
        ops += [clear("File name")] if clear_first else []
        return ops + [type_("File name", p["new"]), tap(ok, commit=ok == "OK")]

    return {"correct": go(p["name"]), "wrong_target": go(p["look"]), "partial": go(p["name"], False),
            "no_save": go(p["name"], ok="Cancel")}


@script("notes_create")
def _notes_create(p, rng):
    start = [open_("Notes"), tap("New note"), type_("Title", p["title"])]
    return {"correct": start + [type_("Start writing…", p["body"]), tap("Save", commit=True)],
            "partial": start + [tap("Save", commit=True)],
            "no_save": start + [type_("Start writing…", p["body"]), back(), back(), tap("Discard")]}


@script("notes_move")
def _notes_move(p, rng):
    def go(title, dst, finish=True):
        ops = [open_("Notes"), tap(p["src"]), tap(title), tap("Move"), tap(dst)]
        return ops + ([tap("Move here", commit=True)] if finish else [back()])

    return {"correct": go(p["title"], p["dst"]), "partial": go(p["title"], p["wrong"]),
            "wrong_target": go(p["look"], p["dst"]), "no_save": go(p["title"], p["dst"], finish=False)}


@script("notes_rename")
def _notes_rename(p, rng):
    def go(title, clear_first=True, ok="OK"):
        ops = [open_("Notes"), tap(p["folder"]), tap(title), tap("Rename")]
        ops += [clear("Name")] if clear_first else []
        return ops + [type_("Name", p["new"]), tap(ok, commit=ok == "OK")]

    return {"correct": go(p["title"]), "wrong_target": go(p["look"]), "partial": go(p["title"], False),
            "no_save": go(p["title"], ok="Cancel")}


@script("notes_delete")
def _notes_delete(p, rng):
    def go(title, ok="Delete"):
        return [open_("Notes"), tap(p["folder"]), tap(title), tap("Delete"), tap(ok, commit=ok == "Delete")]

    return {"correct": go(p["title"]), "wrong_target": go(p["look"]), "partial": go(p["title"], "Cancel"),
            "collateral": go(p["title"]) + go(p["look"])[2:]}


@script("notes_append")
def _notes_append(p, rng):
    start = [open_("Notes"), tap(p["folder"]), tap(p["title"]), tap("Edit"), focus("Start writing…")]
    return {"correct": start + [enter(), type_("Start writing…", p["text"]), tap("Save", commit=True)],
            "partial": start + [type_("Start writing…", p["text"]), tap("Save", commit=True)],
            "no_save": start + [enter(), type_("Start writing…", p["text"]), back(), back(), tap("Discard")]}


@script("notes_edit_and_rename")
def _notes_edit_rename(p, rng):
    body = "Start writing…"
    start = [open_("Notes"), tap(p["folder"]), tap(p["title"]), read(text_after(p["title"]), "old"), tap("Edit"),
             clear(body), type_(body, lambda m: f"{p['text']}\n\n{m['old']}")]
    rename = [tap("Rename"), clear("Name"), type_("Name", p["new"]), tap("OK", commit=True)]
    return {"correct": start + [tap("Save", commit=True)] + rename,
            "partial": start + [tap("Save", commit=True)],
            "no_save": start + [back(), back(), tap("Discard")] + rename}


@script("notes_qa_content")
def _notes_qa(p, rng):
    def go(title):
        return [open_("Notes"), tap(p["folder"]), tap(title), read(text_after(title)), answer()]

    return {"correct": go(p["title"]), "wrong_target": go(p["look"])}


@script("contacts_create")
def _contacts_create(p, rng):
    start = [open_("Contacts"), tap("Create contact"), type_("Name", p["name"])]
    full = start + [type_("Phone", p["phone"]), tap("Save", commit=True)]
    return {"correct": full, "collateral": full + [back()] + full[1:],
            "partial": start + [tap("Save", commit=True)],
            "no_save": start + [type_("Phone", p["phone"]), back(), back(), tap("Discard")]}


@script("contacts_qa_phone")
def _contacts_qa(p, rng):
    def go(name):
        return [open_("Contacts"), tap(name), read(text_before("Mobile")), answer()]

    return {"correct": go(p["name"]), "wrong_target": go(p["look"])}


@script("contacts_edit_phone")
def _contacts_edit(p, rng):
    def go(name, clear_first=True, save=True):
        ops = [open_("Contacts"), tap(name), tap("Edit contact")]
        ops += [clear("Phone")] if clear_first else []
        ops.append(type_("Phone", p["new"]))
        return ops + ([tap("Save", commit=True)] if save else [back(), back(), tap("Discard")])

    return {"correct": go(p["name"]), "wrong_target": go(p["look"]), "partial": go(p["name"], False),
            "no_save": go(p["name"], save=False)}


@script("contacts_delete")
def _contacts_delete(p, rng):
    def go(name, ok="Delete"):
        return [open_("Contacts"), tap(name), tap("Delete"), tap(ok, commit=ok == "Delete")]

    return {"correct": go(p["name"]), "wrong_target": go(p["look"]), "partial": go(p["name"], "Cancel"),
            "collateral": go(p["name"]) + go(p["look"])[1:]}


@script("contacts_favorite")
def _contacts_favorite(p, rng):
    def go(name):
        return [open_("Contacts"), tap(name), tap("Add to favorites", commit=True)]

    return {"correct": go(p["name"]), "wrong_target": go(p["look"]),
            "collateral": go(p["name"]) + [back()] + go(p["look"])[1:]}


@script("clock_timer_create")
def _clock_timer(p, rng):
    def go(h, m, s, button="Save"):
        return [open_("Clock"), tap("Timer"), tap("Add timer"), type_("Hours", str(h)), type_("Minutes", str(m)),
                type_("Seconds", str(s)), tap(button, commit=True)]

    h, m, s = p["hours"], p["minutes"], p["seconds"]
    return {"correct": go(h, m, s), "partial": go(h, m, s, "Start"), "wrong_target": go(h, s, m),
            "no_save": go(h, m, s)[:-1] + [back(), back()]}


@script("clock_alarm_create")
def _clock_alarm(p, rng):
    def go(*, minute=True, ok="OK"):
        ops = [open_("Clock"), tap("Add alarm"), type_("Hour (0-23)", str(p["hour"]))]
        ops += [type_("Minute", str(p["minute"]))] if minute else []
        return ops + [type_("Label", p["label"]), tap(ok, commit=ok == "OK")]

    return {"correct": go(), "partial": go(minute=False), "no_save": go(ok="Cancel"),
            "collateral": go() + [tap("07:00")]}


@script("clock_stopwatch")
def _clock_stopwatch(p, rng):
    start = [open_("Clock"), tap("Stopwatch")]
    return {"correct": start + [tap("Start", commit=True)], "partial": start + [tap("Start", commit=True),
                                                                                tap("Pause")],
            "wrong_target": start + [tap("Reset", commit=True)]}


@script("settings_bluetooth_on")
def _bluetooth(p, rng):
    via_switch = [open_("Settings"), tap("Connected devices"), tap("Bluetooth"), tap("Use Bluetooth", commit=True)]
    via_pair = [open_("Settings"), tap("Connected devices"), tap("Pair new device", commit=True)]
    correct = via_pair if rng.random() < 0.5 else via_switch
    return {"correct": correct,
            "collateral": correct + [back(), back(), tap("Network & internet"), tap("Wi-Fi"), tap("Use Wi-Fi")],
            "wrong_target": [open_("Settings"), tap("Network & internet"), tap("Airplane mode", commit=True)],
            "no_save": via_switch[:-1]}


@script("settings_wifi")
def _wifi(p, rng):
    correct = [open_("Settings"), tap("Network & internet"), tap("Wi-Fi"), tap("Use Wi-Fi", commit=True)]
    return {"correct": correct, "collateral": correct + [back(), tap("Airplane mode")],
            "wrong_target": [open_("Settings"), tap("Network & internet"), tap("Airplane mode", commit=True)],
            "no_save": correct[:-1]}


@script("settings_dark_theme")
def _dark(p, rng):
    start = [open_("Settings"), tap("Display")]
    return {"correct": start + [tap("Dark theme", commit=True)],
            "collateral": start + [tap("Dark theme", commit=True), tap("Adaptive brightness")],
            "wrong_target": start + [tap("Adaptive brightness", commit=True)], "no_save": start}


@script("settings_brightness")
def _brightness(p, rng):
    up = p["level"] == "maximum"
    k = (100 - p["start"]) // 10 if up else p["start"] // 10
    verb, other = ("Increase", "Decrease") if up else ("Decrease", "Increase")
    start = [open_("Settings"), tap("Display"), tap("Brightness level")]
    press = [tap(f"{verb} brightness", commit=i == 0) for i in range(k)]
    return {"correct": start + press, "partial": start + press[:-1],
            "wrong_target": start + [tap(f"{other} brightness", commit=True)] * 2,
            "collateral": start + press + [back(), tap("Adaptive brightness")]}


@script("calendar_create_event")
def _cal_create(p, rng):
    def go(*, time=True, save=True):
        ops = [open_("Calendar"), tap("New event"), type_("Title", p["title"]), clear("Date (YYYY-MM-DD)"),
               type_("Date (YYYY-MM-DD)", p["date"])]
        ops += [clear("Start time (HH:MM)"), type_("Start time (HH:MM)", p["time"])] if time else []
        return ops + ([tap("Save", commit=True)] if save else [back(), back()])

    return {"correct": go(), "partial": go(time=False), "no_save": go(save=False)}


def _day(p) -> str:
    return str(int(p["date"].rsplit("-", 1)[1]))


@script("calendar_qa_events")
def _cal_qa(p, rng):
    start = [open_("Calendar"), tap(_day(p))]
    return {"correct": start + [collect(), answer()], "wrong_answer": start + [collect(scroll=False), answer()]}


@script("calendar_delete_event")
def _cal_delete(p, rng):
    def go(title, ok="Delete"):
        return [open_("Calendar"), tap(_day(p)), tap(title), tap("Delete event"), tap(ok, commit=ok == "Delete")]

    return {"correct": go(p["title"]), "wrong_target": go(p["look"]), "partial": go(p["title"], "Cancel"),
            "collateral": go(p["title"]) + go(p["look"])[2:]}


@script("expenses_add")
def _exp_add(p, rng):
    start = [open_("Expenses"), tap("Add expense"), type_("Name", p["name"]), type_("Amount", p["amount"])]
    full = start + [type_("Category", p["category"]), tap("Save", commit=True)]
    return {"correct": full, "collateral": full + full[1:],
            "partial": start + [tap("Save", commit=True)],
            "no_save": start + [type_("Category", p["category"]), back(), back()]}


def _delete_expense(name: str, ok: str = "Delete") -> list[Op]:
    return [tap(name), tap("Delete"), tap(ok, commit=ok == "Delete")]


@script("expenses_delete")
def _exp_delete(p, rng):
    o = [open_("Expenses")]
    return {"correct": o + _delete_expense(p["name"]), "wrong_target": o + _delete_expense(p["look"]),
            "partial": o + _delete_expense(p["name"], "Cancel"),
            "collateral": o + _delete_expense(p["name"]) + _delete_expense(p["look"])}


@script("expenses_dedup")
def _exp_dedup(p, rng):
    a, b = p["dups"]
    o = [open_("Expenses")]
    return {"correct": o + _delete_expense(a) + _delete_expense(b), "partial": o + _delete_expense(a),
            "collateral": o + _delete_expense(a) + _delete_expense(a) + _delete_expense(b)}


def _category_total(category: str) -> Callable[[dict[str, Any]], str]:
    def fn(mem: dict[str, Any]) -> str:
        cents = 0
        for row in mem.get("rows_rows", []):
            parts = row[1].split(" · ") if len(row) > 1 else []
            if len(parts) >= 2 and parts[1] == category:
                dollars, _, c = parts[0].lstrip("$").partition(".")
                cents += int(dollars) * 100 + int(c or 0)
        return f"${cents // 100}.{cents % 100:02d}"

    return fn


@script("expenses_qa_total")
def _exp_total(p, rng):
    o = [open_("Expenses")]
    tail = [calc(_category_total(p["category"])), answer()]
    return {"correct": o + [collect("rows")] + tail, "wrong_answer": o + [collect("rows", scroll=False)] + tail}


@script("expenses_from_gallery")
def _exp_gallery(p, rng):
    look = [open_("Gallery"), tap("expenses.jpg"), read(text_after("expenses.jpg"), "receipt"), open_("Expenses")]
    adds = [[tap("Add expense"), type_("Name", it["name"]), type_("Amount", it["amount"]),
             type_("Category", it["category"]), tap("Save", commit=True)] for it in p["items"]]
    return {"correct": look + [op for a in adds for op in a], "partial": look + adds[0],
            "no_save": look + adds[0] + adds[1][:-1] + [back(), back()]}


@script("camera_take_photos")
def _camera(p, rng):
    n = p["n"]
    shots = [tap("Take photo", commit=True) for _ in range(n)]
    check = [tap("Gallery")] if rng.random() < 0.3 else []
    plans = {"correct": [open_("Camera")] + shots + check,
             "collateral": [open_("Camera")] + shots + [tap("Take photo")],
             "wrong_target": [open_("Camera"), tap("Switch to front camera", commit=True)]}
    if n > 1:
        plans["partial"] = [open_("Camera")] + shots[:-1]
    return plans


@script("recipes_qa_quantity")
def _recipes_qa(p, rng):
    def go(title):
        return [open_("Recipes"), tap(title), tap(p["ingredient"]), read(text_after(p["ingredient"])), answer()]

    def glance(els):
        # reads whatever quantity is last on the first screen, without scrolling
        f = text_after(p["ingredient"])(els)
        if f is not None:
            return f
        titles = list_titles(els)
        return text_after(titles[-1])(els) if titles else None

    return {"correct": go(p["title"]), "wrong_target": go(p["look"]),
            "wrong_answer": [open_("Recipes"), tap(p["title"]), read(glance), answer()]}


def _delete_recipe(title: str, ok: str = "Delete") -> list[Op]:
    return [tap(title), tap("Delete recipe"), tap(ok, commit=ok == "Delete")]


@script("recipes_dedup")
def _recipes_dedup(p, rng):
    a, b = p["dups"]
    o = [open_("Recipes")]
    return {"correct": o + _delete_recipe(a) + _delete_recipe(b), "partial": o + _delete_recipe(a),
            "collateral": o + _delete_recipe(a) + _delete_recipe(a) + _delete_recipe(b)}


@script("recipes_from_gallery")
def _recipes_gallery(p, rng):
    look = [open_("Gallery"), tap("recipes.jpg"), read(text_after("recipes.jpg"), "card"), open_("Recipes")]
    adds = [[tap("Add recipe"), type_("Title", it["title"]), type_("Description", it["description"]),
             tap("Save", commit=True)] for it in p["items"]]
    return {"correct": look + [op for a in adds for op in a], "partial": look + adds[0],
            "no_save": look + adds[0] + adds[1][:-1] + [back(), back()]}


@script("recipes_delete")
def _recipes_delete(p, rng):
    o = [open_("Recipes")]
    return {"correct": o + _delete_recipe(p["title"]), "wrong_target": o + _delete_recipe(p["look"]),
            "partial": o + _delete_recipe(p["title"], "Cancel"),
            "collateral": o + _delete_recipe(p["title"]) + _delete_recipe(p["look"])}


@script("contact_phone_to_note")
def _contact_note(p, rng):
    def go(name, save=True):
        ops = [open_("Contacts"), tap(name), read(text_before("Mobile"), "phone"), open_("Notes"),
               tap("New note"), type_("Title", p["title"]), type_("Start writing…", lambda m: m["phone"])]
        return ops + ([tap("Save", commit=True)] if save else [back(), back(), tap("Discard")])

    return {"correct": go(p["name"]), "wrong_target": go(p["look"]), "no_save": go(p["name"], save=False)}


# ------------------------------------------------------------ plan choice


def _prefix(ops: list[Op], rng: random.Random) -> list[Op]:
    """Ops before the first committing one, cut at a random point (at least the app launch)."""
    cut = next((i for i, op in enumerate(ops) if op.commit), len(ops))
    return ops[: rng.randint(1, max(1, cut))]


def derived(correct: list[Op], outcome: str, rng: random.Random) -> list[Op]:
    pre = _prefix(correct, rng)
    if outcome == "gives_up":
        return pre + [GIVE_UP]
    # loop: go home and walk the same path again, twice, then claim success
    return pre + ([home()] + pre) * 2 + [DONE]


def plan(family: str, params: dict[str, Any], outcome: str, rng: random.Random, *, qa: bool) -> list[Op]:
    """The script for one family and outcome, with a realistic ending."""
    plans = SCRIPTS[family](params, rng)
    if outcome in ("loop", "gives_up"):
        return derived(plans["correct"], outcome, rng)
    if outcome not in plans:
        raise KeyError(f"{family} has no {outcome!r} script")
    ops = list(plans[outcome])
    if qa:
        return ops + [DONE]
    # agents often leave the evidence behind before declaring success
    r = rng.random()
    if r < 0.3:
        ops.append(back())
    elif r < 0.6:
        ops.append(home())
    return ops + [DONE]


def outcomes_for(family: str, params: dict[str, Any]) -> tuple[str, ...]:
    """The outcomes this family's scripts can produce for these parameters."""
    plans = SCRIPTS[family](params, random.Random(0))
    return tuple(o for o in OUTCOMES if o in plans or o in ("loop", "gives_up"))


def parse_mix(text: str | None) -> dict[str, float]:
    """``"correct=0.45,wrong_target=0.1"`` -> weights; unknown outcomes are an error."""
    if not text:
        return dict(DEFAULT_MIX)
    mix: dict[str, float] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or name not in OUTCOMES:
            raise ValueError(f"bad mix entry {part.strip()!r}: use outcome=weight with outcome in {OUTCOMES}")
        try:
            w = float(value)
        except ValueError:
            raise ValueError(f"bad weight in mix entry {part.strip()!r}") from None
        if w < 0:
            raise ValueError(f"negative weight in mix entry {part.strip()!r}")
        mix[name] = w
    if sum(mix.values()) <= 0:
        raise ValueError("the mix needs at least one positive weight")
    return mix
