"""Emulator worker actor, probe backend and fleet, with a fake probe runner.

The runner here only touches the (real) sim device and returns well-formed
records, so these tests isolate the Ray layer: leasing, failure mapping,
replacement, quarantine, stale calls. The end-to-end behaviour with the real
pipeline is in ``test_job_*``.
"""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from prorex.config import ModelConfig, ProbeConfig
from prorex.device import DeviceCrashed, Snapshot
from prorex.schemas import (
    Action,
    ProbeTrace,
    ReplayReport,
    RewardRequest,
    Step,
    Task,
    Trajectory,
)

pytestmark = pytest.mark.ray


class FakeRunner:
    """Stands in for ``ProbeRunner``: uses the device, sleeps ``delay`` per call."""

    delay = 0.0

    def __init__(self, device, models, probe_cfg):
        self.device = device

    def prepare(self, request, want_snapshot):
        self.device.reset_to(request.task) if request.task.setup.sim else self.device.observe()
        time.sleep(float(request.meta.get("delay", 0.0)))
        if request.meta.get("fail") == "value":
            raise ValueError("bad request for this runner")
        snap = self.device.snapshot("s") if want_snapshot else None
        return ReplayReport(), snap

    def restore(self, snapshot):
        self.device.restore(snapshot)

    def probe(self, request, goals, round, probe):
        obs = self.device.observe()
        obs.screenshot_png = b"\x89PNG fake"
        step = Step(index=0, observation=obs, action=Action(action_type="navigate_back"))
        return ProbeTrace(goal=" ".join(goals), round=round, probe=probe, steps=[step], final_observation=obs)


def fake_runner(device, models, probe_cfg):
    return FakeRunner(device, models, probe_cfg)


def req(i: int, **meta) -> RewardRequest:
    return RewardRequest(task=Task(id=f"t{i}", goal="Open settings"), trajectory=Trajectory(), meta=meta)


@pytest.fixture(scope="module")
def ray_fakes(ray_session):
    # Test modules are not importable in Ray workers: ship this one by value.
    ray_session.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    return ray_session


def make_fleet(size=2, **kw):
    from workers.fleet import Fleet

    kw.setdefault("runner_factory", fake_runner)
    kw.setdefault("health_interval_s", 0.5)
    return Fleet(size, kind="sim", models=ModelConfig(), probe_cfg=ProbeConfig(), **kw)


def test_worker_plain_class_runs_device_calls_off_the_loop(tmp_path):
    """The actor class works without Ray; screenshots can leave as files instead of bytes."""
    from workers.emulator_worker import EmulatorWorker

    async def go():
        w = EmulatorWorker("sim", 1, {}, ModelConfig(), ProbeConfig(), runner_factory=fake_runner,
                           screenshot_dir=str(tmp_path))
        assert await w.ping() == "w1.0"
        report, snap = await w.prepare(req(0), True)
        assert isinstance(report, ReplayReport) and isinstance(snap, Snapshot) and snap.portable
        trace = await w.probe(req(0), ["look"], 1, 2)
        obs = trace.steps[0].observation
        assert obs.screenshot_png is None and obs.screenshot and (tmp_path / "t0").is_dir()
        assert trace.worker == "w1.0"
        assert (await w.info())["stats"]["probe"] == 1
        assert (await w.health()).ok

    asyncio.run(go())


def test_worker_lost_device_is_reported_until_restarted():
    from workers.emulator_worker import EmulatorWorker

    async def go():
        w = EmulatorWorker("sim", 0, {"faults": {"crash_p": 1.0}}, ModelConfig(), ProbeConfig(),
                           runner_factory=fake_runner)
        with pytest.raises(DeviceCrashed):
            await w.probe(req(0), ["g"], 0, 0)
        health = await w.health()
        assert not health.ok and health.state == "crashed"
        with pytest.raises(DeviceCrashed, match="restart"):
            await w.restore(Snapshot(id="x", backend="sim", portable=True, data=b"{}"))
        # in-place recovery: a fresh device (here without the fault) and runner
        w._device_options = {}
        await w.restart_device()
        assert (await w.health()).ok
        assert (await w.probe(req(0), ["g"], 0, 0)).goal == "g"

    asyncio.run(go())


def test_worker_refuses_a_call_from_an_ended_lease():
    from workers.emulator_worker import EmulatorWorker, StaleLease

    async def go():
        w = EmulatorWorker("sim", 0, {}, ModelConfig(), ProbeConfig(), runner_factory=fake_runner)
        await w.prepare(req(0), False, lease=2)
        with pytest.raises(StaleLease):
            await w.probe(req(0), ["g"], 0, 0, lease=1)
        await w.probe(req(0), ["g"], 0, 0, lease=2)

    asyncio.run(go())


def test_backend_maps_failures_to_worker_lost(ray_fakes):
    from prorex.pipeline import WorkerLost
    from workers.ray_backend import RayProbeBackend

    async def go():
        fleet = make_fleet(2, worker_options={1: {"faults": {"crash_p": 1.0}}}, quarantine_after=99)
        async with fleet:
            refs = await fleet.lease(2)
            by_index = {r.index: r for r in refs}
            backend = RayProbeBackend([by_index[0], by_index[1]], call_timeout_s=1.0)
            assert backend.slots == 2
            trace = await backend.probe(0, req(0), ["g"], 0, 0)
            assert trace.steps[0].observation.screenshot_png == b"\x89PNG fake"  # bytes by value
            # a device crash on slot 1 -> WorkerLost naming that worker
            with pytest.raises(WorkerLost) as lost:
                await backend.probe(1, req(0), ["g"], 0, 0)
            assert lost.value.args[0] == by_index[1].worker_id
            # any other failure is the worker's own exception (an error vote upstream)
            with pytest.raises(ValueError, match="bad request"):
                await backend.prepare(0, req(1, fail="value"), False)
            # no answer within the call timeout (a hung device) -> WorkerLost
            with pytest.raises(WorkerLost):
                await backend.prepare(0, req(2, delay=3.0), False)
            # a killed actor -> WorkerLost
            ray_fakes.kill(by_index[0].handle, no_restart=True)
            with pytest.raises(WorkerLost):
                await backend.probe(0, req(0), ["g"], 0, 0)
            backend.close()
            with pytest.raises(RuntimeError, match="ended"):
                await backend.probe(0, req(0), ["g"], 0, 0)
            fleet.release(refs, failed={by_index[0].worker_id, by_index[1].worker_id})

    asyncio.run(go())


def test_fleet_leases_fifo_and_never_more_than_live(ray_fakes):
    async def go():
        async with make_fleet(2) as fleet:
            a = await fleet.lease(5)  # capped at the fleet size
            assert len(a) == 2 and {r.index for r in a} == {0, 1}
            waiter1 = asyncio.create_task(fleet.lease(2))
            waiter2 = asyncio.create_task(fleet.lease(1))
            await asyncio.sleep(0.05)
            assert not waiter1.done() and not waiter2.done()
            fleet.release(a[:1])
            await asyncio.sleep(0.05)
            # the first waiter wants two: the second (wanting one) must not overtake it
            assert not waiter1.done() and not waiter2.done()
            fleet.release(a[1:])
            b = await asyncio.wait_for(waiter1, 5)
            assert len(b) == 2 and all(r.lease >= 2 for r in b)
            fleet.release(b)
            c = await asyncio.wait_for(waiter2, 5)
            assert len(c) == 1
            fleet.release(c)
            # a retry prefers the other device
            d = await fleet.lease(1, avoid={0})
            assert d[0].index == 1
            fleet.release(d)

    asyncio.run(go())


def test_fleet_replaces_a_killed_worker_and_ignores_stale_releases(ray_fakes):
    async def go():
        async with make_fleet(2) as fleet:
            refs = await fleet.lease(2)
            victim = next(r for r in refs if r.index == 0)
            ray_fakes.kill(victim.handle, no_restart=True)
            fleet.release(refs, failed={victim.worker_id})
            fresh = await asyncio.wait_for(fleet.lease(2), 60)
            new0 = next(r for r in fresh if r.index == 0)
            assert new0.worker_id == "w0.1"
            assert await new0.handle.ping.remote() == "w0.1"
            fleet.release([victim])  # a late release of the dead incarnation changes nothing
            assert fleet.slots[0].state == "busy"
            fleet.release(fresh)
            assert fleet.snapshot_stats().restarts == 1

    asyncio.run(go())


def test_health_loop_replaces_an_idle_worker_that_died(ray_fakes):
    async def go():
        async with make_fleet(1, health_timeout_s=2.0) as fleet:
            ray_fakes.kill(fleet.slots[0].handle, no_restart=True)
            deadline = time.monotonic() + 60
            while fleet.slots[0].generation == 0 and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            refs = await asyncio.wait_for(fleet.lease(1), 60)
            assert refs[0].worker_id == "w0.1"
            assert fleet.snapshot_stats().health_failures >= 1
            fleet.release(refs)

    asyncio.run(go())


def test_fleet_quarantines_a_device_that_keeps_failing(ray_fakes):
    async def go():
        fleet = make_fleet(2, worker_options={1: {"faults": {"crash_p": 1.0}}}, quarantine_after=2,
                           health_interval_s=0.3)
        async with fleet:
            deadline = time.monotonic() + 60
            # every fresh device 1 crashes on its first health probe... or on use
            while not fleet.snapshot_stats().quarantined and time.monotonic() < deadline:
                refs = await fleet.lease(2)
                failed = set()
                for r in refs:
                    try:
                        await r.handle.probe.remote(req(0), ["g"], 0, 0, lease=r.lease)
                    except Exception:
                        failed.add(r.worker_id)
                fleet.release(refs, failed)
            stats = fleet.snapshot_stats()
            assert [q.index for q in stats.quarantined] == [1]
            assert stats.live == 1
            # the remaining worker still serves; a lease for two gets the one left
            refs = await asyncio.wait_for(fleet.lease(2), 10)
            assert [r.index for r in refs] == [0]
            fleet.release(refs)

    asyncio.run(go())


def test_a_fleet_whose_devices_cannot_start_fails_loudly(ray_fakes):
    """No android devices configured: the start gives up with the reason instead of hanging."""
    from workers.fleet import Fleet, FleetExhausted

    async def go():
        fleet = Fleet(1, kind="android", quarantine_after=1, runner_factory=fake_runner)
        with pytest.raises(FleetExhausted, match="devices config"):
            await fleet.start()
        with pytest.raises(FleetExhausted):
            await fleet.lease(1)
        await fleet.close()

    asyncio.run(go())


def closing_runner(marks):
    """A runner factory whose devices leave a file in ``marks`` when closed."""

    def factory(device, models, probe_cfg):
        close = device.close

        def close_and_mark():
            (marks / f"{device.device_id}.closed").touch()
            close()

        device.close = close_and_mark
        return FakeRunner(device, models, probe_cfg)

    return factory


def test_fleet_close_closes_every_device_before_killing_its_worker(ray_fakes, tmp_path):
    """A killed actor runs no cleanup, and an emulator its device launched would outlive it."""

    async def go():
        fleet = make_fleet(2, runner_factory=closing_runner(tmp_path))
        await fleet.start()
        await fleet.close()
        assert all(s.handle is None for s in fleet.slots)

    asyncio.run(go())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sim-0.closed", "sim-1.closed"]
