"""``prorex.devices.make_device``: the device each worker builds (no Ray needed)."""

from __future__ import annotations

import json

import pytest

from prorex.device import DeviceError
from prorex.devices import load_devices_config, make_device
from prorex.sim import FaultConfig, LayoutConfig


def test_sim_workers_get_their_own_layout_and_options():
    a, b = make_device("sim", 0), make_device("sim", 1, {"faults": {"crash_p": 0.5}, "latency_s": 0.01})
    assert (a.device_id, b.device_id) == ("sim-0", "sim-1")
    assert a.layout == LayoutConfig.for_worker(0) and b.layout == LayoutConfig.for_worker(1)
    assert a.layout != b.layout and a.layout != LayoutConfig()
    assert b.faults == FaultConfig(crash_p=0.5) and b.latency_s == 0.01
    fixed = make_device("sim", 3, {"layout": LayoutConfig().model_dump()})
    assert fixed.layout == LayoutConfig()


def test_bad_kinds_and_missing_android_devices_are_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown device kind"):
        make_device("ios", 0)
    with pytest.raises(ValueError, match="worker_index"):
        make_device("sim", -1)
    with pytest.raises(DeviceError, match="devices config"):
        make_device("android", 0)
    with pytest.raises(DeviceError, match="lists 1"):
        make_device("android", 1, {"devices": [{"serial": "emulator-5554"}]})
    with pytest.raises(DeviceError, match="adb_port"):  # a bad entry names its field
        make_device("android", 0, {"devices": [{"serial": "emulator-5554", "adb_port": "x"}]})


def test_devices_config_file_shapes(tmp_path):
    entries = [{"serial": "emulator-5554"}, {"serial": "emulator-5556"}]
    listed, wrapped, bad = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    listed.write_text(json.dumps(entries))
    wrapped.write_text(json.dumps({"devices": entries}))
    bad.write_text(json.dumps({"devices": "emulator-5554"}))
    assert load_devices_config(listed) == entries == load_devices_config(wrapped)
    with pytest.raises(ValueError, match="expected a list"):
        load_devices_config(bad)
    with pytest.raises(ValueError, match="cannot read"):
        load_devices_config(tmp_path / "missing.json")


def test_cluster_devices_file_is_a_valid_config():
    from pathlib import Path

    from prorex.android.device import AndroidDeviceConfig

    path = Path(__file__).resolve().parent.parent / "cluster" / "devices.json"
    (entry,) = load_devices_config(path)
    cfg = AndroidDeviceConfig.model_validate(entry)
    assert cfg.serial is None and cfg.emulator is not None and cfg.emulator.avd == "prorex"
