"""``prorex run``: flags to a ``JobConfig``, Ray start-up, the job, the summary table."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from prorex.config import ModelConfig, ProbeConfig
from prorex.inputs import LoadedInput, load_requests
from prorex.rewards_log import RewardsLog
from prorex.schemas import Summary
from workers.driver import EXIT_INTERRUPTED, JobConfig, JobReport, run_job
from workers.fleet import FleetExhausted, FleetStats
from workers.remote import start_local_ray

# ----------------------------------------------------------------- reporting


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def format_summary(summary: Summary, fleet: FleetStats | None = None, *, skipped: int = 0) -> str:
    rows = [
        ("method", summary.method),
        ("requests", str(summary.n)),
        ("labelled", str(summary.labelled)),
        ("accuracy", _pct(summary.accuracy)),
        ("precision", _pct(summary.precision)),
        ("recall", _pct(summary.recall)),
        ("f1", _pct(summary.f1)),
        ("tp / tn / fp / fn", f"{summary.tp} / {summary.tn} / {summary.fp} / {summary.fn}"),
        ("errors", str(summary.errors)),
        ("invalid input lines", str(summary.invalid_lines)),
        ("probes / votes", f"{summary.probes} / {summary.votes}"),
        ("tokens", str(summary.tokens)),
        ("cost (USD)", f"{summary.cost_usd:.4f}"),
        ("wall (s, this run)", f"{summary.wall_s:.1f}"),
    ]
    if skipped:
        rows.append(("resumed (already done)", str(skipped)))
    if fleet is not None:
        rows.append(("workers live / started", f"{fleet.live} / {fleet.workers}"))
        rows.append(("worker restarts", str(fleet.restarts)))
        for q in fleet.quarantined:
            rows.append((f"quarantined device {q.index}", f"{q.failures} failures: {q.reason[:60]}"))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)


# ----------------------------------------------------------------------- CLI


def config_from_args(args: argparse.Namespace) -> JobConfig:
    device_options: dict[str, Any] = {}
    if args.device == "android":
        from prorex.devices import load_devices_config

        if not args.devices_config:
            raise ValueError("--device android needs --devices-config FILE")
        device_options["devices"] = load_devices_config(args.devices_config)
    models = ModelConfig(
        reasoner=args.reasoner,
        evaluator=args.evaluator,
        judge=args.judge,
        api_base=args.api_base,
        max_concurrency=args.max_concurrency,
        max_rpm=args.max_rpm,
    )
    return JobConfig(
        method=args.method,
        workers=args.workers,
        device=args.device,
        device_options=device_options,
        models=models,
        probe=ProbeConfig(parallel=args.parallel, rounds=args.rounds),
        max_inflight=args.max_inflight,
        retries=args.retries,
        deadline_s=args.deadline,
        progress=not args.no_progress,
    )


def init_ray(address: str | None, workers: int, needs_workers: bool) -> bool:
    """Connect to ``address`` or start a local cluster. True if we own it (shut it down after)."""
    import ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if address:
        ray.init(address=address, log_to_driver=False)
        have = ray.cluster_resources().get("emulator", 0)
        if needs_workers and have < 1:
            raise RuntimeError(f"the cluster at {address} offers no 'emulator' resource; see cluster/README.md")
        if needs_workers and have < workers:
            print(f"warning: the cluster has {have:g} emulator slots for {workers} workers; "
                  "the rest wait until slots free up", file=sys.stderr)
        return False
    return start_local_ray(workers)


def cli_run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        config = config_from_args(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not Path(args.input).is_file():
        print(f"error: {args.input}: no such file", file=sys.stderr)
        return 2
    loaded = load_requests(args.input)
    for line in loaded.errors + loaded.duplicates:
        print(line, file=sys.stderr)
    if loaded.errors:
        print(f"{loaded.invalid_lines} invalid line(s) skipped; {len(loaded.requests)} request(s) proceed",
              file=sys.stderr)
    rewards_path = Path(args.out) / "rewards.jsonl"
    if not args.resume and RewardsLog(rewards_path).has_results():
        print(f"error: {rewards_path} already has results; pass --resume or choose another --out", file=sys.stderr)
        return 2

    import ray

    try:
        owns_cluster = init_ray(args.address, config.workers, config.needs_workers)
    except (RuntimeError, ConnectionError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        report = asyncio.run(_main(config, loaded, args))
    except FleetExhausted as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        if owns_cluster:
            ray.shutdown()
    print(format_summary(report.summary, report.fleet, skipped=report.skipped))
    print(f"\nwrote {report.rewards_path} and {report.summary_path}")
    if report.interrupted:
        print("interrupted: finished results are kept; rerun with --resume to continue", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


async def _main(config: JobConfig, loaded: LoadedInput, args: argparse.Namespace) -> JobReport:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_signal() -> None:
        print("\nstopping: cancelling requests in flight (Ctrl-C again to force)", file=sys.stderr)
        stop.set()
        loop.remove_signal_handler(signal.SIGINT)

    loop.add_signal_handler(signal.SIGINT, on_signal)
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    try:
        return await run_job(
            config, loaded.requests, args.out, resume=args.resume, invalid_lines=loaded.invalid_lines, stop=stop
        )
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
