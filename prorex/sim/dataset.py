"""Build a labelled reward dataset on the sim phone (``prorex dataset``).

Every request is one task from a family, run by a scripted policy with a
chosen outcome; the label is the family's checker over the real final
state, not the outcome the script aimed for. Output is a pure function of
``(n, seed, mix)``: no wall clock, fixed field order, so the same seed gives
byte-identical files.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prorex.schemas import RewardRequest, Task, TaskSetup, dump_jsonl_line
from prorex.sim.device import SimDevice
from prorex.sim.policies import ScriptedAgent, outcomes_for, parse_mix, plan
from prorex.sim.tasks import FAMILIES, ScreenView

#: below this many tasks a second process costs more than it saves
PARALLEL_MIN = 200


def _pick(rng: random.Random, mix: dict[str, float], allowed: tuple[str, ...]) -> str:
    names = [o for o in allowed if mix.get(o, 0) > 0] or ["correct"]
    weights = [mix.get(o, 0) or 1.0 for o in names]
    return rng.choices(names, weights=weights, k=1)[0]


def make_request(family: str, i: int, seed: int, mix: dict[str, float], device: SimDevice) -> RewardRequest:
    fam = FAMILIES[family]
    rng = random.Random(f"{seed}:{i}:{family}")
    params = fam.sample(rng)
    spec = {"family": family, "params": params, "seed": rng.randrange(2**31)}
    task = Task(id=f"{family}-{seed}-{i:05d}", goal=fam.goal_for(params), app=fam.app, family=family,
                setup=TaskSetup(sim=spec), max_steps=fam.max_steps)
    outcome = _pick(rng, mix, outcomes_for(family, params))
    ops = plan(family, params, outcome, rng, qa=fam.qa)
    device.reset_to(task)
    traj = ScriptedAgent(device).run(ops)
    phone = device.phone
    label = fam.is_successful(phone.state, params, traj.answer)
    hidden = not fam.evidence(ScreenView.of(phone.frame()), params)
    return RewardRequest(task=task, trajectory=traj, label=label,
                         meta={"outcome": outcome, "hidden_outcome": hidden, "agent": "scripted"})


def family_order(n: int, seed: int) -> list[str]:
    """Families for tasks 0..n-1: every family once per block, blocks shuffled by seed."""
    names = sorted(FAMILIES)
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        block = list(names)
        rng.shuffle(block)
        out.extend(block)
    return out[:n]


def _build_range(job: tuple[list[str], int, int, dict[str, float]]) -> list[RewardRequest]:
    families, start, seed, weights = job
    device = SimDevice(device_id="dataset", screenshots=False)
    return [make_request(f, start + k, seed, weights, device) for k, f in enumerate(families)]


def _build_lines(job: tuple[list[str], int, int, dict[str, float]]) -> list[tuple[str, dict[str, Any]]]:
    # JSON lines travel between processes far cheaper than pickled models
    return [(dump_jsonl_line(r), _record(r)) for r in _build_range(job)]


def _jobs(n: int, seed: int, weights: dict[str, float], workers: int) -> list[tuple]:
    order = family_order(n, seed)
    size = max(1, -(-n // max(1, workers * 4)))
    return [(order[a : a + size], a, seed, weights) for a in range(0, n, size)]


def _pool_map(fn, jobs: list[tuple], workers: int) -> Iterator:
    """``fn`` over ``jobs`` in order, in ``workers`` processes when that helps."""
    if workers <= 1 or len(jobs) <= 1:
        yield from (fn(j) for j in jobs)
        return
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with ctx.Pool(workers) as pool:
        yield from pool.imap(fn, jobs, chunksize=1)


def build_dataset(
    n: int, seed: int, mix: dict[str, float] | str | None = None, *, workers: int = 1
) -> list[RewardRequest]:
    """``n`` labelled requests. Each request depends only on ``(seed, i, mix)``, so
    building them in ``workers`` processes gives the same list as one."""
    weights = parse_mix(mix) if mix is None or isinstance(mix, str) else dict(mix)
    workers = workers if n >= PARALLEL_MIN else 1
    return [r for part in _pool_map(_build_range, _jobs(n, seed, weights, workers), workers) for r in part]


def write_requests(
    path: str | Path, n: int, seed: int, mix: dict[str, float] | str | None = None, *, workers: int = 1
) -> list[dict[str, Any]]:
    """Write ``build_dataset(n, seed, mix)`` to ``path`` as JSONL, one request a line;
    return each request's stats record (for ``stats``)."""
    weights = parse_mix(mix) if mix is None or isinstance(mix, str) else dict(mix)
    workers = workers if n >= PARALLEL_MIN else 1
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    records: list[dict[str, Any]] = []
    # parts arrive in task order and are written as they come, so memory stays flat
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for part in _pool_map(_build_lines, _jobs(n, seed, weights, workers), workers):
            for line, rec in part:
                fh.write(line + "\n")
                records.append(rec)
    return records


def _record(r: RewardRequest) -> dict[str, Any]:
    return {"family": r.task.family, "app": r.task.app, "outcome": r.meta["outcome"], "label": bool(r.label),
            "hidden": bool(r.meta["hidden_outcome"]), "steps": len(r.trajectory.steps)}


def stats(requests: list[RewardRequest] | list[dict[str, Any]]) -> dict[str, Any]:
    """Counts per family, app and scripted outcome; label balance; hidden-outcome share."""
    recs = [r if isinstance(r, dict) else _record(r) for r in requests]
    n = len(recs)
    pos = sum(r["label"] for r in recs)
    hidden = sum(r["hidden"] for r in recs)

    def count(key: str) -> dict[str, int]:
        return dict(sorted(Counter(r[key] for r in recs).items()))

    per_family: dict[str, dict[str, int]] = {}
    for r in recs:
        d = per_family.setdefault(r["family"], {"n": 0, "positive": 0, "hidden": 0})
        d["n"] += 1
        d["positive"] += int(r["label"])
        d["hidden"] += int(r["hidden"])
    return {
        "n": n,
        "positive": pos,
        "negative": n - pos,
        "positive_share": round(pos / n, 4) if n else None,
        "hidden_outcome": hidden,
        "hidden_share": round(hidden / n, 4) if n else None,
        "steps_mean": round(sum(r["steps"] for r in recs) / n, 2) if n else None,
        "families": count("family"),
        "apps": count("app"),
        "outcomes": count("outcome"),
        "positive_by_outcome": {o: sum(1 for r in recs if r["outcome"] == o and r["label"])
                                for o in sorted({r["outcome"] for r in recs})},
        "per_family": dict(sorted(per_family.items())),
    }


def cli_dataset(args) -> int:
    """``prorex dataset --out DIR --tasks N --seed S [--mix ...]``."""
    if args.tasks < 0:
        print("prorex dataset: --tasks must be >= 0", file=sys.stderr)
        return 2
    try:
        mix = parse_mix(getattr(args, "mix", None))
    except ValueError as exc:
        print(f"prorex dataset: --mix: {exc}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    workers = getattr(args, "workers", None) or min(2, os.cpu_count() or 1)
    if args.tasks < PARALLEL_MIN:
        workers = 1
    out = Path(args.out)
    records = write_requests(out / "requests.jsonl", args.tasks, args.seed, mix, workers=workers)
    s = stats(records)
    summary = {"seed": args.seed, "tasks": args.tasks, "mix": dict(sorted(mix.items())), **s}
    (out / "dataset.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    wall = time.perf_counter() - t0
    print(f"wrote {len(records)} requests to {out / 'requests.jsonl'} in {wall:.1f}s with {workers} process(es) "
          f"(positive {s['positive_share']}, hidden outcome {s['hidden_share']})")
    return 0
