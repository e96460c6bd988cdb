"""Chain-of-claims generation (paper §3.4): trajectories -> short claims.

Policy claims are an actor's report over the policy's (filtered) screens and
actions; evaluator claims are a detective's report over one probe trace, about
the state the policy left. The same helpers format trajectories for the static
judges, so every method shows a model the same screens in the same form.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from prorex.filtering import filter_states
from prorex.llm.client import LLMClient
from prorex.llm.parsing import ParseError, extract_claims
from prorex.prompts import render
from prorex.schemas import Claim, Observation, ProbeTrace, RewardRequest, Step, Usage
from prorex.ui import HierarchyError, parse_hierarchy, render_screen

#: At most this many screenshots go with a claims prompt (the last ones: the outcome is late).
MAX_CLAIM_IMAGES = 8
POLICY_CLAIMS = (2, 6)
EVALUATOR_CLAIMS = (1, 5)
THOUGHT_CHARS = 160
_INT = re.compile(r"\d+")


def screen_text(obs: Observation | None) -> str:
    """A screen in the compact rendering, or a note saying why there is none."""
    if obs is None:
        return "(no screen recorded)"
    try:
        return render_screen(parse_hierarchy(obs.xml))
    except HierarchyError as exc:
        return f"(screen could not be read: {exc})"


def policy_view(request: RewardRequest) -> tuple[list[Step], dict[int, str]]:
    """The policy steps worth showing a model (home screens and repeats dropped),
    with the compact renderings the filter already made of their screens."""
    result = filter_states(request.trajectory)
    kept = set(result.kept)
    return [s for s in request.trajectory.steps if s.index in kept], result.renderings


def policy_steps(request: RewardRequest) -> list[Step]:
    return policy_view(request)[0]


def format_actions(steps: Sequence[Step], *, thoughts: bool = True) -> str:
    lines = []
    for s in steps:
        line = f"Step {s.index}: {s.action.short()}"
        if thoughts and s.thought.strip():
            line += f"  (thought: {' '.join(s.thought.split())[:THOUGHT_CHARS]})"
        lines.append(line)
    return "\n".join(lines) or "(no actions)"


def format_screens(
    steps: Sequence[Step],
    final: Observation | None,
    *,
    final_index: int | None = None,
    renderings: Mapping[int, str] | None = None,
) -> str:
    known = renderings or {}
    blocks = [
        f"--- Step {s.index} screen ---\n{known.get(s.index) or screen_text(s.observation)}"
        for s in steps
    ]
    if final is not None:
        idx = final_index if final_index is not None else (steps[-1].index + 1 if steps else 0)
        blocks.append(f"--- Step {idx} screen (final) ---\n{screen_text(final)}")
    return "\n\n".join(blocks) or "(no screens)"


def format_final(request: RewardRequest) -> str:
    traj = request.trajectory
    status = next(
        (s.action.goal_status for s in reversed(traj.steps) if s.action.action_type == "status"),
        None,
    )
    answer = traj.answer
    if answer is None:
        answer = next(
            (s.action.text for s in reversed(traj.steps) if s.action.action_type == "answer"), None
        )
    return "\n".join(
        [
            f"Answer given: {answer}" if answer else "Answer given: (none)",
            f"Reported status: {status or '(none)'}",
        ]
    )


def _final_index(request: RewardRequest) -> int:
    steps = request.trajectory.steps
    return steps[-1].index + 1 if steps else 0


def policy_claims_prompt(request: RewardRequest) -> str:
    steps, renderings = policy_view(request)
    return render(
        "claims_policy",
        goal=request.task.goal,
        actions=format_actions(steps),
        final=format_final(request),
        screens=format_screens(
            steps,
            request.trajectory.final_observation,
            final_index=_final_index(request),
            renderings=renderings,
        ),
        min_claims=POLICY_CLAIMS[0],
        max_claims=POLICY_CLAIMS[1],
    )


def evaluator_claims_prompt(request: RewardRequest, trace: ProbeTrace) -> str:
    final_index = trace.steps[-1].index + 1 if trace.steps else 0
    return render(
        "claims_evaluator",
        goal=request.task.goal,
        probe_goal=trace.goal,
        actions=format_actions(trace.steps, thoughts=False),
        screens=format_screens(trace.steps, trace.final_observation, final_index=final_index),
        min_claims=EVALUATOR_CLAIMS[0],
        max_claims=EVALUATOR_CLAIMS[1],
    )


def parse_claims(reply: str) -> list[Claim]:
    items = extract_claims(reply)
    claims: list[Claim] = []
    for item in items:
        text = str(item.get("claim", "")).strip()
        if not text:
            continue
        raw_steps = item.get("steps", [])
        if isinstance(raw_steps, int | str):
            raw_steps = [raw_steps]
        steps: list[int] = []
        for s in raw_steps if isinstance(raw_steps, list) else []:
            m = _INT.search(str(s))
            if m:
                steps.append(int(m.group()))
        claims.append(Claim(steps=steps, reasoning=str(item.get("reasoning", "")), claim=text))
    if not claims:
        raise ParseError("claims list is empty")
    return claims


def screenshots(
    observations: Sequence[Observation | None], limit: int = MAX_CLAIM_IMAGES
) -> list[bytes | str]:
    """The screenshots of these states in order (bytes, else an existing file), the last ``limit``.

    States without one are skipped, so the images follow the order of the screens in the prompt.
    """
    shots: list[bytes | str] = []
    for obs in observations:
        if obs is None:
            continue
        if obs.screenshot_png:
            shots.append(obs.screenshot_png)
        elif obs.screenshot and Path(obs.screenshot).is_file():
            shots.append(obs.screenshot)
    return shots[-limit:] if limit > 0 else []


def _claims_images(llm: LLMClient, observations: Sequence[Observation | None]) -> list[bytes | str]:
    # Only a vision model gets them (paper app. E: the screens' HTML and screenshots, in order);
    # asking first avoids reading image files for a text-only model.
    vision = getattr(llm, "vision", None)
    return screenshots(observations) if callable(vision) and vision("claims") else []


async def apolicy_claims(
    llm: LLMClient, request: RewardRequest, usage: Usage | None = None
) -> list[Claim]:
    states = [s.observation for s in policy_steps(request)]
    images = _claims_images(llm, [*states, request.trajectory.final_observation])
    return await llm.acomplete(
        "claims", policy_claims_prompt(request), parse_claims, images=images, usage=usage
    )


async def aevaluator_claims(
    llm: LLMClient, request: RewardRequest, trace: ProbeTrace, usage: Usage | None = None
) -> list[Claim]:
    images = _claims_images(llm, [*(s.observation for s in trace.steps), trace.final_observation])
    return await llm.acomplete(
        "claims", evaluator_claims_prompt(request, trace), parse_claims, images=images, usage=usage
    )


def format_claims(claims: Sequence[Claim], prefix: str) -> str:
    lines = []
    for i, c in enumerate(claims, 1):
        steps = ", ".join(str(s) for s in c.steps) or "-"
        lines.append(f"{prefix}{i} (steps {steps}): {c.claim}")
        if c.reasoning:
            lines.append(f"    reason: {c.reasoning}")
    return "\n".join(lines) or "(no claims)"
