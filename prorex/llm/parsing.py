"""Pull structured answers out of messy model replies.

Models wrap JSON in code fences, put prose around it, leave trailing commas,
use single quotes, or write several blocks. These functions recover the
intended value or raise ``ParseError``; they never guess an outcome. An empty
reply is always a ``ParseError``.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable
from typing import Any


class ParseError(ValueError):
    """A reply did not contain what the prompt asked for."""


_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_STATUS = re.compile(r"status\s*[*_`]*\s*[:=\-]\s*[*_`\"']*\s*([a-z]+)", re.IGNORECASE)
_GOAL = re.compile(
    r"^\s*[*_#>\-\s]*goal\s*(\d+)?\s*[*_]*\s*[:.)]\s*[*_]*\s*(.+?)\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_ANALYSIS = re.compile(
    r"analysis\s*[*_]*\s*:\s*(.*?)(?=^\s*[*_#>\-\s]*(?:goal|status)\b|\Z)",
    re.IGNORECASE | re.DOTALL | re.MULTILINE,
)


def _require_text(reply: str | None) -> str:
    if reply is None or not reply.strip():
        raise ParseError("empty reply")
    return reply


def _balanced_spans(text: str) -> Iterable[str]:
    """Every top-level ``{...}`` / ``[...]`` span, honouring quoted strings."""
    i, n = 0, len(text)
    while i < n:
        if text[i] not in "{[":
            i += 1
            continue
        stack: list[str] = []
        quote: str | None = None
        j = i
        while j < n:
            c = text[j]
            if quote:
                if c == "\\":
                    j += 2
                    continue
                if c == quote:
                    quote = None
            elif c in "\"'" and stack and (c == '"' or _opens_single_quote(text, j)):
                quote = c
            elif c in "{[":
                stack.append("}" if c == "{" else "]")
            elif c in "}]":
                if not stack or c != stack[-1]:
                    break
                stack.pop()
                if not stack:
                    yield text[i : j + 1]
                    break
            j += 1
        i = j + 1 if not stack and j < n else i + 1


def _opens_single_quote(text: str, j: int) -> bool:
    # A single quote opens a string only where a JSON token may start, so
    # apostrophes inside prose ("don't") are not taken for string delimiters.
    k = j - 1
    while k >= 0 and text[k] in " \t\r\n":
        k -= 1
    return k >= 0 and text[k] in "{[,:"


def _loads(candidate: str) -> Any:
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        pass
    cleaned = _TRAILING_COMMA.sub(r"\1", candidate)
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError:
        pass
    # Python-literal style (single quotes, True/False/None).
    py = re.sub(
        r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", cleaned))
    )
    try:
        value = ast.literal_eval(py)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ParseError("not valid JSON") from None
    if not isinstance(value, dict | list):
        raise ParseError("not a JSON object or array")
    return value


def json_candidates(reply: str | None) -> list[Any]:
    """Every JSON object/array found in the reply, fenced blocks first."""
    text = _require_text(reply)
    found: list[Any] = []
    sources = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    seen: set[str] = set()
    for source in sources:
        for span in _balanced_spans(source):
            if span in seen:
                continue
            seen.add(span)
            try:
                found.append(_loads(span))
            except ParseError:
                continue
    return found


def extract_json(reply: str | None, *, keys: Iterable[str] = (), kind: type = dict) -> Any:
    """The JSON value the prompt asked for.

    With ``keys``, the first object holding all of them wins (so an example
    block or a stray object in prose is skipped); otherwise the first value
    of type ``kind``.
    """
    wanted = tuple(keys)
    candidates = json_candidates(reply)
    for value in candidates:
        if not isinstance(value, kind):
            continue
        if wanted and not (isinstance(value, dict) and all(k in value for k in wanted)):
            continue
        return value
    what = f"a JSON {kind.__name__}" + (f" with keys {list(wanted)}" if wanted else "")
    raise ParseError(f"no {what} in reply")


def extract_status(reply: str | None) -> bool:
    """``Status: success|failure`` -> True/False; the last occurrence wins."""
    text = _require_text(reply)
    matches = _STATUS.findall(text)
    if not matches:
        raise ParseError("no 'Status:' line in reply")
    word = matches[-1].lower()
    if word in ("success", "successful", "succeeded"):
        return True
    if word in ("failure", "failed", "fail"):
        return False
    raise ParseError(f"status must be success or failure, got {word!r}")


_EVIDENCE = re.compile(r"^\s*\**Evidence\**\s*:\s*\**\s*(yes|no)\b", re.IGNORECASE | re.MULTILINE)


def extract_evidence(reply: str | None) -> bool | None:
    """``Evidence: yes|no`` -> True/False; None when the reply does not say (optional line)."""
    found = _EVIDENCE.findall(reply or "")
    return None if not found else found[-1].lower() == "yes"


def extract_goals(reply: str | None, *, max_words: int = 40) -> list[str]:
    """The probing goals in a ``Goal:`` / ``Goal 1:`` ... reply, in order."""
    text = _require_text(reply)
    goals: list[str] = []
    for _num, body in _GOAL.findall(text):
        goal = body.strip().strip("*_`\"'").strip()
        if goal and goal.lower() not in {g.lower() for g in goals}:
            goals.append(" ".join(goal.split()[:max_words]))
    if not goals:
        raise ParseError("no 'Goal:' line in reply")
    return goals


def extract_analysis(reply: str | None) -> str:
    """The ``Analysis:`` section, or the empty string when there is none."""
    text = _require_text(reply)
    m = _ANALYSIS.search(text)
    return m.group(1).strip() if m else ""


def extract_claims(reply: str | None, *, key: str = "claims") -> list[dict[str, Any]]:
    """The claims list: ``{"claims": [...]}``, a bare list, or after ``Claims:``."""
    text = _require_text(reply)
    marker = re.search(r"claims\s*[*_]*\s*:", text, re.IGNORECASE)
    tail = text[marker.end() :] if marker else text
    for source in (tail, text) if marker else (text,):
        try:
            candidates = json_candidates(source)
        except ParseError:
            continue
        for value in candidates:
            items = None
            if isinstance(value, dict):
                items = value.get(key)
                if items is None and len(value) == 1:
                    (items,) = value.values()
            elif isinstance(value, list):
                items = value
            if isinstance(items, list) and all(isinstance(c, dict) and "claim" in c for c in items):
                return items
    raise ParseError("no claims list in reply")
