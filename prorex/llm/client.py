"""One litellm client for every role (reasoner, evaluator, claims, judge).

All calls go through ``litellm.completion`` / ``litellm.acompletion`` so any
provider works. Transient provider failures (rate limits, timeouts, connection
errors, 5xx) are retried with exponential backoff and jitter; a reply that
does not parse is re-asked a bounded number of times and then raised as
``LLMError``, which callers record as an error (never as a success or a
failure). Token and cost accounting accumulate per request in ``Usage``.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # noqa: E402

from prorex.config import ROLES, ModelConfig  # noqa: E402
from prorex.llm.parsing import ParseError  # noqa: E402
from prorex.schemas import Usage  # noqa: E402

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Provider errors worth another try: the same request may well succeed later.
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    litellm.RateLimitError,
    litellm.Timeout,
    litellm.APIConnectionError,
    litellm.ServiceUnavailableError,
    litellm.InternalServerError,
)


class _RoleDefault:
    """Marker: use the temperature ``ModelConfig`` gives the role."""

    def __repr__(self) -> str:
        return "ROLE_DEFAULT"


ROLE_DEFAULT = _RoleDefault()
Temperature = float | None | _RoleDefault


class LLMError(RuntimeError):
    """A model call failed for good (provider error, or no parseable reply)."""


@dataclass
class LLMReply:
    text: str
    usage: Usage
    model: str


class RateLimiter:
    """Spaces calls at least ``60 / rpm`` seconds apart, across threads and tasks.

    Each caller reserves the next free start time under a lock, then waits
    outside it, so concurrent callers queue in order instead of bursting.
    """

    def __init__(self, rpm: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = 60.0 / rpm
        self._clock = clock
        self._next = 0.0
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Seconds the caller must wait before its call."""
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
            return start - now


def _image_part(image: bytes | str | Path) -> dict[str, Any]:
    data = Path(image).read_bytes() if isinstance(image, str | Path) else image
    b64 = base64.b64encode(data).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64}"}}


class LLMClient:
    """Calls the model configured for a role; thread-safe and async-safe.

    ``usage`` sums every call made through this client (per role in
    ``usage_by_role``); callers that want per-request figures pass their own
    ``Usage`` to ``complete`` / ``acomplete``.
    """

    def __init__(
        self,
        models: ModelConfig | None = None,
        *,
        backoff_s: float = 1.0,
        max_backoff_s: float = 30.0,
        parse_retries: int = 1,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.models = models or ModelConfig()
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.parse_retries = parse_retries
        self._sleep = sleep
        self._lock = threading.Lock()
        self._semaphores: dict[int, asyncio.Semaphore] = {}
        self.usage = Usage()
        self.usage_by_role: dict[str, Usage] = {}
        self._limiter = RateLimiter(self.models.max_rpm) if self.models.max_rpm else None
        if any(self.models.model_for(r).startswith("offline/") for r in ROLES):
            from prorex.llm.offline import register_offline

            register_offline()

    # ------------------------------------------------------------------ helpers

    def model(self, role: str) -> str:
        return self.models.model_for(role)

    def vision(self, role: str) -> bool:
        model = self.model(role)
        if model.startswith("offline/"):
            return False
        if self.models.vision is not None:
            return self.models.vision
        try:
            return bool(litellm.supports_vision(model=model))
        except Exception:  # unknown model: text only is the safe choice
            return False

    def _messages(
        self, role: str, prompt: str, images: Sequence[bytes | str | Path]
    ) -> list[dict[str, Any]]:
        if images and self.vision(role):
            content: Any = [{"type": "text", "text": prompt}, *(_image_part(i) for i in images)]
        else:
            content = prompt
        return [{"role": "user", "content": content}]

    def temperature(self, role: str, temperature: Temperature = ROLE_DEFAULT) -> float | None:
        if isinstance(temperature, _RoleDefault):
            return self.models.temperature_for(role)
        return temperature

    def _kwargs(
        self,
        role: str,
        messages: list[dict[str, Any]],
        temperature: Temperature = ROLE_DEFAULT,
        seed: int | None = None,
    ) -> dict[str, Any]:
        kw: dict[str, Any] = {
            "model": self.model(role),
            "messages": messages,
            "timeout": self.models.timeout_s,
            "num_retries": 0,  # retries are ours, so backoff and accounting stay in one place
        }
        if self.models.api_base and not kw["model"].startswith("offline/"):
            kw["api_base"] = self.models.api_base
        temp = self.temperature(role, temperature)
        if temp is not None:
            kw["temperature"] = temp
        if seed is not None:
            kw["seed"] = seed
        if temp is not None or seed is not None:
            # Sampling knobs are hints: a provider without ``seed`` (or a fixed temperature)
            # gets them dropped rather than failing the call.
            kw["drop_params"] = True
        return kw

    def _delay(self, attempt: int) -> float:
        base = min(self.max_backoff_s, self.backoff_s * (2**attempt))
        return base * (0.5 + random.random() / 2)

    def _account(self, role: str, response: Any, usage: Usage | None) -> LLMReply:
        u = getattr(response, "usage", None)
        cost = 0.0
        hidden = getattr(response, "_hidden_params", None) or {}
        if hidden.get("response_cost") is not None:
            cost = float(hidden["response_cost"])
        else:
            try:
                cost = float(
                    litellm.completion_cost(completion_response=response, model=self.model(role))
                )
            except Exception:  # no price known for this model: count tokens, cost 0
                cost = 0.0
        call = Usage(
            calls=1,
            prompt_tokens=int(getattr(u, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(u, "completion_tokens", 0) or 0),
            cost_usd=cost,
        )
        with self._lock:
            self.usage.add(call)
            self.usage_by_role.setdefault(role, Usage()).add(call)
            if usage is not None:
                usage.add(call)
        try:
            text = response.choices[0].message.content or ""
        except (AttributeError, IndexError):
            text = ""
        return LLMReply(
            text=text if isinstance(text, str) else str(text), usage=call, model=self.model(role)
        )

    def _wait_s(self, kw: dict[str, Any]) -> float:
        if self._limiter is None or kw["model"].startswith("offline/"):
            return 0.0
        return self._limiter.reserve()

    def _semaphore(self) -> asyncio.Semaphore:
        loop = id(asyncio.get_running_loop())
        with self._lock:
            sem = self._semaphores.get(loop)
            if sem is None:
                sem = self._semaphores[loop] = asyncio.Semaphore(self.models.max_concurrency)
            return sem

    # ------------------------------------------------------------------- calls

    def complete(
        self,
        role: str,
        prompt: str,
        parse: Callable[[str], T] = lambda s: s,  # type: ignore[assignment,return-value]
        *,
        images: Sequence[bytes | str | Path] = (),
        usage: Usage | None = None,
        temperature: Temperature = ROLE_DEFAULT,
        seed: int | None = None,
    ) -> T:
        """Ask the role's model and return ``parse(reply)``; raises ``LLMError``."""
        messages = self._messages(role, prompt, images)
        last_parse: ParseError | None = None
        for attempt in range(self.parse_retries + 1):
            kw = self._kwargs(role, messages, temperature, _retry_seed(seed, attempt))
            reply = self._call_sync(kw, role, usage)
            try:
                return parse(reply.text)
            except ParseError as exc:
                last_parse = exc
                log.info("unparseable reply from %s (%s); asking again", reply.model, exc)
        raise LLMError(f"{self.model(role)}: unparseable reply: {last_parse}")

    async def acomplete(
        self,
        role: str,
        prompt: str,
        parse: Callable[[str], T] = lambda s: s,  # type: ignore[assignment,return-value]
        *,
        images: Sequence[bytes | str | Path] = (),
        usage: Usage | None = None,
        temperature: Temperature = ROLE_DEFAULT,
        seed: int | None = None,
    ) -> T:
        messages = self._messages(role, prompt, images)
        last_parse: ParseError | None = None
        for attempt in range(self.parse_retries + 1):
            kw = self._kwargs(role, messages, temperature, _retry_seed(seed, attempt))
            reply = await self._call_async(kw, role, usage)
            try:
                return parse(reply.text)
            except ParseError as exc:
                last_parse = exc
                log.info("unparseable reply from %s (%s); asking again", reply.model, exc)
        raise LLMError(f"{self.model(role)}: unparseable reply: {last_parse}")

    def _call_sync(self, kw: dict[str, Any], role: str, usage: Usage | None) -> LLMReply:
        for attempt in range(self.models.max_retries + 1):
            try:
                wait = self._wait_s(kw)
                if wait > 0:
                    self._sleep(wait)
                return self._account(role, litellm.completion(**kw), usage)
            except TRANSIENT_ERRORS as exc:
                if attempt >= self.models.max_retries:
                    raise LLMError(
                        f"{kw['model']}: {type(exc).__name__} after {attempt + 1} tries"
                    ) from exc
                self._sleep(self._delay(attempt))
            except Exception as exc:
                raise LLMError(f"{kw['model']}: {type(exc).__name__}: {_short(exc)}") from exc
        raise AssertionError("unreachable")

    async def _call_async(self, kw: dict[str, Any], role: str, usage: Usage | None) -> LLMReply:
        for attempt in range(self.models.max_retries + 1):
            try:
                async with self._semaphore():
                    wait = self._wait_s(kw)
                    if wait > 0:
                        await asyncio.sleep(wait)
                    response = await litellm.acompletion(**kw)
                return self._account(role, response, usage)
            except TRANSIENT_ERRORS as exc:
                if attempt >= self.models.max_retries:
                    raise LLMError(
                        f"{kw['model']}: {type(exc).__name__} after {attempt + 1} tries"
                    ) from exc
                await asyncio.sleep(self._delay(attempt))
            except Exception as exc:
                raise LLMError(f"{kw['model']}: {type(exc).__name__}: {_short(exc)}") from exc
        raise AssertionError("unreachable")


def _retry_seed(seed: int | None, attempt: int) -> int | None:
    # Asking again with the same seed would sample the same unparseable reply.
    return None if seed is None else (seed + attempt) % 2**31


def _short(exc: BaseException, limit: int = 300) -> str:
    # Provider messages can be long; they never contain the key (litellm masks it).
    text = str(exc).replace("\n", " ")
    return text[:limit]
