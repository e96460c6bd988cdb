"""``prorex demo``: the whole system offline, on the sim phone, in a few minutes.

Builds a labelled sim dataset, rewards it with every method (``prore`` with
K parallel probes and R rounds on W emulator workers; the two static judges)
on one local Ray cluster, prints a comparison table and writes a chart.
Everything runs through the same path as ``prorex run``: requests are
written to JSONL and read back, results streamed to ``rewards.jsonl``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from prorex.config import METHODS, ModelConfig, ProbeConfig
from prorex.inputs import load_requests
from prorex.schemas import RewardResult, Summary
from workers.driver import JobConfig, JobReport, run_job
from workers.fleet import Fleet
from workers.remote import start_local_ray

DEFAULT_TASKS = 300
DEMO_SEED = 101  # held out: never used for tuning the offline heuristics
DEMO_WORKERS = 2
DEMO_PARALLEL = 2  # K
DEMO_ROUNDS = 2  # R


def write_requests(path: Path, n: int, seed: int) -> int:
    from prorex.sim.dataset import write_requests as write_dataset

    return len(write_dataset(path, n, seed))


def _fresh(dir_: Path) -> None:
    """A demo run starts clean: old results of the same method would be resumed otherwise."""
    for name in ("rewards.jsonl", "summary.json"):
        (dir_ / name).unlink(missing_ok=True)


def _pct(x: float | None) -> str:
    return "   -  " if x is None else f"{100 * x:5.1f}%"


def comparison_table(summaries: list[Summary]) -> str:
    head = (
        f"{'method':<12} {'n':>4} {'acc':>6} {'prec':>6} {'recall':>6} {'F1':>6} "
        f"{'tp':>4} {'tn':>4} {'fp':>4} {'fn':>4} {'err':>4} {'probes':>6} {'votes':>6} {'tokens':>9} {'wall s':>7}"
    )
    lines = [head, "-" * len(head)]
    for s in summaries:
        lines.append(
            f"{s.method:<12} {s.n:>4} {_pct(s.accuracy):>6} {_pct(s.precision):>6} {_pct(s.recall):>6} "
            f"{_pct(s.f1):>6} {s.tp:>4} {s.tn:>4} {s.fp:>4} {s.fn:>4} {s.errors:>4} {s.probes:>6} "
            f"{s.votes:>6} {s.tokens:>9} {s.wall_s:>7.1f}"
        )
    return "\n".join(lines)


def write_chart(path: Path, summaries: list[Summary], results: dict[str, list[RewardResult]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = [s.method for s in summaries]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    width = 0.38
    xs = range(len(methods))
    acc = [100 * (s.accuracy or 0.0) for s in summaries]
    f1 = [100 * (s.f1 or 0.0) for s in summaries]
    bars1 = ax1.bar([x - width / 2 for x in xs], acc, width, label="accuracy")
    bars2 = ax1.bar([x + width / 2 for x in xs], f1, width, label="F1")
    for bars in (bars1, bars2):
        for bar in bars:
            ax1.annotate(f"{bar.get_height():.1f}", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                         ha="center", va="bottom", fontsize=8)
    ax1.set_xticks(list(xs), methods)
    ax1.set_ylim(0, 112)
    ax1.set_ylabel("%")
    ax1.set_title("Reward accuracy and F1 vs ground truth")
    ax1.legend(loc="upper right")

    most = max((len(r.votes) for rs in results.values() for r in rs), default=1)
    counts = range(0, most + 1)
    bar_w = 0.8 / max(1, len(methods))
    for m, method in enumerate(methods):
        per = [len(r.votes) for r in results.get(method, [])]
        heights = [sum(1 for c in per if c == n) for n in counts]
        ax2.bar([n - 0.4 + bar_w * (m + 0.5) for n in counts], heights, bar_w, label=method)
    ax2.set_xticks(list(counts))
    ax2.set_xlabel("votes per request")
    ax2.set_ylabel("requests")
    ax2.set_title("Votes per request (early stop ends a decided vote)")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


async def run_demo(
    out: Path,
    requests_path: Path,
    *,
    workers: int = DEMO_WORKERS,
    parallel: int = DEMO_PARALLEL,
    rounds: int = DEMO_ROUNDS,
    progress: bool = True,
) -> list[JobReport]:
    loaded = load_requests(requests_path)
    for line in loaded.errors + loaded.duplicates:
        print(line, file=sys.stderr)
    models = ModelConfig()
    probe = ProbeConfig(parallel=parallel, rounds=rounds)
    reports: list[JobReport] = []
    async with Fleet(workers, kind="sim", models=models, probe_cfg=probe) as fleet:
        for method in METHODS:
            method_dir = out / method
            method_dir.mkdir(parents=True, exist_ok=True)
            _fresh(method_dir)
            config = JobConfig(method=method, workers=workers, models=models, probe=probe, progress=progress)
            report = await run_job(
                config,
                loaded.requests,
                method_dir,
                fleet=fleet if config.needs_workers else None,
                invalid_lines=loaded.invalid_lines,
            )
            reports.append(report)
    return reports


def cli_demo(args: argparse.Namespace) -> int:
    import ray

    out = Path(args.out)
    n = args.tasks or DEFAULT_TASKS
    t0 = time.monotonic()
    requests_path = out / "requests.jsonl"
    written = write_requests(requests_path, n, DEMO_SEED)
    print(f"built {written} sim reward requests -> {requests_path}", file=sys.stderr)
    owns = start_local_ray(DEMO_WORKERS)
    try:
        reports = asyncio.run(run_demo(out, requests_path, progress=not getattr(args, "no_progress", False)))
    finally:
        if owns:
            ray.shutdown()
    summaries = [r.summary for r in reports]
    results = {r.summary.method: r.results for r in reports}
    chart = out / "comparison.png"
    write_chart(chart, summaries, results)
    (out / "comparison.json").write_text(
        json.dumps([s.model_dump() for s in summaries], indent=2) + "\n", encoding="utf-8"
    )
    wall = time.monotonic() - t0
    print(
        f"\nprorex demo: {written} sim tasks; prore with K={DEMO_PARALLEL} parallel probes, "
        f"R={DEMO_ROUNDS} rounds on {DEMO_WORKERS} emulator workers; offline models\n"
    )
    print(comparison_table(summaries))
    print(f"\nwrote {out}/<method>/rewards.jsonl, summary.json, {out}/comparison.json and {chart}")
    print(f"total wall time {wall:.1f}s")
    return 0 if all(s.errors < s.n for s in summaries) else 1
