"""The litellm client: retries with backoff on transient errors, parse failures become LLMError."""

from __future__ import annotations

import asyncio
import time

import litellm
import pytest

from prorex.config import ModelConfig
from prorex.llm.client import LLMClient, LLMError
from prorex.llm.parsing import extract_status


def _response(text: str) -> litellm.ModelResponse:
    return litellm.ModelResponse(
        model="fake",
        choices=[{"index": 0, "message": {"role": "assistant", "content": text}}],
        usage=litellm.Usage(prompt_tokens=7, completion_tokens=3, total_tokens=10),
    )


class FakeCompletion:
    """Fails with the given exceptions first, then answers the given replies in turn."""

    def __init__(self, failures=(), replies=("Status: success",)):
        self.failures = list(failures)
        self.replies = list(replies)
        self.calls: list[dict] = []

    def __call__(self, **kw):
        self.calls.append(kw)
        if self.failures:
            raise self.failures.pop(0)
        return _response(self.replies.pop(0) if len(self.replies) > 1 else self.replies[0])

    async def acall(self, **kw):
        return self(**kw)


def _client(monkeypatch, fake, **kw) -> tuple[LLMClient, list[float]]:
    monkeypatch.setattr(litellm, "completion", fake)
    monkeypatch.setattr(litellm, "acompletion", fake.acall)
    sleeps: list[float] = []
    models = ModelConfig(
        reasoner="openai/gpt-test", evaluator="openai/gpt-test", max_retries=3, timeout_s=9.0
    )
    return LLMClient(models, backoff_s=0.5, sleep=sleeps.append, **kw), sleeps


def test_retries_transient_errors_with_growing_backoff(monkeypatch):
    fake = FakeCompletion(
        failures=[
            litellm.RateLimitError("slow down", llm_provider="openai", model="gpt-test"),
            litellm.Timeout("timed out", model="gpt-test", llm_provider="openai"),
        ]
    )
    client, sleeps = _client(monkeypatch, fake)
    assert client.complete("judge", "prompt", extract_status) is True
    assert len(fake.calls) == 3
    assert len(sleeps) == 2 and sleeps[1] > sleeps[0] * 0.9  # exponential, with jitter in [0.5, 1]
    assert all(c["timeout"] == 9.0 for c in fake.calls)
    assert client.usage.calls == 1 and client.usage.prompt_tokens == 7


def test_gives_up_after_max_retries(monkeypatch):
    err = litellm.InternalServerError("boom", llm_provider="openai", model="gpt-test")
    fake = FakeCompletion(failures=[err] * 10)
    client, sleeps = _client(monkeypatch, fake)
    with pytest.raises(LLMError, match="InternalServerError"):
        client.complete("judge", "prompt", extract_status)
    assert len(fake.calls) == 4 and len(sleeps) == 3


def test_non_transient_error_is_not_retried(monkeypatch):
    fake = FakeCompletion(
        failures=[litellm.BadRequestError("bad", model="gpt-test", llm_provider="openai")]
    )
    client, sleeps = _client(monkeypatch, fake)
    with pytest.raises(LLMError):
        client.complete("judge", "prompt", extract_status)
    assert len(fake.calls) == 1 and sleeps == []


@pytest.mark.parametrize("bad", ["", "I think it worked.", "Status: maybe"])
def test_unparseable_reply_is_asked_again_then_an_error(monkeypatch, bad):
    fake = FakeCompletion(replies=[bad])
    client, _ = _client(monkeypatch, fake, parse_retries=2)
    with pytest.raises(LLMError, match="unparseable"):
        client.complete("judge", "prompt", extract_status)
    assert len(fake.calls) == 3
    assert client.usage.calls == 3  # every attempt is paid for and counted


def test_reask_recovers(monkeypatch):
    fake = FakeCompletion(replies=["no verdict", "Status: failure"])
    client, _ = _client(monkeypatch, fake)
    assert client.complete("judge", "prompt", extract_status) is False


def test_async_path_and_per_request_usage(monkeypatch):
    from prorex.schemas import Usage

    fake = FakeCompletion(replies=["Status: success"])
    client, _ = _client(monkeypatch, fake)
    mine = Usage()

    async def go():
        return await asyncio.gather(
            *(client.acomplete("judge", "p", extract_status, usage=mine) for _ in range(5))
        )

    assert asyncio.run(go()) == [True] * 5
    assert mine.calls == 5 and mine.tokens == 50


def test_images_only_for_vision_models(monkeypatch):
    fake = FakeCompletion(replies=["Status: success"])
    client, _ = _client(monkeypatch, fake)
    client.models.vision = True
    client.complete("judge", "look", extract_status, images=[b"\x89PNG..."])
    content = fake.calls[-1]["messages"][0]["content"]
    assert isinstance(content, list) and content[1]["image_url"]["url"].startswith(
        "data:image/png;base64,"
    )
    client.models.vision = False
    client.complete("judge", "look", extract_status, images=[b"\x89PNG..."])
    assert fake.calls[-1]["messages"][0]["content"] == "look"


def test_offline_models_are_free_and_counted():
    client = LLMClient(ModelConfig())
    t0 = time.perf_counter()
    reply = client.complete("reasoner", _schedule_prompt())
    dt = time.perf_counter() - t0
    assert "Goal:" in reply
    assert (
        client.usage.calls == 1
        and client.usage.prompt_tokens > 100
        and client.usage.cost_usd == 0.0
    )
    assert not client.vision("evaluator")
    assert dt < 5.0


def _schedule_prompt() -> str:
    from prorex.prompts import render

    return render(
        "probe_schedule", goal="Delete the file a.txt from the Docs folder in the Files app."
    )


def test_offline_model_rejects_foreign_prompt():
    client = LLMClient(ModelConfig())
    with pytest.raises(LLMError):
        client.complete("reasoner", "Tell me a joke.")


def test_temperature_and_seed_reach_litellm(monkeypatch):
    fake = FakeCompletion(replies=("Status: success",))
    monkeypatch.setattr(litellm, "completion", fake)
    models = ModelConfig(
        reasoner="openai/gpt-test",
        evaluator="openai/gpt-test",
        role_temperatures={"judge": 0.3, "claims": None},
    )
    llm = LLMClient(models, sleep=lambda s: None)
    llm.complete("reasoner", "hi", extract_status)
    assert fake.calls[-1]["temperature"] == 0.0 and "seed" not in fake.calls[-1]
    llm.complete("judge", "hi", extract_status)
    assert fake.calls[-1]["temperature"] == 0.3
    llm.complete("claims", "hi", extract_status)  # None: the provider's default, nothing sent
    assert "temperature" not in fake.calls[-1] and "drop_params" not in fake.calls[-1]
    llm.complete("evaluator", "hi", extract_status, temperature=0.7, seed=1234)
    kw = fake.calls[-1]
    assert (kw["temperature"], kw["seed"], kw["drop_params"]) == (0.7, 1234, True)


def test_reask_after_unparseable_reply_uses_a_new_seed(monkeypatch):
    fake = FakeCompletion(replies=("no status here", "Status: failure"))
    client, _ = _client(monkeypatch, fake)
    assert client.complete("evaluator", "hi", extract_status, temperature=0.7, seed=41) is False
    assert [c["seed"] for c in fake.calls] == [41, 42]


def test_offline_provider_receives_temperature_and_seed(monkeypatch):
    from prorex.llm import offline

    seen: list[tuple] = []
    real = offline.answer
    monkeypatch.setattr(
        offline,
        "answer",
        lambda p, temperature=0.0, seed=None: (
            seen.append((temperature, seed)) or real(p, temperature, seed)
        ),
    )
    llm = LLMClient(ModelConfig())
    prompt = (
        "=== PROBING GOAL ===\nFind a.txt in the Files app.\n=== CURRENT SCREEN ===\n"
        'App: com.example.launcher  Screen: 1080x2400\n[3] TextView "Files" click @top-left\n'
        "=== YOUR PREVIOUS ACTIONS ===\n(none yet)\n=== STEPS LEFT ===\n5\n"
    )
    llm.complete("evaluator", prompt, temperature=0.9, seed=7)
    assert seen == [(0.9, 7)]


def test_rate_limiter_spaces_calls_in_order():
    from prorex.llm.client import RateLimiter

    now = [100.0]
    limiter = RateLimiter(rpm=120, clock=lambda: now[0])  # one call per 0.5 s
    assert [limiter.reserve() for _ in range(3)] == [0.0, 0.5, 1.0]
    now[0] = 110.0  # idle long enough: no debt carried over
    assert limiter.reserve() == 0.0


def test_max_rpm_delays_real_model_calls_but_not_offline(monkeypatch):
    fake = FakeCompletion()
    monkeypatch.setattr(litellm, "completion", fake)
    sleeps: list[float] = []
    client = LLMClient(
        ModelConfig(reasoner="openai/gpt-test", evaluator="offline/evaluator", max_rpm=60),
        sleep=sleeps.append,
    )
    for _ in range(3):
        client.complete("reasoner", "Judge this.", extract_status)
    assert len(sleeps) == 2 and all(0.9 < s <= 2.0 for s in sleeps)
    assert len(fake.calls) == 3
    # Offline models cost nothing and call no provider: never spaced out.
    assert [client._wait_s({"model": "offline/evaluator"}) for _ in range(3)] == [0.0] * 3


def test_unknown_role_temperature_is_rejected():
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="unknown role"):
        ModelConfig(role_temperatures={"evalutor": 0.5})
    assert ModelConfig(role_temperatures={"evaluator": 0.5}).temperature_for("evaluator") == 0.5
