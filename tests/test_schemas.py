from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from prorex.schemas import (
    Action,
    Observation,
    RewardRequest,
    RewardResult,
    Step,
    Task,
    Trajectory,
    UIElement,
    read_jsonl,
)


def _request(task_id: str = "t1") -> RewardRequest:
    target = UIElement(text="Save", clickable=True, bounds=(10, 20, 110, 80), screen=(1080, 2400))
    obs = Observation(xml="<hierarchy/>")
    step = Step(index=0, observation=obs, action=Action(action_type="click", target=target))
    return RewardRequest(
        task=Task(id=task_id, goal="Save the note", app="Notes", family="note_create"),
        trajectory=Trajectory(steps=[step], final_observation=obs),
        label=True,
    )


def test_request_roundtrip():
    req = _request()
    again = RewardRequest.model_validate_json(req.model_dump_json())
    assert again == req
    assert again.trajectory.steps[0].action.target.center == (60, 50)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"action_type": "click"},
        {"action_type": "input_text"},
        {"action_type": "scroll"},
        {"action_type": "open_app"},
        {"action_type": "status"},
        {"action_type": "answer"},
        {"action_type": "click", "x": 3},
        {"action_type": "teleport"},
    ],
)
def test_action_rejects_incomplete(kwargs):
    with pytest.raises(ValidationError):
        Action(**kwargs)


def test_screenshot_bytes_never_serialised():
    obs = Observation(xml="<hierarchy/>", screenshot_png=b"\x89PNG")
    assert "screenshot_png" not in json.loads(obs.model_dump_json())


def test_reward_result_error_has_no_reward():
    with pytest.raises(ValidationError):
        RewardResult(task_id="a", method="prore", reward=0, status="error")
    with pytest.raises(ValidationError):
        RewardResult(task_id="a", method="prore", reward=None, status="ok")


def test_read_jsonl_reports_file_line_field_and_goes_on(tmp_path):
    good = _request("good").model_dump_json()
    bad_field = json.loads(_request("bad").model_dump_json())
    bad_field["trajectory"]["steps"][0]["action"]["action_type"] = "teleport"
    path = tmp_path / "requests.jsonl"
    path.write_text(
        "\n".join([good, "{not json", json.dumps(bad_field), "", good.replace('"good"', '"good2"')]) + "\n"
    )
    records, errors = read_jsonl(path, RewardRequest)
    assert [r.task.id for r in records] == ["good", "good2"]
    assert [(e.line, e.field) for e in errors] == [
        (2, ""),
        (3, "trajectory.steps[0].action.action_type"),
    ]
    assert str(path) in str(errors[1]) and ":3:" in str(errors[1])
    assert "invalid JSON" in errors[0].message
