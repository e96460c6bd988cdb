"""Offline models: a litellm custom provider (``offline/reasoner``, ``offline/evaluator``, ...).

They let the whole pipeline — prompt building, litellm calls, parsing,
retries, accounting — run with no key and no network. They read only the
prompt they are given and answer in the format it asks for. They are
**heuristics for demos and tests**, not a claim of quality: generic mechanisms
over goal words and compact screens (see ``offline_agent`` and
``offline_reason``), with no knowledge of any app, task, family or label, and
no access to the simulator.

Any ``offline/<name>`` model answers any prorex prompt: the prompt's section
headers say what is asked, so a claims or judge role left on the reasoner
default works as well as a dedicated name.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # noqa: E402
from litellm import CustomLLM  # noqa: E402
from litellm.llms.custom_llm import CustomLLMError  # noqa: E402
from litellm.types.utils import Usage as LiteUsage  # noqa: E402

from prorex import filtering  # noqa: E402
from prorex.llm import offline_agent, offline_reason  # noqa: E402

PROVIDER = "offline"
MODELS = ("reasoner", "evaluator", "claims", "judge")
_lock = threading.Lock()
_registered = False


def _prompt_text(messages: list) -> str:
    parts: list[str] = []
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else getattr(m, "content", "")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(
                p.get("text", "")
                for p in content
                if isinstance(p, dict) and p.get("type") == "text"
            )
    return "\n".join(parts)


def route(prompt: str) -> Callable[[str], str] | None:
    """Which offline model answers this prompt, from its section headers."""
    if "=== CURRENT SCREEN ===" in prompt and "=== PROBING GOAL ===" in prompt:
        return offline_agent.decide
    if "=== POLICY CLAIMS ===" in prompt:
        return offline_reason.judge
    if "=== ROLE ===" in prompt:
        return offline_reason.write_claims
    if "=== PREVIOUS PROBING GOALS ===" in prompt:
        return offline_reason.revise
    if "=== SCREENS ===" in prompt and "Status: success or failure" in prompt:
        return offline_reason.static_judge
    if "=== TASK GOAL ===" in prompt and "Goal:" in prompt:
        return offline_reason.schedule
    return None


def estimate_tokens(text: str) -> int:
    # The prompt filter's estimate; a message is at least one token.
    return max(1, filtering.estimate_tokens(text))


def answer(prompt: str, temperature: float | None = 0.0, seed: int | None = None) -> str:
    """The offline reply. Only the evaluator agent samples (``temperature`` > 0, from
    ``seed``); the reasoner's heuristics are greedy whatever they are sent."""
    fn = route(prompt)
    if fn is None:
        raise CustomLLMError(
            status_code=400, message="offline model: unrecognised prompt (not a prorex template)"
        )
    if fn is offline_agent.decide:
        return offline_agent.decide(prompt, temperature=temperature, seed=seed)
    return fn(prompt)


class OfflineLLM(CustomLLM):
    """The custom-provider handler litellm calls for ``offline/*`` models."""

    def completion(self, model: str, messages: list, *args, **kwargs) -> litellm.ModelResponse:  # type: ignore[override]
        prompt = _prompt_text(messages)
        # litellm hands a custom provider the sampling knobs in ``optional_params``.
        params = kwargs.get("optional_params") or {}
        seed = params.get("seed")
        reply = answer(
            prompt,
            temperature=params.get("temperature"),
            seed=int(seed) if seed is not None else None,
        )
        p, c = estimate_tokens(prompt), estimate_tokens(reply)
        return litellm.ModelResponse(
            model=f"{PROVIDER}/{model}",
            choices=[
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": reply},
                }
            ],
            usage=LiteUsage(prompt_tokens=p, completion_tokens=c, total_tokens=p + c),
        )

    async def acompletion(
        self, model: str, messages: list, *args, **kwargs
    ) -> litellm.ModelResponse:  # type: ignore[override]
        return self.completion(model, messages, *args, **kwargs)


def register_offline() -> None:
    """Register the provider and price its models at zero (idempotent)."""
    global _registered
    with _lock:
        if _registered:
            return
        if not any(item.get("provider") == PROVIDER for item in litellm.custom_provider_map):
            litellm.custom_provider_map = [
                *litellm.custom_provider_map,
                {"provider": PROVIDER, "custom_handler": OfflineLLM()},
            ]
        free = {
            "input_cost_per_token": 0.0,
            "output_cost_per_token": 0.0,
            "cache_creation_input_token_cost": 0.0,
            "cache_read_input_token_cost": 0.0,
            "litellm_provider": PROVIDER,
            "mode": "chat",
            "max_input_tokens": 1_000_000,
            "max_tokens": 1_000_000,
        }
        litellm.register_model({f"{PROVIDER}/{m}": dict(free) for m in MODELS})
        _registered = True
