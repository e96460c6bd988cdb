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


_FOLDERS = (
    'App: com.example.files  Screen: 1080x2400\n[9] TextView "Storage" @top-center\n'
    '[12] LinearLayout click @top-center\n[13] TextView "Archive" @top-center\n'
    '[15] LinearLayout click @top-center\n[16] TextView "Inbox" @top-center'
)
_MOVE_GOAL = "Check whether a.txt is in Archive and not in Inbox in the Files app."


def test_offline_evaluator_is_greedy_at_temperature_zero_and_samples_above():
    from prorex.llm.offline_agent import decide

    prompt = _step_prompt(_MOVE_GOAL, _FOLDERS, "1. open_app Files -> screen changed")
    greedy = decide(prompt)
    assert extract_json(greedy, keys=("action_type",))["index"] == 13  # the destination first
    assert all(decide(prompt, 0.0, seed) == greedy for seed in range(5))
    assert decide(prompt, 0.7, 99) == decide(prompt, 0.7, 99)  # reproducible for a seed
    picks = {
        extract_json(decide(prompt, 0.7, s), keys=("action_type",))["index"] for s in range(40)
    }
    assert picks == {13, 16}  # both places get visited first by some seed


def test_sampler_prefers_high_scores_and_never_uses_global_random_state():
    import random

    from prorex.llm.offline_agent import Sampler

    cands = [(0.0, "a"), (5.0, "b"), (5.0, "c")]
    assert Sampler(0.0, 3).pick(cands) == "b"  # greedy: first of the best
    random.seed(1)
    first = [Sampler(0.7, s).pick(cands) for s in range(50)]
    random.seed(2)
    assert [Sampler(0.7, s).pick(cands) for s in range(50)] == first
    assert set(first) == {"b", "c"}  # "a" is e^-7 less likely: never drawn here


def test_revision_changes_the_goal_when_evidence_was_missing():
    goal = "Move the file a.txt from Inbox to the Archive folder in the Files app."
    first = extract_goals(answer(render("probe_schedule", goal=goal)))
    nothing = extract_goals(
        answer(
            render(
                "probe_revise",
                goal=goal,
                previous_goals="1. " + first[0],
                collected_info="Probe 1: stopped=budget\n- (no claims)",
            )
        )
    )
    assert nothing != first and len(nothing) == 2  # each place its own goal
    assert "Inbox" in nothing[0]  # the place named last (never reached) comes first now
    found = extract_goals(
        answer(
            render(
                "probe_revise",
                goal=goal,
                previous_goals="1. " + first[0],
                collected_info='Probe 1: stopped=done\n- "a.txt" is listed in "Archive".',
            )
        )
    )
    assert found == first  # decisive evidence: the same states are checked again


def _judge_prompt(goal: str, policy: list[str], evaluator: list[str]) -> str:
    pol = "\n".join(f"P{i} (steps {i}): {c}" for i, c in enumerate(policy, 1))
    ev = "Probing goal: look\n" + "\n".join(
        f"E{i} (steps {i}): {c}" for i, c in enumerate(evaluator, 1)
    )
    return render("judge", goal=goal, policy_claims=pol, evaluator_claims=ev)


def test_judge_fails_collateral_damage_to_other_entries_of_the_list():
    goal = "Delete the event Movie night on October 26, 2023 from the Calendar app."
    policy = [
        '"October 26, 2023" has the entries "Movie night (prep) | Movie night | Standup" (whole list seen).',
        "the agent reported the task as complete.",
    ]
    clean = [
        '"Movie night" is not listed in "October 26, 2023" (whole list seen).',
        '"October 26, 2023" has the entries "Movie night (prep) | Standup" (whole list seen).',
    ]
    reply = answer(_judge_prompt(goal, policy, clean))
    assert extract_status(reply) is True and "Evidence: yes" in reply
    damaged = [clean[0], '"October 26, 2023" has the entries "Standup" (whole list seen).']
    reply = answer(_judge_prompt(goal, policy, damaged))
    assert extract_status(reply) is False and "Movie night (prep)" in reply


def test_judge_says_when_its_decision_did_not_rest_on_evaluator_evidence():
    goal = "Delete the event Movie night on October 26, 2023 from the Calendar app."
    policy = [
        'the agent tapped "Delete" on "Movie night".',
        "the agent reported the task as complete.",
    ]
    reply = answer(_judge_prompt(goal, policy, ['"Clock" shows "07:00".']))
    assert "Evidence: no" in reply


def test_judge_fails_a_command_used_on_a_lookalike_entry():
    goal = "Delete the event Movie night on October 26, 2023 from the Calendar app."
    policy = [
        '"October 26, 2023" has the entries "Movie night (prep) | Movie night" (whole list seen).',
        'the agent tapped "Delete event" on "Movie night".',
        'the agent tapped "Delete event" on "Movie night (prep)".',
        "the agent reported the task as complete.",
    ]
    evaluator = ['"Movie night" is not listed in "October 26, 2023" (whole list seen).']
    reply = answer(_judge_prompt(goal, policy, evaluator))
    assert extract_status(reply) is False and "Movie night (prep)" in reply
    assert "Evidence: no" in reply  # decided from the policy's own record
    # Only the goal's own item was acted on: success stands.
    reply = answer(_judge_prompt(goal, policy[:2] + policy[3:], evaluator))
    assert extract_status(reply) is True


_EDITOR = (
    'App: com.example.notes  Screen: 1080x2400\n'
    '[9] ImageButton desc="Navigate up" click @top-left\n'
    '[10] TextView "New note" @top-center\n'
    '[11] Button "Save" click @top-right\n'
    '[12] EditText "half.md" hint="Title" click editable focused @top-center\n'
)
_DISCARD = (
    'App: com.example.notes  Screen: 1080x2400\n'
    '[9] ImageButton desc="Navigate up" click @top-left\n'
    '[12] EditText "half.md" hint="Title" click editable @top-center\n'
    '[20] TextView "Discard changes?" @middle-center\n'
    '[21] Button "Keep editing" click @middle-center\n'
    '[22] Button "Discard" click @middle-right\n'
)
_NOTE_GOAL = "Check whether the note half.md is in the whole list of the Notes app."


def test_evaluator_backs_out_of_an_unsaved_form_instead_of_reopening_the_app():
    # opening the app in front would resume the same form, so the way out is back, then Discard
    reply = extract_json(answer(_step_prompt(_NOTE_GOAL, _EDITOR)), keys=("action_type",))
    assert reply["action_type"] == "navigate_back"
    hist = "1. navigate_back -> screen changed\n2. navigate_back -> screen changed"
    reply = extract_json(answer(_step_prompt(_NOTE_GOAL, _DISCARD, hist)), keys=("action_type",))
    assert reply == {"action_type": "click", "index": 22}
    # once the agent has acted for itself, a dialog is only dismissed, never discarded
    hist = "1. click 'Edit' -> screen changed\n2. navigate_back -> screen changed"
    reply = extract_json(answer(_step_prompt(_NOTE_GOAL, _DISCARD, hist)), keys=("action_type",))
    assert reply["action_type"] == "navigate_back"


def test_evaluator_goes_up_for_a_whole_list():
    page = (
        'App: com.example.notes  Screen: 1080x2400\n'
        '[9] ImageButton desc="Navigate up" click @top-left\n'
        '[10] TextView "plan.md" @top-center\n'
        '[11] TextView "Some text" @middle-center\n'
    )
    reply = extract_json(answer(_step_prompt(_NOTE_GOAL, page)), keys=("action_type",))
    assert reply["action_type"] == "navigate_back"
