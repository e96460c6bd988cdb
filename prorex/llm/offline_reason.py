"""The offline reasoner: probing goals, claims, chain-of-claims and static judgments.

Heuristics for demos and tests, not a claim of quality. They read only the
prompt: the goal's verb and entities (``offline_text.goal_info``), the
compact screens, and claim sentences. A judgment checks the expectation the
verb implies — moved: listed in the target and not in the source; deleted:
absent where it lived; created/edited: present with the requested content;
set: the switch state shown; question: the agent's answer equals what the
screens show — against the evaluator's evidence first, the policy's screens
second, and the agent's own report last. The static judges run the same
checker over the policy's screens only, so they are misled exactly where those
screens do not show the outcome.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from prorex.llm.offline_facts import (
    ENTRY_SEP,
    Fact,
    action_facts,
    matches,
    parse_fact,
    same,
    screen_facts,
)
from prorex.llm.offline_text import (
    GoalInfo,
    Screen,
    action_lines,
    contains,
    find_dates,
    goal_info,
    norm,
    section,
    sections,
    similar,
    step_screens,
)

MAX_GOAL_WORDS = 20
MAX_CLAIMS = 40


# ------------------------------------------------------------------ scheduling


#: Where a phone keeps its switches when the goal names no app (a general Android convention).
SYSTEM_SETTINGS_APP = "Settings"


def _app_of(info: GoalInfo) -> str:
    if info.app:
        return info.app
    return SYSTEM_SETTINGS_APP if info.verb in ("set-on", "set-off") else ""


def _in_app(info: GoalInfo) -> str:
    app = _app_of(info)
    return f" in the {app} app" if app else ""


def _short(goal: str) -> str:
    words = goal.split()
    return " ".join(words[:MAX_GOAL_WORDS]).rstrip(",;") + (
        "" if goal.endswith((".", "?")) and len(words) <= MAX_GOAL_WORDS else "."
    )


def probing_goals(info: GoalInfo) -> tuple[str, list[str]]:
    item = info.items[0] if info.items else (info.entities[0] if info.entities else "the item")
    dates = [v for v in info.values if find_dates(v) == [v]]
    app = (f" on {dates[0]}" if dates and info.verb != "answer" else "") + _in_app(info)
    v = info.verb
    if v == "move" and info.target:
        src = f" and not in {info.source}" if info.source else ""
        return (
            f"A moved item must appear in the destination and be gone from the source: look for {item} in {info.target}{src}.",
            [f"Check whether {item} is in {info.target}{src}{app}."],
        )
    if v == "rename" and len(info.items) >= 2:
        old, new = info.items[0], info.items[-1]
        where = info.target or info.source
        return (
            f"After a rename the new name {new} is listed and the old name {old} is not.",
            [
                f"Check that {new} is listed and {old} is no longer listed{' in ' + where if where else ''}{app}."
            ],
        )
    if v == "delete":
        where = info.source or info.target
        place = f" in {where}" if where else ""
        return (
            f"A deleted item is absent from where it lived; the whole list{place} must be seen to be sure.",
            [f"Find {item}{place}{app}, scrolling through the whole list."],
        )
    if v in ("set-on", "set-off"):
        state = "on" if v == "set-on" else "off"
        return (
            f"The setting {item} must read {state} on its own settings page.",
            [f"Open the page with {item}{app} and read whether {item} is on or off."],
        )
    if v == "answer":
        ents = ", ".join((info.entities or info.values)[:3]) or item
        return (
            "A question is answered correctly only if the answer equals what the app shows for it.",
            [f"Find {ents}{app} and read the details shown."],
        )
    if v == "dedup":
        return (
            "After removing duplicates every entry appears once and no distinct entry is lost; the whole list must be seen.",
            [f"Scroll through the whole {item} list{app} and look for repeated entries."],
        )
    if v in ("create", "edit", "set"):
        return (
            f"The item {item} must exist with the requested details; open it and read them.",
            [f"Find {item}{app} and open it to show its details."],
        )
    return (
        "The goal's key item must be found and its state read.",
        [f"Find {item}{app} and show its state."],
    )


def schedule(prompt: str) -> str:
    goal = section(sections(prompt), "TASK GOAL")
    analysis, goals = probing_goals(goal_info(goal))
    return _format_plan(analysis, goals)


def _broadened(info: GoalInfo, previous: Sequence[str]) -> tuple[str, list[str]]:
    """Goals for a round after one that found nothing decisive: visit each place on its own,
    the one the previous goals named last first, or else start over from the app's main page."""
    item = info.items[0] if info.items else (info.entities[0] if info.entities else "the item")
    app = _in_app(info)
    places = [p for p in (info.source, info.target) if p]
    if len(places) == 2:
        text = " ".join(previous)
        # The place mentioned last was probably never reached: look there first this time.
        places.sort(key=lambda p: text.rfind(p), reverse=True)
        return (
            "The previous probe did not see both places; each is now a goal of its own, the unseen one first.",
            [f"Open {p}{app} and check whether {item} is listed, scrolling to the end." for p in places],
        )
    if info.verb in ("set-on", "set-off"):
        return (
            "The previous probe never reached the setting; the goal now names where to start.",
            [f"Open the{app.replace(' in the', '')} main page, find {item} and read whether it is on or off."],
        )
    where = f" in {places[0]}" if places else ""
    return (
        "The previous probe found nothing decisive; the goal now starts over from the app's main page.",
        [f"Go to the main page{app}, scroll through the whole list and open {item}{where}."],
    )


def revise(prompt: str) -> str:
    secs = sections(prompt)
    info = goal_info(section(secs, "TASK GOAL"))
    previous = [
        re.sub(r"^\d+\.\s*", "", line).strip()
        for line in section(secs, "PREVIOUS PROBING GOALS").splitlines()
        if line.strip()
    ]
    collected = section(secs, "WHAT THE EVALUATOR OBSERVED")
    facts = [
        f for f in (parse_fact(line.lstrip("- ").strip()) for line in collected.splitlines()) if f
    ]
    analysis, goals = probing_goals(info)
    decisive = info.verb != "answer" and expectation(info, facts, "")[0] is not None
    if info.verb == "answer":
        decisive = any(f.kind in ("shows", "field", "switch") for f in facts)
    if not decisive:
        extra, goals = _broadened(info, previous)
        analysis += " " + extra
        if [_short(g) for g in goals] == previous:
            goals = [g.rstrip(".") + ", scrolling every list to its end." for g in goals]
    elif any(f.kind == "unseen" for f in facts):
        analysis += " Part of a list was never seen, so the goal asks to scroll it to the end."
        goals = [g.rstrip(".") + ", scrolling to the end of the list." for g in goals]
    else:
        analysis += " The previous probe found evidence; the same states are checked again for confirmation."
    return _format_plan(analysis, [_short(g) for g in goals])


def _format_plan(analysis: str, goals: Sequence[str]) -> str:
    if len(goals) == 1:
        return f"Analysis: {analysis}\nGoal: {goals[0]}"
    return f"Analysis: {analysis}\n" + "\n".join(f"Goal {i}: {g}" for i, g in enumerate(goals, 1))


# ---------------------------------------------------------------------- claims


def _final_answer(block: str) -> tuple[str, str]:
    m = re.search(r"Answer given: (.*)", block)
    answer = m.group(1).strip() if m else ""
    if answer == "(none)":
        answer = ""
    m = re.search(r"Reported status: (\w+)", block)
    status = m.group(1) if m else ""
    return answer, ("" if status == "none" else status)


def _shots(block: str) -> list[tuple[int, Screen]]:
    return [(step, scr) for step, _final, scr in step_screens(block)]


def _claim(f: Fact, role: str) -> dict:
    steps = sorted(set(f.steps))
    where = ", ".join(str(s) for s in steps) or "-"
    reason = f"{'Seen' if f.kind not in ('clicked', 'typed', 'dialog', 'opened') else 'Done'} at step(s) {where}."
    return {"steps": steps, "reasoning": reason, "claim": f.sentence() + "."}


_PRIORITY = {
    "answered": 0,
    "status": 0,
    "absent": 1,
    "listed": 1,
    "switch": 1,
    "field": 2,
    "entries": 2,
    "typed": 2,
    "dialog": 2,
    "unseen": 3,
    "shows": 4,
    "clicked": 5,
    "opened": 6,
}


def write_claims(prompt: str) -> str:
    secs = sections(prompt)
    role = section(secs, "ROLE").strip().lower()
    info = goal_info(section(secs, "TASK GOAL"))
    shots = _shots(section(secs, "SCREENS"))
    actions = action_lines(section(secs, "ACTION HISTORY"))
    answer, status = _final_answer(section(secs, "FINAL ANSWER"))
    facts = screen_facts(shots, actions, info, extra_subjects=[answer] if answer else [])
    if role == "policy":
        facts += action_facts(shots, actions)
        last = shots[-1][0] if shots else 0
        if answer and not any(f.kind == "answered" for f in facts):
            facts.append(Fact("answered", value=answer, steps=[last]))
        if status:
            facts.append(Fact("status", value=status, steps=[last]))
    if not facts:
        last = shots[-1][0] if shots else 0
        title = shots[-1][1].title if shots else ""
        facts.append(
            Fact(
                "unseen",
                subject=(info.items or info.entities or ["the goal's item"])[0],
                place=title or "any screen",
                steps=[last],
            )
        )
    facts.sort(key=lambda f: (_PRIORITY.get(f.kind, 9), min(f.steps or [0])))
    claims = [_claim(f, role) for f in facts[:MAX_CLAIMS]]
    return "Claims:\n" + json.dumps({"claims": claims}, ensure_ascii=False)


# ----------------------------------------------------------------------- judge

_CLAIM_LINE = re.compile(r"^([PE])(\d+) \(steps ([^)]*)\): (.*)$", re.MULTILINE)
_OWN_ACTION = ("clicked", "typed", "opened", "dialog", "answered", "status")


def _read_claims(block: str) -> list[tuple[str, str, Fact | None]]:
    out = []
    for m in _CLAIM_LINE.finditer(block):
        steps = [int(s) for s in re.findall(r"\d+", m.group(3))]
        out.append((f"{m.group(1)}{m.group(2)}", m.group(4), parse_fact(m.group(4), steps)))
    return out


def _latest(facts: Sequence[Fact]) -> list[Fact]:
    """Per subject and place, only the latest presence/absence fact counts (a list changes over a run)."""
    best: dict[tuple[str, str], Fact] = {}
    rest: list[Fact] = []
    for f in facts:
        if f.kind in ("listed", "absent", "unseen", "switch", "dupes", "nodupes"):
            key = ("dupes", norm(f.place)) if f.kind in ("dupes", "nodupes") else (norm(f.subject), norm(f.place))
            old = best.get(key)
            if old is None or max(f.steps or [0]) >= max(old.steps or [0]):
                best[key] = f
        else:
            rest.append(f)
    return list(best.values()) + rest


def _placed(f: Fact, place: str) -> bool:
    return not place or matches(f.place, place) or matches(place, f.place)


def _find(facts: Sequence[Fact], kind: str, subject: str, place: str = "") -> Fact | None:
    # Items are identified by their exact name; settings by a fuzzy label ("Use Wi-Fi" for Wi-Fi).
    ident = matches if kind == "switch" else same
    for f in facts:
        if f.kind == kind and ident(f.subject, subject) and _placed(f, place):
            return f
    return None


#: Generic words for slider extremes.
_SYNONYMS = {
    "maximum": "100%",
    "max": "100%",
    "highest": "100%",
    "full": "100%",
    "minimum": "0%",
    "min": "0%",
    "lowest": "0%",
    "half": "50%",
}


def _shown(facts: Sequence[Fact], value: str) -> Fact | None:
    wanted = [value] + ([_SYNONYMS[norm(value)]] if norm(value) in _SYNONYMS else [])
    for f in facts:
        if f.kind not in ("listed", "shows", "field"):
            continue
        for text in (f.value, f.subject):
            for v in wanted:
                if text and (contains(text, v) or same(text, v)):
                    return f
    return None


def expectation(info: GoalInfo, facts: Sequence[Fact], answer: str) -> tuple[bool | None, str]:
    """Check the verb's expectation against facts: True / False / None (no evidence)."""
    facts = _latest(facts)
    item = info.items[0] if info.items else (info.entities[0] if info.entities else "")
    v = info.verb
    if v == "answer":
        if not answer:
            return False, "no answer was given"
        # Only what the item's own page shows counts (a look-alike's page would answer a different question).
        pool = (
            [
                f
                for f in facts
                if not item or same(f.place, item) or f.kind == "listed" and same(f.subject, item)
            ]
            if info.items
            else list(facts)
        )
        keyed = [
            f
            for f in facts
            if f.kind == "field"
            and any(same(f.subject, k) for k in info.keys)
            and (not info.items or same(f.place, item))
        ]
        if keyed:
            ok = [
                f
                for f in keyed
                if same(f.value, answer) or contains(f.value, answer) and contains(answer, f.value)
            ]
            return bool(ok), f"{keyed[-1].sentence()}; the answer was {answer!r}"
        parts = [p for p in re.split(r",\s*|\s+and\s+", answer) if p.strip()]
        shown = [p for p in parts if _shown(pool, p) is not None]
        if parts and len(shown) == len(parts):
            return True, f"the answer {answer!r} matches what the screens show"
        relevant = [f for f in pool if f.kind in ("shows", "field", "switch")]
        if relevant:
            missing = [p for p in parts if p not in shown]
            return (
                False,
                f"the screens show {relevant[0].sentence()} but not {', '.join(missing)!r}",
            )
        return None, "nothing on the screens bears on the question"
    if v in ("set-on", "set-off"):
        want = "on" if v == "set-on" else "off"
        for ent in info.entities or [item]:
            f = _find(facts, "switch", ent)
            if f is not None:
                return f.value == want, f"{f.sentence()} (expected {want})"
        return None, "no switch state for the setting was seen"
    if v == "move" and item and info.target:
        if info.source and (f := _find(facts, "listed", item, info.source)):
            return False, f"still in the source: {f.sentence()}"
        if f := _find(facts, "absent", item, info.target):
            return False, f"missing from the destination: {f.sentence()}"
        if f := _find(facts, "listed", item, info.target):
            return True, f"in the destination: {f.sentence()}"
        return None, "neither folder's content was seen"
    if v == "delete" and item:
        where = info.source or info.target
        if f := _find(facts, "listed", item, where):
            return False, f"still present: {f.sentence()}"
        # Absence counts where the item lived: the named place, else a page named after the goal's
        # date/value or the app's main list (other pages may list other kinds of things).
        homes = [where] if where else [*info.values, info.app]
        for home in homes:
            if home and (
                f := next(
                    (
                        x
                        for x in facts
                        if x.kind == "absent" and same(x.subject, item) and same(x.place, home)
                    ),
                    None,
                )
            ):
                return True, f"gone: {f.sentence()}"
        return None, "the place where the item lived was not seen in full"
    if v == "rename" and len(info.items) >= 2:
        old, new = info.items[0], info.items[-1]
        if f := _find(facts, "listed", old):
            return False, f"old name still listed: {f.sentence()}"
        if f := (_find(facts, "listed", new) or _find_title(facts, new)):
            return True, f"new name present: {f.sentence()}"
        if (info.target or info.source) and (
            f := _find(facts, "absent", new, info.target or info.source)
        ):
            return False, f"new name missing: {f.sentence()}"
        return None, "no list with either name was seen"
    if v == "dedup":
        if f := next((f for f in facts if f.kind == "dupes"), None):
            return False, f"duplicates remain: {f.sentence()}"
        clean = next((f for f in facts if f.kind == "nodupes"), None)
        if clean is not None:
            return True, clean.sentence()
        return None, "the whole list was not seen"
    if v == "other" and not info.values:
        return None, "no checkable expectation in the goal"
    # create / edit / set: the item is there with the requested values.
    wanted = [x for x in [*info.items[1:], *info.values] if x]
    if info.target and item:
        # "Remove from <place>" on the item's page means it is in that place; "Add to <place>" that it is not.
        on_page = [
            f
            for f in facts
            if f.kind in ("shows", "field", "listed") and (same(f.place, item) or not f.place)
        ]
        for f in on_page:
            text = f"{f.value} {f.subject}"
            if contains(text, f"remove from {info.target}"):
                return True, f"{item} is in {info.target}: {f.sentence()}"
            if contains(text, f"add to {info.target}"):
                return False, f"{item} is not in {info.target}: {f.sentence()}"
    if info.generic:
        if not wanted:
            return None, f"'{item}' names no particular item to look for"
        missing = [x for x in wanted if _shown(facts, x) is None]
        if not missing:
            return True, f"the screens show the requested {', '.join(wanted)}"
        if any(f.kind in ("shows", "field") and same(f.place, item) for f in facts):
            return False, f"the {item} page does not show {', '.join(missing)}"
        return None, f"no {item} page was seen"
    # A value typed into a form is not stored yet: presence comes from lists and pages, not fields.
    stored = [f for f in facts if f.kind != "field"]
    present = (
        (
            _find(facts, "listed", item)
            or _find_title(facts, item)
            or _shown(stored, item)
            or _field_of(facts, item)
        )
        if item
        else None
    )
    where = info.target or info.source
    if info.generic and present is not None and present.kind != "field":
        present = None  # a common noun on screen ("Add expense") is not the outcome
    if item and present is None and where:
        # Absence only counts where the item belongs; other pages may simply not list it.
        if f := _find(facts, "absent", item, where):
            return False, f"not there: {f.sentence()}"
    missing = [x for x in wanted if _shown(facts, x) is None]
    if (present is not None or not item) and wanted:
        if not missing:
            return True, f"{item or 'the item'} shows the requested {', '.join(wanted)}"
        seen_values = any(
            f.kind in ("shows", "field") and item and (matches(f.place, item)) for f in facts
        )
        if seen_values:
            return False, f"{item} is shown without {', '.join(missing)}"
        if present is not None:
            return None, f"{item} was found but its details were not read"
    if present is not None and not wanted:
        return True, f"present: {present.sentence()}"
    return None, "the item was not seen"


def _field_of(facts: Sequence[Fact], item: str) -> Fact | None:
    for f in facts:
        if f.kind == "field" and (matches(item, f.subject) or matches(f.subject, item)):
            return f
    return None


def _find_title(facts: Sequence[Fact], item: str) -> Fact | None:
    """A page named after the item (its detail page, or its tab) shows it exists."""
    for f in facts:
        if f.kind in ("shows", "field") and same(f.place, item):
            return f
    return None


def _agent_report(policy: Sequence[Fact], answer: str, info: GoalInfo) -> tuple[bool, str]:
    status = next((f.value for f in policy if f.kind == "status"), "")
    acted = any(f.kind in ("clicked", "typed", "dialog") for f in policy)
    if status == "complete" and (acted or (info.verb == "answer" and answer)):
        return (
            True,
            "no state evidence either way; the agent reports the task complete after acting on it",
        )
    return False, f"no state evidence and the agent reported {status or 'nothing'}"


def judge(prompt: str) -> str:
    secs = sections(prompt)
    info = goal_info(section(secs, "TASK GOAL"))
    pol = _read_claims(section(secs, "POLICY CLAIMS"))
    ev = _read_claims(section(secs, "EVALUATOR CLAIMS"))
    kept, dropped = [], []
    for cid, text, f in ev:
        own = f is None and re.match(r"^(the (evaluator|agent)|i |we )", text.strip(), re.I)
        if own or (f is not None and f.kind in _OWN_ACTION):
            dropped.append(cid)
        elif f is not None:
            kept.append((cid, f))
    ev_facts = [f for _, f in kept]
    pol_facts = [f for _, _, f in pol if f is not None]
    answer = next((f.value for f in pol_facts if f.kind == "answered"), "")
    stage1 = (
        f"discarded {', '.join(dropped)} (the evaluator's own actions)"
        if dropped
        else "no evaluator claim discarded"
    )
    relations = _relations(pol, ev_facts)
    verdict, why = expectation(info, ev_facts, answer)
    source = "evaluator evidence"
    if verdict and info.verb == "dedup":
        verdict, why = _kept_uniques(pol_facts, ev_facts, why)
    if verdict is not False and (lost := lost_entries(info, pol_facts, ev_facts)):
        verdict, why = False, lost
    if verdict is None:
        verdict, why = expectation(
            info, [f for f in pol_facts if f.kind not in _OWN_ACTION], answer
        )
        source = "policy screens (evaluator claims unsupported)"
    if verdict is None:
        verdict, why = _agent_report(pol_facts, answer, info)
        source = "the policy's own report"
    if verdict and (wrong := acted_on_lookalike(info, pol_facts)):
        verdict, why, source = False, wrong, "the policy's own actions"
    return (
        "Analysis:\n"
        f"- Stage 1: {stage1}.\n"
        f"- Stage 2: {relations}\n"
        f"- Decisive ({source}): {why}.\n"
        f"Evidence: {'yes' if source == 'evaluator evidence' else 'no'}\n"
        f"Status: {'success' if verdict else 'failure'}"
    )


def lost_entries(info: GoalInfo, before: Sequence[Fact], after: Sequence[Fact]) -> str:
    """Collateral damage: entries the policy saw in a list (``before``, its earliest view),
    other than the goal's own items, that are missing from the evaluator's later view of the
    whole list (``after``). Empty when nothing was lost."""
    if info.verb in ("answer", "dedup", "set-on", "set-off"):
        # A question changes nothing; removing duplicates has its own check; a switch may rightly
        # change what its page lists (networks vanish when Wi-Fi goes off).
        return ""
    own = [*info.items, *info.entities, *info.values]
    for now in after:
        if now.kind != "entries" or now.subject != "whole":
            continue
        earlier = [
            f
            for f in before
            if f.kind == "entries" and same(f.place, now.place)
        ]
        if not earlier:
            continue
        first = min(earlier, key=lambda f: min(f.steps or [0]))
        kept = {norm(x) for x in now.value.split(ENTRY_SEP)}
        gone = [x for x in first.value.split(ENTRY_SEP) if norm(x) not in kept]
        lost = [x for x in gone if not any(same(x, o) for o in own) and not contains(info.text, x)]
        if len(lost) == len(gone):
            # The goal may name its item in short ("Lunch" for "Lunch with Maria"): the one entry
            # that best fits the name is the item itself, any other is collateral.
            fits = [x for x in lost if any(contains(x, o) for o in info.items)]
            if fits:
                lost.remove(max(fits, key=lambda x: max(similar(x, o) for o in info.items)))
        if lost:
            return f"entries other than the goal's are gone from {now.place!r}: {', '.join(lost[:3])}"
    return ""


#: Buttons that change an item (as opposed to opening or navigating).
_COMMAND = re.compile(
    r"^(?:add|delete|remove|save|mark|move|rename|edit|favou?rite|star|archive|send|share|"
    r"set|turn|enable|disable|pin|block|clear)\b",
    re.I,
)


def acted_on_lookalike(info: GoalInfo, policy: Sequence[Fact]) -> str:
    """Collateral damage by the policy's own record: it used a command (``Add to favorites``,
    ``Delete``) on the page of an item that only looks like the goal's item."""
    # Only pages of other list entries count (a form titled "Edit <item>" is the item's own).
    entries = {norm(x) for f in policy if f.kind == "entries" for x in f.value.split(ENTRY_SEP)}
    for f in policy:
        if f.kind != "clicked" or not _COMMAND.match(f.subject.strip()):
            continue
        if norm(f.place) not in entries or contains(info.text, f.place):
            continue  # not a list entry, or the goal names this very entry in full
        for item in info.items:
            if matches(f.place, item) and not same(f.place, item):
                return f"the agent used {f.subject!r} on {f.place!r}, which is not {item!r}"
    return ""


def _kept_uniques(policy: Sequence[Fact], evaluator: Sequence[Fact], why: str) -> tuple[bool, str]:
    """Removing duplicates must keep one of each entry: compare distinct counts before and after."""
    before = [f for f in policy if f.kind == "distinct"]
    after = [f for f in evaluator if f.kind == "distinct"]
    if before and after:
        first = min(before, key=lambda f: min(f.steps or [0]))
        if int(max(after, key=lambda f: min(f.steps or [0])).value) < int(first.value):
            return (
                False,
                f"entries were lost: {first.sentence()} before, {after[-1].sentence()} after",
            )
    return True, why


def _relations(pol: Sequence[tuple[str, str, Fact | None]], ev: Sequence[Fact]) -> str:
    out = []
    for cid, _text, f in pol:
        if f is None or f.kind in ("clicked", "opened", "status"):
            rel = "unsupported"
        elif f.kind == "answered":
            rel = "confirmed" if _shown(ev, f.value) else "unsupported"
        else:
            same = [
                e
                for e in ev
                if matches(e.subject or e.value, f.subject or f.value) and _placed(e, f.place)
            ]
            if not same:
                rel = "unsupported"
            elif any(e.kind == f.kind and e.value == f.value for e in same):
                rel = "confirmed"
            elif any(
                {e.kind, f.kind} == {"listed", "absent"}
                or (e.kind == f.kind == "switch" and e.value != f.value)
                for e in same
            ):
                rel = "contradicted"
            else:
                rel = "complementary"
        out.append(f"{cid} {rel}")
    return "; ".join(out) or "no policy claims"


# ---------------------------------------------------------------------- static


def static_judge(prompt: str) -> str:
    secs = sections(prompt)
    info = goal_info(section(secs, "TASK GOAL"))
    shots = _shots(section(secs, "SCREENS"))
    actions = action_lines(section(secs, "LAST ACTIONS") or section(secs, "ACTION HISTORY"))
    answer, status = _final_answer(section(secs, "FINAL ANSWER"))
    seen = screen_facts(shots, actions, info, extra_subjects=[answer] if answer else [])
    done = action_facts(shots, actions)
    if status:
        done.append(Fact("status", value=status))
    verdict, why = expectation(info, seen, answer)
    source = "the policy's screens"
    if verdict is None:
        verdict, why = _agent_report(done, answer, info)
        source = "the policy's actions and report"
    return f"Analysis: judged from {source}: {why}.\nStatus: {'success' if verdict else 'failure'}"
