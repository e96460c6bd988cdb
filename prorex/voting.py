"""Majority voting over judgments (paper §3.5).

Every judgment — one per parallel probe per round — is a vote: ``success``,
``failure`` or ``error``. The rules, which tests pin down:

- The reward is the majority of ``success`` vs ``failure`` among the valid
  (non-error) votes **that rest on evidence**. A judge says when its
  decision did not rest on what its probe observed (``Vote.evidence`` is
  False: the probe found nothing bearing on the goal and the judge fell back
  on the policy's own claims). Such a vote only counts when no valid vote
  rests on evidence; ``evidence`` None (the judge did not say) counts as
  resting on evidence, so plain majority is what a judge that never says
  gets. Reason: K parallel probes explore differently; one that found
  nothing must not outvote one that saw the state (paper §3.5: probing is
  for collecting the key evidence).
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
  outcome under these rules (while no vote rests on evidence, any later one
  may, so nothing is settled yet).
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


def _outcome(v: Vote | str) -> str:
    return v if isinstance(v, str) else v.outcome


def _backed(v: Vote | str) -> bool:
    return isinstance(v, str) or v.evidence is not False


def _has_evidence(votes: Iterable[Vote | str]) -> bool:
    return any(_outcome(v) != "error" and _backed(v) for v in votes)


def _counts(votes: Iterable[Vote | str]) -> tuple[int, int, int]:
    """Success, failure and error counts over the votes that count (rules above)."""
    votes = list(votes)
    valid = [v for v in votes if _outcome(v) != "error"]
    pool = [v for v in valid if _backed(v)] or valid
    s = sum(_outcome(v) == "success" for v in pool)
    return s, len(pool) - s, len(votes) - len(valid)


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
    votes = list(votes)
    if remaining <= 0:
        return True
    if not _has_evidence(votes):
        return False  # a later vote that rests on evidence would outrank every vote so far
    s, f, _ = _counts(votes)
    if s > f + remaining:
        return True
    return f > 0 and s + remaining <= f
