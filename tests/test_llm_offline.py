"""The offline models: real prompts in, the requested formats out, generic heuristics only."""

from __future__ import annotations

import json

from prorex.claims import parse_claims
from prorex.llm.offline import answer, route
from prorex.llm.offline_facts import Fact, parse_fact
from prorex.llm.offline_text import goal_info, parse_screen
from prorex.llm.parsing import extract_goals, extract_json, extract_status
from prorex.prompts import render

SCREEN = """App: com.example.files  Screen: 1080x2400
[9] ImageButton desc="Navigate up" click @top-left
[10] TextView "Documents" @top-center
[12] LinearLayout click @top-center
[13] TextView "report.pdf" @top-center
[14] TextView "12 kB" @top-center
[15] LinearLayout click @top-center
[16] TextView "report_2.pdf" @top-center
[20] LinearLayout click @middle-center
[21] TextView "Use Wi-Fi" @middle-center
[22] Switch checked=on @middle-right"""


def test_goal_info_reads_verbs_items_places_and_values():
    g = goal_info(
        "Move the file holiday_photos.jpg from Podcasts to the DCIM folder in the Files app."
    )
    assert (g.verb, g.items, g.source, g.target, g.app) == (
        "move",
        ["holiday_photos.jpg"],
        "Podcasts",
        "DCIM",
        "Files",
    )
    g = goal_info(
        "Create a new note in the Notes app named groceries.md with the following text: milk and eggs"
    )
    assert g.verb == "create" and g.items == ["groceries.md"] and "milk and eggs" in g.values
    g = goal_info("Turn Wi-Fi off in the Settings app.")
    assert (g.verb, g.items) == ("set-off", ["Wi-Fi"])
    g = goal_info(
        "What quantity of basil do I need for the recipe 'Pesto Pasta' in the Recipes app?"
    )
    assert g.verb == "answer" and g.items == ["Pesto Pasta"] and g.keys == ["basil"]
    g = goal_info("Create a timer with 0 hours, 5 minutes, and 30 seconds in the Clock app.")
    assert g.generic and g.items == ["timer"] and "00:05:30" in g.values


def test_parse_screen_reads_the_compact_format():
    scr = parse_screen(SCREEN)
    assert scr.package == "com.example.files" and scr.title == "Documents"
    sw = [e for e in scr.elems if e.checked is not None]
    assert len(sw) == 1 and sw[0].checked is True and sw[0].where == "middle-right"
    assert scr.has_up and not scr.scrollable


def _step_prompt(goal: str, screen: str, history: str = "(none yet)", left: int = 8) -> str:
    return render("evaluator_step", goal=goal, screen=screen, history=history, steps_left=left)


def test_evaluator_opens_named_app_then_clicks_matching_place():
    launcher = 'App: com.example.launcher  Screen: 1080x2400\n[3] TextView "Files" click @top-left'
    reply = answer(_step_prompt("Check whether a.txt is in Archive in the Files app.", launcher))
    assert extract_json(reply, keys=("action_type",)) == {
        "action_type": "open_app",
        "app_name": "Files",
    }
    home = (
        'App: com.example.files  Screen: 1080x2400\n[9] TextView "Storage" @top-center\n'
        '[12] LinearLayout click @top-center\n[13] TextView "Archive" @top-center\n'
        '[15] LinearLayout click @top-center\n[16] TextView "Music" @top-center'
    )
    reply = answer(
        _step_prompt(
            "Check whether a.txt is in Archive in the Files app.",
            home,
            "1. open_app Files -> screen changed",
        )
    )
    assert extract_json(reply, keys=("action_type",)) == {"action_type": "click", "index": 13}


def test_evaluator_scrolls_a_long_list_then_stops_at_its_end():
    page = 'App: com.example.files  Screen: 1080x2400\n[9] TextView "Archive" @top-center\n[11] RecyclerView scroll @middle-center\n[13] TextView "b.txt" @top-center'
    goal = "Find a.txt in Archive in the Files app."
    hist = "1. open_app Files -> screen changed\n2. click 'Archive' -> screen changed"
    assert extract_json(answer(_step_prompt(goal, page, hist)))["action_type"] == "scroll"
    hist += "\n3. scroll down -> screen unchanged"
    # The list may have been left half-way: its top is checked as well.
    assert extract_json(answer(_step_prompt(goal, page, hist))) == {
        "action_type": "scroll",
        "direction": "up",
    }
    hist += "\n4. scroll up -> screen unchanged"
    assert extract_json(answer(_step_prompt(goal, page, hist))) == {
        "action_type": "status",
        "goal_status": "complete",
    }


def test_evaluator_does_not_tap_a_switch_row_it_only_has_to_read():
    reply = answer(
        _step_prompt(
            "Open the page with Wi-Fi in the Settings app and read whether Wi-Fi is on.",
            SCREEN.replace("com.example.files", "com.example.settings"),
            "1. open_app Settings -> screen changed",
        )
    )
    assert extract_json(reply)["action_type"] == "status"


def _policy_prompt(goal: str, screens: str, actions: str, final: str) -> str:
    return render(
        "claims_policy",
        goal=goal,
        actions=actions,
        final=final,
        screens=screens,
        min_claims=2,
        max_claims=6,
    )


def test_claims_writer_reports_presence_lookalikes_and_answers():
    screens = f"--- Step 0 screen ---\n{SCREEN}"
    reply = answer(
        _policy_prompt(
            "What is in report.pdf in the Documents folder?",
            screens,
            "Step 0: answer text='42'",
            "Answer given: 42\nReported status: complete",
        )
    )
    claims = [c.claim for c in parse_claims(reply)]
    assert '"report.pdf" is listed in "Documents".' in claims
    assert (
        '"report_2.pdf" is listed in "Documents".' in claims
    )  # the look-alike is a different item
    assert 'the agent answered "42".' in claims


def test_evaluator_claims_never_describe_its_own_actions():
    prompt = render(
        "claims_evaluator",
        goal="Delete the file report.pdf from the Documents folder in the Files app.",
        probe_goal="Find report.pdf in Documents in the Files app.",
        actions="Step 0: click 'Documents'\nStep 1: status complete",
        screens=f"--- Step 0 screen ---\n{SCREEN}\n\n--- Step 1 screen (final) ---\n{SCREEN}",
        min_claims=1,
        max_claims=5,
    )
    claims = [c.claim for c in parse_claims(answer(prompt))]
    assert claims and not any(c.startswith("the agent") for c in claims)
    assert '"report.pdf" is listed in "Documents".' in claims


def _judge(goal: str, policy: list[str], evaluator: list[str]) -> bool:
    pol = "\n".join(f"P{i} (steps 1): {c}" for i, c in enumerate(policy, 1))
    ev = "Probing goal: x\n" + "\n".join(f"E{i} (steps 2): {c}" for i, c in enumerate(evaluator, 1))
    return extract_status(
        answer(render("judge", goal=goal, policy_claims=pol, evaluator_claims=ev))
    )


def test_judge_checks_the_verb_expectation_against_evaluator_evidence_first():
    goal = "Move the file a.txt from Inbox to the Archive folder in the Files app."
    pol = ["the agent reported the task as complete.", '"a.txt" is listed in "Archive".']
    assert _judge(
        goal,
        pol,
        ['"a.txt" is listed in "Archive".', '"a.txt" is not listed in "Inbox" (whole list seen).'],
    )
    assert not _judge(
        goal, pol, ['"a.txt" is listed in "Inbox".']
    )  # the evaluator contradicts the policy
    assert not _judge(goal, pol, ['"a.txt" is not listed in "Archive" (whole list seen).'])
    # A look-alike in the target is not the moved file.
    assert not _judge(
        goal,
        ["the agent reported the task as complete."],
        [
            '"a_2.txt" is listed in "Archive".',
            '"a.txt" is not listed in "Archive" (whole list seen).',
        ],
    )


def test_judge_discards_evaluator_claims_about_its_own_actions():
    goal = "Delete the file a.txt from the Inbox folder in the Files app."
    reply = answer(
        render(
            "judge",
            goal=goal,
            policy_claims="P1 (steps 3): the agent reported the task as complete.",
            evaluator_claims='Probing goal: x\nE1 (steps 1): the agent tapped "Delete" on "Inbox".\nE2 (steps 2): "a.txt" is not listed in "Inbox" (whole list seen).',
        )
    )
    assert "discarded E1" in reply and extract_status(reply) is True


def test_static_judge_falls_back_to_the_agents_report_when_screens_are_silent():
    # The last screen is the home screen: a careful reader with only it must trust the agent's report.
    screens = '--- Step 4 screen (final) ---\nApp: com.example.launcher  Screen: 1080x2400\n[3] TextView "Files" click @top-left'
    prompt = render(
        "static_last",
        goal="Move the file a.txt from Inbox to the Archive folder in the Files app.",
        actions="Step 2: click 'Move here'\nStep 3: navigate_home",
        final="Answer given: (none)\nReported status: complete",
        screens=screens,
    )
    assert extract_status(answer(prompt)) is True


def test_schedule_and_revise_formats():
    reply = answer(
        render(
            "probe_schedule", goal="Delete the file a.txt from the Inbox folder in the Files app."
        )
    )
    goals = extract_goals(reply)
    assert (
        len(goals) == 1
        and "a.txt" in goals[0]
        and "Inbox" in goals[0]
        and len(goals[0].split()) <= 20
    )
    revised = answer(
        render(
            "probe_revise",
            goal="Delete the file a.txt from the Inbox folder in the Files app.",
            previous_goals="1. " + goals[0],
            collected_info='Probe 1: stopped=budget\n- "a.txt" was not seen in the visible part of "Inbox"',
        )
    )
    assert "scroll" in extract_goals(revised)[0].lower()


def test_routing_and_fact_sentences_round_trip():
    assert route("no headers here") is None
    for f in [
        Fact("listed", subject="a.txt", place="Inbox"),
        Fact("switch", subject="Wi-Fi", place="Network", value="on"),
        Fact("absent", subject="b", place="c"),
        Fact("field", subject="Phone", place="Ana", value="+1 555"),
    ]:
        back = parse_fact(f.sentence())
        assert (back.kind, back.subject, back.place, back.value) == (
            f.kind,
            f.subject,
            f.place,
            f.value,
        )
    json.dumps(Fact("dupes", place="x", value="y").sentence())
