"""Chain-of-claims generation (paper §3.4): trajectories -> short claims.

Policy claims are an actor's report over the policy's (filtered) screens and
actions; evaluator claims are a detective's report over one probe trace, about
the state the policy left. The same helpers format trajectories for the static
judges, so every method shows a model the same screens in the same form.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from prorex.filtering import filter_states
from prorex.llm.client import LLMClient
from prorex.llm.parsing import ParseError, extract_claims
from prorex.prompts import render
from prorex.schemas import Claim, Observation, ProbeTrace, RewardRequest, Step, Usage
from prorex.ui import HierarchyError, parse_hierarchy, render_screen

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


def policy_steps(request: RewardRequest) -> list[Step]:
    """The policy steps worth showing a model (home screens and repeats dropped)."""
    kept = set(filter_states(request.trajectory).kept)
    return [s for s in request.trajectory.steps if s.index in kept]


def format_actions(steps: Sequence[Step], *, thoughts: bool = True) -> str:
    lines = []
    for s in steps:
        line = f"Step {s.index}: {s.action.short()}"
        if thoughts and s.thought.strip():
            line += f"  (thought: {' '.join(s.thought.split())[:THOUGHT_CHARS]})"
        lines.append(line)
    return "\n".join(lines) or "(no actions)"


def format_screens(
    steps: Sequence[Step], final: Observation | None, *, final_index: int | None = None
) -> str:
    blocks = [f"--- Step {s.index} screen ---\n{screen_text(s.observation)}" for s in steps]
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
    steps = policy_steps(request)
    return render(
        "claims_policy",
        goal=request.task.goal,
        actions=format_actions(steps),
        final=format_final(request),
        screens=format_screens(
            steps, request.trajectory.final_observation, final_index=_final_index(request)
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


async def apolicy_claims(
    llm: LLMClient, request: RewardRequest, usage: Usage | None = None
) -> list[Claim]:
    return await llm.acomplete("claims", policy_claims_prompt(request), parse_claims, usage=usage)


async def aevaluator_claims(
    llm: LLMClient, request: RewardRequest, trace: ProbeTrace, usage: Usage | None = None
) -> list[Claim]:
    return await llm.acomplete(
        "claims", evaluator_claims_prompt(request, trace), parse_claims, usage=usage
    )


def format_claims(claims: Sequence[Claim], prefix: str) -> str:
    lines = []
    for i, c in enumerate(claims, 1):
        steps = ", ".join(str(s) for s in c.steps) or "-"
        lines.append(f"{prefix}{i} (steps {steps}): {c.claim}")
        if c.reasoning:
            lines.append(f"    reason: {c.reasoning}")
    return "\n".join(lines) or "(no claims)"
