"""Build the device a worker owns, by kind and worker index.

The Ray layer calls this inside each emulator worker, so the worker process
imports only the backend it uses (no adb for a sim fleet).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from prorex.device import Device, DeviceError

DEVICE_KINDS = ("sim", "android")


def load_devices_config(path: str | Path) -> list[dict[str, Any]]:
    """Read an Android devices file: a JSON list of device entries, or ``{"devices": [...]}``."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read devices config: {exc}") from exc
    if isinstance(data, dict):
        data = data.get("devices")
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise ValueError(f"{path}: devices: expected a list of objects")
    return data


def make_device(kind: str, worker_index: int, options: dict[str, Any] | None = None) -> Device:
    """The device for worker ``worker_index``.

    ``sim``: a ``SimDevice`` with the worker's own layout (so replays must
    retarget); ``options`` go to its constructor (``faults`` may be a dict).
    ``android``: entry ``worker_index`` of ``options["devices"]`` (a list of
    device entries, see ``load_devices_config``) through ``AndroidDevice.from_config``;
    a list of one entry with no serial and an ``emulator`` spec serves every
    worker (each launches its own emulator on the node it runs on).
    """
    options = dict(options or {})
    if worker_index < 0:
        raise ValueError("worker_index must be >= 0")
    if kind == "sim":
        from prorex.sim import FaultConfig, LayoutConfig, SimDevice

        faults = options.pop("faults", None)
        if isinstance(faults, dict):
            faults = FaultConfig.model_validate(faults)
        layout = options.pop("layout", None)
        if isinstance(layout, dict):
            layout = LayoutConfig.model_validate(layout)
        return SimDevice(
            device_id=options.pop("device_id", f"sim-{worker_index}"),
            layout=layout or LayoutConfig.for_worker(worker_index),
            faults=faults,
            **options,
        )
    if kind == "android":
        from prorex.android.device import AndroidDevice

        devices = options.get("devices")
        if devices is None and options.get("devices_config"):
            devices = load_devices_config(options["devices_config"])
        if not devices:
            raise DeviceError("android workers need a devices config (--devices-config)")
        if worker_index < len(devices):
            return AndroidDevice.from_config(devices[worker_index])
        if len(devices) == 1 and devices[0].get("serial") is None and devices[0].get("emulator"):
            # One entry that launches its own emulator serves every worker, wherever it lands.
            return AndroidDevice.from_config(devices[0])
        raise DeviceError(f"worker {worker_index} has no android device: the devices config lists {len(devices)}")
    raise ValueError(f"unknown device kind {kind!r}; expected one of {DEVICE_KINDS}")
