"""Reward-quality metrics over a run's results, and ``summary.json``.

Accuracy, precision, recall and F1 are computed over results that are both
``ok`` and labelled. Errors (no reward) are counted in ``errors`` and left out
of accuracy rather than scored as wrong or as 0: an error is the system
declining to judge, and mixing it into accuracy would hide how often that
happens. Read ``errors`` next to ``accuracy``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from prorex.schemas import RewardResult, Summary, read_jsonl


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def summarize(
    results: Sequence[RewardResult], wall_s: float, invalid_lines: int = 0, method: str = ""
) -> Summary:
    tp = tn = fp = fn = 0
    errors = probes = votes = tokens = 0
    cost = 0.0
    for r in results:
        probes += r.probes
        votes += len(r.votes)
        tokens += r.usage.tokens
        cost += r.usage.cost_usd
        if r.status != "ok":
            errors += 1
            continue
        if r.label is None:
            continue
        positive = r.reward == 1
        if positive and r.label:
            tp += 1
        elif positive:
            fp += 1
        elif r.label:
            fn += 1
        else:
            tn += 1
    labelled = tp + tn + fp + fn
    precision = _ratio(tp, tp + fp)
    recall = _ratio(tp, tp + fn)
    f1 = _ratio(2 * tp, 2 * tp + fp + fn)
    return Summary(
        method=method or (results[0].method if results else ""),
        n=len(results),
        accuracy=_ratio(tp + tn, labelled),
        precision=precision,
        recall=recall,
        f1=f1,
        tp=tp,
        tn=tn,
        fp=fp,
        fn=fn,
        labelled=labelled,
        errors=errors,
        invalid_lines=invalid_lines,
        probes=probes,
        votes=votes,
        tokens=tokens,
        cost_usd=round(cost, 6),
        wall_s=round(wall_s, 3),
    )


def by_family(results: Sequence[RewardResult]) -> dict[str, Summary]:
    """One summary per task family (for reports; models never see families)."""
    groups: dict[str, list[RewardResult]] = {}
    for r in results:
        groups.setdefault(r.family or "(none)", []).append(r)
    return {fam: summarize(rs, 0.0) for fam, rs in sorted(groups.items())}


def summarize_file(path: str | Path, wall_s: float = 0.0) -> tuple[Summary, list[str]]:
    results, bad = read_jsonl(path, RewardResult)
    return summarize(results, wall_s, invalid_lines=len(bad)), [str(b) for b in bad]


def cli_summary(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """``prorex summary REWARDS_JSONL_OR_RUN_DIR [--wall-s S]``: write and print summary.json."""
    if not isinstance(args, argparse.Namespace):
        p = argparse.ArgumentParser(prog="prorex summary")
        p.add_argument("rewards", help="a rewards.jsonl file or the run directory holding it")
        p.add_argument("--wall-s", type=float, default=None)
        args = p.parse_args(args)
    path = Path(args.rewards)
    if path.is_dir():
        path = path / "rewards.jsonl"
    if not path.is_file():
        print(f"error: {path} not found", file=sys.stderr)
        return 2
    out = path.parent / "summary.json"
    wall_s = getattr(args, "wall_s", None)
    if wall_s is None and out.is_file():
        try:  # keep the run's own wall time when re-summarising
            wall_s = float(json.loads(out.read_text()).get("wall_s", 0.0))
        except (ValueError, OSError):
            wall_s = 0.0
    summary, bad = summarize_file(path, wall_s or 0.0)
    for line in bad:
        print(f"warning: {line}", file=sys.stderr)
    out.write_text(summary.model_dump_json(indent=2) + "\n")
    print(summary.model_dump_json(indent=2))
    return 0
