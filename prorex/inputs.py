"""Reading reward requests from JSONL: bad lines and repeated task ids are
reported as ``file:line: field: message`` and skipped, never fatal."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from prorex.schemas import RecordError, RewardRequest, iter_jsonl


class LoadedInput(BaseModel):
    requests: list[RewardRequest]
    errors: list[str] = Field(default_factory=list)
    duplicates: list[str] = Field(default_factory=list)

    @property
    def invalid_lines(self) -> int:
        return len(self.errors)


def load_requests(path: str | Path) -> LoadedInput:
    """Read requests; bad lines and repeated task ids are reported, not fatal."""
    requests: list[RewardRequest] = []
    errors: list[str] = []
    duplicates: list[str] = []
    first_line: dict[str, int] = {}
    for lineno, item in iter_jsonl(path, RewardRequest):
        if isinstance(item, RecordError):
            errors.append(str(item))
            continue
        tid = item.task.id
        if tid in first_line:
            duplicates.append(f"{path}:{lineno}: task.id: {tid!r} repeats line {first_line[tid]}; skipped")
            continue
        first_line[tid] = lineno
        requests.append(item)
    return LoadedInput(requests=requests, errors=errors, duplicates=duplicates)
