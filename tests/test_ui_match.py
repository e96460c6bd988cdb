"""Element matching: unit cases, and retargeting figures on perturbed real dumps.

The evaluation picks, on every real dump, the elements an agent would tap
(clickable / long-clickable / checkable / editable, with a text, a
description or a resource id), rewrites the dump as another device or run
would show it (``prorex.ui.perturb``), re-parses it and asks
``match_element`` for the target. Present: the answer must be the same node.
Absent (target and its exact duplicates removed): the answer must be None.
"""

from __future__ import annotations

import copy
import random
import zlib
from collections import Counter
from pathlib import Path

import pytest

from prorex.schemas import UIElement
from prorex.ui import match_element, parse_hierarchy
from prorex.ui import perturb as P
from prorex.ui.match import context_similarity, text_similarity
from prorex.ui.render import visible_elements
from prorex.ui.traits import id_name, is_editable

# ----------------------------------------------------------------- unit cases


def el(**kw) -> UIElement:
    kw.setdefault("bounds", (0, 0, 100, 100))
    kw.setdefault("screen", (1080, 2400))
    kw.setdefault("class_name", "android.widget.Button")
    kw.setdefault("clickable", True)
    return UIElement(**kw)


def test_resource_ids_are_identities_not_strings():
    target = el(resource_id="app:id/menu_item_0", text="Share", bounds=(0, 100, 200, 200))
    other = el(resource_id="app:id/menu_item_1", text="Share", bounds=(0, 100, 200, 200), index=1)
    assert match_element(target, [other]) is None
    same = el(resource_id="lib:id/menu_item_0", text="Share", bounds=(0, 300, 200, 400), index=2)
    m = match_element(target, [other, same])
    assert m is not None and m[0].index == 2  # package prefix ignored


def test_fuzzy_text_tolerates_changed_numbers_but_not_other_words():
    assert text_similarity("3 new messages", "12 new messages") > 0.9
    target = el(text="Archive", bounds=(900, 100, 1000, 200))
    assert match_element(target, [el(text="Delete", bounds=(900, 100, 1000, 200))]) is None
    m = match_element(target, [el(text="archive ", bounds=(600, 150, 700, 250), index=3)])
    assert m is not None and m[0].index == 3 and 0 < m[1] <= 1


def test_look_alike_rows_are_separated_by_context():
    rows = [("Groceries", "2 items"), ("Holidays", "5 items"), ("Work", "9 items")]
    cands = [
        el(text="Delete", index=i, bounds=(900, 300 + 200 * i, 1000, 400 + 200 * i), context=ctx)
        for i, ctx in enumerate(rows)
    ]
    target = cands[1].model_copy(update={"bounds": (900, 300, 1000, 400)})  # another slot
    m = match_element(target, cands)
    assert m is not None and m[0].index == 1
    # the row is gone: the other rows' Delete must not be tapped instead
    assert match_element(target, [cands[0], cands[2]]) is None


def test_position_is_relative_to_the_screen():
    a = el(text="OK", bounds=(900, 2200, 1000, 2300), screen=(1080, 2400))
    small = [
        el(text="OK", index=0, bounds=(40, 100, 120, 150), screen=(720, 1600)),
        el(text="OK", index=1, bounds=(600, 1466, 666, 1533), screen=(720, 1600)),
    ]
    m = match_element(a, small)
    assert m is not None and m[0].index == 1


def test_renamed_ids_fall_back_to_text_and_featureless_targets_give_none():
    target = el(resource_id="app:id/save_btn", text="Save")
    renamed = el(resource_id="app:id/btn_save_v2", text="Save", index=5)
    m = match_element(target, [renamed])
    assert m is not None and m[0].index == 5
    bare = el(class_name="android.widget.FrameLayout")
    assert match_element(bare, [bare]) is None


def test_empty_fields_are_named_by_their_hint_and_affordances_must_fit():
    field = el(class_name="android.widget.EditText", hint="Title", resource_id="app:id/note_title")
    body = el(class_name="android.widget.EditText", hint="Body", index=1)
    title = el(class_name="android.widget.EditText", hint="Title", index=2)  # ids stripped
    m = match_element(field, [body, title])
    assert m is not None and m[0].index == 2
    switch = el(class_name="android.widget.Switch", content_desc="Wi-Fi", checkable=True)
    caption = el(class_name="android.widget.TextView", text="Wi-Fi", clickable=False, index=4)
    assert match_element(switch, [caption]) is None


def test_numbers_that_name_things_are_not_fuzzed_away():
    assert text_similarity("task 18", "task 17") <= 0.5
    assert text_similarity("reel at row 1, column 1", "reel at row 1, column 3") <= 0.5
    assert text_similarity("10:45 am", "11:02 am") > 0.9
    target = el(content_desc="Task 18", bounds=(0, 200, 1080, 300))
    assert match_element(target, [el(content_desc="Task 17", bounds=(0, 200, 1080, 300))]) is None


def test_context_similarity_weighs_words_over_numbers():
    assert context_similarity(("Groceries", "2 items"), ("Groceries", "3 items")) > 0.9
    assert context_similarity(("Groceries", "2 items"), ("Holidays", "2 items")) < 0.5


# ------------------------------------------------------------ real-dump figures

FAMILIES = ("scale", "shift", "reorder", "drop", "dynamic", "combo")
SCREEN_WIDE = ("scale", "shift", "reorder", "dynamic")


def _seed(*parts: object) -> int:
    return zlib.crc32("|".join(map(str, parts)).encode())


def is_target(e: UIElement, shown: set[int]) -> bool:
    interactive = e.clickable or e.long_clickable or e.checkable or is_editable(e)
    return interactive and e.index in shown and bool(e.text or e.content_desc or e.resource_id)


def _identity(e: UIElement) -> tuple:
    return (id_name(e.resource_id), e.text, e.content_desc, e.class_name, e.context)


def _related(root, node, target: UIElement) -> list:
    """What the drop perturbation spares: the target's row and the texts around it.

    The row is the target's lowest ancestor holding some other text; the
    texts are the ones the target was recorded next to (its context).
    Everything else on the screen may go missing.
    """
    parents = P.parent_map(root)
    keep = [node]
    row = node
    while row in parents and parents[row].tag == "node":
        row = parents[row]
        if any((n.get("text") or n.get("content-desc")) for n in row.iter("node") if n is not node):
            keep.append(row)
            break
    near = set(target.context)
    keep += [
        n
        for n in root.iter("node")
        if (" ".join((n.get("text") or n.get("content-desc") or "").split()))[:80] in near
    ]
    return keep


def _twin(a: UIElement, b: UIElement) -> bool:
    """Stacked duplicates (same identity, same box): a tap on one is a tap on the other."""
    return a.bounds == b.bounds and _identity(a)[:4] == _identity(b)[:4]


def _perturb(root, family: str, rng: random.Random, keep) -> None:
    if family in ("scale", "combo"):
        sx, sy = rng.choice([(2 / 3, 2 / 3), (4 / 3, 4 / 3), (0.75, 0.8), (1.25, 1.1)])
        P.scale(root, sx, sy)
    if family in ("shift", "combo"):
        P.shift(root, round(P.screen_of(root)[1] * rng.choice([0.01, 0.02, 0.03])))
    if family in ("reorder", "combo"):
        P.reorder(root, rng)
    if family in ("drop", "combo"):
        P.drop(root, rng, keep=keep, p=0.1)
    if family in ("dynamic", "combo"):
        P.dynamic_text(root, rng)


def evaluate(files: list[Path], max_targets: int | None, matcher=match_element) -> dict:
    """Match figures per family: present (correct / wrong / missed) and absent (wrong / none)."""
    present: dict[str, Counter] = {f: Counter() for f in FAMILIES}
    absent: dict[str, Counter] = {f: Counter() for f in ("none", "combo")}
    excluded = Counter()
    failures: list[str] = []
    for path in files:
        xml = path.read_text(encoding="utf-8")
        root = P.load_tree(xml)
        nodes = P.tag_nodes(root)
        elements = parse_hierarchy(P.dump_tree(root))
        shown = {e.index for e in visible_elements(elements)}
        targets = [e for e in elements if is_target(e, shown)]
        excluded["featureless"] += sum(
            1
            for e in elements
            if e.index in shown
            and (e.clickable or e.long_clickable or e.checkable or is_editable(e))
            and not (e.text or e.content_desc or e.resource_id)
        )
        if max_targets is not None and len(targets) > max_targets:
            targets = random.Random(_seed(path.name)).sample(targets, max_targets)
        # Screen-wide perturbations are drawn once per dump; the ones that
        # must spare the target's row are drawn per target.
        shared = {}
        for family in SCREEN_WIDE:
            r = copy.deepcopy(root)
            _perturb(r, family, random.Random(_seed(path.name, family)), keep=[])
            shared[family] = (r, parse_hierarchy(P.dump_tree(r)), P.keys_in_order(r))
        for t in targets:
            key = str(t.index)
            for family in FAMILIES:
                if family in shared:
                    r, live, keys = shared[family]
                else:
                    rng = random.Random(_seed(path.name, t.index, family))
                    r = copy.deepcopy(root)
                    node = next(n for n in r.iter("node") if n.get(P.TAG) == key)
                    _perturb(r, family, rng, keep=_related(r, node, t))
                    live, keys = parse_hierarchy(P.dump_tree(r)), P.keys_in_order(r)
                if key not in keys:
                    present[family]["n/a"] += 1
                    continue
                want = keys.index(key)
                if live[want] not in visible_elements(live):
                    present[family]["n/a"] += 1  # pushed off screen or clipped: nothing to tap
                    continue
                got = matcher(t, live)
                if got is None:
                    present[family]["missed"] += 1
                    failures.append(
                        f"{family} missed {path.name}#{t.index} {t.text or t.content_desc or t.resource_id!r}"
                    )
                elif got[0].index == want or _twin(got[0], live[want]):
                    present[family]["correct"] += 1
                else:
                    present[family]["wrong"] += 1
                    failures.append(
                        f"{family} WRONG {path.name}#{t.index} {t.text or t.content_desc or t.resource_id!r}"
                        f" -> #{keys[got[0].index]} {got[0].text or got[0].content_desc!r}"
                    )
            same = [nodes[e.index] for e in elements if _identity(e) == _identity(t)]
            for family in absent:
                rng = random.Random(_seed(path.name, t.index, "absent", family))
                r = copy.deepcopy(root)
                keys = {n.get(P.TAG) for n in same}
                P.remove(r, [n for n in r.iter("node") if n.get(P.TAG) in keys])
                if family == "combo":
                    _perturb(r, "combo", rng, keep=[])
                got = matcher(t, parse_hierarchy(P.dump_tree(r)))
                if got is None:
                    absent[family]["none"] += 1
                else:
                    absent[family]["wrong"] += 1
                    failures.append(
                        f"absent-{family} WRONG {path.name}#{t.index} {t.text or t.content_desc or t.resource_id!r}"
                        f" -> #{P.keys_in_order(r)[got[0].index]} {got[0].text or got[0].content_desc!r} ctx={got[0].context}"
                    )
    return {"present": present, "absent": absent, "excluded": excluded, "failures": failures}


def report(fig: dict) -> str:
    lines = [f"{'perturbation':<14}{'n':>6}{'correct':>9}{'wrong':>7}{'missed':>8}{'rate':>9}"]
    tot = Counter()
    for fam, c in fig["present"].items():
        n = sum(c.values())
        tot.update(c)
        n -= c["n/a"]
        lines.append(
            f"{fam:<14}{n:>6}{c['correct']:>9}{c['wrong']:>7}{c['missed']:>8}{c['correct'] / max(n, 1):>9.2%}"
        )
    n = sum(tot.values()) - tot["n/a"]
    lines.append(
        f"{'all present':<14}{n:>6}{tot['correct']:>9}{tot['wrong']:>7}{tot['missed']:>8}{tot['correct'] / max(n, 1):>9.2%}"
    )
    for fam, c in fig["absent"].items():
        n = sum(c.values())
        lines.append(
            f"{'absent-' + fam:<14}{n:>6}{'':>9}{c['wrong']:>7}{'':>8}{c['wrong'] / max(n, 1):>9.2%} wrong"
        )
    lines.append(
        f"not counted: target clipped or pushed off screen by the perturbation: {tot['n/a']}"
    )
    lines.append(
        f"excluded featureless interactive elements (no text, desc or id): {fig['excluded']['featureless']}"
    )
    return "\n".join(lines)


def _check(fig: dict) -> None:
    tot = Counter()
    for c in fig["present"].values():
        tot.update(c)
    n = sum(tot.values()) - tot["n/a"]
    assert n > 0
    correct = tot["correct"] / n
    absent = Counter()
    for c in fig["absent"].values():
        absent.update(c)
    wrong_absent = absent["wrong"] / max(sum(absent.values()), 1)
    detail = "\n".join(fig["failures"][:25])
    assert correct >= 0.99, f"retargeting {correct:.2%} < 99%\n{detail}"
    assert wrong_absent <= 0.01, f"absent targets matched wrongly {wrong_absent:.2%} > 1%\n{detail}"


def test_retargeting_figures_on_real_dumps_sample(real_dump_files, capsys):
    """Every dump, a seeded sample of targets per dump: fast enough for every run."""
    fig = evaluate(real_dump_files, max_targets=6)
    with capsys.disabled():
        print(
            "\nmatch_element on perturbed real dumps (sample of 6 targets per dump)\n" + report(fig)
        )
    _check(fig)


@pytest.mark.slow
def test_retargeting_figures_on_real_dumps_full(real_dump_files, capsys):
    fig = evaluate(real_dump_files, max_targets=None)
    with capsys.disabled():
        print("\nmatch_element on perturbed real dumps (all targets)\n" + report(fig))
    _check(fig)


def _naive(target: UIElement, candidates: list[UIElement]):
    """What a first attempt looks like: best fuzzy label, never None."""
    from rapidfuzz import fuzz

    best = max(candidates, key=lambda c: fuzz.ratio(target.label, c.label))
    return best, 1.0


def test_the_evaluation_fails_a_naive_matcher(real_dump_files):
    """The figures test can fail: a text-only matcher that always answers does."""
    files = [f for f in real_dump_files if "settings" in f.name or "tasks" in f.name]
    fig = evaluate(files, max_targets=6, matcher=_naive)
    with pytest.raises(AssertionError, match="retargeting|absent"):
        _check(fig)


# ------------------------------------------------------- the perturbations


def test_perturbations_do_what_they_say(real_dumps_dir):
    xml = (real_dumps_dir / "com.whatsapp__whatsAgent-2.0__1.xml").read_text(encoding="utf-8")
    root = P.load_tree(xml)
    P.tag_nodes(root)
    base = {e.index: e for e in parse_hierarchy(P.dump_tree(root))}

    r = copy.deepcopy(root)
    P.scale(r, 0.5, 0.5)
    scaled = parse_hierarchy(P.dump_tree(r))
    assert scaled[0].screen == (540, 1170) and len(scaled) == len(base)

    r = copy.deepcopy(root)
    P.shift(r, 40)
    shifted = parse_hierarchy(P.dump_tree(r))
    app = next(e for e in shifted if e.resource_id == "com.whatsapp:id/back")
    assert app.bounds[1] == base[app.index].bounds[1] + 40
    assert shifted[1].bounds == base[1].bounds  # the status bar stays

    r = copy.deepcopy(root)
    assert P.reorder(r, random.Random(1), p=1.0) >= 1
    keys = P.keys_in_order(r)
    assert sorted(keys, key=int) != keys and sorted(keys) == sorted(P.keys_in_order(root))

    r = copy.deepcopy(root)
    assert P.dynamic_text(r, random.Random(1)) > 0
    texts = {n.get(P.TAG): n.get("text") for n in r.iter("node")}
    clock = next(e for e in base.values() if e.text.startswith("10:10"))  # a message time
    assert texts[str(clock.index)] != clock.text and texts[str(clock.index)][-2:] == clock.text[-2:]
    assert all(
        texts[str(i)] == e.text
        for i, e in base.items()
        if e.text and not any(ch.isdigit() for ch in e.text)
    )

    r = copy.deepcopy(root)
    keep = next(n for n in r.iter("node") if n.get("resource-id") == "com.whatsapp:id/back")
    P.drop(r, random.Random(1), keep=[keep], p=0.3)
    left = P.keys_in_order(r)
    assert len(left) < len(base) and keep.get(P.TAG) in left
