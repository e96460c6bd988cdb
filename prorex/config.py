"""Run-time settings shared by the library, the Ray layer and the CLI."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Method = Literal["prore", "static-last", "static-full"]
METHODS: tuple[str, ...] = ("prore", "static-last", "static-full")
ROLES: tuple[str, ...] = ("reasoner", "evaluator", "claims", "judge")


class ModelConfig(BaseModel):
    """Which model plays which role; any litellm model name works.

    ``claims`` and ``judge`` default to the reasoner, as in the paper.
    """

    model_config = ConfigDict(extra="forbid")

    reasoner: str = "offline/reasoner"
    evaluator: str = "offline/evaluator"
    claims: str | None = None
    judge: str | None = None
    api_base: str | None = None
    timeout_s: float = 120.0
    max_retries: int = 3
    max_concurrency: int = 16
    # Requests per minute across all roles of one client (the reasoner actor's is
    # cluster-wide); None: no limit. Offline models are never limited.
    max_rpm: float | None = Field(default=None, gt=0)
    vision: bool | None = None  # None: ask litellm whether the model takes images
    # Sampling temperature for every role (None: send none, the provider's default applies);
    # ``role_temperatures`` overrides it per role ("reasoner", "evaluator", "claims", "judge").
    temperature: float | None = Field(default=0.0, ge=0.0)
    role_temperatures: dict[str, float | None] = Field(default_factory=dict)

    @field_validator("role_temperatures")
    @classmethod
    def _known_roles(cls, value: dict[str, float | None]) -> dict[str, float | None]:
        unknown = sorted(set(value) - set(ROLES))
        if unknown:
            raise ValueError(f"unknown role(s) {', '.join(unknown)}; roles are {', '.join(ROLES)}")
        return value

    def temperature_for(self, role: str) -> float | None:
        return self.role_temperatures.get(role, self.temperature)

    def model_for(self, role: str) -> str:
        if role == "claims":
            return self.claims or self.reasoner
        if role == "judge":
            return self.judge or self.reasoner
        return getattr(self, role)


class ProbeConfig(BaseModel):
    """Test-time scaling and probing knobs (paper §3.5)."""

    model_config = ConfigDict(extra="forbid")

    parallel: int = Field(default=1, ge=1)  # K probes per round
    rounds: int = Field(default=1, ge=1)  # R iterative rounds
    step_budget: int | None = None  # None: the policy trajectory's length
    min_step_budget: int = 4
    max_step_budget: int = 30
    guard: bool = True  # block destructive actions while probing
    share_snapshots: bool = True  # replay once, restore on the other workers
    early_stop: bool = True
    min_replay_score: float = 0.0  # a matched step below this counts as divergence
    # Parallel probes explore (§3.5): probe 0 of each round uses the evaluator's own temperature,
    # probes 1..K-1 this one, each with a seed derived from (seed, task id, round, probe).
    probe_temperature: float = Field(default=0.7, ge=0.0)
    seed: int = 0
