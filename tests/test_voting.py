"""Voting rules: majority, ties, errors, early stop."""

from __future__ import annotations

import pytest

from prorex.schemas import Vote
from prorex.voting import decided, tally


def v(*outcomes):
    return [Vote(round=0, probe=i, outcome=o) for i, o in enumerate(outcomes)]


def test_majority_and_confidence():
    t = tally(v("success", "success", "failure"))
    assert (t.outcome, t.reward) == ("success", 1)
    assert t.confidence == pytest.approx(2 / 3)
    t = tally(v("failure", "failure", "success"))
    assert (t.outcome, t.reward) == ("failure", 0)


def test_tie_is_failure():
    t = tally(v("success", "failure"))
    assert (t.outcome, t.reward, t.confidence) == ("failure", 0, 0.5)


def test_all_errors_is_error_without_reward():
    t = tally(v("error", "error", "error"))
    assert (t.outcome, t.reward, t.confidence) == ("error", None, None)
    assert tally([]).outcome == "error"


def test_partial_errors_majority_over_valid_votes():
    t = tally(v("error", "success", "error"))
    assert (t.outcome, t.reward, t.error, t.confidence) == ("success", 1, 2, 1.0)
    t = tally(v("error", "failure", "success", "failure"))
    assert (t.outcome, t.error) == ("failure", 1)


def test_error_vote_is_not_a_failure():
    # A diverged replay's "no vote" must not outweigh a real success.
    assert tally(v("success", "error")).reward == 1


def test_early_stop():
    assert decided(v("success", "success"), remaining=1)  # 2 vs at most 1
    assert not decided(v("success"), remaining=2)
    assert decided(v("failure", "failure"), remaining=2)  # best case 2-2: a tie, so failure
    assert not decided(v("failure"), remaining=2)
    assert not decided(v("error", "error"), remaining=1)  # no valid vote yet: nothing settled
    assert decided(v("error"), remaining=0)
    assert decided(v("failure"), remaining=1)  # 1-1 at best -> failure by the tie rule


def ev(outcome, evidence, probe=0):
    return Vote(round=0, probe=probe, outcome=outcome, evidence=evidence)


def test_votes_resting_on_evidence_outrank_votes_without():
    # Two probes found nothing and the judge fell back on the policy's report; one saw the state.
    votes = [ev("success", False, 0), ev("success", False, 1), ev("failure", True, 2)]
    t = tally(votes)
    assert (t.outcome, t.success, t.failure, t.confidence) == ("failure", 0, 1, 1.0)
    # With no vote resting on evidence, the plain majority of the valid votes stands.
    t = tally([ev("success", False, 0), ev("success", False, 1), ev("failure", False, 2)])
    assert (t.outcome, t.success, t.failure) == ("success", 2, 1)
    # A judge that does not say (None) counts as resting on evidence: plain majority.
    assert (
        tally([ev("success", None, 0), ev("success", None, 1), ev("failure", None, 2)]).reward == 1
    )
    assert (
        tally([ev("success", None, 0), ev("failure", False, 1), ev("error", None, 2)]).reward == 1
    )


def test_early_stop_waits_for_a_vote_resting_on_evidence():
    assert not decided([ev("failure", False, 0), ev("failure", False, 1)], remaining=1)
    assert decided([ev("failure", True, 0), ev("failure", False, 1)], remaining=1)
    assert not decided([ev("success", True, 0)], remaining=1)
    assert decided([ev("success", True, 0), ev("success", True, 1)], remaining=1)
