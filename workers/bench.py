"""``prorex bench``: ratios measured within one run, on one local Ray cluster.

- scaling: the same ``prore`` job (K=1, R=1) on W=1 and on W=2 workers;
  throughput ratio.
- snapshot sharing: K=3, R=1 on 3 workers with ``share_snapshots`` on (one
  replay, the other probes restore the snapshot) and off (K replays);
  replay-count and wall-time ratios.
- stage shares: where time goes in a ``prore`` request: replay (worker
  ``prepare``), snapshot restore, evaluator probing (worker ``probe``), and
  the reasoner's LLM calls (claims, probe scheduling, judging).

Absolute numbers depend on the machine; the ratios are what to compare.
Results go to ``bench_out/bench.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

from prorex.config import ModelConfig, ProbeConfig
from prorex.schemas import RewardRequest
from workers.driver import JobConfig, run_job
from workers.fleet import Fleet
from workers.remote import start_local_ray

BENCH_SEED = 11
BENCH_WORKERS = 3
#: Sim latency per device call. A real emulator spends most of a probe waiting
#: for the device; without it the sim is pure CPU and W workers on a 2-core
#: machine only compete for the same cores.
BENCH_LATENCY_S = 0.05


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


async def _timed_job(
    name: str,
    out: Path,
    requests: list[RewardRequest],
    *,
    workers: int,
    probe: ProbeConfig,
) -> dict[str, Any]:
    models = ModelConfig()
    job_dir = out / name
    shutil.rmtree(job_dir, ignore_errors=True)
    config = JobConfig(method="prore", workers=workers, models=models, probe=probe, progress=False)
    options = {"latency_s": BENCH_LATENCY_S}
    async with Fleet(workers, kind="sim", device_options=options, models=models, probe_cfg=probe) as fleet:
        report = await run_job(config, requests, job_dir, fleet=fleet)
        wall = report.run_s  # the reasoner's start-up is left out: it is paid once per job
        infos = await fleet.info()
    results = report.results
    worker_stats: dict[str, float] = {}
    for info in infos:
        for key, value in info["stats"].items():
            worker_stats[key] = worker_stats.get(key, 0.0) + float(value)
    reasoner: dict[str, float] = {}
    for r in results:
        for key in ("claims_s", "schedule_s", "judge_s"):
            reasoner[key] = reasoner.get(key, 0.0) + r.timings.get(key, 0.0)
    return {
        "name": name,
        "workers": workers,
        "parallel": probe.parallel,
        "rounds": probe.rounds,
        "share_snapshots": probe.share_snapshots,
        "requests": len(results),
        "errors": sum(r.status == "error" for r in results),
        "wall_s": round(wall, 3),
        "throughput_rps": round(len(results) / wall, 4) if wall else None,
        "replays": sum(r.replays for r in results),
        "probes": sum(r.probes for r in results),
        "snapshot_shared": sum(r.snapshot_shared for r in results),
        "worker_seconds": {k: round(v, 3) for k, v in worker_stats.items() if k.endswith("_s")},
        "reasoner_llm_seconds": {k: round(v, 3) for k, v in reasoner.items()},
        "accuracy": report.summary.accuracy,
    }


def _device_s(run: dict[str, Any]) -> float:
    return sum(run["worker_seconds"].values())


def stage_shares(run: dict[str, Any]) -> dict[str, float]:
    w = run["worker_seconds"]
    stages = {
        "replay": w.get("prepare_s", 0.0),
        "restore": w.get("restore_s", 0.0),
        "probe (evaluator agent)": w.get("probe_s", 0.0),
        "reasoner LLM (claims, schedule, judge)": sum(run["reasoner_llm_seconds"].values()),
    }
    total = sum(stages.values())
    return {k: round(v / total, 3) if total else 0.0 for k, v in stages.items()}


async def run_bench(out: Path, n: int) -> dict[str, Any]:
    from prorex.sim.dataset import build_dataset

    requests = build_dataset(n, BENCH_SEED)
    one = ProbeConfig(parallel=1, rounds=1)
    w1 = await _timed_job("w1_k1", out, requests, workers=1, probe=one)
    w2 = await _timed_job("w2_k1", out, requests, workers=2, probe=one)
    k3 = ProbeConfig(parallel=3, rounds=1, early_stop=False)
    shared = await _timed_job("w3_k3_shared", out, requests, workers=3, probe=k3)
    replayed = await _timed_job(
        "w3_k3_replays", out, requests, workers=3, probe=k3.model_copy(update={"share_snapshots": False})
    )
    return {
        "tasks": n,
        "cpus": os.cpu_count(),
        "sim_latency_s": BENCH_LATENCY_S,
        "runs": [w1, w2, shared, replayed],
        "ratios": {
            "throughput_w2_over_w1": _ratio(w2["throughput_rps"] or 0, w1["throughput_rps"] or 0),
            "replays_k3_replayed_over_shared": _ratio(replayed["replays"], shared["replays"]),
            "wall_k3_replayed_over_shared": _ratio(replayed["wall_s"], shared["wall_s"]),
            # replays run in parallel on the K workers, so wall time hides most of the
            # saving; device time is what a busy cluster pays for
            "device_s_k3_replayed_over_shared": _ratio(_device_s(replayed), _device_s(shared)),
        },
        "stage_shares_w2_k1": stage_shares(w2),
        "stage_shares_w3_k3_shared": stage_shares(shared),
    }


def format_bench(report: dict[str, Any]) -> str:
    lines = [
        f"prorex bench: {report['tasks']} sim tasks, {report['cpus']} CPUs, "
        f"sim latency {report['sim_latency_s']}s per device call",
        "",
    ]
    lines.append(f"{'run':<16} {'W':>2} {'K':>2} {'share':>5} {'wall s':>7} {'req/s':>6} {'replays':>7} {'probes':>6} {'err':>3}")
    for r in report["runs"]:
        lines.append(
            f"{r['name']:<16} {r['workers']:>2} {r['parallel']:>2} {str(r['share_snapshots'])[0]:>5} "
            f"{r['wall_s']:>7.1f} {r['throughput_rps'] or 0:>6.2f} {r['replays']:>7} {r['probes']:>6} {r['errors']:>3}"
        )
    lines.append("")
    for key, value in report["ratios"].items():
        lines.append(f"{key:<36} {value}")
    for title in ("stage_shares_w2_k1", "stage_shares_w3_k3_shared"):
        lines.append("")
        lines.append(f"{title}:")
        for stage, share in report[title].items():
            lines.append(f"  {stage:<40} {100 * share:5.1f}%")
    return "\n".join(lines)


def cli_bench(args: argparse.Namespace) -> int:
    import ray

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    owns = start_local_ray(BENCH_WORKERS)
    try:
        report = asyncio.run(run_bench(out, args.tasks))
    finally:
        if owns:
            ray.shutdown()
    (out / "bench.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(format_bench(report))
    print(f"\nwrote {out / 'bench.json'}")
    return 0
