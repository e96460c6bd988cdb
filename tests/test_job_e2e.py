"""The job on Ray with the real pieces: sim devices, replay, evaluator, offline
models, the reward pipeline. What the issue asks to be shown:

- K and R change the number of votes as configured;
- killing a worker actor mid-run loses no request and changes no result;
- SIGKILLing the driver and rerunning with ``--resume`` yields every task id
  exactly once;
- a device that keeps crashing is quarantined and the job still finishes.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from prorex.config import ModelConfig, ProbeConfig
from prorex.schemas import dump_jsonl_line
from prorex.sim import LayoutConfig
from prorex.sim.dataset import build_dataset
from workers.driver import JobConfig, run_job
from workers.fleet import Fleet

pytestmark = [pytest.mark.ray, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
# Same screen layout on every worker: these tests are about the Ray layer, so a
# retried request must not depend on which device it lands on.
SAME_LAYOUT = {"layout": LayoutConfig().model_dump()}


@pytest.fixture(scope="module")
def dataset():
    return build_dataset(24, 5)


def votes_by_id(path: Path) -> dict[str, dict]:
    return {x["task_id"]: x for x in map(json.loads, path.read_text().splitlines())}


def run(cfg: JobConfig, requests, out: Path, **kw):
    return asyncio.run(run_job(cfg, requests, out, **kw))


def test_parallel_and_rounds_set_the_number_of_votes(ray_session, dataset, tmp_path):
    reqs = dataset[:3]
    single = JobConfig(workers=1, probe=ProbeConfig(parallel=1, rounds=1), progress=False)
    wide = JobConfig(workers=3, probe=ProbeConfig(parallel=3, rounds=2, early_stop=False), progress=False)

    async def go():
        async with Fleet(3, models=ModelConfig(), probe_cfg=wide.probe) as fleet:
            one = await run_job(single, reqs, tmp_path / "k1r1", fleet=fleet)
            many = await run_job(wide, reqs, tmp_path / "k3r2", fleet=fleet)
        return one, many

    one, many = asyncio.run(go())
    assert [len(r.votes) for r in one.results] == [1, 1, 1]
    for r in many.results:
        assert len(r.votes) == 6, r
        assert sorted((v.round, v.probe) for v in r.votes) == [(a, b) for a in range(2) for b in range(3)]
    # three probes per round on three workers: one replay, the others restore its snapshot
    assert all(r.snapshot_shared for r in many.results if r.status == "ok")
    assert many.summary.votes == 18 and one.summary.votes == 3


def test_killing_a_worker_mid_run_loses_nothing_and_changes_nothing(ray_session, dataset, tmp_path):
    reqs = dataset[:12]
    cfg = JobConfig(
        workers=2, probe=ProbeConfig(parallel=1, rounds=1), progress=False, retries=3,
        device_options={**SAME_LAYOUT, "latency_s": 0.02},
    )

    async def go():
        async with Fleet(2, device_options=cfg.device_options, models=cfg.models, probe_cfg=cfg.probe,
                         health_interval_s=1.0) as fleet:
            await run_job(cfg, reqs, tmp_path / "clean", fleet=fleet)
            job = asyncio.create_task(run_job(cfg, reqs, tmp_path / "killed", fleet=fleet))
            rewards = tmp_path / "killed" / "rewards.jsonl"
            while not rewards.exists() or len(rewards.read_text().splitlines()) < 2:
                await asyncio.sleep(0.05)
            busy = [s for s in fleet.slots if s.state == "busy"]
            assert busy, "expected a worker in use mid-run"
            ray_session.kill(busy[0].handle, no_restart=True)
            await job
            return fleet.snapshot_stats()

    stats = asyncio.run(go())
    assert stats.restarts >= 1
    a = votes_by_id(tmp_path / "clean" / "rewards.jsonl")
    b = votes_by_id(tmp_path / "killed" / "rewards.jsonl")
    assert sorted(a) == sorted(b) == sorted(r.task.id for r in reqs)
    assert {k: (v["status"], v["reward"]) for k, v in a.items()} == {k: (v["status"], v["reward"]) for k, v in b.items()}
    assert max(v["attempts"] for v in b.values()) >= 2


def test_a_crashing_device_is_quarantined_and_the_job_finishes(ray_session, dataset, tmp_path):
    # K=2 on W=2: every attempt needs device 1 until it is quarantined, so the
    # failures (and the quarantine) do not depend on timing.
    reqs = dataset[:6]
    cfg = JobConfig(
        workers=2, probe=ProbeConfig(parallel=2, rounds=1), progress=False, retries=3, quarantine_after=2,
        device_options=SAME_LAYOUT, worker_options={1: {"faults": {"crash_p": 1.0}}}, health_interval_s=1.0,
    )
    report = run(cfg, reqs, tmp_path)
    assert [q.index for q in report.fleet.quarantined] == [1]
    got = votes_by_id(tmp_path / "rewards.jsonl")
    assert sorted(got) == sorted(r.task.id for r in reqs)
    assert all(v["status"] == "ok" for v in got.values()), [v["error"] for v in got.values()]
    assert all(vote["worker"].startswith("sim-0") or vote["worker"].startswith("w0") for v in got.values()
               for vote in v["votes"])


def _line_count(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def _wait_for_lines(proc: subprocess.Popen, path: Path, n: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while _line_count(path) < n and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)


def test_interrupted_then_sigkilled_driver_resumes_with_every_task_exactly_once(ray_session, dataset, tmp_path):
    """Ctrl-C keeps what was written (exit 130); SIGKILL loses only work in flight; --resume completes."""
    src = tmp_path / "requests.jsonl"
    lines = [dump_jsonl_line(r) for r in dataset]
    # two bad lines: reported with line and field, the rest proceed
    lines[2:2] = ['{"task": {"goal": "no id"}, "trajectory": {}}', "{oops"]
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    rewards = out / "rewards.jsonl"
    address = ray_session.get_runtime_context().gcs_address
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "prorex.cli", "run", "--input", str(src), "--out", str(out),
           "--address", address, "--workers", "2", "--no-progress"]

    # 1. Ctrl-C: stops cleanly, exit 130, the summary covers what was written
    first = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_lines(first, rewards, 2)
        first.send_signal(signal.SIGINT)
        stdout, stderr = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 130, stderr[-2000:]
    assert f"{src}:3: task.id: Field required" in stderr and f"{src}:4: invalid JSON" in stderr
    kept = _line_count(rewards)
    assert 2 <= kept < len(dataset)
    assert json.loads((out / "summary.json").read_text())["n"] == kept

    # 2. SIGKILL mid-run of the resumed job
    second = subprocess.Popen(cmd + ["--resume"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_lines(second, rewards, kept + 3)
        os.kill(second.pid, signal.SIGKILL)
    finally:
        if second.poll() is None:
            second.kill()
        second.wait(30)
    written = _line_count(rewards)
    assert kept + 3 <= written < len(dataset), "the kill should land mid-run"

    # 3. resume to the end: every task id exactly once
    third = subprocess.run(cmd + ["--resume"], env=env, capture_output=True, text=True, timeout=240)
    assert third.returncode == 0, third.stderr[-2000:]
    ids = Counter(json.loads(x)["task_id"] for x in rewards.read_text().splitlines())
    assert set(ids) == {r.task.id for r in dataset} and set(ids.values()) == {1}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n"] == len(dataset) and summary["invalid_lines"] == 2
    assert "resumed (already done)" in third.stdout
