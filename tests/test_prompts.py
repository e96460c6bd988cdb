"""Prompt templates exist, every placeholder is filled, and models never see labels."""

from __future__ import annotations

import pytest

from prorex.prompts import PROMPT_NAMES, PromptError, placeholders, render


@pytest.mark.parametrize("name", PROMPT_NAMES)
def test_template_exists_and_renders_when_every_placeholder_is_given(name):
    names = placeholders(name)
    assert names, f"{name} has no placeholders"
    text = render(name, **{n: f"<{n}-value>" for n in names})
    for n in names:
        assert f"<{n}-value>" in text
    assert "${" not in text


def test_missing_or_unknown_placeholder_is_an_error():
    with pytest.raises(PromptError, match="no value"):
        render("probe_schedule")
    with pytest.raises(PromptError, match="unknown"):
        render("probe_schedule", goal="x", label=True)


def test_env_override(tmp_path, monkeypatch):
    (tmp_path / "judge.txt").write_text("G=${goal}")
    monkeypatch.setenv("PROREX_PROMPTS_DIR", str(tmp_path))
    assert render("judge", goal="hi") == "G=hi"
    with pytest.raises(PromptError, match="not found"):
        render("probe_schedule", goal="x")


def test_no_template_asks_for_label_family_or_meta():
    for name in PROMPT_NAMES:
        assert not placeholders(name) & {"label", "family", "meta", "kind"}


def test_judges_end_with_status_and_schedulers_ask_for_goals():
    for name in ("judge", "static_last", "static_full"):
        assert "Status: success or failure" in render(name, **{n: "x" for n in placeholders(name)})
    for name in ("probe_schedule", "probe_revise"):
        text = render(name, **{n: "x" for n in placeholders(name)})
        assert "Goal:" in text and "Goal 1:" in text and "20 words" in text
