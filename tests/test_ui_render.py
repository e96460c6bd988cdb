"""render_screen: the exact prompt format, what it keeps and drops, and its size on real dumps."""

from __future__ import annotations

import re

from prorex.schemas import UIElement
from prorex.ui import parse_hierarchy, render_screen

LINE = re.compile(
    r'^\[(\d+)\] [\w$]+( "[^"]*")?( desc="[^"]*")?( hint="[^"]*")?'
    r"( click)?( long-click)?( scroll)?( editable)?( checked=(on|off))?( selected)?( focused)?( disabled)?( password)?"
    r" @(top|middle|bottom)-(left|center|right)$"
)


def e(i: int, **kw) -> UIElement:
    kw.setdefault("package", "com.example.notes")
    kw.setdefault("screen", (1080, 2400))
    return UIElement(index=i, parent=0 if i else None, path=(0,) if not i else (0, i), **kw)


def test_format_matches_the_contract():
    els = [
        e(0, class_name="android.widget.FrameLayout", bounds=(0, 0, 1080, 2400)),
        e(
            12,
            class_name="android.widget.Button",
            text="Save",
            clickable=True,
            bounds=(900, 100, 1060, 200),
        ),
        e(
            15,
            class_name="android.widget.Switch",
            text="Wi-Fi",
            clickable=True,
            checkable=True,
            checked=True,
            bounds=(0, 1100, 1080, 1200),
        ),
        e(
            17,
            class_name="android.widget.EditText",
            text="Title",
            hint="Note title",
            focused=True,
            focusable=True,
            bounds=(300, 300, 700, 400),
        ),
        e(
            20,
            class_name="androidx.recyclerview.widget.RecyclerView",
            scrollable=True,
            bounds=(0, 500, 1080, 2200),
        ),
        e(
            21,
            class_name="android.widget.TextView",
            text="Groceries.md",
            bounds=(0, 1000, 300, 1100),
        ),
        e(
            22,
            class_name="android.widget.ImageButton",
            content_desc="More options",
            clickable=True,
            bounds=(980, 100, 1080, 200),
        ),
        e(
            23, class_name="android.widget.FrameLayout", bounds=(0, 0, 10, 10)
        ),  # plain container: dropped
        e(
            24, class_name="android.widget.TextView", text="zero", bounds=(5, 5, 5, 50)
        ),  # zero area: dropped
        e(
            25, class_name="android.widget.TextView", text="below", bounds=(0, 2500, 100, 2600)
        ),  # off screen
    ]
    assert render_screen(els) == "\n".join(
        [
            "App: com.example.notes  Screen: 1080x2400",
            '[12] Button "Save" click @top-right',
            '[15] Switch "Wi-Fi" click checked=on @middle-center',
            '[17] EditText "Title" hint="Note title" editable focused @top-center',
            "[20] RecyclerView scroll @middle-center",
            '[21] TextView "Groceries.md" @middle-left',
            '[22] ImageButton desc="More options" click @top-right',
        ]
    )


def test_values_are_one_line_quoted_and_truncated():
    long = "word " * 40
    els = [
        e(
            0,
            class_name="android.widget.TextView",
            text=f'say "hi"\n{long}',
            content_desc="x",
            password=True,
            enabled=False,
            bounds=(0, 0, 100, 100),
        )
    ]
    line = render_screen(els).splitlines()[1]
    assert (
        line.startswith("[0] TextView \"say 'hi' word")
        and '…" desc="x" disabled password @top-left' in line
    )
    assert len(line.split('"')[1]) == 80


def test_real_dumps_render_parseably_without_system_bars(real_dump_files):
    total_lines = total_chars = 0
    for path in real_dump_files:
        els = parse_hierarchy(path.read_text(encoding="utf-8"))
        out = render_screen(els)
        header, *lines = out.splitlines()
        assert re.match(r"^App: \S+  Screen: \d+x\d+$", header), (path.name, header)
        for line in lines:
            if line.startswith("..."):
                continue
            m = LINE.match(line)
            assert m, (path.name, line)
            assert els[int(m[1])].area > 0
        ids = [int(LINE.match(x)[1]) for x in lines if not x.startswith("...")]
        assert not any("com.android.systemui:id/status_bar" in els[i].resource_id for i in ids), (
            path.name
        )
        total_lines += len(lines)
        total_chars += len(out)
    print(
        f"\nrendered {len(real_dump_files)} dumps: {total_lines} lines, {total_chars / len(real_dump_files):.0f} chars per screen on average"
    )


def test_status_bar_dropped_and_foreground_app_named(real_dumps_dir):
    els = parse_hierarchy(
        (real_dumps_dir / "com.instagram.android__instagram-scraper-uiautomator__1.xml").read_text(
            encoding="utf-8"
        )
    )
    out = render_screen(els)
    assert out.startswith("App: com.instagram.android  Screen: 1080x2340")
    shown = {int(m[1]) for m in re.finditer(r"^\[(\d+)\]", out, re.M)}
    assert all(els[i].package != "com.android.systemui" for i in shown)


def test_max_elements_says_what_was_cut():
    els = [e(0, class_name="android.widget.FrameLayout", bounds=(0, 0, 1080, 2400))]
    els += [
        e(
            i,
            class_name="android.widget.TextView",
            text=f"row {i}",
            bounds=(0, i * 10, 100, i * 10 + 10),
        )
        for i in range(1, 11)
    ]
    out = render_screen(els, max_elements=4).splitlines()
    assert len(out) == 6 and out[-1] == "... 6 more elements not shown"


def test_a_label_already_on_the_clickable_ancestor_is_not_repeated():
    def node(i, parent, **kw):
        return UIElement(
            index=i, parent=parent, path=(0,) * (i + 1), package="p", screen=(1080, 2400), **kw
        )

    icon = (100, 100, 300, 300)
    els = [
        node(0, None, class_name="android.widget.FrameLayout", bounds=(0, 0, 1080, 2400)),
        node(
            1,
            0,
            class_name="android.widget.RelativeLayout",
            content_desc="2 unread from Chrome",
            clickable=True,
            bounds=icon,
        ),
        node(2, 1, class_name="android.widget.ImageView", content_desc="Chrome", bounds=icon),
        node(3, 1, class_name="android.widget.TextView", text="Chrome", bounds=icon),
        node(4, 1, class_name="android.widget.TextView", text="Beta", bounds=icon),
        node(
            5,
            0,
            class_name="android.widget.LinearLayout",
            clickable=True,
            bounds=(0, 400, 1080, 500),
        ),
        node(6, 5, class_name="android.widget.TextView", text="Wi-Fi", bounds=(0, 400, 500, 500)),
    ]
    lines = render_screen(els).splitlines()[1:]
    assert [int(x[1 : x.index("]")]) for x in lines] == [1, 4, 5, 6]
