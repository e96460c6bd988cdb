"""The offline evaluator agent: navigate by matching goal words against the screen.

A heuristic GUI agent for demos and tests, not a claim of quality. From the
prompt alone (probing goal, compact screen, own history) it:

- opens the app the goal names when another app is in front (an app opened
  again comes back where it was left, as on a phone);
- leaves an unsaved editing form by going back, discarding it when asked (a
  form says nothing about what was stored), and goes up from a page with no
  list when the goal needs an app's whole list;
- taps the element whose text or description best matches a goal entity it
  has not visited yet (an exact name beats a look-alike; numbers must agree);
- never taps a label on a switch row (that would toggle it) and reports
  ``complete`` once such a state is on screen;
- leaves a page named like the item but not exactly it (a look-alike);
- scrolls a list down until a scroll changes nothing, then up to its top (a
  list may have been left half-way), while something wanted is unseen;
- goes back when the page holds nothing wanted, and reports ``complete``
  when every entity has been visited or looked for, or the budget is nearly
  spent.

At temperature 0 it is greedy. Above 0 it samples, like a sampled LLM agent,
among the moves it finds plausible — which matching element to open first
(and so in which order to visit the goal's places), and whether to scroll a
list further or go back and look elsewhere — with a softmax over its own
scores, from a ``random.Random`` seeded by the request's ``seed`` only.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from prorex.llm.offline_facts import matches, same
from prorex.llm.offline_text import (
    Elem,
    Screen,
    find_dates,
    goal_info,
    norm,
    parse_screen,
    section,
    sections,
    similar,
)

T = TypeVar("T")
#: Candidate scores are on a 0..125 similarity scale; this brings them to logits.
SCORE_PER_LOGIT = 10.0
#: How much less likely than scrolling on going back from a list not yet read to its end is.
BACK_PENALTY = 1.5
#: How much less likely than carrying on from the screen the policy left starting over from
#: the app's main page is (a sampled agent sometimes goes up to it first).
RESTART_PENALTY = 1.0


class Sampler:
    """Greedy at temperature 0; otherwise a seeded softmax over candidate scores."""

    def __init__(self, temperature: float | None = 0.0, seed: int | None = None) -> None:
        self.temperature = float(temperature or 0.0)
        self.rng = random.Random(0 if seed is None else seed)

    def pick(self, candidates: Sequence[tuple[float, T]]) -> T:
        """``candidates`` as ``(logit, choice)`` in greedy order: ties go to the first."""
        best = max(range(len(candidates)), key=lambda i: (candidates[i][0], -i))
        if self.temperature <= 0 or len(candidates) == 1:
            return candidates[best][1]
        top = candidates[best][0]
        weights = [math.exp((c - top) / self.temperature) for c, _ in candidates]
        return self.rng.choices([c for _, c in candidates], weights=weights)[0]


_HIST = re.compile(r"^(\d+)\. (\S+)(.*?)(?: -> (.*))?$")
MAX_SCROLLS = 8


@dataclass
class _Hist:
    kind: str
    label: str
    rest: str
    outcome: str


def _history(block: str) -> list[_Hist]:
    """This goal's actions (the history restarts at each ``(goal k of n: ...)`` marker)."""
    out: list[_Hist] = []
    for line in block.splitlines():
        line = line.strip()
        if line.startswith("(goal "):
            out = []
            continue
        m = _HIST.match(line)
        if not m:
            continue
        rest = m.group(3) or ""
        lm = re.match(r"\s*'((?:[^'\\]|\\.)*)'|\s*\"((?:[^\"\\]|\\.)*)\"", rest)
        label = (lm.group(1) or lm.group(2) or "") if lm else ""
        out.append(_Hist(m.group(2), label, rest, (m.group(4) or "").strip()))
    return out


def _app_matches(package: str, app: str) -> bool:
    if not package or not app:
        return False
    pk = norm(package.replace(".", " "))
    return (
        any(w in pk for w in norm(app).split() if len(w) > 2)
        or similar(package.split(".")[-1], app) >= 80
    )


def _action(**kw: object) -> str:
    reason = kw.pop("reason", "")
    return f"Reason: {reason}\nAction: {json.dumps(kw)}"


def _since_arrival(hist: list[_Hist]) -> list[_Hist]:
    """Actions taken on the current page (after the last navigation)."""
    out: list[_Hist] = []
    for h in reversed(hist):
        if (
            h.kind in ("click", "navigate_back", "open_app", "navigate_home")
            and h.outcome != "screen unchanged"
        ):
            break
        out.append(h)
    return list(reversed(out))


def _toggle_rows(scr: Screen) -> set[int]:
    """Indices of labels that sit just before a switch: tapping them would toggle it."""
    out: set[int] = set()
    for i, e in enumerate(scr.elems):
        if e.checked is not None:
            for j in range(max(0, i - 3), i):
                out.add(scr.elems[j].index)
    return out


def _candidates(
    scr: Screen, wanted: list[str], visited: set[str], tapped: set[str] = frozenset()
) -> list[tuple[float, Elem, str]]:
    """Every element matching a goal entity not visited yet, scored, in screen order per entity.

    An entity visited only through a look-alike ("Bluetooth, pairing" for Bluetooth) is still
    open to its exact name, which is often one level deeper.
    """
    out: list[tuple[float, Elem, str]] = []
    title = scr.title
    toggles = _toggle_rows(scr)
    for w in wanted:
        exact_only = norm(w) in visited
        if exact_only and norm(w) in tapped:
            continue
        for e in scr.elems:
            if (
                not e.label
                or e.label == title
                or "editable" in e.flags
                or e.checked is not None
                or e.index in toggles
            ):
                continue
            scores = [
                # The exact name beats a look-alike ("Beef Stew" over "Beef Stew Bake").
                similar(label, w) + (5 if e.clickable else 0) + (20 if same(label, w) else 0)
                for label in (e.text, e.desc)
                if label and matches(label, w) and (not exact_only or same(label, w))
            ]
            if scores:
                out.append((max(scores), e, w))
    return out


def decide(prompt: str, temperature: float | None = 0.0, seed: int | None = None) -> str:
    sampler = Sampler(temperature, seed)
    secs = sections(prompt)
    goal = section(secs, "PROBING GOAL")
    scr = parse_screen(section(secs, "CURRENT SCREEN"))
    hist = _history(section(secs, "YOUR PREVIOUS ACTIONS"))
    try:
        left = int(section(secs, "STEPS LEFT").split()[0])
    except (ValueError, IndexError):
        left = 10
    info = goal_info(goal)
    if left <= 1:
        return _action(
            action_type="status", goal_status="complete", reason="step budget nearly spent"
        )

    wanted: list[str] = []
    # Dates are places too (a calendar day); a day cell reads "October 19", without the year.
    days = [re.sub(r",?\s*\d{4}$", "", d) for d in find_dates(goal)]
    for e in [info.target, *days, *info.entities, info.source]:
        if e and e != info.app and norm(e) not in {norm(w) for w in wanted}:
            wanted.append(e)
    tapped = {norm(h.label) for h in hist if h.kind in ("click", "long_press") and h.label}
    visited = set(tapped)
    visited |= {
        norm(w)
        for w in wanted
        for h in hist
        if h.label and (matches(h.label, w) or matches(w, h.label))
    }

    opened = any(h.kind == "open_app" for h in hist)
    if info.app and not opened and not _app_matches(scr.package, info.app):
        return _action(
            action_type="open_app", app_name=info.app, reason=f"the goal is about {info.app}"
        )

    # Opening the app in front would change nothing (it resumes where it was left), so the
    # way to its main page, or out of a form, is back: the agent keeps going back while it
    # has done nothing else for this goal and the screen still changes.
    leaving = not any(
        h.kind not in ("navigate_back", "click", "open_app")
        or (h.kind == "click" and norm(h.label) != "discard")
        or h.outcome == "screen unchanged"
        for h in hist
    )
    first = (0.0, "stay"), (-RESTART_PENALTY, "restart")
    if not hist:
        restart = bool(info.app) and sampler.pick(first) == "restart"
    else:
        # the choice made on this goal's first step (only taken with the app already in
        # front), drawn again from a fresh sampler
        restart = (
            bool(info.app)
            and leaving
            and not opened
            and Sampler(temperature, seed).pick(first) == "restart"
        )

    discard = next((e for e in scr.elems if e.is_button and norm(e.text) == "discard"), None)
    if leaving and discard is not None and scr.dialog():
        return _action(
            action_type="click",
            index=discard.index,
            reason="leave the unsaved form without saving it",
        )

    editing = any("editable" in e.flags and e.text for e in scr.elems) or any(
        e.is_button and norm(e.text) in ("save", "done") for e in scr.elems
    )
    if editing and leaving and not scr.dialog():
        # An unsaved form says nothing about what was stored: leave it for the saved pages.
        return _action(
            action_type="navigate_back", reason="an editing form is open; look at what was saved"
        )

    if restart and leaving and scr.has_up and not scr.dialog():
        return _action(action_type="navigate_back", reason="go up towards the app's main page")

    whole_list = re.search(r"\bwhole\b.*\blist\b", goal, re.I) is not None
    if whole_list and len(scr.rows()) < 2 and leaving and scr.has_up and not scr.dialog():
        return _action(
            action_type="navigate_back",
            reason="the goal needs the app's whole list; go up towards its main page",
        )

    if scr.dialog():
        return _action(
            action_type="navigate_back", reason="a dialog is open; dismiss it without answering"
        )

    switches = [e for e in scr.elems if e.checked is not None]
    toggles = _toggle_rows(scr)
    for e in scr.elems:
        if e.index in toggles and any(matches(e.label, w) for w in wanted) and switches:
            return _action(
                action_type="status",
                goal_status="complete",
                reason=f"the state of '{e.label}' is on screen",
            )

    lookalike = scr.title and any(
        matches(scr.title, i) and not same(scr.title, i) for i in info.items
    )
    if lookalike and not (
        hist and hist[-1].kind == "navigate_back" and hist[-1].outcome == "screen unchanged"
    ):
        return _action(
            action_type="navigate_back",
            reason=f"'{scr.title}' only looks like the item; go back to find the real one",
        )

    on_page = _since_arrival(hist)
    scrolls = [h for h in on_page if h.kind == "scroll" and "down" in h.rest]
    at_end = any(h.outcome == "screen unchanged" for h in scrolls) or len(scrolls) >= MAX_SCROLLS
    places_left = [w for w in wanted if norm(w) not in visited and w not in info.items]
    if scr.title and not places_left and any(same(scr.title, i) for i in info.items) and hist:
        ups = [h for h in on_page if h.kind == "scroll" and "up" in h.rest]
        if scr.scrollable and not at_end:
            return _action(
                action_type="scroll", direction="down", reason="read the rest of this page"
            )
        if (
            scr.scrollable
            and not any(h.outcome == "screen unchanged" for h in ups)
            and len(ups) < MAX_SCROLLS
            and left > 2
        ):
            return _action(action_type="scroll", direction="up", reason="read the top of this page")
        return _action(
            action_type="status",
            goal_status="complete",
            reason=f"the page of '{scr.title}' is open",
        )

    cands = _candidates(scr, wanted, visited, tapped)
    if cands:
        el, w = sampler.pick([(score / SCORE_PER_LOGIT, (e, w)) for score, e, w in cands])
        return _action(action_type="click", index=el.index, reason=f"'{el.label}' matches '{w}'")

    remaining = [w for w in wanted if norm(w) not in visited]
    places = [w for w in remaining if w not in info.items]
    if scr.scrollable and not at_end and (remaining or not scrolls):
        moves = [(0.0, "scroll")]
        if places and left > 2 and scr.has_up:
            # A sampled agent may look elsewhere first rather than read this list to its end.
            moves.append((-BACK_PENALTY, "back"))
        if sampler.pick(moves) == "back":
            return _action(
                action_type="navigate_back", reason=f"look for {places[0]!r} elsewhere first"
            )
        return _action(
            action_type="scroll", direction="down", reason="the list goes on; look further down"
        )
    ups = [h for h in on_page if h.kind == "scroll" and "up" in h.rest]
    top = any(h.outcome == "screen unchanged" for h in ups) or len(ups) >= MAX_SCROLLS
    if scr.scrollable and at_end and not top and left > 2:
        # The list may have been left scrolled down: its top must be seen too.
        return _action(
            action_type="scroll", direction="up", reason="check the top of the list as well"
        )

    # Items (files, quoted names) may rightly be absent; places still unvisited call for backtracking.
    if places and left > 2:
        backs = 0
        for h in reversed(hist):
            if h.kind != "navigate_back":
                break
            backs += 1
        stuck = hist and hist[-1].kind == "navigate_back" and hist[-1].outcome == "screen unchanged"
        if backs < 3 and not stuck:
            return _action(
                action_type="navigate_back", reason=f"nothing here leads to {places[0]!r}; go back"
            )
    return _action(
        action_type="status",
        goal_status="complete",
        reason="the evidence for the goal has been looked at",
    )
