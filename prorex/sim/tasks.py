"""Task families: seeded goal templates with a start state and a ground-truth
checker over the phone's state (AndroidWorld style).

A family samples its parameters from a seeded ``random.Random``, puts its
items into a fresh phone (``setup``), and judges the final state
(``is_successful``). ``evidence`` says whether a screen shows what the checker
depends on; a trajectory whose final screen does not is a *hidden outcome*
task, the case ProRe's probing is for.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prorex.sim import world as wd
from prorex.sim.render import Frame
from prorex.sim.state import (
    STORAGE,
    Contact,
    Event,
    Expense,
    FileItem,
    Note,
    PhoneState,
    Photo,
    Recipe,
)

Params = dict[str, Any]


# ------------------------------------------------------------------ screens


@dataclass(frozen=True)
class ScreenView:
    """What one rendered screen shows, for deciding whether evidence is visible."""

    package: str
    activity: str
    title: str | None
    rows: tuple[str, ...]  # keys of the list rows on screen
    truncated: bool  # the list goes on beyond the screen
    dialog: bool

    @classmethod
    def of(cls, frame: Frame) -> ScreenView:
        p = frame.page
        rows = tuple(r.key for r in frame.visible_rows)
        return cls(p.package, p.activity, p.title, rows, frame.truncated, p.dialog is not None)

    def act(self, name: str) -> bool:
        return self.activity.endswith("." + name)

    def on(self, package: str, title: str) -> bool:
        return self.package == package and self.title == title and not self.dialog

    def shows_list(self, package: str, title: str, key: str) -> bool:
        """The page lists everything (absence is visible) or shows the item itself."""
        return self.on(package, title) and (not self.truncated or key in self.rows)


PKG = {k: f"com.prorex.{k}" for k in ("files", "notes", "contacts", "clock", "settings", "calendar",
                                     "expenses", "camera", "gallery", "recipes")}


# ----------------------------------------------------------------- families


@dataclass(frozen=True)
class Family:
    name: str
    app: str
    kind: str  # qa / create / modify / delete / move / settings / multi_app
    goal: str
    sample: Callable[[random.Random], Params]
    setup: Callable[[PhoneState, Params, random.Random], None]
    check: Callable[[PhoneState, Params, str | None], bool]
    evidence: Callable[[ScreenView, Params], bool]
    max_steps: int = 30

    @property
    def qa(self) -> bool:
        return self.kind == "qa"

    def goal_for(self, params: Params) -> str:
        return self.goal.format(**params)

    def is_successful(self, state: PhoneState, params: Params, answer: str | None = None) -> bool:
        return bool(self.check(state, params, answer))


FAMILIES: dict[str, Family] = {}


def family(name: str, app: str, kind: str, goal: str, *, max_steps: int = 30):
    """Register a family from a class holding ``sample``/``setup``/``check``/``evidence``."""

    def wrap(cls: type) -> type:
        FAMILIES[name] = Family(name, app, kind, goal, cls.sample, cls.setup, cls.check, cls.evidence,
                                max_steps)
        return cls

    return wrap


def build_state(name: str, params: Params, seed: int) -> PhoneState:
    """The start state of a task: the seeded base world plus the family's items."""
    rng = random.Random(seed)
    state = wd.base_world(rng)
    FAMILIES[name].setup(state, params, rng)
    return state


# ----------------------------------------------------------------- helpers


def norm(s: str | None) -> str:
    return re.sub(r"\s+", " ", (s or "").strip().strip(".").strip('"').strip("'")).lower()


def digits(s: str | None) -> str:
    return re.sub(r"\D", "", s or "")


def _lookalike(rng: random.Random, name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    stem, ext = (stem, "." + ext) if dot else (name, "")
    return rng.choice((f"final_{stem}{ext}", f"{stem}_copy{ext}", f"{stem}_old{ext}", f"{stem}_2{ext}"))


def _two_folders(rng: random.Random, pool: tuple[str, ...]) -> tuple[str, str, str]:
    a, b, c = rng.sample(pool, 3)
    return a, b, c


def _names(state: PhoneState, folder: str) -> list[str]:
    return [f.name for f in state.files.get(folder, [])]


def _put_file(state: PhoneState, folder: str, name: str, rng: random.Random) -> None:
    for k in list(state.files):
        state.files[k] = [f for f in state.files[k] if f.name != name]
    state.files.setdefault(folder, []).insert(rng.randint(0, len(state.files.get(folder, []))),
                                              FileItem(name=name, size=rng.randint(5_000, 8_000_000),
                                                       modified=wd.stamp(rng)))


def _notes_titles(state: PhoneState, folder: str) -> list[str]:
    return [n.title for n in state.notes.get(folder, [])]


def _note(state: PhoneState, folder: str, title: str) -> Note | None:
    return next((n for n in state.notes.get(folder, []) if n.title == title), None)


def _put_note(state: PhoneState, folder: str, title: str, body: str, rng: random.Random) -> None:
    for k in list(state.notes):
        state.notes[k] = [n for n in state.notes[k] if n.title != title]
    lst = state.notes.setdefault(folder, [])
    lst.insert(rng.randint(0, len(lst)), Note(title=title, body=body, modified=wd.stamp(rng)))


def _note_name(rng: random.Random) -> str:
    return f"{rng.choice(wd.ADJ)}_{rng.choice(wd.NOUN)}_{rng.choice(('copy', 'notes', 'draft', 'plan'))}.md"


def _contact(state: PhoneState, name: str) -> Contact | None:
    return next((c for c in state.contacts if c.name == name), None)


def _put_contact(state: PhoneState, c: Contact) -> None:
    state.contacts = [x for x in state.contacts if x.name != c.name] + [c]


def _similar_people(rng: random.Random) -> tuple[str, str]:
    first = rng.choice(wd.FIRST)
    a, b = rng.sample(wd.LAST, 2)
    return f"{first} {a}", f"{first} {b}"


NOTES_TITLE = "Notes"


def _ntitle(folder: str) -> str:
    return folder or NOTES_TITLE


# =================================================================== files


@family("files_delete", "files", "delete",
        "Delete the file {name} from the {folder} folder in the Files app ({storage} storage).")
class FilesDelete:
    @staticmethod
    def sample(rng):
        folder = rng.choice(wd.FILE_FOLDERS)
        name = wd.file_name(rng, wd.EXT[folder])
        name = f"{rng.choice('abcdefghjkmnpqrstuvwxyz')}{rng.randint(1, 9)}{rng.choice('abcdef')}{rng.randint(1, 9)}_{name}"
        return {"folder": folder, "name": name, "look": _lookalike(rng, name), "storage": STORAGE}

    @staticmethod
    def setup(st, p, rng):
        _put_file(st, p["folder"], p["name"], rng)
        _put_file(st, p["folder"], p["look"], rng)

    @staticmethod
    def check(st, p, answer):
        names = _names(st, p["folder"])
        return p["name"] not in names and p["look"] in names and len(names) >= 1

    @staticmethod
    def evidence(v, p):
        return v.shows_list(PKG["files"], p["folder"], p["name"])


@family("files_move", "files", "move",
        "Move the file {name} from {src} within the {storage} storage area to the {dst} folder in the "
        "same storage area, using the Files app.")
class FilesMove:
    @staticmethod
    def sample(rng):
        src, dst, wrong = _two_folders(rng, wd.FILE_FOLDERS)
        name = f"{rng.choice(('holiday', 'family', 'summer', 'office', 'party'))}_{rng.choice(wd.NOUN)}.jpg"
        return {"src": src, "dst": dst, "wrong": wrong, "name": name, "look": _lookalike(rng, name),
                "storage": STORAGE}

    @staticmethod
    def setup(st, p, rng):
        _put_file(st, p["src"], p["name"], rng)
        _put_file(st, p["src"], p["look"], rng)

    @staticmethod
    def check(st, p, answer):
        return (p["name"] in _names(st, p["dst"]) and p["name"] not in _names(st, p["src"])
                and p["look"] in _names(st, p["src"]))

    @staticmethod
    def evidence(v, p):
        return v.shows_list(PKG["files"], p["dst"], p["name"]) or (
            v.on(PKG["files"], p["src"]) and p["name"] in v.rows)


@family("files_rename", "files", "modify",
        "In the Files app, rename the file {name} in the {folder} folder to {new}.")
class FilesRename:
    @staticmethod
    def sample(rng):
        folder = rng.choice(("Documents", "Download", "Pictures"))
        name = wd.file_name(rng, wd.EXT[folder])
        stem, ext = name.rsplit(".", 1)
        return {"folder": folder, "name": name, "look": _lookalike(rng, name),
                "new": f"{stem}_{rng.choice(('final', 'v2', 'signed', 'backup'))}.{ext}"}

    @staticmethod
    def setup(st, p, rng):
        _put_file(st, p["folder"], p["name"], rng)
        _put_file(st, p["folder"], p["look"], rng)

    @staticmethod
    def check(st, p, answer):
        names = _names(st, p["folder"])
        return p["new"] in names and p["name"] not in names and p["look"] in names

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["files"], p["folder"]) and (not v.truncated or p["new"] in v.rows)


# =================================================================== notes


@family("notes_create", "notes", "create",
        "Create a new note in the Notes app named {title} with the following text: {body}")
class NotesCreate:
    @staticmethod
    def sample(rng):
        return {"title": f"2023_{rng.randint(1, 12):02d}_{rng.randint(10, 28)}_{rng.choice(wd.ADJ)}_"
                         f"{rng.choice(wd.NOUN)}.md", "body": rng.choice(wd.SENTENCES)}

    @staticmethod
    def setup(st, p, rng):
        for k in st.notes:
            st.notes[k] = [n for n in st.notes[k] if n.title != p["title"]]

    @staticmethod
    def check(st, p, answer):
        n = _note(st, "", p["title"])
        return n is not None and norm(n.body) == norm(p["body"])

    @staticmethod
    def evidence(v, p):
        return (v.on(PKG["notes"], p["title"]) and v.act("DocumentActivity")) or (
            v.on(PKG["notes"], NOTES_TITLE) and not v.truncated and p["title"] not in v.rows)


@family("notes_move", "notes", "move", "In the Notes app, move the note {title} from {src} to {dst}.")
class NotesMove:
    @staticmethod
    def sample(rng):
        src, dst, wrong = _two_folders(rng, wd.NOTE_FOLDERS)
        title = _note_name(rng)
        return {"title": title, "src": src, "dst": dst, "wrong": wrong, "look": "final_" + title}

    @staticmethod
    def setup(st, p, rng):
        _put_note(st, p["src"], p["title"], rng.choice(wd.SENTENCES), rng)
        _put_note(st, p["src"], p["look"], rng.choice(wd.SENTENCES), rng)

    @staticmethod
    def check(st, p, answer):
        return (p["title"] in _notes_titles(st, p["dst"]) and p["title"] not in _notes_titles(st, p["src"])
                and p["look"] in _notes_titles(st, p["src"]))

    @staticmethod
    def evidence(v, p):
        return v.shows_list(PKG["notes"], p["dst"], p["title"]) or (
            v.on(PKG["notes"], p["src"]) and p["title"] in v.rows)


@family("notes_rename", "notes", "modify", "In the Notes app, rename the note {title} in {folder} to {new}.")
class NotesRename:
    @staticmethod
    def sample(rng):
        title = _note_name(rng)
        return {"title": title, "folder": rng.choice(wd.NOTE_FOLDERS), "look": title.replace(".md", "_2.md"),
                "new": f"{rng.choice(wd.ADJ)}_{rng.choice(wd.NOUN)}_2023_{rng.randint(1, 12):02d}_"
                       f"{rng.randint(10, 28)}.md"}

    @staticmethod
    def setup(st, p, rng):
        _put_note(st, p["folder"], p["title"], rng.choice(wd.SENTENCES), rng)
        _put_note(st, p["folder"], p["look"], rng.choice(wd.SENTENCES), rng)

    @staticmethod
    def check(st, p, answer):
        t = _notes_titles(st, p["folder"])
        return p["new"] in t and p["title"] not in t and p["look"] in t

    @staticmethod
    def evidence(v, p):
        return (v.on(PKG["notes"], p["new"]) and v.act("DocumentActivity")) or v.shows_list(
            PKG["notes"], p["folder"], p["new"])


@family("notes_delete", "notes", "delete", "Delete the note {title} from the {folder} folder in the Notes app.")
class NotesDelete:
    @staticmethod
    def sample(rng):
        title = _note_name(rng)
        return {"title": title, "folder": rng.choice(wd.NOTE_FOLDERS), "look": _lookalike(rng, title)}

    @staticmethod
    def setup(st, p, rng):
        _put_note(st, p["folder"], p["title"], rng.choice(wd.SENTENCES), rng)
        _put_note(st, p["folder"], p["look"], rng.choice(wd.SENTENCES), rng)

    @staticmethod
    def check(st, p, answer):
        t = _notes_titles(st, p["folder"])
        return p["title"] not in t and p["look"] in t

    @staticmethod
    def evidence(v, p):
        return v.shows_list(PKG["notes"], p["folder"], p["title"])


@family("notes_append", "notes", "modify",
        "Update the note {title} in the {folder} folder of the Notes app by adding the following text "
        "on a new line at the end: {text}")
class NotesAppend:
    @staticmethod
    def sample(rng):
        title = f"2023_08_{rng.randint(10, 28)}_{rng.choice(wd.ADJ)}_{rng.choice(wd.NOUN)}.txt"
        code = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789") for _ in range(12))
        return {"title": title, "folder": rng.choice(wd.NOTE_FOLDERS), "old": rng.choice(wd.SENTENCES),
                "text": code}

    @staticmethod
    def setup(st, p, rng):
        _put_note(st, p["folder"], p["title"], p["old"], rng)

    @staticmethod
    def check(st, p, answer):
        n = _note(st, p["folder"], p["title"])
        return n is not None and n.body.rstrip("\n") == p["old"] + "\n" + p["text"]

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["notes"], p["title"]) and v.act("DocumentActivity")


@family("notes_edit_and_rename", "notes", "modify",
        "In the Notes app, update the note {title} in the {folder} folder: put the line {text} at the top, "
        "followed by a blank line and then the existing content. Then rename the note to {new}.",
        max_steps=40)
class NotesEditRename:
    @staticmethod
    def sample(rng):
        title = f"2023_08_{rng.randint(10, 28)}_{rng.choice(wd.ADJ)}_{rng.choice(wd.NOUN)}.txt"
        code = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789") for _ in range(10))
        return {"title": title, "folder": rng.choice(wd.NOTE_FOLDERS), "old": rng.choice(wd.SENTENCES),
                "text": code, "new": f"{rng.choice(wd.ADJ)}_{rng.choice(wd.NOUN)}_2023_07_{rng.randint(10, 28)}.txt"}

    @staticmethod
    def setup(st, p, rng):
        _put_note(st, p["folder"], p["title"], p["old"], rng)

    @staticmethod
    def check(st, p, answer):
        n = _note(st, p["folder"], p["new"])
        return (n is not None and _note(st, p["folder"], p["title"]) is None
                and n.body.rstrip("\n") == f"{p['text']}\n\n{p['old']}")

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["notes"], p["new"]) and v.act("DocumentActivity")


@family("notes_qa_content", "notes", "qa", "In the Notes app, what is the content of the note {title} in "
        "the {folder} folder? Answer with the text only.")
class NotesQA:
    @staticmethod
    def sample(rng):
        title = _note_name(rng)
        a, b = rng.sample(wd.SENTENCES, 2)
        return {"title": title, "folder": rng.choice(wd.NOTE_FOLDERS), "body": a,
                "look": _lookalike(rng, title), "look_body": b}

    @staticmethod
    def setup(st, p, rng):
        _put_note(st, p["folder"], p["title"], p["body"], rng)
        _put_note(st, p["folder"], p["look"], p["look_body"], rng)

    @staticmethod
    def check(st, p, answer):
        return norm(answer) == norm(p["body"])

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["notes"], p["title"]) and v.act("DocumentActivity")


# ================================================================ contacts


@family("contacts_create", "contacts", "create",
        "Create a new contact for {name} in the Contacts app. Their number is {phone}.")
class ContactsCreate:
    @staticmethod
    def sample(rng):
        return {"name": wd.person(rng), "phone": wd.phone_number(rng)}

    @staticmethod
    def setup(st, p, rng):
        st.contacts = [c for c in st.contacts if c.name != p["name"]]

    @staticmethod
    def check(st, p, answer):
        same = [c for c in st.contacts if c.name == p["name"]]
        return len(same) == 1 and digits(same[0].phone) == digits(p["phone"])

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["contacts"], p["name"]) and v.act("ContactDetailActivity")


@family("contacts_qa_phone", "contacts", "qa", "What is the phone number of the contact {name} in the "
        "Contacts app? Answer with the number only.")
class ContactsQA:
    @staticmethod
    def sample(rng):
        name, look = _similar_people(rng)
        return {"name": name, "phone": wd.phone_number(rng), "look": look, "look_phone": wd.phone_number(rng)}

    @staticmethod
    def setup(st, p, rng):
        _put_contact(st, Contact(name=p["name"], phone=p["phone"]))
        _put_contact(st, Contact(name=p["look"], phone=p["look_phone"]))

    @staticmethod
    def check(st, p, answer):
        return digits(answer) == digits(p["phone"]) and bool(digits(answer))

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["contacts"], p["name"])


@family("contacts_edit_phone", "contacts", "modify",
        "In the Contacts app, change the phone number of {name} to {new}.")
class ContactsEdit:
    @staticmethod
    def sample(rng):
        name, look = _similar_people(rng)
        return {"name": name, "look": look, "old": wd.phone_number(rng), "new": wd.phone_number(rng),
                "look_phone": wd.phone_number(rng)}

    @staticmethod
    def setup(st, p, rng):
        _put_contact(st, Contact(name=p["name"], phone=p["old"]))
        _put_contact(st, Contact(name=p["look"], phone=p["look_phone"]))

    @staticmethod
    def check(st, p, answer):
        c, lk = _contact(st, p["name"]), _contact(st, p["look"])
        return (c is not None and digits(c.phone) == digits(p["new"]) and lk is not None
                and digits(lk.phone) == digits(p["look_phone"]))

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["contacts"], p["name"]) and v.act("ContactDetailActivity")


@family("contacts_delete", "contacts", "delete", "Delete the contact {name} from the Contacts app.")
class ContactsDelete:
    @staticmethod
    def sample(rng):
        name, look = _similar_people(rng)
        return {"name": name, "look": look}

    @staticmethod
    def setup(st, p, rng):
        _put_contact(st, Contact(name=p["name"], phone=wd.phone_number(rng)))
        _put_contact(st, Contact(name=p["look"], phone=wd.phone_number(rng)))

    @staticmethod
    def check(st, p, answer):
        return _contact(st, p["name"]) is None and _contact(st, p["look"]) is not None and len(st.contacts) >= 8

    @staticmethod
    def evidence(v, p):
        return v.shows_list(PKG["contacts"], "Contacts", p["name"])


@family("contacts_favorite", "contacts", "modify", "Add {name} to favorites in the Contacts app.")
class ContactsFavorite:
    @staticmethod
    def sample(rng):
        name, look = _similar_people(rng)
        return {"name": name, "look": look}

    @staticmethod
    def setup(st, p, rng):
        _put_contact(st, Contact(name=p["name"], phone=wd.phone_number(rng)))
        _put_contact(st, Contact(name=p["look"], phone=wd.phone_number(rng)))

    @staticmethod
    def check(st, p, answer):
        c, lk = _contact(st, p["name"]), _contact(st, p["look"])
        return c is not None and c.favorite and lk is not None and not lk.favorite

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["contacts"], p["name"]) or (v.on(PKG["contacts"], "Contacts") and p["name"] in v.rows)


# =================================================================== clock


@family("clock_timer_create", "clock", "create",
        "Create a timer with {hours} hours, {minutes} minutes, and {seconds} seconds in the Clock app. "
        "Do not start the timer.")
class ClockTimer:
    @staticmethod
    def sample(rng):
        return {"hours": rng.randint(0, 1), "minutes": rng.randint(1, 59), "seconds": rng.randint(1, 59)}

    @staticmethod
    def setup(st, p, rng):
        st.clock.timers = []

    @staticmethod
    def check(st, p, answer):
        ts = st.clock.timers
        return len(ts) == 1 and (ts[0].hours, ts[0].minutes, ts[0].seconds) == (
            p["hours"], p["minutes"], p["seconds"]) and not ts[0].running

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["clock"], "Timer")


@family("clock_alarm_create", "clock", "create",
        "Set an alarm for {hour:02d}:{minute:02d} labelled {label} in the Clock app, and make sure it is on.")
class ClockAlarm:
    @staticmethod
    def sample(rng):
        return {"hour": rng.choice((5, 6, 9, 10, 13, 15, 18, 21)), "minute": rng.choice((0, 15, 30, 45, 5, 50)),
                "label": rng.choice(("Medication", "Laundry", "Meeting", "Pick up kids", "Stretch"))}

    @staticmethod
    def setup(st, p, rng):
        pass

    @staticmethod
    def check(st, p, answer):
        alarms = st.clock.alarms
        return any(a.hour == p["hour"] and a.minute == p["minute"] and a.enabled for a in alarms) and any(
            (a.hour, a.minute, a.enabled) == (7, 0, True) for a in alarms)

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["clock"], "Alarm")


@family("clock_stopwatch", "clock", "modify", "Start the stopwatch in the Clock app and leave it running.")
class ClockStopwatch:
    @staticmethod
    def sample(rng):
        return {}

    @staticmethod
    def setup(st, p, rng):
        st.clock.stopwatch_running, st.clock.stopwatch_s = False, 0

    @staticmethod
    def check(st, p, answer):
        return st.clock.stopwatch_running

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["clock"], "Stopwatch")


# ================================================================ settings


@family("settings_bluetooth_on", "settings", "settings", "Turn Bluetooth on.")
class BluetoothOn:
    @staticmethod
    def sample(rng):
        return {"wifi": rng.random() < 0.8}

    @staticmethod
    def setup(st, p, rng):
        st.settings.bluetooth, st.settings.wifi = False, p["wifi"]

    @staticmethod
    def check(st, p, answer):
        s = st.settings
        return s.bluetooth and s.wifi == p["wifi"] and not s.airplane

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["settings"], "Bluetooth") or v.on(PKG["settings"], "Connected devices")


@family("settings_wifi", "settings", "settings", "Turn Wi-Fi {state} in the Settings app.")
class WifiToggle:
    @staticmethod
    def sample(rng):
        return {"state": rng.choice(("on", "off"))}

    @staticmethod
    def setup(st, p, rng):
        st.settings.wifi = p["state"] == "off"

    @staticmethod
    def check(st, p, answer):
        return st.settings.wifi == (p["state"] == "on") and not st.settings.airplane

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["settings"], "Wi-Fi") or v.on(PKG["settings"], "Network & internet")


@family("settings_dark_theme", "settings", "settings", "Turn dark theme {state} in Settings.")
class DarkTheme:
    @staticmethod
    def sample(rng):
        return {"state": rng.choice(("on", "off"))}

    @staticmethod
    def setup(st, p, rng):
        st.settings.dark_theme = p["state"] == "off"

    @staticmethod
    def check(st, p, answer):
        s = st.settings
        return s.dark_theme == (p["state"] == "on") and not s.adaptive_brightness

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["settings"], "Display")


@family("settings_brightness", "settings", "settings", "Set the screen brightness to the {level} in Settings.")
class Brightness:
    @staticmethod
    def sample(rng):
        return {"level": rng.choice(("maximum", "minimum")), "start": rng.choice((30, 40, 50, 60, 70))}

    @staticmethod
    def setup(st, p, rng):
        st.settings.brightness = p["start"]

    @staticmethod
    def check(st, p, answer):
        s = st.settings
        return s.brightness == (100 if p["level"] == "maximum" else 0) and not s.adaptive_brightness

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["settings"], "Brightness level") or v.on(PKG["settings"], "Display")


# ================================================================ calendar


def _human_date(d: str) -> str:
    from prorex.sim.apps.calendar import day_title

    return day_title(d)


@family("calendar_create_event", "calendar", "create",
        "In the Calendar app, create an event titled {title} on {date_h} at {time}.")
class CalendarCreate:
    @staticmethod
    def sample(rng):
        d = f"2023-10-{rng.randint(16, 31):02d}"
        base = rng.choice(("Dentist", "Call mom", "Tax deadline", "Team lunch", "Vet visit"))
        return {"title": f"{base} {rng.choice(('', '(rescheduled)', '- confirm'))}".strip(),
                "date": d, "date_h": _human_date(d), "time": f"{rng.randint(8, 18):02d}:{rng.choice((0, 30)):02d}"}

    @staticmethod
    def setup(st, p, rng):
        st.events = [e for e in st.events if e.title != p["title"]]

    @staticmethod
    def check(st, p, answer):
        return any(e.title == p["title"].strip() and e.date == p["date"] and e.time == p["time"]
                   for e in st.events)

    @staticmethod
    def evidence(v, p):
        return v.shows_list(PKG["calendar"], p["date_h"], p["title"])


@family("calendar_qa_events", "calendar", "qa",
        "Do I have any events on {date_h} in the Calendar app? Answer with the titles only. If there are "
        "several, answer with a comma separated list.")
class CalendarQA:
    @staticmethod
    def sample(rng):
        d = f"2023-10-{rng.randint(16, 31):02d}"
        titles = rng.sample(wd.EVENT_TITLES, rng.randint(8, 10))
        return {"date": d, "date_h": _human_date(d), "titles": titles}

    @staticmethod
    def setup(st, p, rng):
        st.events = [e for e in st.events if e.date != p["date"]]
        hours = sorted(rng.sample(range(7, 21), len(p["titles"])))
        for t, h in zip(p["titles"], hours, strict=True):
            st.events.append(Event(title=t, date=p["date"], time=f"{h:02d}:{rng.choice((0, 30)):02d}"))

    @staticmethod
    def check(st, p, answer):
        got = sorted(norm(a) for a in (answer or "").split(",") if a.strip())
        return got == sorted(norm(t) for t in p["titles"])

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["calendar"], p["date_h"]) and not v.truncated


@family("calendar_delete_event", "calendar", "delete", "Delete the event {title} on {date_h} from the Calendar app.")
class CalendarDelete:
    @staticmethod
    def sample(rng):
        d = f"2023-10-{rng.randint(16, 31):02d}"
        t = rng.choice(wd.EVENT_TITLES)
        return {"title": t, "look": t + " (prep)", "date": d, "date_h": _human_date(d)}

    @staticmethod
    def setup(st, p, rng):
        st.events = [e for e in st.events if e.date != p["date"]]
        st.events.append(Event(title=p["look"], date=p["date"], time="09:00"))
        st.events.append(Event(title=p["title"], date=p["date"], time="10:00"))

    @staticmethod
    def check(st, p, answer):
        on = [e.title for e in st.events if e.date == p["date"]]
        return p["title"] not in on and p["look"] in on

    @staticmethod
    def evidence(v, p):
        return v.shows_list(PKG["calendar"], p["date_h"], p["title"])


# ================================================================ expenses


def _exp_key(e: Expense) -> tuple:
    return (e.name, e.amount_cents, e.category, e.date)


@family("expenses_add", "expenses", "create",
        "Add an expense named {name} of {amount} in the category {category} to the Expenses app.")
class ExpensesAdd:
    @staticmethod
    def sample(rng):
        name = rng.choice(("Train ticket", "Office chair", "Birthday gift", "Plumber", "Cinema", "Museum"))
        return {"name": name, "amount": f"{rng.randint(5, 300)}.{rng.choice((0, 50, 99)):02d}",
                "category": rng.choice(("Transport", "Others", "Entertainment", "Housing"))}

    @staticmethod
    def setup(st, p, rng):
        st.expenses = [e for e in st.expenses if e.name != p["name"]]

    @staticmethod
    def check(st, p, answer):
        cents = round(float(p["amount"]) * 100)
        same = [e for e in st.expenses if e.name == p["name"]]
        return len(same) == 1 and same[0].amount_cents == cents and same[0].category == p["category"]

    @staticmethod
    def evidence(v, p):
        return v.shows_list(PKG["expenses"], "Expenses", p["name"])


@family("expenses_delete", "expenses", "delete", "Delete the following expenses from the Expenses app: {name}.")
class ExpensesDelete:
    @staticmethod
    def sample(rng):
        name = rng.choice(("Rental Income", "Gym Membership", "Concert Tickets", "Car Insurance", "Netflix"))
        return {"name": name, "look": name + rng.choice((" Refund", " (old)", " 2"))}

    @staticmethod
    def setup(st, p, rng):
        st.expenses = [e for e in st.expenses if e.name not in (p["name"], p["look"])]
        for n in (p["look"], p["name"]):
            st.expenses.insert(rng.randint(0, len(st.expenses)), wd.expense(rng, n))

    @staticmethod
    def check(st, p, answer):
        names = [e.name for e in st.expenses]
        return p["name"] not in names and p["look"] in names and len(names) >= 10

    @staticmethod
    def evidence(v, p):
        return v.shows_list(PKG["expenses"], "Expenses", p["name"])


@family("expenses_dedup", "expenses", "delete",
        "Delete all but one of any expenses in the Expenses app that are exact duplicates, ensuring at "
        "least one instance of each unique expense remains.", max_steps=40)
class ExpensesDedup:
    @staticmethod
    def sample(rng):
        return {"dups": rng.sample(("Groceries", "Coffee", "Taxi", "Lunch", "Parking", "Phone Bill"), 2)}

    @staticmethod
    def setup(st, p, rng):
        st.expenses = [e for e in st.expenses if e.name not in p["dups"]]
        while len(st.expenses) < 14:
            n = rng.choice(wd.EXPENSE_NAMES)
            if n not in p["dups"] and all(e.name != n for e in st.expenses):
                st.expenses.append(wd.expense(rng, n))
        first, second = (wd.expense(rng, n) for n in p["dups"])
        # one copy near the top, the other copy below the fold
        st.expenses[1:1] = [first]
        st.expenses.insert(4, second)
        st.expenses.insert(rng.randint(11, len(st.expenses)), first.model_copy())
        st.expenses.append(second.model_copy())

    @staticmethod
    def check(st, p, answer):
        counts = Counter(_exp_key(e) for e in st.expenses)
        names = {e.name for e in st.expenses}
        return all(c == 1 for c in counts.values()) and all(d in names for d in p["dups"]) and len(counts) >= 14

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["expenses"], "Expenses") and not v.truncated


@family("expenses_qa_total", "expenses", "qa",
        "How much did I spend in total on {category} according to the Expenses app? Answer with the amount "
        "only, like $12.34.")
class ExpensesTotal:
    @staticmethod
    def sample(rng):
        return {"category": rng.choice(("Food", "Transport", "Utilities", "Entertainment"))}

    @staticmethod
    def setup(st, p, rng):
        others = [n for n in wd.EXPENSE_NAMES if wd.EXPENSE_CAT[n] != p["category"]]
        mine = [n for n in wd.EXPENSE_NAMES if wd.EXPENSE_CAT[n] == p["category"]]
        st.expenses = [wd.expense(rng, n) for n in rng.sample(others, 10)]
        # some of the category above the fold, at least one below it
        for n in rng.sample(mine, min(3, len(mine))):
            st.expenses.insert(rng.randint(0, 4), wd.expense(rng, n))
        st.expenses.append(wd.expense(rng, rng.choice(mine) + " (card)"))
        st.expenses[-1].category = p["category"]

    @staticmethod
    def check(st, p, answer):
        from prorex.sim.apps.expenses import parse_amount

        want = sum(e.amount_cents for e in st.expenses if e.category == p["category"])
        return parse_amount(answer or "x") == want

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["expenses"], "Expenses") and not v.truncated


@family("expenses_from_gallery", "expenses", "multi_app",
        "Add the expenses from expenses.jpg in the Gallery app to the Expenses app.", max_steps=45)
class ExpensesFromGallery:
    @staticmethod
    def sample(rng):
        names = rng.sample(("Hotel stay", "Team dinner", "Printer ink", "Conference fee", "Airport taxi"), 2)
        return {"items": [{"name": n, "amount": f"{rng.randint(10, 400)}.00",
                           "category": rng.choice(("Transport", "Food", "Others"))} for n in names]}

    @staticmethod
    def setup(st, p, rng):
        lines = [f"{it['name']}: ${it['amount']} ({it['category']})" for it in p["items"]]
        st.photos.append(Photo(name="expenses.jpg", taken="2023-10-14 18:02:11",
                               content="Receipts\n" + "\n".join(lines)))

    @staticmethod
    def check(st, p, answer):
        return all(any(e.name == it["name"] and e.amount_cents == round(float(it["amount"]) * 100)
                       for e in st.expenses) for it in p["items"])

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["expenses"], "Expenses") and all(it["name"] in v.rows for it in p["items"])


# ======================================================== camera / gallery


@family("camera_take_photos", "camera", "create", "Take {n} photo{s} with the Camera app.")
class CameraPhotos:
    @staticmethod
    def sample(rng):
        n = rng.choice((1, 1, 2, 3))
        return {"n": n, "s": "s" if n > 1 else ""}

    @staticmethod
    def setup(st, p, rng):
        pass

    @staticmethod
    def check(st, p, answer):
        new = [ph for ph in st.photos if ph.taken >= "2023-10-15"]
        return len(new) == p["n"]

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["gallery"], "Gallery") and not v.truncated


# ================================================================= recipes


def _recipe_key(r: Recipe) -> str:
    return r.model_dump_json()


@family("recipes_qa_quantity", "recipes", "qa",
        "What quantity of {ingredient} do I need for the recipe '{title}' in the Recipes app? Answer in the "
        "format amount unit, exactly as in the recipe.")
class RecipesQA:
    @staticmethod
    def sample(rng):
        title = rng.choice(wd.RECIPE_TITLES)
        return {"title": title, "look": title + " Bake", "ingredient": rng.choice(wd.INGREDIENTS[:12])}

    @staticmethod
    def setup(st, p, rng):
        st.recipes = [r for r in st.recipes if r.title not in (p["title"], p["look"])]
        r = wd.recipe(rng, p["title"])
        r.ingredients = wd.ingredients(rng, rng.randint(9, 12))
        r.ingredients = [g for g in r.ingredients if g.name != p["ingredient"]]
        pos = rng.randint(len(r.ingredients) - 3, len(r.ingredients))  # usually below the fold
        r.ingredients.insert(pos, wd.Ingredient(name=p["ingredient"],
                                                quantity=f"{rng.randint(2, 40) * 5} {rng.choice(wd.UNITS)}"))
        look = wd.recipe(rng, p["look"], must=(p["ingredient"],))
        st.recipes.insert(rng.randint(0, len(st.recipes)), look)
        st.recipes.insert(rng.randint(0, len(st.recipes)), r)

    @staticmethod
    def check(st, p, answer):
        r = next((r for r in st.recipes if r.title == p["title"]), None)
        q = next((g.quantity for g in r.ingredients if g.name == p["ingredient"]), None) if r else None
        return q is not None and norm(answer) == norm(q)

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["recipes"], p["title"]) and p["ingredient"] in v.rows


@family("recipes_dedup", "recipes", "delete",
        "Delete all but one of any recipes in the Recipes app that are exact duplicates, ensuring at least "
        "one instance of each unique recipe remains.", max_steps=40)
class RecipesDedup:
    @staticmethod
    def sample(rng):
        return {"dups": rng.sample(wd.RECIPE_TITLES, 2)}

    @staticmethod
    def setup(st, p, rng):
        pool = [t for t in wd.RECIPE_TITLES if t not in p["dups"]]
        st.recipes = [wd.recipe(rng, t) for t in rng.sample(pool, 9)]
        a, b = (wd.recipe(rng, t) for t in p["dups"])
        st.recipes.insert(1, a)
        st.recipes.insert(3, b)
        st.recipes.insert(rng.randint(8, len(st.recipes)), a.model_copy(deep=True))
        st.recipes.append(b.model_copy(deep=True))

    @staticmethod
    def check(st, p, answer):
        counts = Counter(_recipe_key(r) for r in st.recipes)
        titles = {r.title for r in st.recipes}
        return all(c == 1 for c in counts.values()) and all(d in titles for d in p["dups"]) and len(counts) >= 11

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["recipes"], "Recipes") and not v.truncated


@family("recipes_from_gallery", "recipes", "multi_app",
        "Add the recipes from recipes.jpg in the Gallery app to the Recipes app.", max_steps=45)
class RecipesFromGallery:
    @staticmethod
    def sample(rng):
        titles = rng.sample(("Miso Soup", "Avocado Toast", "Chili con Carne", "Falafel Wrap", "Berry Smoothie"), 2)
        return {"items": [{"title": t, "description": rng.choice(("Quick lunch", "Party snack", "Breakfast"))}
                          for t in titles]}

    @staticmethod
    def setup(st, p, rng):
        text = "\n".join(f"{it['title']} - {it['description']}" for it in p["items"])
        st.photos.append(Photo(name="recipes.jpg", taken="2023-10-14 12:40:09", content="Recipes\n" + text))

    @staticmethod
    def check(st, p, answer):
        return all(any(r.title == it["title"] and norm(r.description) == norm(it["description"])
                       for r in st.recipes) for it in p["items"])

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["recipes"], "Recipes") and all(it["title"] in v.rows for it in p["items"])


@family("recipes_delete", "recipes", "delete", "Delete the recipe '{title}' from the Recipes app.")
class RecipesDelete:
    @staticmethod
    def sample(rng):
        title = rng.choice(wd.RECIPE_TITLES)
        return {"title": title, "look": title + " (vegan)"}

    @staticmethod
    def setup(st, p, rng):
        st.recipes = [r for r in st.recipes if r.title not in (p["title"], p["look"])]
        st.recipes.insert(rng.randint(0, len(st.recipes)), wd.recipe(rng, p["look"]))
        st.recipes.insert(rng.randint(0, len(st.recipes)), wd.recipe(rng, p["title"]))

    @staticmethod
    def check(st, p, answer):
        titles = [r.title for r in st.recipes]
        return p["title"] not in titles and p["look"] in titles

    @staticmethod
    def evidence(v, p):
        return v.shows_list(PKG["recipes"], "Recipes", p["title"])


# =============================================================== multi-app


@family("contact_phone_to_note", "notes", "multi_app",
        "Look up the phone number of {name} in the Contacts app and save it in a new note named {title} "
        "in the Notes app.", max_steps=40)
class ContactToNote:
    @staticmethod
    def sample(rng):
        name, look = _similar_people(rng)
        return {"name": name, "look": look, "phone": wd.phone_number(rng), "look_phone": wd.phone_number(rng),
                "title": f"{name.split()[0].lower()}_number.md"}

    @staticmethod
    def setup(st, p, rng):
        _put_contact(st, Contact(name=p["name"], phone=p["phone"]))
        _put_contact(st, Contact(name=p["look"], phone=p["look_phone"]))

    @staticmethod
    def check(st, p, answer):
        n = _note(st, "", p["title"])
        return n is not None and digits(p["phone"]) in digits(n.body)

    @staticmethod
    def evidence(v, p):
        return v.on(PKG["notes"], p["title"]) and v.act("DocumentActivity")


