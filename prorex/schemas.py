"""Records that cross a process or a file: the single source of truth.

Everything read from or written to JSONL, or sent between Ray actors, is one
of these pydantic models. Readers validate at the edge and report the file,
line and field of a bad record (see ``read_jsonl``), then go on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

Bounds = tuple[int, int, int, int]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


# --------------------------------------------------------------------------- UI


class UIElement(_Model):
    """One node of a uiautomator hierarchy.

    ``index`` is the node's position in document order on its own screen,
    ``parent`` the document-order index of its parent (None for a window
    root), ``path`` the chain of sibling positions from the window root
    (``(window, child, grandchild, ...)``). ``context`` holds nearby text
    (ancestors' row, siblings) captured when the screen was parsed, and
    ``screen`` the screen size, so an element recorded on one device can be
    matched on another without the rest of its screen.
    """

    text: str = ""
    resource_id: str = ""
    content_desc: str = ""
    class_name: str = ""
    package: str = ""
    hint: str = ""
    bounds: Bounds = (0, 0, 0, 0)
    checkable: bool = False
    checked: bool = False
    clickable: bool = False
    long_clickable: bool = False
    scrollable: bool = False
    focusable: bool = False
    focused: bool = False
    selected: bool = False
    enabled: bool = True
    password: bool = False
    visible: bool = True
    index: int = 0
    depth: int = 0
    parent: int | None = None
    path: tuple[int, ...] = ()
    context: tuple[str, ...] = ()
    screen: tuple[int, int] | None = None

    @property
    def center(self) -> tuple[int, int]:
        x1, y1, x2, y2 = self.bounds
        return (x1 + x2) // 2, (y1 + y2) // 2

    @property
    def area(self) -> int:
        x1, y1, x2, y2 = self.bounds
        return max(0, x2 - x1) * max(0, y2 - y1)

    @property
    def label(self) -> str:
        """The human-visible name of the element, best first."""
        return self.text or self.content_desc or self.hint


# ------------------------------------------------------------------ observation


class Observation(_Model):
    """What a device shows at one moment.

    ``screenshot`` is a file path (relative paths are relative to the JSONL
    file's directory) or None; ``screenshot_png`` carries the bytes in memory
    between processes and is never written to JSONL.
    """

    xml: str
    screenshot: str | None = None
    screenshot_png: bytes | None = Field(default=None, exclude=True, repr=False)
    package: str = ""
    activity: str = ""
    screen_size: tuple[int, int] = (1080, 2400)
    time: float | None = None


# ---------------------------------------------------------------------- actions

ActionType = Literal[
    "click",
    "double_tap",
    "long_press",
    "input_text",
    "clear_text",
    "scroll",
    "swipe",
    "navigate_home",
    "navigate_back",
    "keyboard_enter",
    "open_app",
    "wait",
    "answer",
    "status",
]
Direction = Literal["up", "down", "left", "right"]

#: Actions that touch an element (by index, x/y or recorded target).
POINTED_ACTIONS = frozenset({"click", "double_tap", "long_press"})
#: Actions that do not change the device.
NO_DEVICE_ACTIONS = frozenset({"answer", "status", "wait"})


class Action(_Model):
    """One agent action, AndroidWorld ``JSONAction``-compatible.

    ``scroll`` moves the *content* in ``direction`` (scroll down shows what is
    below, a swipe up); ``swipe`` moves the finger in ``direction``.
    ``index`` refers to the element list of the screen the action was chosen
    on. ``target`` is the element the action hit, recorded when it was
    executed, so a replay on another device can retarget it by matching.
    For ``input_text`` a target (or index / x,y) names the field to type into;
    without one the focused field receives the text.
    """

    action_type: ActionType
    index: int | None = None
    x: int | None = None
    y: int | None = None
    text: str | None = None
    direction: Direction | None = None
    app_name: str | None = None
    goal_status: Literal["complete", "infeasible"] | None = None
    target: UIElement | None = None

    @model_validator(mode="after")
    def _check_fields(self) -> Action:
        t = self.action_type
        has_point = self.index is not None or self.target is not None or (
            self.x is not None and self.y is not None
        )
        if t in POINTED_ACTIONS and not has_point:
            raise ValueError(f"{t} needs index, x and y, or target")
        if (self.x is None) != (self.y is None):
            raise ValueError("x and y go together")
        if t in ("input_text", "answer") and self.text is None:
            raise ValueError(f"{t} needs text")
        if t == "scroll" and self.direction is None:
            raise ValueError("scroll needs direction")
        if t == "swipe" and self.direction is None and not has_point:
            raise ValueError("swipe needs direction")
        if t == "open_app" and not self.app_name:
            raise ValueError("open_app needs app_name")
        if t == "status" and self.goal_status is None:
            raise ValueError("status needs goal_status")
        return self

    def short(self) -> str:
        """One-line description for prompts and logs."""
        parts = [self.action_type]
        if self.target is not None and self.target.label:
            parts.append(repr(self.target.label[:40]))
        elif self.index is not None:
            parts.append(f"#{self.index}")
        elif self.x is not None:
            parts.append(f"({self.x},{self.y})")
        if self.text is not None:
            parts.append(f"text={self.text[:60]!r}")
        if self.direction:
            parts.append(self.direction)
        if self.app_name:
            parts.append(self.app_name)
        if self.goal_status:
            parts.append(self.goal_status)
        return " ".join(parts)


# ------------------------------------------------------------------ trajectories


class Step(_Model):
    """The screen an agent saw, and what it did on it."""

    index: int
    observation: Observation
    action: Action
    thought: str = ""


class Trajectory(_Model):
    steps: list[Step] = Field(default_factory=list)
    final_observation: Observation | None = None
    answer: str | None = None
    agent: str = ""


class TaskSetup(_Model):
    """How to put a device in a task's start state.

    Backends read the parts they understand: the sim reads ``sim`` (its own
    validated spec), an Android device loads ``snapshot`` then runs ``shell``
    and ``push``. A part a backend cannot honour is an error, not a no-op.
    """

    sim: dict[str, Any] | None = None
    snapshot: str | None = None
    shell: list[str] = Field(default_factory=list)
    push: list[tuple[str, str]] = Field(default_factory=list)


class Task(_Model):
    id: str
    goal: str
    app: str = ""
    family: str = ""
    setup: TaskSetup = Field(default_factory=TaskSetup)
    max_steps: int | None = None


class RewardRequest(_Model):
    task: Task
    trajectory: Trajectory
    label: bool | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


# ---------------------------------------------------------------- result types


class Usage(_Model):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> Usage:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd
        return self


class Claim(_Model):
    steps: list[int] = Field(default_factory=list)
    reasoning: str = ""
    claim: str


class ReplayStepReport(_Model):
    index: int
    action_type: ActionType
    matched: bool
    score: float | None = None
    note: str = ""


class ReplayReport(_Model):
    """How a recorded trajectory replayed on another device.

    A replay that diverged (a target not found, the device failing) leaves the
    device in an unknown state: a probe after it yields no vote.
    """

    steps: list[ReplayStepReport] = Field(default_factory=list)
    diverged: bool = False
    divergence_step: int | None = None
    reason: str = ""
    wall_s: float = 0.0


class ProbeTrace(_Model):
    """What one evaluator agent did and saw while probing one state."""

    goal: str
    round: int = 0
    probe: int = 0
    worker: str = ""
    steps: list[Step] = Field(default_factory=list)
    final_observation: Observation | None = None
    replay: ReplayReport | None = None
    restored_from_snapshot: bool = False
    blocked_actions: int = 0
    stopped: str = ""  # why the agent stopped: done / budget / error ...
    error: str | None = None
    wall_s: float = 0.0
    usage: Usage = Field(default_factory=Usage)  # the evaluator model's calls for this probe


VoteOutcome = Literal["success", "failure", "error"]


class Vote(_Model):
    round: int
    probe: int
    outcome: VoteOutcome
    goal: str = ""
    worker: str = ""
    evaluator_claims: list[Claim] = Field(default_factory=list)
    analysis: str = ""
    error: str | None = None
    # Whether the judgment rests on what the evaluator observed (None: the judge did not say).
    evidence: bool | None = None


RewardStatus = Literal["ok", "error"]


class RewardResult(_Model):
    """One line of ``rewards.jsonl``: ``reward`` is 1/0, or None on error."""

    task_id: str
    method: str
    reward: int | None
    status: RewardStatus
    votes: list[Vote] = Field(default_factory=list)
    confidence: float | None = None
    label: bool | None = None
    probe_goals: list[str] = Field(default_factory=list)
    policy_claims: list[Claim] = Field(default_factory=list)
    probes: int = 0
    replays: int = 0
    snapshot_shared: bool = False
    attempts: int = 1
    usage: Usage = Field(default_factory=Usage)
    timings: dict[str, float] = Field(default_factory=dict)
    error: str | None = None
    family: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> RewardResult:
        if self.status == "ok" and self.reward not in (0, 1):
            raise ValueError("status ok needs reward 0 or 1")
        if self.status == "error" and self.reward is not None:
            raise ValueError("an error has no reward")
        return self


class Summary(_Model):
    """``summary.json``: metrics over one run's ``rewards.jsonl``."""

    method: str = ""
    n: int
    accuracy: float | None = None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    tp: int = 0
    tn: int = 0
    fp: int = 0
    fn: int = 0
    labelled: int = 0
    errors: int = 0
    invalid_lines: int = 0
    probes: int = 0
    votes: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    wall_s: float = 0.0


# ------------------------------------------------------------------ JSONL edges

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class RecordError:
    """A bad line in a JSONL file: where, which field, what is wrong."""

    path: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}"
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


def _field_path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def iter_jsonl(path: str | Path, model: type[M]) -> Iterator[tuple[int, M | RecordError]]:
    """Yield ``(line_number, record_or_error)`` for each non-blank line.

    A line that is not JSON, or does not validate, yields a ``RecordError``
    naming the file, line and field path; reading goes on with the next line.
    """
    path = Path(path)
    with path.open("r", encoding="utf-8-sig", errors="replace") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except json.JSONDecodeError as exc:
                yield lineno, RecordError(str(path), lineno, "", f"invalid JSON: {exc.msg} at column {exc.colno}")
                continue
            try:
                yield lineno, model.model_validate(data)
            except ValidationError as exc:
                err = exc.errors()[0]
                more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
                yield lineno, RecordError(str(path), lineno, _field_path(err["loc"]), err["msg"] + more)


def read_jsonl(path: str | Path, model: type[M]) -> tuple[list[M], list[RecordError]]:
    """Read a whole JSONL file: the good records, and an error per bad line."""
    good: list[M] = []
    bad: list[RecordError] = []
    for _, item in iter_jsonl(path, model):
        (bad if isinstance(item, RecordError) else good).append(item)  # type: ignore[arg-type]
    return good, bad


def dump_jsonl_line(record: BaseModel) -> str:
    """One compact, deterministic JSON line (no trailing newline)."""
    return record.model_dump_json(exclude_none=False)
