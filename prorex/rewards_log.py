"""``rewards.jsonl``: the append-only log every reward producer writes to
(``prorex run``, sweeps, the reward service). One fsynced line per finished
request, so a killed process loses only work in flight; ``--resume`` drops a
torn last line and skips finished task ids."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

from prorex.schemas import RecordError, RewardRequest, RewardResult, dump_jsonl_line, iter_jsonl


class RewardsLog:
    """``rewards.jsonl``: append-only, one fsynced line per finished request."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._fh: TextIO | None = None
        self.notes: list[str] = []

    def open(self, *, resume: bool) -> set[str]:
        """Open for appending; with ``resume`` return the task ids already done."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        finished: set[str] = set()
        if self.has_results():
            if not resume:
                raise FileExistsError(
                    f"{self.path} already has results; pass --resume to continue it or choose another --out"
                )
            self._drop_torn_tail()
            for lineno, item in iter_jsonl(self.path, RewardResult):
                if isinstance(item, RecordError):
                    self.notes.append(f"{item} (line ignored; its task will be redone)")
                elif item.task_id in finished:
                    self.notes.append(f"{self.path}:{lineno}: task_id: {item.task_id!r} repeated")
                else:
                    finished.add(item.task_id)
        self._fh = self.path.open("a", encoding="utf-8")
        return finished

    def has_results(self) -> bool:
        return self.path.exists() and self.path.stat().st_size > 0

    def _drop_torn_tail(self) -> None:
        """A driver killed mid-write can leave a last line without its newline: cut it."""
        data = self.path.read_bytes()
        if data.endswith(b"\n"):
            return
        keep = data.rfind(b"\n") + 1
        with self.path.open("r+b") as fh:
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())
        self.notes.append(f"{self.path}: dropped an incomplete last line ({len(data) - keep} bytes)")

    def append(self, result: RewardResult) -> None:
        assert self._fh is not None, "open() first"
        self._fh.write(dump_jsonl_line(result) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def read_all(self) -> list[RewardResult]:
        """Every result in the file, first line per task id."""
        seen: set[str] = set()
        out: list[RewardResult] = []
        for _, item in iter_jsonl(self.path, RewardResult):
            if isinstance(item, RewardResult) and item.task_id not in seen:
                seen.add(item.task_id)
                out.append(item)
        return out


def error_result(request: RewardRequest, method: str, message: str, attempts: int, wall_s: float) -> RewardResult:
    return RewardResult(
        task_id=request.task.id,
        method=method,
        reward=None,
        status="error",
        label=request.label,
        attempts=attempts,
        error=message,
        family=request.task.family,
        timings={"wall_s": round(wall_s, 3)},
    )
