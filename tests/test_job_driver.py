"""The job driver with a scripted pipeline and probe runner.

The pipeline here fans K probes over the leased workers for R rounds and
votes the request's label, so the outcome of every request is known in
advance: these tests isolate the driver (input errors, streaming,
resume, retries, stop) from the reward method. ``test_job_e2e`` runs the
real pipeline on the sim.
"""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from prorex.config import ProbeConfig
from prorex.inputs import load_requests
from prorex.rewards_log import RewardsLog
from prorex.schemas import RewardRequest, RewardResult, Task, Trajectory, Vote, dump_jsonl_line
from workers.driver import JobConfig, run_job

pytestmark = pytest.mark.ray


class ScriptedPipeline:
    def __init__(self, models, probe_cfg, method):
        self.cfg = probe_cfg
        self.method = method

    async def reward(self, request, backend):
        votes = []
        for r in range(self.cfg.rounds):

            async def one(i, r=r):
                slot = i % backend.slots
                await backend.prepare(slot, request, False)
                trace = await backend.probe(slot, request, [request.task.goal], r, i)
                return Vote(round=r, probe=i, outcome="success" if request.label else "failure", worker=trace.worker)

            votes += await asyncio.gather(*(one(i) for i in range(self.cfg.parallel)))
        return RewardResult(
            task_id=request.task.id, method=self.method, reward=int(bool(request.label)), status="ok",
            votes=votes, label=request.label, probes=len(votes),
        )


def scripted_pipeline(models, probe_cfg, method):
    return ScriptedPipeline(models, probe_cfg, method)


class SlowRunner:
    def __init__(self, device, models, probe_cfg):
        self.device = device

    def prepare(self, request, want_snapshot):
        import time

        from prorex.schemas import ReplayReport

        self.device.observe()
        time.sleep(float(request.meta.get("delay", 0.0)))
        return ReplayReport(), None

    def restore(self, snapshot):
        self.device.restore(snapshot)

    def probe(self, request, goals, round, probe):
        from prorex.schemas import ProbeTrace

        self.device.observe()
        return ProbeTrace(goal=goals[0], round=round, probe=probe)


def slow_runner(device, models, probe_cfg):
    return SlowRunner(device, models, probe_cfg)


@pytest.fixture(scope="module")
def ray_fakes(ray_session):
    ray_session.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    return ray_session


def requests(n: int, delay: float = 0.0) -> list[RewardRequest]:
    return [
        RewardRequest(task=Task(id=f"t{i:03d}", goal=f"goal {i}"), trajectory=Trajectory(), label=i % 3 != 0,
                      meta={"delay": delay})
        for i in range(n)
    ]


def fleet_for(cfg: JobConfig, **kw):
    from workers.fleet import Fleet

    return Fleet(cfg.workers, kind="sim", models=cfg.models, probe_cfg=cfg.probe, runner_factory=slow_runner,
                 health_interval_s=0.5, **kw)


def lines(path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


# ------------------------------------------------------------------ no Ray


def test_bad_input_lines_are_reported_with_line_and_field(tmp_path):
    good = requests(3)
    path = tmp_path / "in.jsonl"
    rows = [dump_jsonl_line(good[0]), "{not json", dump_jsonl_line(good[1]),
            json.dumps({"task": {"goal": "no id"}, "trajectory": {}}), "", dump_jsonl_line(good[2]),
            dump_jsonl_line(good[1])]
    path.write_text("\n".join(rows) + "\n")
    loaded = load_requests(path)
    assert [r.task.id for r in loaded.requests] == ["t000", "t001", "t002"]
    assert loaded.invalid_lines == 2
    assert loaded.errors[0].startswith(f"{path}:2: ") and "invalid JSON" in loaded.errors[0]
    assert loaded.errors[1].startswith(f"{path}:4: task.id: ")
    assert loaded.duplicates == [f"{path}:7: task.id: 't001' repeats line 3; skipped"]


def test_rewards_log_drops_a_torn_tail_and_refuses_to_overwrite(tmp_path):
    path = tmp_path / "rewards.jsonl"
    ok = RewardResult(task_id="a", method="prore", reward=1, status="ok")
    path.write_text(dump_jsonl_line(ok) + "\n" + dump_jsonl_line(ok.model_copy(update={"task_id": "b"}))[:25])
    with pytest.raises(FileExistsError):
        RewardsLog(path).open(resume=False)
    log = RewardsLog(path)
    assert log.open(resume=True) == {"a"}
    assert any("incomplete last line" in n for n in log.notes)
    log.append(ok.model_copy(update={"task_id": "b"}))
    log.close()
    assert [x["task_id"] for x in lines(path)] == ["a", "b"]


# --------------------------------------------------------------------- Ray


def test_job_streams_results_and_resume_skips_finished_ids(ray_fakes, tmp_path):
    cfg = JobConfig(method="prore", workers=2, probe=ProbeConfig(parallel=2, rounds=2), progress=False)
    reqs = requests(8)

    async def go():
        fleet = fleet_for(cfg)
        async with fleet:
            first = await run_job(cfg, reqs[:5], tmp_path, fleet=fleet, pipeline_factory=scripted_pipeline,
                                  invalid_lines=1)
            assert len(first.results) == 5
            again = await run_job(cfg, reqs, tmp_path, fleet=fleet, pipeline_factory=scripted_pipeline,
                                  resume=True)
        return first, again

    first, again = asyncio.run(go())
    assert again.skipped == 5 and len(again.results) == 3
    got = lines(tmp_path / "rewards.jsonl")
    assert sorted(x["task_id"] for x in got) == [r.task.id for r in reqs]
    assert all(len(x["votes"]) == 4 for x in got)  # K=2 x R=2
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["n"] == 8 and summary["accuracy"] == 1.0 and summary["votes"] == 32
    assert first.summary.invalid_lines == 1


def test_killed_worker_mid_run_loses_no_request(ray_fakes, tmp_path):
    """ray.kill on a busy worker: its request is retried elsewhere, every result unchanged."""
    cfg = JobConfig(method="prore", workers=2, probe=ProbeConfig(parallel=1, rounds=1), progress=False,
                    retries=2)
    reqs = requests(10, delay=0.3)

    async def go():
        fleet = fleet_for(cfg)
        async with fleet:
            job = asyncio.create_task(run_job(cfg, reqs, tmp_path, fleet=fleet, pipeline_factory=scripted_pipeline))
            while not (tmp_path / "rewards.jsonl").exists() or len(lines(tmp_path / "rewards.jsonl")) < 2:
                await asyncio.sleep(0.05)
            busy = next(s for s in fleet.slots if s.state == "busy")
            ray_fakes.kill(busy.handle, no_restart=True)
            report = await job
            return report, fleet.snapshot_stats()

    report, stats = asyncio.run(go())
    got = lines(tmp_path / "rewards.jsonl")
    assert sorted(x["task_id"] for x in got) == [r.task.id for r in reqs]
    assert all(x["status"] == "ok" and x["reward"] == int(x["label"]) for x in got)
    assert stats.restarts >= 1
    assert max(x["attempts"] for x in got) == 2  # the request on the killed worker went again


def test_a_request_out_of_retries_is_an_error_not_a_reward(ray_fakes, tmp_path):
    cfg = JobConfig(method="prore", workers=1, probe=ProbeConfig(), progress=False, retries=1,
                    quarantine_after=99)

    async def go():
        fleet = fleet_for(cfg, worker_options={0: {"faults": {"crash_p": 1.0}}})
        async with fleet:
            return await run_job(cfg, requests(1), tmp_path, fleet=fleet, pipeline_factory=scripted_pipeline)

    report = asyncio.run(go())
    (res,) = report.results
    assert res.status == "error" and res.reward is None and res.attempts == 2
    assert "gave up after 2 attempts" in res.error and "lost" in res.error
    assert report.summary.errors == 1


def test_stop_keeps_what_was_written(ray_fakes, tmp_path):
    cfg = JobConfig(method="prore", workers=2, probe=ProbeConfig(), progress=False)
    reqs = requests(30, delay=0.2)

    async def go():
        stop = asyncio.Event()
        fleet = fleet_for(cfg)
        async with fleet:
            job = asyncio.create_task(run_job(cfg, reqs, tmp_path, fleet=fleet, pipeline_factory=scripted_pipeline,
                                              stop=stop))
            while not (tmp_path / "rewards.jsonl").exists() or len(lines(tmp_path / "rewards.jsonl")) < 3:
                await asyncio.sleep(0.05)
            stop.set()
            return await job

    report = asyncio.run(go())
    assert report.interrupted
    got = lines(tmp_path / "rewards.jsonl")
    assert 3 <= len(got) < 30 and len({x["task_id"] for x in got}) == len(got)
    assert json.loads((tmp_path / "summary.json").read_text())["n"] == len(got)
