"""Claims prompts carry the kept states' screenshots, in order and bounded, for vision models only."""

from __future__ import annotations

import asyncio

import litellm

from prorex.claims import MAX_CLAIM_IMAGES, apolicy_claims, screenshots
from prorex.config import ModelConfig
from prorex.llm.client import LLMClient
from prorex.llm.offline_facts import Fact, parse_fact
from prorex.schemas import Action, Observation, RewardRequest, Step, Task, Trajectory

CLAIMS = (
    'Claims: {"claims": [{"steps": [1], "reasoning": "seen", "claim": "a.txt is listed in Docs"}]}'
)


def _screen(title: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">'
        f'<node index="0" text="{title}" resource-id="" class="android.widget.TextView" '
        'package="com.example.files" content-desc="" checkable="false" checked="false" '
        'clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" '
        'long-clickable="false" password="false" selected="false" bounds="[0,200][1080,300]" />'
        "</hierarchy>"
    )


def _request(n: int, missing: set[int]) -> RewardRequest:
    steps = [
        Step(
            index=i,
            # Distinct screens, so the state filter keeps every one.
            observation=Observation(
                xml=_screen(f"Page {i}"),
                package="com.example.files",
                screenshot_png=None if i in missing else f"png-{i}".encode(),
            ),
            action=Action(action_type="scroll", direction="down"),
        )
        for i in range(n)
    ]
    final = Observation(
        xml=_screen("Final"), package="com.example.files", screenshot_png=b"png-final"
    )
    return RewardRequest(
        task=Task(id="t", goal="Find a.txt in Docs in the Files app."),
        trajectory=Trajectory(steps=steps, final_observation=final),
    )


def _capture(monkeypatch) -> list[dict]:
    calls: list[dict] = []

    async def fake(**kw):
        calls.append(kw)
        return litellm.ModelResponse(
            choices=[{"index": 0, "message": {"role": "assistant", "content": CLAIMS}}]
        )

    monkeypatch.setattr(litellm, "acompletion", fake)
    return calls


def _images(call: dict) -> list[bytes]:
    import base64

    content = call["messages"][0]["content"]
    assert isinstance(content, list) and content[0]["type"] == "text"
    return [
        base64.b64decode(p["image_url"]["url"].split(",", 1)[1])
        for p in content[1:]
        if p["type"] == "image_url"
    ]


def test_vision_claims_model_gets_the_last_screenshots_in_order(monkeypatch):
    calls = _capture(monkeypatch)
    llm = LLMClient(ModelConfig(reasoner="openai/vision-test", vision=True))
    request = _request(12, missing={10})
    asyncio.run(apolicy_claims(llm, request))
    images = _images(calls[0])
    assert len(images) == MAX_CLAIM_IMAGES
    # The last states, in order, the one without a screenshot skipped, the final screen last.
    assert images == [f"png-{i}".encode() for i in (4, 5, 6, 7, 8, 9, 11)] + [b"png-final"]


def test_text_only_claims_model_gets_no_images(monkeypatch):
    calls = _capture(monkeypatch)
    llm = LLMClient(ModelConfig(reasoner="openai/text-test", vision=False))
    asyncio.run(apolicy_claims(llm, _request(3, missing=set())))
    assert isinstance(calls[0]["messages"][0]["content"], str)


def test_offline_models_never_get_images():
    llm = LLMClient(ModelConfig(vision=True))
    assert llm.vision("claims") is False


def test_screenshots_reads_paths_and_skips_missing_files(tmp_path):
    shot = tmp_path / "s.png"
    shot.write_bytes(b"file-png")
    obs = [
        Observation(xml="<hierarchy/>", screenshot=str(shot)),
        Observation(xml="<hierarchy/>", screenshot=str(tmp_path / "gone.png")),
        None,
        Observation(xml="<hierarchy/>", screenshot_png=b"mem"),
    ]
    assert screenshots(obs) == [str(shot), b"mem"]
    assert screenshots(obs, limit=1) == [b"mem"]


def test_entries_fact_round_trips():
    for f in (
        Fact("entries", subject="whole", place="Inbox", value="a.txt | b.txt"),
        Fact("entries", subject="part", place="Inbox", value="a.txt"),
    ):
        back = parse_fact(f.sentence())
        assert back is not None and (back.kind, back.subject, back.place, back.value) == (
            f.kind,
            f.subject,
            f.place,
            f.value,
        )
