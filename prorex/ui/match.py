"""Find a recorded element again on another screen (another device or run).

The scorer weighs evidence in two tiers:

* **identity** — is this the same widget? Resource ids are identities: the
  name after ``:id/`` must be equal, and a different id is a conflict
  (unless the live screen has renamed its ids: when the target's id occurs
  nowhere on it, ids are uninformative). Text, content-desc and (for empty
  fields) the hint are fuzzy (rapidfuzz); times and counts may change
  ("3 new" / "12 new"), numbers that name things may not ("Task 9" /
  "Task 10"). The affordance must fit: a checkable target needs a
  checkable candidate, an editable one an editable one.
* **disambiguation** — which of several look-alikes (the "Delete" of each
  row)? ``context`` (the texts around the element, captured at parse time)
  and the centre position relative to the screen, which survives another
  resolution or a status-bar offset.

A candidate must pass the identity gate and a context gate (strict when
look-alikes compete or the label is short and generic); among those the
best weighted score wins, and a win that is not clearly ahead of a
look-alike elsewhere on the screen is refused. ``None`` means "not on this
screen": a replay should scroll or stop, never tap a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz

from prorex.schemas import UIElement
from prorex.ui.traits import (
    SYSTEM_UI_PACKAGE,
    clean_text,
    id_name,
    is_editable,
    mask_dynamic,
    mask_numbers,
    short_class,
)

_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)
_NUMBER = re.compile(r"\d+")
_WORDCHARS = re.compile(r"\W+")


@dataclass(frozen=True)
class MatchPolicy:
    """Weights and thresholds of the scorer (calibrated on the real dumps)."""

    w_identity: float = 0.60
    w_context: float = 0.22
    w_position: float = 0.12
    w_class: float = 0.06
    #: label similarity needed for a text/desc-bearing target
    min_label: float = 0.90
    #: context similarity needed when the candidate is the only one of its
    #: kind on the screen, and when look-alikes compete (then the context
    #: is what tells them apart, so it must really agree)
    min_context_unique: float = 0.50
    min_context_lookalike: float = 0.75
    #: letters and digits that make a label name one thing on its own
    distinctive_chars: int = 20
    #: how far apart (normalised screen units) positions may be before they
    #: stop counting as evidence
    position_radius: float = 0.35
    #: a winner must beat a look-alike by this margin
    min_margin: float = 0.03
    min_score: float = 0.55


DEFAULT_POLICY = MatchPolicy()


def _norm(value: str) -> str:
    return clean_text(value).casefold()


def text_similarity(a: str, b: str) -> float:
    """Similarity in [0, 1] of two normalised strings.

    A changed time or count costs little ("3 new" / "12 new"); a changed
    number that names something makes another thing ("Task 9" / "Task 10"),
    however close the strings are character by character.
    """
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    if mask_dynamic(a) == mask_dynamic(b):
        return 0.95
    if mask_numbers(a) == mask_numbers(b) or _naming_numbers(a) != _naming_numbers(b):
        return min(0.5, fuzz.ratio(a, b) / 100.0)
    return fuzz.ratio(a, b) / 100.0


def _naming_numbers(value: str) -> list[str]:
    return _NUMBER.findall(mask_dynamic(value))


def _weight(entry: str) -> float:
    # Letters identify a row ("Groceries"); a bare time or count does not.
    return 1.0 + len(_LETTERS.findall(entry))


def _covered(na: list[str], nb: list[str]) -> float:
    """How much of ``na`` reappears in ``nb``, weighted by informativeness."""
    total = got = 0.0
    for x in na:
        w = _weight(x)
        total += w
        # Only close matches count: a new time or count counts in full,
        # "Task 17" for "Task 18" not at all.
        best = max(text_similarity(x, y) for y in nb)
        got += w * min(1.0, max(0.0, (best - 0.8) / 0.15))
    return got / total


def context_similarity(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    """Agreement of two contexts in [0, 1], symmetric.

    Both directions must agree: a row that has the target's text plus
    another label ("pet shop" + "Toys") is a different row from "pet shop".
    """
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    na = [_norm(x) for x in a]
    nb = [_norm(x) for x in b]
    return min(_covered(na, nb), _covered(nb, na))


def _centre(el: UIElement) -> tuple[float, float] | None:
    if not el.screen or el.screen[0] <= 0 or el.screen[1] <= 0:
        return None
    cx, cy = el.center
    return cx / el.screen[0], cy / el.screen[1]


def _class_similarity(a: UIElement, b: UIElement) -> float:
    if short_class(a.class_name) == short_class(b.class_name):
        return 1.0
    if is_editable(a) == is_editable(b) and a.checkable == b.checkable:
        return 0.5
    return 0.0


def _digit_sibling(a: str, b: str) -> bool:
    """``menu_item_0`` vs ``menu_item_1``: the same family, different members."""
    return a != b and mask_numbers(a) == mask_numbers(b)


@dataclass
class Scored:
    """One candidate that passed the gates, with its evidence."""

    el: UIElement
    identity: float
    context: float
    position: float
    klass: float
    score: float = 0.0


def _affordance_ok(t: UIElement, c: UIElement) -> bool:
    """What the target let an agent do, the candidate must allow too."""
    if t.checkable and not c.checkable:
        return False
    if is_editable(t) and not is_editable(c):
        return False
    if (t.clickable or t.long_clickable) and not (c.clickable or c.long_clickable or c.checkable):
        return False
    return True


def score_candidates(
    target: UIElement, candidates: list[UIElement], policy: MatchPolicy = DEFAULT_POLICY
) -> list[Scored]:
    """Every candidate that passes the gates, best first."""
    t_id = id_name(target.resource_id)
    t_text = _norm(target.text)
    t_desc = _norm(target.content_desc)
    # A field's hint names it when it holds no text ("Title", "Search").
    t_hint = _norm(target.hint) if not (t_text or t_desc) else ""
    t_pos = _centre(target)
    labelled = bool(t_text or t_desc or t_hint)
    # Ids are trusted only if this screen uses the target's id; on a build
    # with renamed ids they say nothing, and only a label can vouch.
    ids_trusted = bool(t_id) and any(id_name(c.resource_id) == t_id for c in candidates)
    bars_ok = target.package == SYSTEM_UI_PACKAGE

    passed: list[Scored] = []
    for c in candidates:
        if c.area == 0 or not c.visible:
            continue
        if c.package == SYSTEM_UI_PACKAGE and not bars_ok:
            continue
        if not _affordance_ok(target, c):
            continue
        c_id = id_name(c.resource_id)
        parts: list[tuple[float, float]] = []  # (weight, similarity)
        if t_id:
            if c_id == t_id:
                parts.append((1.0, 1.0))
            elif ids_trusted or _digit_sibling(t_id, c_id) or not labelled:
                continue  # another widget, or nothing but a renamed id to go by
        if labelled:
            c_text, c_desc = _norm(c.text), _norm(c.content_desc)
            sims = []
            if t_text:
                sims.append(
                    max(text_similarity(t_text, c_text), 0.9 * text_similarity(t_text, c_desc))
                )
            if t_desc:
                sims.append(
                    max(text_similarity(t_desc, c_desc), 0.9 * text_similarity(t_desc, c_text))
                )
            if t_hint:
                sims.append(
                    max(
                        text_similarity(t_hint, _norm(c.hint)),
                        0.9 * text_similarity(t_hint, c_text),
                    )
                )
            label = sum(sims) / len(sims)
            if label < policy.min_label:
                continue
            # Rescale the passing band so exact and near matches differ.
            parts.append((1.5, (label - policy.min_label) / (1.0 - policy.min_label)))
        ctx = context_similarity(target.context, c.context)
        if not parts:
            # No label and no id: the surrounding text is all the identity.
            if not target.context or ctx < policy.min_context_lookalike:
                continue
            parts.append((1.0, ctx))
        identity = sum(w * s for w, s in parts) / sum(w for w, _ in parts)
        c_pos = _centre(c)
        if t_pos is not None and c_pos is not None:
            d = ((t_pos[0] - c_pos[0]) ** 2 + (t_pos[1] - c_pos[1]) ** 2) ** 0.5
            pos = max(0.0, 1.0 - d / policy.position_radius)
        else:
            pos = 0.5
        passed.append(Scored(c, identity, ctx, pos, _class_similarity(target, c)))

    # A long label ("Reel by Raj at Row 2, Column 2") names one thing; a
    # short one ("Delete", "On") may be any row's, so then the context must
    # agree even when only one such element is left on the screen.
    distinctive = len(_WORDCHARS.sub("", target.label)) >= policy.distinctive_chars
    out: list[Scored] = []
    for s in passed:
        if target.context:
            rivals = any(o is not s and not _same_place(o.el, s.el) for o in passed)
            if rivals:
                need = policy.min_context_lookalike
            elif distinctive and s.identity >= 0.95:
                need = 0.0
            else:
                need = policy.min_context_unique
            if s.context < need:
                continue
        s.score = (
            policy.w_identity * s.identity
            + policy.w_context * s.context
            + policy.w_position * s.position
            + policy.w_class * s.klass
        )
        out.append(s)
    out.sort(key=lambda s: (-s.score, s.el.index))
    return out


def match_element(
    target: UIElement, candidates: list[UIElement], policy: MatchPolicy = DEFAULT_POLICY
) -> tuple[UIElement, float] | None:
    """The candidate that is ``target``, with a score in [0, 1]; None if absent.

    Refuses to guess: below ``policy.min_score``, or when a look-alike is
    about as likely (neither context nor position separates them), the
    answer is None.
    """
    if not (target.label or target.resource_id or target.context):
        return None  # nothing identifies it; any answer would be a guess
    scored = score_candidates(target, candidates, policy)
    if not scored:
        return None
    best = scored[0]
    if best.score < policy.min_score:
        return None
    for other in scored[1:]:
        if _same_place(best.el, other.el):
            continue  # a row and its own clickable child are one place
        if best.score - other.score < policy.min_margin:
            return None
        break
    return best.el, round(min(1.0, max(0.0, best.score)), 4)


def _same_place(a: UIElement, b: UIElement) -> bool:
    """A row and its own clickable child, or stacked twins: one tap hits both."""
    pa, pb = a.path, b.path
    return a.bounds == b.bounds or pa[: len(pb)] == pb or pb[: len(pa)] == pa
