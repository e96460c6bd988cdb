"""Facts the offline models read off screens, and the claim sentences that carry them.

The offline claims writer turns screens into facts and writes each as a fixed
English sentence; the offline judge reads those sentences back. Keeping the
sentence forms in one place (``Fact.sentence`` / ``parse_fact``) is what lets
the two halves agree, just as a real model's judge reads its own claims.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from prorex.llm.offline_text import ActionLine, GoalInfo, Screen, contains, norm, similar

MATCH = 82.0
#: Longest list whose entries are written out as one claim.
MAX_ENTRIES = 30
ENTRY_SEP = " | "


@dataclass
class Fact:
    kind: str  # listed | absent | unseen | switch | field | shows | dupes | nodupes | distinct | entries | answered | typed | status | clicked | dialog | opened
    subject: str = ""
    place: str = ""
    value: str = ""
    steps: list[int] = field(default_factory=list)

    def sentence(self) -> str:
        s, p, v = self.subject, self.place, self.value
        return {
            "listed": f'"{s}" is listed in "{p}"',
            "absent": f'"{s}" is not listed in "{p}" (whole list seen)',
            "unseen": f'"{s}" was not seen in the visible part of "{p}"',
            "switch": f'switch "{s}" in "{p}" is {v}',
            "field": f'field "{s}" in "{p}" shows "{v}"',
            "shows": f'"{p}" shows "{v}"',
            "dupes": f'"{p}" shows duplicate entries: "{v}"',
            "nodupes": f'"{p}" shows no duplicate entries (whole list seen)',
            "distinct": f'"{p}" lists {v} distinct entries (whole list seen)',
            "entries": f'"{p}" has the entries "{v}" ({"whole list seen" if s == "whole" else "visible part"})',
            "answered": f'the agent answered "{v}"',
            "typed": f'the agent typed "{v}" into "{s}"',
            "status": f"the agent reported the task as {v}",
            "clicked": f'the agent tapped "{s}" on "{p}"',
            "dialog": f'dialog "{s}" appeared and "{v}" was chosen',
            "opened": f'the agent opened "{s}"',
        }[self.kind]


_PATTERNS: list[tuple[str, re.Pattern[str], tuple[str, ...]]] = [
    (
        "absent",
        re.compile(r'^"(.+)" is not listed in "(.*)" \(whole list seen\)'),
        ("subject", "place"),
    ),
    (
        "unseen",
        re.compile(r'^"(.+)" was not seen in the visible part of "(.*)"'),
        ("subject", "place"),
    ),
    ("listed", re.compile(r'^"(.+)" is listed in "(.*)"'), ("subject", "place")),
    ("switch", re.compile(r'^switch "(.+)" in "(.*)" is (on|off)'), ("subject", "place", "value")),
    ("field", re.compile(r'^field "(.+)" in "(.*)" shows "(.*)"'), ("subject", "place", "value")),
    ("shows", re.compile(r'^"(.*)" shows "(.*)"'), ("place", "value")),
    ("dupes", re.compile(r'^"(.*)" shows duplicate entries: "(.*)"'), ("place", "value")),
    ("nodupes", re.compile(r'^"(.*)" shows no duplicate entries \(whole list seen\)'), ("place",)),
    (
        "distinct",
        re.compile(r'^"(.*)" lists (\d+) distinct entries \(whole list seen\)'),
        ("place", "value"),
    ),
    (
        "entries",
        re.compile(
            r'^"(.*)" has the entries "(.*)" \((whole) list seen\)|^"(.*)" has the entries "(.*)" \(visible (part)\)'
        ),
        ("place", "value", "subject", "place", "value", "subject"),
    ),
    ("answered", re.compile(r'^the agent answered "(.*)"'), ("value",)),
    ("typed", re.compile(r'^the agent typed "(.*)" into "(.*)"'), ("value", "subject")),
    ("status", re.compile(r"^the agent reported the task as (\w+)"), ("value",)),
    ("clicked", re.compile(r'^the agent tapped "(.*)" on "(.*)"'), ("subject", "place")),
    ("dialog", re.compile(r'^dialog "(.*)" appeared and "(.*)" was chosen'), ("subject", "value")),
    ("opened", re.compile(r'^the agent opened "(.*)"'), ("subject",)),
]


def parse_fact(sentence: str, steps: Sequence[int] = ()) -> Fact | None:
    text = sentence.strip().rstrip(".")
    for kind, pat, names in _PATTERNS:
        m = pat.match(text)
        if m:
            f = Fact(kind=kind, steps=list(steps))
            for name, value in zip(names, m.groups(), strict=True):
                if value is not None:  # alternatives in one pattern leave the other groups empty
                    setattr(f, name, value)
            return f
    return None


def same(a: str, b: str) -> bool:
    """The same name (case, spacing and punctuation aside): look-alikes such as
    ``report_2.pdf`` or ``Rent Refund`` are different items."""
    return bool(a) and norm(a) == norm(b)


def matches(label: str, entity: str) -> bool:
    if not label or not entity:
        return False
    # Numbers are exact: "October 1" is not "October 19", "report_2" is not "report_3".
    need = re.findall(r"\d+", entity)
    if need and not set(need) <= set(re.findall(r"\d+", label)):
        return False
    return contains(label, entity) or similar(label, entity) >= MATCH


def _switch_label(scr: Screen, i: int) -> str:
    # A switch's name is the nearest text before it on the same row.
    for j in range(i - 1, max(-1, i - 4), -1):
        e = scr.elems[j]
        if e.text and not e.is_button:
            return e.text
    return scr.elems[i].desc or scr.elems[i].text


def _pages(shots: Sequence[tuple[int, Screen]], actions: dict[int, ActionLine]) -> list[dict]:
    """Group consecutive screens showing the same page; note whether its whole list was seen."""
    pages: list[dict] = []
    for step, scr in shots:
        if scr.is_home:
            continue  # launcher screens say nothing about app state
        title = scr.title or scr.package
        if pages and pages[-1]["title"] == title:
            page = pages[-1]
        else:
            page = {
                "title": title,
                "steps": [],
                "items": {},
                "whole": not scr.scrollable,
                "prints": set(),
                "screens": [],
                "rows": {},
                "ends": set(),
            }
            pages.append(page)
        fp = scr.fingerprint()
        prev_action = actions.get(page["steps"][-1]) if page["steps"] else None
        if prev_action is not None and prev_action.kind == "scroll" and fp in page["prints"]:
            # A scroll that brought nothing new: that end of the list is reached. The whole list is
            # seen once both ends are (a list may have been left scrolled half-way).
            page["ends"].add("bottom" if "down" in prev_action.rest else "top")
            page["whole"] = page["whole"] or page["ends"] == {"top", "bottom"}
        page["prints"].add(fp)
        page["steps"].append(step)
        page["screens"].append(scr)
        for e in scr.list_items():
            page["items"].setdefault(e.text, step)
        for row in scr.rows():
            page["rows"].setdefault(row, step)
    return pages


def screen_facts(
    shots: Sequence[tuple[int, Screen]],
    actions: Sequence[ActionLine],
    goal: GoalInfo,
    extra_subjects: Sequence[str] = (),
) -> list[Fact]:
    """Goal-relevant facts about what the screens show (not about the actions)."""
    by_step = {a.step: a for a in actions}
    subjects = [s for s in [*goal.entities, *extra_subjects] if s]
    facts: list[Fact] = []
    seen: dict[tuple, Fact] = {}

    def add(f: Fact, step: int) -> None:
        key = (f.kind, norm(f.subject), norm(f.place), norm(f.value))
        if key in seen:
            if step not in seen[key].steps:
                seen[key].steps.append(step)
            return
        f.steps = [step]
        seen[key] = f
        facts.append(f)

    for page in _pages(shots, by_step):
        title = page["title"]
        relevant_page = any(matches(title, s) for s in subjects)
        for s in subjects:
            texts = [
                (step, e.label)
                for step, scr in zip(page["steps"], page["screens"], strict=True)
                for e in scr.elems
                if e.label and e.label != title and "editable" not in e.flags
            ]
            exact = [(step, t) for step, t in texts if same(t, s)]
            alike = [(step, t) for step, t in texts if not same(t, s) and matches(t, s)]
            if exact:
                add(Fact("listed", subject=s, place=title), exact[0][0])
            for step, t in alike[:3]:
                in_list = t in page["items"]
                add(
                    Fact("listed", subject=t, place=title)
                    if in_list
                    else Fact("shows", place=title, value=t),
                    step,
                )
            if not exact and page["items"] and not matches(title, s) and s in goal.items:
                kind = "absent" if page["whole"] else "unseen"
                add(Fact(kind, subject=s, place=title), page["steps"][-1])
        if goal.verb == "dedup" and page["rows"]:
            last = page["steps"][-1]
            dupes = [
                r
                for step, scr in zip(page["steps"], page["screens"], strict=True)
                for r in {x for x in scr.rows() if scr.rows().count(x) > 1}
            ]
            if dupes:
                add(Fact("dupes", place=title, value=" / ".join(sorted(set(dupes))[0])), last)
            elif page["whole"]:
                add(Fact("nodupes", place=title), last)
            if page["whole"]:
                add(Fact("distinct", place=title, value=str(len(page["rows"]))), page["steps"][0])
        places = [*subjects, *goal.values, goal.app]
        if page["rows"] and (
            any(p and matches(title, p) for p in places)
            or any(matches(t, s) for row in page["rows"] for t in row for s in subjects)
        ):
            # The entries of the list where the goal's item lives: what else was there (and still is).
            names = list(dict.fromkeys(row[0] for row in page["rows"]))[:MAX_ENTRIES]
            add(
                Fact(
                    "entries",
                    subject="whole" if page["whole"] else "part",
                    place=title,
                    value=ENTRY_SEP.join(names),
                ),
                page["steps"][0],
            )
        for step, scr in zip(page["steps"], page["screens"], strict=True):
            for i, e in enumerate(scr.elems):
                if e.checked is not None:
                    name = _switch_label(scr, i)
                    if relevant_page or any(matches(name, s) for s in subjects):
                        add(
                            Fact(
                                "switch",
                                subject=name,
                                place=title,
                                value="on" if e.checked else "off",
                            ),
                            step,
                        )
                elif "editable" in e.flags and e.text:
                    add(Fact("field", subject=e.hint or "text", place=title, value=e.text), step)
                elif re.search(r"SeekBar|ProgressBar|Slider|RatingBar", e.cls) and e.text:
                    add(Fact("field", subject=e.desc or title, place=title, value=e.text), step)
            if relevant_page or any(matches(title, v) for v in goal.values):
                for e in scr.elems:
                    if (
                        e.text
                        and not e.is_button
                        and e.text != title
                        and "editable" not in e.flags
                        and e.checked is None
                    ):
                        add(Fact("shows", place=title, value=e.text), step)
            texts = [e for e in scr.elems if e.text and not e.is_button]
            for k, e in enumerate(texts[:-1]):
                # "label  value" pairs: the text right after an asked-about label is its value.
                if any(same(e.text, key) for key in goal.keys):
                    add(Fact("field", subject=e.text, place=title, value=texts[k + 1].text), step)
            for v in goal.values:
                for e in scr.elems:
                    if e.label and contains(e.label, v):
                        add(Fact("shows", place=title, value=e.label), step)
    return facts


def action_facts(shots: Sequence[tuple[int, Screen]], actions: Sequence[ActionLine]) -> list[Fact]:
    """What the agent did: taps on named elements, typing, dialogs it answered, apps opened."""
    screens = dict(shots)
    facts: list[Fact] = []
    for a in actions:
        scr = screens.get(a.step)
        title = (scr.title or scr.package) if scr else ""
        if a.kind in ("click", "long_press", "double_tap") and a.label:
            if scr is not None and scr.dialog():
                q = next((e.text for e in scr.elems if e.text.rstrip().endswith("?")), "")
                facts.append(Fact("dialog", subject=q, value=a.label, steps=[a.step]))
            else:
                facts.append(Fact("clicked", subject=a.label, place=title, steps=[a.step]))
        elif a.kind == "input_text" and a.typed:
            field_name = a.label or "the focused field"
            facts.append(Fact("typed", subject=field_name, value=a.typed, steps=[a.step]))
        elif a.kind == "open_app":
            facts.append(Fact("opened", subject=a.rest.strip(), steps=[a.step]))
        elif a.kind == "answer" and a.typed:
            facts.append(Fact("answered", value=a.typed, steps=[a.step]))
    return facts
