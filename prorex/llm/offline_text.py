"""Reading helpers the offline models share: prompt sections, compact screens, goals.

Everything here works on prompt text only (the templates in ``prompts/`` and
the compact screen format of ``prorex.ui.render_screen``), with generic
mobile-UI conventions: a toolbar title names the page, "Navigate up" goes
back, list rows are clickable, switches show ``checked=on|off``. Nothing here
knows any app, task or family.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz

_SECTION = re.compile(r"^=== (.+?) ===\s*$", re.MULTILINE)


def sections(prompt: str) -> dict[str, str]:
    """``=== NAME ===`` headed blocks of a prompt, by upper-case name."""
    out: dict[str, str] = {}
    marks = list(_SECTION.finditer(prompt))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(prompt)
        out[m.group(1).strip().upper()] = prompt[m.end() : end].strip()
    return out


def section(secs: dict[str, str], prefix: str) -> str:
    for name, body in secs.items():
        if name.startswith(prefix):
            return body
    return ""


# ------------------------------------------------------------------ screens

_LINE = re.compile(r'^\[(\d+)\] (\S+)(?: "((?:[^"\\]|\\.)*)")?(.*)$')
_ATTR = re.compile(r'(desc|hint)="([^"]*)"')
_FLAGS = (
    "click",
    "long-click",
    "scroll",
    "editable",
    "selected",
    "focused",
    "disabled",
    "password",
)


@dataclass
class Elem:
    index: int
    cls: str
    text: str = ""
    desc: str = ""
    hint: str = ""
    flags: frozenset[str] = frozenset()
    checked: bool | None = None
    where: str = ""

    @property
    def label(self) -> str:
        return self.text or self.desc or self.hint

    @property
    def clickable(self) -> bool:
        return "click" in self.flags

    @property
    def row(self) -> str:
        return self.where.split("-")[0]

    @property
    def is_button(self) -> bool:
        return self.cls.endswith("Button") or self.cls.endswith("ActionButton")


@dataclass
class Screen:
    package: str = ""
    elems: list[Elem] = field(default_factory=list)

    @property
    def scrollable(self) -> bool:
        return any("scroll" in e.flags for e in self.elems)

    @property
    def title(self) -> str:
        """The page name: the first plain text at the top, before any list."""
        for e in self.elems:
            if "scroll" in e.flags:
                break
            if e.row == "top" and e.text and not e.clickable and e.cls.endswith("TextView"):
                return e.text
        return ""

    @property
    def has_up(self) -> bool:
        return any(re.search(r"navigate up|back", e.desc, re.I) for e in self.elems)

    def list_items(self) -> list[Elem]:
        """Texts inside the first scrollable container (rows), else all plain texts."""
        start = next((i for i, e in enumerate(self.elems) if "scroll" in e.flags), None)
        pool = self.elems[start + 1 :] if start is not None else self.elems
        return [e for e in pool if e.text and not e.is_button and "editable" not in e.flags]

    def rows(self) -> list[tuple[str, ...]]:
        """List rows as tuples of their texts: a clickable container line without text opens a row."""
        start = next((i for i, e in enumerate(self.elems) if "scroll" in e.flags), -1)
        out: list[list[str]] = []
        for e in self.elems[start + 1 :]:
            if e.clickable and not e.label and not e.is_button:
                out.append([])
            elif out and e.text and not e.is_button and "editable" not in e.flags:
                out[-1].append(e.text)
            elif out and (e.is_button or e.desc and e.clickable):
                continue
        return [tuple(r) for r in out if r]

    @property
    def is_home(self) -> bool:
        return bool(re.search(r"launcher|\.home$", self.package))

    def texts(self) -> list[str]:
        return [e.label for e in self.elems if e.label]

    def dialog(self) -> bool:
        # A dialog shows a question-like title and a row of short buttons at once.
        buttons = [e for e in self.elems if e.is_button and e.text]
        return len(buttons) >= 2 and any(
            e.text.rstrip().endswith("?") for e in self.elems if e.text
        )

    def fingerprint(self) -> tuple[str, ...]:
        return tuple(f"{e.cls}:{e.label}:{e.checked}" for e in self.elems)


@lru_cache(maxsize=4096)
def parse_screen(text: str) -> Screen:
    scr = Screen()
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("App:"):
            scr.package = line.split()[1] if len(line.split()) > 1 else ""
            continue
        m = _LINE.match(line)
        if not m:
            continue
        rest = m.group(4) or ""
        attrs = dict(_ATTR.findall(rest))
        plain = _ATTR.sub("", rest)
        tokens = plain.split()
        flags = frozenset(t for t in tokens if t in _FLAGS)
        checked = None
        if "checked=on" in tokens:
            checked = True
        elif "checked=off" in tokens:
            checked = False
        where = next((t[1:] for t in tokens if t.startswith("@")), "")
        scr.elems.append(
            Elem(
                index=int(m.group(1)),
                cls=m.group(2),
                text=(m.group(3) or "").strip(),
                desc=attrs.get("desc", "").strip(),
                hint=attrs.get("hint", "").strip(),
                flags=flags,
                checked=checked,
                where=where,
            )
        )
    return scr


_STEP_SCREEN = re.compile(r"^--- Step (\d+) screen( \(final\))? ---\s*$", re.MULTILINE)


def step_screens(block: str) -> list[tuple[int, bool, Screen]]:
    """``(step, is_final, screen)`` for each screen block of a trajectory prompt."""
    marks = list(_STEP_SCREEN.finditer(block))
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(block)
        out.append((int(m.group(1)), bool(m.group(2)), parse_screen(block[m.end() : end].strip())))
    return out


_ACTION_LINE = re.compile(r"^Step (\d+): (\S+)(.*?)(?:\s+\(thought: .*\))?$", re.MULTILINE)


@dataclass
class ActionLine:
    step: int
    kind: str
    rest: str

    @property
    def label(self) -> str:
        m = re.match(r"\s*'((?:[^'\\]|\\.)*)'|\s*\"((?:[^\"\\]|\\.)*)\"", self.rest)
        return (m.group(1) or m.group(2) or "") if m else ""

    @property
    def typed(self) -> str:
        m = re.search(r"text=(['\"])(.*?)\1", self.rest)
        return m.group(2) if m else ""


def action_lines(block: str) -> list[ActionLine]:
    return [
        ActionLine(int(m.group(1)), m.group(2), m.group(3)) for m in _ACTION_LINE.finditer(block)
    ]


# -------------------------------------------------------------------- goals

_QUOTED = re.compile(r"(?<![\w])[\"“”']([^\"“”']{2,80})[\"“”'](?![\w])")
_FILE = re.compile(
    r"(?<![\w.])[\w\-]+(?:\.[\w\-]+)*\.(?:md|txt|jpg|jpeg|png|webp|mp3|mp4|ogg|flac|aac|opus|pdf|csv|docx?|html|json|zip|wav|m4a|gif|xlsx?|pptx?|apk)\b",
    re.I,
)
_CAPS = re.compile(r"\b[A-Z][\w'&\-]*(?:\s+(?:[A-Z][\w'&\-]*|of|de|da|van|von))*\b")
_TIME = re.compile(r"\b\d{1,2}:\d{2}(?:\s?[AaPp][Mm])?\b|\b\d{1,2}\s?[AaPp][Mm]\b")
_DATE = re.compile(
    r"\b(?:\d{4}-\d{2}-\d{2}|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}(?:, \d{4})?|\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*(?: \d{4})?)\b"
)
_PHONE = re.compile(r"(?<![\w])\+?\d[\d\-() ]{6,}\d(?![\w])")
_NUMBER = re.compile(r"(?<![\w.:])[-+]?\$?\d[\d,]*(?:\.\d+)?%?(?![\w:])")
_DURATION = re.compile(r"\b(\d+)\s+(hours?|minutes?|seconds?)\b", re.I)
_NAMED = re.compile(
    r"\b(?:named|titled|called|labell?ed|entitled)\s+[\"“']?(.+?)[\"”']?(?=\s+(?:of|on|at|in|with|to|for|from|and)\b|[,;?]|\.(?:\s|$)|$)"
)
_CONTENT = re.compile(r"\b(?:text|content|message|body)\b[^:]{0,40}:\s*(.+?)\s*$", re.I)
_LIST_AFTER_COLON = re.compile(r"\bthe following \w+[^:]*:\s*(.+?)\s*\.?$", re.I)
_TURN = re.compile(
    r"\b(?:turn|switch)\s+(?:the\s+)?(.+?)\s+(on|off)\b|\b(?:turn|switch)\s+(on|off)\s+(?:the\s+)?(.+?)(?=\s+in\b|[.,]|$)",
    re.I,
)
_SET_TO = re.compile(
    r"\b(?:set|change)\s+(?:the\s+)?(.+?)\s+(?:of\s+(.+?)\s+)?to\s+(?:the\s+)?(.+?)(?=\s+in\b|[,]|\.(?:\s|$)|$)",
    re.I,
)
_THE_NOUN = re.compile(
    r"\bthe (?:event|contact|recipe|note|file|item|expense|alarm|photo|song|folder|task|entry|message|document)\s+([A-Z][^,?]*?)(?=\s+(?:on|from|in|to|at|with|for)\s|[,?]|\.(?:\s|$)|$)"
)
_OBJECT = re.compile(
    r"\b(?:create|add|take|start|stop|set|delete|record|make|open)\s+(?:(?:a|an|the|\d+|all\s+but\s+one\s+of\s+any)\s+)?(?:new\s+)?([a-z]+)",
    re.I,
)
_ASKED = re.compile(
    r"\b(?:quantity|amount|number|price|cost|value|count|size|duration)\s+of\s+(?:the\s+)?([a-z][\w\-]*(?:\s[a-z][\w\-]*)?)"
)
_GENERIC_NOUNS = {
    "contact",
    "note",
    "recipe",
    "event",
    "file",
    "item",
    "expense",
    "alarm",
    "photo",
    "the",
}
_APP = re.compile(r"\b(?:the\s+)?([A-Z][\w\-]*(?:\s[A-Z][\w\-]*)?)\s+app\b")

STOP = {
    "a",
    "an",
    "the",
    "in",
    "on",
    "at",
    "to",
    "from",
    "of",
    "for",
    "and",
    "or",
    "with",
    "into",
    "by",
    "is",
    "are",
    "was",
    "be",
    "it",
    "its",
    "that",
    "this",
    "my",
    "me",
    "i",
    "you",
    "your",
    "app",
    "please",
    "then",
    "new",
    "named",
    "called",
    "as",
    "all",
    "any",
    "not",
    "no",
    "so",
    "do",
    "does",
    "what",
    "which",
    "how",
    "many",
    "much",
    "when",
    "who",
    "where",
    "whether",
    "check",
    "find",
    "open",
    "show",
    "read",
    "verify",
    "confirm",
    "state",
    "set",
    "turn",
    "make",
    "sure",
    "there",
    "folder",
    "file",
    "note",
    "list",
    "page",
    "screen",
    "settings",
    "content",
    "contents",
    "answer",
    "only",
    "just",
    "exactly",
    "format",
    "same",
    "should",
    "would",
    "has",
    "have",
    "had",
    "one",
}
SENTENCE_WORDS = {
    "Create",
    "Delete",
    "Move",
    "Rename",
    "Add",
    "Set",
    "Turn",
    "Enable",
    "Disable",
    "Open",
    "Find",
    "Check",
    "What",
    "Which",
    "How",
    "When",
    "Who",
    "Is",
    "Are",
    "Does",
    "Do",
    "Show",
    "Read",
    "Edit",
    "Update",
    "Change",
    "Take",
    "Record",
    "Mark",
    "Remove",
    "Make",
    "Verify",
    "Confirm",
    "In",
    "The",
    "A",
    "An",
    "Go",
    "Switch",
    "Copy",
    "Write",
    "Append",
    "Save",
    "Log",
    "Answer",
    "Respond",
    "Tell",
    "Name",
    "Put",
    "Schedule",
    "Please",
    "Then",
    "And",
    "Also",
    "Look",
    "Note",
    "Whether",
    "If",
    "From",
    "To",
    "On",
    "Off",
    "For",
    "With",
    "Using",
    "Use",
    "Keep",
    "Leave",
    "Give",
    "Express",
    "Their",
    "They",
    "It",
    "Its",
    "His",
    "Her",
    "Start",
    "Stop",
    "Scroll",
    "Search",
    "I",
    "My",
}
VERBS: tuple[tuple[str, str], ...] = (
    ("dedup", r"\bduplicat"),
    ("move", r"\bmove[sd]?\b|\btransfer"),
    ("rename", r"\brenam"),
    ("delete", r"\b(?:delete|remove|erase|trash)"),
    (
        "set-on",
        r"\b(?:turn|switch)(?:ed)? on\b|\b(?:turn|switch)\s+(?:the\s+)?[\w\- ]+?\s+on\b|\benabl|\bactivat|\bmake sure it is on\b",
    ),
    (
        "set-off",
        r"\b(?:turn|switch)(?:ed)? off\b|\b(?:turn|switch)\s+(?:the\s+)?[\w\- ]+?\s+off\b|\bdisabl|\bdeactivat",
    ),
    ("edit", r"\b(?:edit|update|append|modify|replace)\b|\bchange\b.*\bto\b"),
    ("create", r"\b(?:create|add|new|make|take|record|write|log|schedule|copy|save)"),
    ("set", r"\bset\b|\bmark\b"),
)
QUESTION = re.compile(
    r"\?|^\s*(?:what|which|how|when|who|is|are|does|do|did|was|were|tell)\b", re.I
)


def find_dates(text: str) -> list[str]:
    """Dates written out in a text ("October 19, 2023", "2023-10-19")."""
    return _DATE.findall(text)


def norm(s: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w.:+\-@/%$ ]", " ", s.lower())).strip()


def similar(a: str, b: str) -> float:
    """0..100: how alike two labels are (case and punctuation ignored)."""
    na, nb = norm(a), norm(b)
    if not na or not nb:
        return 0.0
    if na == nb:
        return 100.0
    return float(fuzz.ratio(na, nb))


def contains(hay: str, needle: str) -> bool:
    h, n = norm(hay), norm(needle)
    return bool(n) and (
        n == h or re.search(r"(?<![\w])" + re.escape(n) + r"(?![\w])", h) is not None
    )


@dataclass
class GoalInfo:
    text: str
    verb: str
    question: bool
    entities: list[str]
    items: list[str]  # the things whose state matters (files, quoted names)
    source: str = ""  # "from X"
    target: str = ""  # "to Y" / "in Y"
    app: str = ""
    values: list[str] = field(default_factory=list)  # numbers, times, dates, quoted contents
    keys: list[str] = field(
        default_factory=list
    )  # what a question asks about ("quantity of <key>")
    generic: bool = False  # the item is only a common noun ("timer"), not a name


def _app_name(text: str) -> str:
    # The app of the outcome: the last one the goal names ("... from X in the Gallery app to the Expenses app").
    apps = _APP.findall(text)
    if apps:
        return apps[-1].strip()
    m = re.search(r"\b(?:in|using|with|on)\s+(?:the\s+)?([A-Z][\w\-]*)\s*[.?!]?\s*$", text)
    return m.group(1) if m else ""


def _loc(text: str, word: str) -> str:
    m = re.search(
        rf"\b{word}\s+(?:the\s+)?[\"“']?([\w\-. ]+?)[\"”']?(?:\s+(?:folder|list|page|category|tab|storage area))?(?=\s+(?:within|in|to|from|and|of|on|at|using)\b|[,;?]|\.(?:\s|$)|$)",
        text,
    )
    if not m:
        return ""
    place = m.group(1).strip()
    if re.search(r"\bapp$", place) or place.lower() in STOP:
        return ""
    return place


def _clean(e: str) -> str:
    return e.strip().strip(".,;:!?\"'“”").strip()


@lru_cache(maxsize=2048)
def goal_info(text: str) -> GoalInfo:
    t = " ".join(text.split())
    low = t.lower()
    question = bool(QUESTION.search(t))
    verb = "answer" if question else "other"
    if not question:
        for name, pat in VERBS:
            if re.search(pat, low):
                verb = name
                break
    app = _app_name(t)
    named = [_clean(m.group(1)) for m in _NAMED.finditer(t)]
    files = [f for f in _FILE.findall(t)]
    quoted = [_clean(q) for q in _QUOTED.findall(t)]
    values: list[str] = []
    content = _CONTENT.search(t)
    if content:
        values.append(_clean(content.group(1)))
    listed: list[str] = []
    lm = _LIST_AFTER_COLON.search(t)
    if lm and not content:
        listed = [_clean(x) for x in re.split(r",\s*|\s+and\s+", lm.group(1)) if _clean(x)]
    set_item, set_value = "", ""
    tm = _TURN.search(t)
    if tm:
        set_item = _clean(tm.group(1) or tm.group(4) or "")
    sm = _SET_TO.search(t)
    if sm and verb in ("set", "edit"):
        set_item = _clean(sm.group(2) or sm.group(1))
        set_value = _clean(sm.group(3))
        if set_value:
            values.append(set_value)
    values += _TIME.findall(t) + _DATE.findall(t) + [p.strip() for p in _PHONE.findall(t)]
    dur = {u[0]: int(n) for n, u in _DURATION.findall(t)}
    if len(dur) >= 2:
        # "0 hours, 5 minutes and 30 seconds" is shown as a clock-style duration.
        values.append(f"{dur.get('h', 0):02d}:{dur.get('m', 0):02d}:{dur.get('s', 0):02d}")
    else:
        values += [n for n in _NUMBER.findall(t) if not any(n.strip("+$") in v for v in values)]
    caps = []
    for m in _CAPS.finditer(t):
        words = m.group(0).split()
        while words and (words[0] in SENTENCE_WORDS or words[0].lower() in STOP):
            words = words[1:]
        while words and words[-1].lower() in STOP:
            words = words[:-1]
        phrase = " ".join(words)
        if phrase and phrase != app and not any(contains(v, phrase) for v in values):
            caps.append(phrase)
    items: list[str] = []
    sources = {norm(m.group(1)) for m in re.finditer(r"\bfrom\s+([\w\-.]+)", t)}
    files = [
        f for f in files if norm(f) not in sources
    ]  # "from expenses.jpg": where data comes from, not the outcome
    the_noun = [_clean(m.group(1)) for m in _THE_NOUN.finditer(t)]
    for e in [*named, *files, *quoted, *the_noun, *listed, *([set_item] if set_item else [])]:
        if e and e not in items and e not in values and norm(e) != norm(app):
            items.append(e)
    entities: list[str] = list(items)
    for e in caps:
        if (
            e
            and norm(e) != norm(app)
            and not any(contains(x, e) for x in entities)
            and e not in entities
        ):
            entities.append(e)
    generic = False
    keys = []
    for m in _ASKED.finditer(t):
        words = [w for w in m.group(1).split() if w not in STOP]
        if words and words[0] not in _GENERIC_NOUNS:
            keys.append(" ".join(words))
    if not items:
        items = [e for e in entities if not _loc_word(t, e)][:2]
    if not items:
        # No name at all ("Create a timer ...", "Take 1 photo"): the object noun is what to look for.
        om = _OBJECT.search(t)
        if om and om.group(1).lower() not in STOP:
            noun = om.group(1).lower()
            items = [noun[:-1] if noun.endswith("s") and len(noun) > 4 else noun]
            entities.insert(0, items[0])
            generic = True
    source = _loc(t, "from")
    target = ""
    if verb in ("move", "create", "edit", "set") and not set_value:
        target = _loc(t, "to")
    place = ""
    m = re.search(r"\bin\s+(?:the\s+)?([\w\-]+)\s+folder\b", t) or re.search(
        r"\b(?:note|file|item)\s+\S+\s+in\s+([A-Z][\w\-]*)\b", t
    )
    if m:
        place = m.group(1)
    if not source and verb in ("delete", "answer", "rename", "edit"):
        source = place
    if not target and verb == "rename":
        target = place
    for loc in (source, target):
        if loc and not any(norm(loc) == norm(e) for e in entities):
            entities.append(loc)
    return GoalInfo(
        t,
        verb,
        question,
        entities + [k for k in keys if k not in entities],
        items,
        source,
        target,
        app,
        values,
        keys,
        generic,
    )


def _loc_word(text: str, entity: str) -> bool:
    """Whether the entity is only named as a place (``from X``, ``to X``, ``in X folder``)."""
    return bool(re.search(rf"\b(?:from|to|in)\s+(?:the\s+)?{re.escape(entity)}\b", text))
