"""parse_hierarchy on real dumps and on the malformed inputs real tooling produces."""

from __future__ import annotations

import time

import pytest

from prorex.ui import HierarchyError, parse_hierarchy

NODE = (
    '<node index="0" text="{text}" resource-id="{rid}" class="android.widget.Button" package="com.x" '
    'content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" '
    'focused="false" scrollable="false" long-clickable="false" password="false" selected="false" '
    'bounds="{bounds}"{extra} />'
)


def doc(*nodes: str, root_bounds: str = "[0,0][1080,2400]") -> str:
    inner = "".join(nodes)
    return (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        f'<node index="0" class="android.widget.FrameLayout" package="com.x" bounds="{root_bounds}">{inner}</node>'
        "</hierarchy>"
    )


def test_every_real_dump_parses_quickly(real_dump_files):
    timings = []
    for path in real_dump_files:
        xml = path.read_text(encoding="utf-8")
        t0 = time.perf_counter()
        els = parse_hierarchy(xml)
        timings.append((time.perf_counter() - t0, path.name, len(els)))
        assert els, path.name
        assert [e.index for e in els] == list(range(len(els)))
        assert els[0].screen is not None and els[0].parent is None
        # every non-root has a parent earlier in document order, one level up
        for e in els:
            if e.parent is not None:
                assert e.parent < e.index and els[e.parent].depth == e.depth - 1
        assert len(els) == xml.count("<node")
    worst = max(timings)
    print(
        f"\nparsed {len(timings)} dumps; slowest {worst[1]} ({worst[2]} nodes) in {worst[0] * 1000:.1f} ms"
    )
    assert len(timings) >= 28


def test_multiple_windows_screen_and_context(real_dumps_dir):
    els = parse_hierarchy(
        (real_dumps_dir / "com.whatsapp__whatsAgent-2.0__1.xml").read_text(encoding="utf-8")
    )
    roots = [e for e in els if e.parent is None]
    assert [r.package for r in roots] == [
        "com.android.systemui",
        "com.sec.android.app.launcher",
        "com.whatsapp",
        "com.android.systemui",
    ]
    assert {r.path for r in roots} == {(0,), (1,), (2,), (3,)}
    assert els[0].screen == (1080, 2340)
    back = next(e for e in els if e.resource_id == "com.whatsapp:id/back")
    assert back.content_desc == "Navigate up" and back.context == ("Archii",)
    # the app window offset in another dump: screen is the far corner of the roots
    car = parse_hierarchy(
        (real_dumps_dir / "ai.umos.vehiclecontrol__IVI_OS_Auto_var00__1.xml").read_text(
            encoding="utf-8"
        )
    )
    assert car[0].screen == (1898, 965)


def test_bom_crlf_tabs_trailing_junk_and_extra_attributes():
    body = doc(
        NODE.format(
            text="Save ✓ 保存 😀",
            rid="com.x:id/save",
            bounds="[10,20][110,120]",
            extra=' NAF="true" drawing-order="3" hint="h" display-id="0" visible-to-user="false"',
        ),
        NODE.format(text="", rid="", bounds="[49,326][431,263]", extra=' data-extra=""'),
    ).replace("><", ">\r\n\t<")
    xml = "\ufeff" + body + "\r\nUI hierchary dumped to: /dev/tty\n"
    els = parse_hierarchy(xml)
    assert len(els) == 3
    save = els[1]
    assert save.text == "Save ✓ 保存 😀" and save.hint == "h" and save.visible is False
    assert save.bounds == (10, 20, 110, 120) and save.path == (0, 0) and save.depth == 1
    inverted = els[2]
    assert inverted.bounds == (49, 326, 431, 263) and inverted.area == 0
    assert parse_hierarchy(xml.encode("utf-8")) == els  # bytes with a BOM too


def test_missing_attributes_default_and_empty_class():
    els = parse_hierarchy('<hierarchy><node class=""><node /></node></hierarchy>')
    assert els[0].class_name == "" and els[0].enabled is True and els[0].visible is True
    assert els[1].bounds == (0, 0, 0, 0) and els[1].parent == 0 and els[0].screen is None


@pytest.mark.parametrize(
    ("xml", "message"),
    [
        ("", "empty input"),
        ("<html><body/></html>", "root element is <html>"),
        (
            "<hierarchy>\n<node>\n  <node bounds='[0,0][1,1]'>\n</hierarchy>",
            "invalid XML at line 4, column 3: mismatched tag",
        ),
        ("<hierarchy><node text='a & b'/></hierarchy>", "invalid XML at line 1"),
        ("<hierarchy><node", "invalid XML"),
        ("UI hierchary dumped to: /dev/tty", "invalid XML"),
    ],
)
def test_invalid_xml_gets_a_clear_error(xml, message):
    with pytest.raises(HierarchyError, match=message.replace("(", r"\(")):
        parse_hierarchy(xml)


def test_entity_bombs_and_external_entities_are_refused_fast():
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + "".join(
            f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'
            for i in range(1, 10)
        )
        + ']><hierarchy><node text="&lol9;"/></hierarchy>'
    )
    external = '<?xml version="1.0"?><!DOCTYPE h [<!ENTITY x SYSTEM "file:///etc/passwd">]><hierarchy><node text="&x;"/></hierarchy>'
    for xml in (laughs, external):
        t0 = time.perf_counter()
        with pytest.raises(HierarchyError, match="forbidden"):
            parse_hierarchy(xml)
        assert time.perf_counter() - t0 < 0.5


def test_deep_nesting_does_not_recurse():
    depth = 3000
    xml = "<hierarchy>" + "<node>" * depth + "</node>" * depth + "</hierarchy>"
    els = parse_hierarchy(xml)
    assert len(els) == depth and els[-1].depth == depth - 1
