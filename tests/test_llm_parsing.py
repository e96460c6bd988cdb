"""Reply parsing: messy but meaningful replies parse; empty or meaningless ones are errors."""

from __future__ import annotations

import pytest

from prorex.llm.parsing import (
    ParseError,
    extract_analysis,
    extract_claims,
    extract_goals,
    extract_json,
    extract_status,
)


def test_json_in_code_fence_with_prose():
    reply = 'Sure! Here is the action:\n```json\n{"action_type": "click", "index": 12}\n```\nHope it helps.'
    assert extract_json(reply, keys=("action_type",)) == {"action_type": "click", "index": 12}


def test_json_trailing_commas_and_single_quotes():
    assert extract_json("{'action_type': 'scroll', 'direction': 'down',}") == {
        "action_type": "scroll",
        "direction": "down",
    }
    assert extract_json('{"a": [1, 2,], "b": true,}') == {"a": [1, 2], "b": True}


def test_picks_block_with_expected_keys_among_several():
    reply = 'Example: {"foo": 1}\nAnswer: {"action_type": "navigate_back"} and also {"x": 2}'
    assert extract_json(reply, keys=("action_type",)) == {"action_type": "navigate_back"}


def test_apostrophes_in_prose_do_not_break_json():
    reply = 'I don\'t see it, so {"action_type": "scroll", "direction": "down"} it\'s below.'
    assert extract_json(reply, keys=("action_type",))["direction"] == "down"


def test_json_missing_is_error():
    with pytest.raises(ParseError):
        extract_json("I would click the Save button.", keys=("action_type",))


@pytest.mark.parametrize("reply", ["", "   ", None, "\n\n"])
def test_empty_reply_is_error_never_success(reply):
    with pytest.raises(ParseError):
        extract_status(reply)
    with pytest.raises(ParseError):
        extract_json(reply)
    with pytest.raises(ParseError):
        extract_goals(reply)
    with pytest.raises(ParseError):
        extract_claims(reply)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Analysis: fine.\nStatus: success", True),
        ("Analysis: no.\nStatus: failure", False),
        ("**Status:** Success", True),
        ("status - FAILURE.", False),
        ("Status: failure\n...on reflection...\nStatus: success", True),
        ('Status: "success"', True),
    ],
)
def test_status_forms(reply, expected):
    assert extract_status(reply) is expected


@pytest.mark.parametrize(
    "reply", ["The task looks done.", "Status: unknown", "Status: partial success", "success"]
)
def test_status_without_clear_verdict_is_error(reply):
    with pytest.raises(ParseError):
        extract_status(reply)


def test_goals_single_and_numbered():
    assert extract_goals("Analysis: x\nGoal: Find a.txt in Docs.") == ["Find a.txt in Docs."]
    reply = "Analysis: two states.\nGoal 1: Find a.txt in Docs.\n**Goal 2:** Check b.txt is gone.\n"
    assert extract_goals(reply) == ["Find a.txt in Docs.", "Check b.txt is gone."]
    assert extract_analysis(reply) == "two states."


def test_claims_with_prefix_fence_and_bare_list():
    body = (
        '{"claims": [{"steps": [1, 2], "reasoning": "seen", "claim": "a.txt is listed in Docs"},]}'
    )
    assert extract_claims(f"Claims:\n```json\n{body}\n```")[0]["claim"] == "a.txt is listed in Docs"
    assert extract_claims('Claims: [{"steps": [3], "claim": "x"}]') == [
        {"steps": [3], "claim": "x"}
    ]
    assert extract_claims('{"policy_claims": [{"claim": "y"}]}') == [{"claim": "y"}]
    with pytest.raises(ParseError):
        extract_claims('Claims: {"claims": "none"}')


def test_extract_evidence_is_optional():
    from prorex.llm.parsing import extract_evidence

    assert extract_evidence("Analysis: x\nEvidence: yes\nStatus: success") is True
    assert extract_evidence("Analysis: x\n**Evidence:** No, nothing seen\nStatus: failure") is False
    assert extract_evidence("Analysis: x\nStatus: success") is None
