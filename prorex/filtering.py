"""Drop the states of a trajectory that tell a judge nothing (paper §3.4).

Claims are written from the screens an agent saw, and every screen costs
prompt tokens. Three kinds of noise are removed or flagged:

* home-screen (launcher) states: the app grid says nothing about the task
  (known launcher packages, or any screen that looks like an app grid);
* consecutive identical states: an action that changed nothing (the
  earlier step of the pair is dropped, its action had no visible effect);
* loops: the agent came back to a screen it had already seen. Loops are
  reported as spans; whether one is unrelated to the goal is the
  reasoner's call, so they are only dropped when asked (``drop_loops``).

Token counts are estimated on the compact rendering (``render_screen``)
at 4 characters per token, the usual rule of thumb for English text with
litellm's default tokenizers; it is an estimate for comparing before and
after, not a bill.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from prorex.schemas import Observation, Step, Trajectory, UIElement
from prorex.ui import HierarchyError, parse_hierarchy, render_screen
from prorex.ui.render import visible_elements
from prorex.ui.traits import clean_text, foreground_package, screen_size

#: Launcher packages that do not say "launcher" in their name.
HOME_PACKAGES = frozenset({"com.miui.home", "com.huawei.android.launcher", "com.prorex.launcher"})
_LAUNCHER = re.compile(r"launcher|\.home$|trebuchet", re.IGNORECASE)
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Prompt tokens of ``text``, estimated as ceil(chars / 4)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def is_home_package(package: str) -> bool:
    return package in HOME_PACKAGES or bool(_LAUNCHER.search(package))


def looks_like_app_grid(elements: list[UIElement]) -> bool:
    """A launcher of unknown package: a grid of small, same-size, tappable tiles
    with short, distinct names (apps), at least 3 columns by 3 rows.

    Keyboards (input-method windows) are left out; repeated names ("Button"
    on every photo) and long ones (a photo grid's descriptions) are not apps.
    """
    size = screen_size(elements)
    if size is None:
        return False
    w, h = size
    tiles = [
        e
        for e in visible_elements(elements)
        if (e.clickable or e.long_clickable)
        and e.label
        and e.area < 0.04 * w * h
        and "inputmethod" not in e.package
        and "keyboard" not in e.package
    ]
    if len(tiles) < 9:
        return False
    names = [clean_text(e.label) for e in tiles]
    if sum(len(n) <= 25 for n in names) < 0.8 * len(tiles) or len(set(names)) < 0.8 * len(tiles):
        return False

    def shape(e: UIElement) -> tuple[int, int]:
        # tile size on a coarse grid, so icons of one launcher compare equal
        return round((e.bounds[2] - e.bounds[0]) / w * 20), round((e.bounds[3] - e.bounds[1]) / h * 40)

    common, n_common = Counter(shape(e) for e in tiles).most_common(1)[0]
    if n_common < 0.6 * len(tiles):
        return False
    same = [e for e in tiles if shape(e) == common]
    cols = {round(e.center[0] / w * 10) for e in same}
    rows = {round(e.center[1] / h * 20) for e in same}
    return len(cols) >= 3 and len(rows) >= 3


class Loop(BaseModel):
    """Steps ``start``..``end`` go round a cycle of ``period`` states: the
    state at ``start`` is seen again at ``start + period`` and so on."""

    model_config = ConfigDict(extra="forbid")

    start: int  # Step.index of the first visit
    end: int  # Step.index of the last revisit
    period: int  # states per round (after home screens and repeats are dropped)


class FilterResult(BaseModel):
    """Which steps to show a judge, and what filtering saved."""

    model_config = ConfigDict(extra="forbid")

    kept: list[int] = Field(default_factory=list)  # Step.index values, in order
    dropped: dict[int, str] = Field(default_factory=dict)  # Step.index -> reason
    loops: list[Loop] = Field(default_factory=list)
    errors: dict[int, str] = Field(default_factory=dict)  # screens that did not parse (kept)
    # Step.index -> compact rendering of every screen that parsed, so prompts reuse it.
    renderings: dict[int, str] = Field(default_factory=dict)
    tokens_before: int = 0
    tokens_after: int = 0

    @property
    def saved(self) -> int:
        return self.tokens_before - self.tokens_after


def _unparsed_tokens(obs: Observation) -> int:
    """What a screen that does not parse is counted as: the first 4000 characters of its dump."""
    return estimate_tokens(obs.xml[:4000])


def _render(obs: Observation) -> tuple[str, bool]:
    """(rendering, is a home screen) of one observation."""
    elements = parse_hierarchy(obs.xml)
    package = foreground_package(elements) or obs.package
    home = is_home_package(package) or looks_like_app_grid(elements)
    return render_screen(elements), home


def filter_states(
    trajectory: Trajectory | Sequence[Step], *, drop_loops: bool = False
) -> FilterResult:
    """Decide which steps' states are worth a judge's tokens.

    A step whose screen does not parse is kept (nothing is known about it)
    and its error recorded.
    """
    steps = list(trajectory.steps if isinstance(trajectory, Trajectory) else trajectory)
    result = FilterResult()
    states: list[str | None] = []
    for step in steps:
        try:
            text, home = _render(step.observation)
        except HierarchyError as exc:
            result.errors[step.index] = str(exc)
            states.append(None)
            result.tokens_before += _unparsed_tokens(step.observation)
            continue
        result.tokens_before += estimate_tokens(text)
        result.renderings[step.index] = text
        if home:
            result.dropped[step.index] = "home screen"
            states.append(None)
            continue
        states.append(text)

    # Consecutive identical states: the earlier step's action changed nothing.
    live = [i for i, s in enumerate(states) if s is not None]
    for a, b in zip(live, live[1:], strict=False):
        if b == a + 1 and states[a] == states[b]:
            result.dropped[steps[a].index] = "identical to the next state"
    # Loops: a state seen again later (after other states in between).
    seen: dict[str, int] = {}
    # position of each step among the states still shown, to measure periods
    order = {i: k for k, i in enumerate(j for j in live if steps[j].index not in result.dropped)}
    for i in live:
        if steps[i].index in result.dropped:
            continue
        s = states[i]
        assert s is not None
        if s in seen:
            first = seen[s]
            _add_loop(result.loops, steps[first].index, steps[i].index, order[i] - order[first])
            if drop_loops:
                for j in range(first + 1, i + 1):
                    result.dropped.setdefault(
                        steps[j].index, f"loop back to step {steps[first].index}"
                    )
                # The detour is gone: its states no longer count as seen.
                seen = {k: v for k, v in seen.items() if v <= first}
                continue
        seen[s] = i

    for i, step in enumerate(steps):
        if step.index in result.dropped:
            continue
        result.kept.append(step.index)
        s = states[i]
        result.tokens_after += estimate_tokens(s) if s is not None else _unparsed_tokens(step.observation)
    return result


def _add_loop(loops: list[Loop], start: int, end: int, period: int) -> None:
    """Record a revisit, merging it into the running cycle when it overlaps it.

    Going round A-B-C twice revisits A, then B, then C: one loop, not three.
    A cycle with a repeat inside it (A-B-B-C-A-B-B-C) revisits with two
    periods; the overlapping spans are one loop whose period is the longer.
    """
    last = loops[-1] if loops else None
    if last is not None and start <= last.end:
        last.end = max(last.end, end)
        last.period = max(last.period, period)
        return
    loops.append(Loop(start=start, end=end, period=period))
