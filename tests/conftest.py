"""Shared test fixtures.

Real Android dumps are public data from other repositories and stay in
``../shared/fixtures/real_dumps`` beside the clone; tests that need them skip
with a reason where that folder is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

ROOT = Path(__file__).resolve().parent.parent
REAL_DUMPS = ROOT.parent / "shared" / "fixtures" / "real_dumps"


@pytest.fixture(scope="session")
def real_dumps_dir() -> Path:
    if not REAL_DUMPS.is_dir():
        pytest.skip(f"real Android dumps not found at {REAL_DUMPS} (../shared is not beside the clone)")
    return REAL_DUMPS


@pytest.fixture(scope="session")
def real_dump_files(real_dumps_dir: Path) -> list[Path]:
    files = sorted(real_dumps_dir.glob("*.xml"))
    if not files:
        pytest.skip(f"no XML dumps in {real_dumps_dir}")
    return files


@pytest.fixture(scope="session")
def ray_session():
    """One small local Ray cluster for the whole test session, shut down after."""
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        ray.init(
            num_cpus=4,
            resources={"emulator": 8},
            include_dashboard=False,
            log_to_driver=False,
            namespace="prorex-tests",
        )
    yield ray
    ray.shutdown()
