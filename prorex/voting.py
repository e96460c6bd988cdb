"""Majority voting over judgments (paper §3.5).

Every judgment — one per parallel probe per round — is a vote: ``success``,
``failure`` or ``error``. The rules, which tests pin down:

- The reward is the majority of ``success`` vs ``failure`` among the valid
  (non-error) votes.
- A tie is a **failure**. A reward drives a policy update; a false positive
  teaches the policy that a wrong behaviour works, which is costlier than
  withholding reward from one correct run, so the undecided case is treated
  conservatively.
- If every vote is an error (or there are none), there is no reward: the
  outcome is ``error``. An error vote is never counted as a failure — a probe
  after a diverged replay, a device fault or an unparseable model reply says
  nothing about the policy.
- With some error votes, the majority is taken over the valid ones and the
  error count is reported.
- Confidence is the winning side's share of the valid votes.
- Voting may stop early once the votes still planned cannot change the
  outcome under these rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from prorex.schemas import Vote, VoteOutcome


@dataclass(frozen=True)
class Tally:
    success: int
    failure: int
    error: int
    outcome: VoteOutcome
    reward: int | None
    confidence: float | None

    @property
    def valid(self) -> int:
        return self.success + self.failure


def _counts(votes: Iterable[Vote | str]) -> tuple[int, int, int]:
    s = f = e = 0
    for v in votes:
        outcome = v if isinstance(v, str) else v.outcome
        if outcome == "success":
            s += 1
        elif outcome == "failure":
            f += 1
        else:
            e += 1
    return s, f, e


def tally(votes: Iterable[Vote | str]) -> Tally:
    """Apply the voting rules above to a finished set of votes."""
    s, f, e = _counts(votes)
    if s + f == 0:
        return Tally(s, f, e, "error", None, None)
    if s > f:
        return Tally(s, f, e, "success", 1, s / (s + f))
    return Tally(s, f, e, "failure", 0, f / (s + f))


def decided(votes: Iterable[Vote | str], remaining: int) -> bool:
    """True when ``remaining`` more votes cannot change the outcome.

    Success needs strictly more successes than failures at the end; errors
    only ever shrink the remaining votes. So success is certain when the
    successes already exceed the failures plus every remaining vote, and it is
    out of reach (failure is certain) when even all remaining votes going to
    success leave at most a tie — provided a valid vote exists, since all
    errors would be ``error``, not ``failure``.
    """
    s, f, _ = _counts(votes)
    if remaining <= 0:
        return True
    if s > f + remaining:
        return True
    return f > 0 and s + remaining <= f
