"""Probing-task scheduling and revision (paper §3.3, eq. 1 and 5).

The reasoner reads only the task goal (and, when revising, its previous
probing goals and what the evaluator observed) and writes one or more short
probing goals for the evaluator agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from prorex.llm.client import LLMClient
from prorex.llm.parsing import extract_analysis, extract_goals
from prorex.prompts import render
from prorex.schemas import Claim, Usage

MAX_GOALS = 4


@dataclass(frozen=True)
class ProbePlan:
    goals: list[str]
    analysis: str


def _parse_plan(reply: str) -> ProbePlan:
    goals = extract_goals(reply)[:MAX_GOALS]
    return ProbePlan(goals=goals, analysis=extract_analysis(reply))


def schedule_prompt(goal: str) -> str:
    return render("probe_schedule", goal=goal)


def revise_prompt(goal: str, previous: Sequence[str], collected: str) -> str:
    prev = "\n".join(f"{i}. {g}" for i, g in enumerate(previous, 1)) or "(none)"
    return render(
        "probe_revise", goal=goal, previous_goals=prev, collected_info=collected or "(nothing)"
    )


def collected_info(observations: Sequence[tuple[str, str, Sequence[Claim]]]) -> str:
    """What the last round's probes found, as the revision prompt shows it.

    ``observations`` holds, per probe, ``(stopped, error, claims)``.
    """
    blocks: list[str] = []
    for i, (stopped, error, claims) in enumerate(observations, 1):
        head = f"Probe {i}: stopped={stopped or 'unknown'}" + (f", error: {error}" if error else "")
        lines = [f"- {c.claim}" for c in claims] or ["- (no claims)"]
        blocks.append("\n".join([head, *lines]))
    return "\n\n".join(blocks)


def schedule(llm: LLMClient, goal: str, usage: Usage | None = None) -> ProbePlan:
    return llm.complete("reasoner", schedule_prompt(goal), _parse_plan, usage=usage)


async def aschedule(llm: LLMClient, goal: str, usage: Usage | None = None) -> ProbePlan:
    return await llm.acomplete("reasoner", schedule_prompt(goal), _parse_plan, usage=usage)


async def arevise(
    llm: LLMClient, goal: str, previous: Sequence[str], collected: str, usage: Usage | None = None
) -> ProbePlan:
    return await llm.acomplete(
        "reasoner", revise_prompt(goal, previous, collected), _parse_plan, usage=usage
    )
