"""The ``prorex`` command.

Sub-commands import their implementation lazily, so ``prorex dataset`` or
``prorex devices`` never start Ray and a missing optional piece fails only
the command that needs it.
"""

from __future__ import annotations

import argparse
import sys

from prorex.config import METHODS


def _add_run_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--input", required=True, help="reward requests, JSONL")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--method", choices=METHODS, default="prore")
    p.add_argument("--workers", type=int, default=2, help="emulator worker actors (W)")
    p.add_argument("--parallel", type=int, default=1, help="parallel probes per round (K)")
    p.add_argument("--rounds", type=int, default=1, help="iterative probing rounds (R)")
    p.add_argument("--device", choices=("sim", "android"), default="sim")
    p.add_argument("--reasoner", default="offline/reasoner", help="litellm model name")
    p.add_argument("--evaluator", default="offline/evaluator", help="litellm model name")
    p.add_argument("--judge", default=None, help="litellm model for the judge (default: reasoner)")
    p.add_argument("--api-base", default=None, help="e.g. a local vLLM server")
    p.add_argument("--max-concurrency", type=int, default=16, help="LLM calls in flight at once")
    p.add_argument("--max-rpm", type=float, default=None, help="LLM requests per minute (default: no limit)")
    p.add_argument("--address", default=None, help="existing Ray cluster (default: start a local one)")
    p.add_argument("--resume", action="store_true", help="skip task ids already in rewards.jsonl")
    p.add_argument("--max-inflight", type=int, default=None, help="requests in flight (default 2*W)")
    p.add_argument("--retries", type=int, default=2, help="retries per request after a worker failure")
    p.add_argument("--deadline", type=float, default=600.0, help="seconds per request")
    p.add_argument("--devices-config", default=None, help="JSON file describing android devices")
    p.add_argument("--no-progress", action="store_true")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="prorex",
        description="Proactive rewards for GUI agents (ProRe): replay, probe and judge on Ray.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("dataset", help="build a sim reward dataset with ground-truth labels")
    p.add_argument("--out", required=True)
    p.add_argument("--tasks", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--mix", default=None, help="policy outcome mix, e.g. correct=0.45,wrong_target=0.1")

    p = sub.add_parser("run", help="reward a JSONL of requests on Ray")
    _add_run_args(p)

    p = sub.add_parser("demo", help="offline end-to-end demo on the sim phone")
    p.add_argument("--out", default="demo_out")
    p.add_argument("--tasks", type=int, default=None)

    p = sub.add_parser("devices", help="list devices an adb server knows")
    p.add_argument("--adb-host", default="127.0.0.1")
    p.add_argument("--adb-port", type=int, default=5037)

    p = sub.add_parser("summary", help="recompute summary.json from a rewards.jsonl")
    p.add_argument("rewards")

    p = sub.add_parser("bench", help="measure throughput and scaling ratios")
    p.add_argument("--out", default="bench_out")
    p.add_argument("--tasks", type=int, default=40)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "dataset":
        from prorex.sim.dataset import cli_dataset

        return cli_dataset(args)
    if args.command == "run":
        from workers.run_command import cli_run

        return cli_run(args)
    if args.command == "demo":
        from workers.demo import cli_demo

        return cli_demo(args)
    if args.command == "devices":
        from prorex.android.devices import cli_devices

        return cli_devices(args)
    if args.command == "summary":
        from prorex.metrics import cli_summary

        return cli_summary(args)
    if args.command == "bench":
        from workers.bench import cli_bench

        return cli_bench(args)
    raise AssertionError(args.command)


if __name__ == "__main__":
    sys.exit(main())
