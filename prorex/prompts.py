"""Prompt templates by name, from ``prompts/*.txt`` at the repository root.

Templates use ``${name}`` placeholders (``string.Template``), so JSON braces
in a template need no escaping. ``render`` refuses to build a prompt with a
placeholder left unfilled or an argument the template does not use: a silent
hole in a prompt would make every model answer worse without any error.
Set ``PROREX_PROMPTS_DIR`` to load templates from another directory.
"""

from __future__ import annotations

import os
import string
from functools import lru_cache
from pathlib import Path

PROMPT_NAMES = (
    "probe_schedule",
    "probe_revise",
    "claims_policy",
    "claims_evaluator",
    "judge",
    "evaluator_step",
    "static_last",
    "static_full",
)


class PromptError(ValueError):
    """A template is missing, malformed, or was not filled completely."""


def prompts_dir() -> Path:
    env = os.environ.get("PROREX_PROMPTS_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / "prompts"


@lru_cache(maxsize=64)
def _load(directory: str, name: str) -> string.Template:
    path = Path(directory) / f"{name}.txt"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PromptError(f"prompt template {name!r} not found at {path}") from None
    template = string.Template(text)
    if not template.is_valid():
        raise PromptError(f"{path}: invalid placeholder syntax")
    return template


def template(name: str) -> string.Template:
    return _load(str(prompts_dir()), name)


def placeholders(name: str) -> set[str]:
    return set(template(name).get_identifiers())


def render(name: str, **values: object) -> str:
    """Fill template ``name``; every placeholder must get a value, and only those."""
    tpl = template(name)
    wanted = set(tpl.get_identifiers())
    missing = wanted - values.keys()
    extra = values.keys() - wanted
    if missing:
        raise PromptError(f"prompt {name!r}: no value for {sorted(missing)}")
    if extra:
        raise PromptError(f"prompt {name!r}: unknown placeholders {sorted(extra)}")
    return tpl.substitute({k: str(v) for k, v in values.items()})
