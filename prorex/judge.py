"""Judgments: the chain-of-claims judge (ProRe) and the static LLM-as-judge baselines.

Every judge answers ``Analysis: ...`` then ``Status: success|failure``; a reply
without a readable status becomes an ``LLMError`` (an error vote), never a
guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from prorex.claims import format_actions, format_claims, format_final, format_screens, policy_view
from prorex.llm.client import LLMClient
from prorex.llm.parsing import extract_analysis, extract_evidence, extract_status
from prorex.prompts import render
from prorex.schemas import Claim, RewardRequest, Usage

#: How many of the last policy steps the last-state judge sees as actions.
STATIC_LAST_ACTIONS = 3


@dataclass(frozen=True)
class Judgment:
    success: bool
    analysis: str
    evidence: bool | None = None  # rests on the evaluator's observations (None: not said)


def _parse_judgment(reply: str) -> Judgment:
    return Judgment(
        success=extract_status(reply),
        analysis=extract_analysis(reply),
        evidence=extract_evidence(reply),
    )


def judge_prompt(
    goal: str, policy_claims: Sequence[Claim], probe_goal: str, evaluator_claims: Sequence[Claim]
) -> str:
    ev = f"Probing goal: {probe_goal}\n" + format_claims(evaluator_claims, "E")
    return render(
        "judge", goal=goal, policy_claims=format_claims(policy_claims, "P"), evaluator_claims=ev
    )


def static_prompt(request: RewardRequest, method: str) -> str:
    traj = request.trajectory
    final_index = traj.steps[-1].index + 1 if traj.steps else 0
    if method == "static-last":
        last = traj.final_observation
        if last is None and traj.steps:
            last = traj.steps[-1].observation
        return render(
            "static_last",
            goal=request.task.goal,
            actions=format_actions(traj.steps[-STATIC_LAST_ACTIONS:]),
            final=format_final(request),
            screens=format_screens([], last, final_index=final_index),
        )
    if method == "static-full":
        steps, renderings = policy_view(request)
        return render(
            "static_full",
            goal=request.task.goal,
            actions=format_actions(steps),
            final=format_final(request),
            screens=format_screens(
                steps, traj.final_observation, final_index=final_index, renderings=renderings
            ),
        )
    raise ValueError(f"not a static method: {method!r}")


async def ajudge(
    llm: LLMClient,
    goal: str,
    policy_claims: Sequence[Claim],
    probe_goal: str,
    evaluator_claims: Sequence[Claim],
    usage: Usage | None = None,
) -> Judgment:
    prompt = judge_prompt(goal, policy_claims, probe_goal, evaluator_claims)
    return await llm.acomplete("judge", prompt, _parse_judgment, usage=usage)


async def astatic_judge(
    llm: LLMClient, request: RewardRequest, method: str, usage: Usage | None = None
) -> Judgment:
    return await llm.acomplete(
        "judge", static_prompt(request, method), _parse_judgment, usage=usage
    )
