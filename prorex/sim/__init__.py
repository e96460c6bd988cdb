"""The embedded virtual phone: apps with real state, tasks with ground truth,
scripted policies and the labelled reward dataset (``prorex dataset``).

Public pieces:
- ``SimDevice`` implements ``prorex.device.Device`` (backend "sim");
- ``LayoutConfig`` / ``FaultConfig`` are the perturbation and fault knobs;
- ``prorex.sim.tasks.FAMILIES`` holds the task families with their checkers;
- ``prorex.sim.policies`` the scripted agents, ``prorex.sim.dataset`` the builder.

Only the dataset builder and the tests read phone state (for labels and
metrics); everything else sees screens, as on a real device.
"""

from prorex.sim.device import SimDevice, SimSpec
from prorex.sim.layout import FaultConfig, LayoutConfig

__all__ = ["FaultConfig", "LayoutConfig", "SimDevice", "SimSpec"]
