"""The sim phone's whole state: app data plus the UI (navigation stacks).

Everything is a pydantic model so a snapshot is the JSON of ``PhoneState``
and restores on any sim device. Field order is fixed, so the same state
always serialises to the same bytes.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

#: The virtual clock starts here; ``PhoneState.clock_s`` counts seconds after it.
EPOCH = datetime(2023, 10, 15, 9, 0, 0)
STORAGE = "sdk_gphone_x86_64"


class _S(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FileItem(_S):
    name: str
    size: int = 0  # bytes
    modified: str = "2023-10-01 12:00"


class Note(_S):
    title: str
    body: str = ""
    modified: str = "2023-10-01 12:00"


class Contact(_S):
    name: str
    phone: str = ""
    email: str = ""
    favorite: bool = False


class Timer(_S):
    hours: int = 0
    minutes: int = 0
    seconds: int = 0
    running: bool = False


class Alarm(_S):
    hour: int
    minute: int
    enabled: bool = True
    label: str = ""


class ClockApp(_S):
    timers: list[Timer] = Field(default_factory=list)
    alarms: list[Alarm] = Field(default_factory=list)
    stopwatch_running: bool = False
    stopwatch_s: int = 0


class SettingsApp(_S):
    wifi: bool = True
    wifi_network: str = "HomeNet-5G"
    bluetooth: bool = False
    paired: list[str] = Field(default_factory=list)
    airplane: bool = False
    dark_theme: bool = False
    brightness: int = 40  # percent
    adaptive_brightness: bool = False
    media_volume: int = 60
    ring_volume: int = 70


class Event(_S):
    title: str
    date: str  # YYYY-MM-DD
    time: str = "09:00"


class Expense(_S):
    name: str
    amount_cents: int
    category: str = "Others"
    date: str = "2023-10-01"
    note: str = ""


class Photo(_S):
    name: str
    taken: str  # "YYYY-MM-DD HH:MM:SS"
    content: str = ""  # what the picture shows, as text


class Ingredient(_S):
    name: str
    quantity: str


class Recipe(_S):
    title: str
    description: str = ""
    servings: int = 2
    ingredients: list[Ingredient] = Field(default_factory=list)


class Screen(_S):
    """One entry of the navigation stack; ``form`` holds typed, unsaved text."""

    app: str
    page: str
    args: dict[str, Any] = Field(default_factory=dict)
    scroll: int = 0
    form: dict[str, str] = Field(default_factory=dict)
    focus: str | None = None
    keyboard: bool = False
    selected: list[str] = Field(default_factory=list)
    dialog: dict[str, Any] | None = None


class PhoneState(_S):
    clock_s: int = 0
    files: dict[str, list[FileItem]] = Field(default_factory=dict)
    notes: dict[str, list[Note]] = Field(default_factory=dict)  # "" is the root folder
    contacts: list[Contact] = Field(default_factory=list)
    clock: ClockApp = Field(default_factory=ClockApp)
    settings: SettingsApp = Field(default_factory=SettingsApp)
    events: list[Event] = Field(default_factory=list)
    expenses: list[Expense] = Field(default_factory=list)
    photos: list[Photo] = Field(default_factory=list)
    recipes: list[Recipe] = Field(default_factory=list)
    stack: list[Screen] = Field(default_factory=list)
    #: Screen stacks of apps sent to the background (home, another app opened), by app
    #: key, least recently used first: opening the app again resumes its stack, as
    #: Android brings an app's existing task to the front.
    tasks: dict[str, list[Screen]] = Field(default_factory=dict)

    def now(self) -> datetime:
        return EPOCH + timedelta(seconds=self.clock_s)

    def stamp(self) -> str:
        return self.now().strftime("%Y-%m-%d %H:%M")


def money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"
