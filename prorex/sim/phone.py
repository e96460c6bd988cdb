"""The phone core: state, navigation stack, and what touches and keys do.

``Phone`` renders the top screen of the stack through its app's page
function and dispatches input to the handlers of the touched element.
``SimDevice`` wraps it in the device interface; tasks and the dataset use it
directly for ground truth.
"""

from __future__ import annotations

from typing import Any

from prorex.sim.layout import LayoutConfig
from prorex.sim.render import Frame, Node, Page, render, screenshot
from prorex.sim.state import PhoneState, Screen


class InputError(ValueError):
    """An input the phone cannot interpret (bad index, unknown app)."""


class Phone:
    def __init__(self, state: PhoneState, layout: LayoutConfig | None = None) -> None:
        self.state = state
        self.layout = layout or LayoutConfig()
        self._frame: Frame | None = None
        if not self.state.stack:
            self.state.stack.append(Screen(app="launcher", page="home"))

    # ------------------------------------------------------------ navigation
    @property
    def top(self) -> Screen:
        return self.state.stack[-1]

    def changed(self) -> None:
        self._frame = None

    def push(self, app: str, page: str, **args: Any) -> None:
        self.state.stack.append(Screen(app=app, page=page, args=args))
        self.changed()

    def replace(self, app: str, page: str, **args: Any) -> None:
        self.state.stack[-1] = Screen(app=app, page=page, args=args)
        self.changed()

    def pop(self) -> None:
        # Popping an app's root screen finishes its task: nothing is kept to resume.
        if len(self.state.stack) > 1:
            self.state.stack.pop()
        self.changed()

    def pop_to(self, app: str, page: str) -> None:
        while len(self.state.stack) > 1 and not (self.top.app == app and self.top.page == page):
            self.state.stack.pop()
        self.changed()

    def home(self) -> None:
        """Show the launcher; the app in front goes to the background with its stack."""
        if len(self.state.stack) > 1:
            self.state.tasks[self.state.stack[1].app] = self.state.stack[1:]
        del self.state.stack[1:]
        self.state.stack[0] = Screen(app="launcher", page="home")
        self.changed()

    def launch(self, app: str, *, resume: bool = True) -> None:
        """Bring ``app`` to the front: where it was left if it has a background stack,
        else at its main page. ``resume=False`` starts it afresh (an explicit intent
        that clears the app's task)."""
        from prorex.sim.apps import APPS

        self.home()
        saved = self.state.tasks.pop(app, None)
        if resume and saved:
            self.state.stack.extend(saved)
        else:
            self.state.stack.append(Screen(app=app, page=APPS[app].main))
        self.changed()

    def show_dialog(self, kind: str, **args: Any) -> None:
        self.top.dialog = {"kind": kind, "args": args}
        self.top.focus = None
        self.top.keyboard = False
        self.changed()

    def close_dialog(self) -> None:
        scr = self.top
        scr.dialog = None
        scr.form = {k: v for k, v in scr.form.items() if not k.startswith("dlg_")}
        if scr.focus and scr.focus.startswith("dlg_"):
            scr.focus, scr.keyboard = None, False
        self.changed()

    def focus(self, key: str) -> None:
        self.top.focus = key
        self.top.keyboard = True
        self.changed()

    def value(self, key: str, default: str = "") -> str:
        return self.top.form.get(key, default)

    def set_value(self, key: str, text: str) -> None:
        self.top.form[key] = text
        self.changed()

    def tick(self, seconds: int) -> None:
        self.state.clock_s += seconds
        if self.state.clock.stopwatch_running:
            self.state.clock.stopwatch_s += seconds
        self.changed()

    # ------------------------------------------------------------- rendering
    def page(self) -> Page:
        from prorex.sim.apps import APPS

        scr = self.top
        app = APPS[scr.app]
        page = app.pages[scr.page](self, scr)
        if scr.dialog is not None:
            page.dialog = app.dialogs[scr.dialog["kind"]](self, scr, scr.dialog["args"])
        return page

    def frame(self) -> Frame:
        if self._frame is None:
            st = self.state.settings
            icons = ["Battery 100 percent."]
            if st.wifi and not st.airplane:
                icons.append("Wifi signal full.")
            self._frame = render(
                self.page(),
                self.layout,
                offset=self.top.scroll,
                keyboard=self.top.keyboard and self.top.focus is not None,
                clock_text=self.state.now().strftime("%H:%M"),
                status_icons=icons,
            )
        return self._frame

    def screenshot_png(self) -> bytes:
        frame = self.frame()
        if frame.png is None:
            frame.png = screenshot(frame)
        return frame.png

    # ----------------------------------------------------------------- input
    def node_at_index(self, index: int) -> Node:
        nodes = self.frame().nodes
        if not 0 <= index < len(nodes):
            raise InputError(f"index {index} out of range: the screen has {len(nodes)} elements")
        return nodes[index]

    def tap(self, x: int, y: int) -> Node | None:
        node = self.frame().hit(x, y)
        if node is None:
            return None
        if node.field is not None:
            self.focus(node.field)
        elif node.on_click is not None:
            node.on_click()
        self.changed()
        return node

    def long_press(self, x: int, y: int) -> Node | None:
        node = self.frame().hit(x, y, long=True)
        if node is None:
            return None  # like Android: a view without a long-click listener ignores it
        if node.field is not None:
            self.focus(node.field)
        elif node.on_long is not None:
            node.on_long()
        self.changed()
        return node

    def type_text(self, text: str) -> bool:
        scr = self.top
        if scr.focus is None:
            return False
        scr.form[scr.focus] = scr.form.get(scr.focus, self._field_text(scr.focus)) + text
        scr.keyboard = True
        self.changed()
        return True

    def _field_text(self, key: str) -> str:
        for n in self.frame().nodes:
            if n.field == key:
                return n.text
        return ""

    def clear_text(self) -> bool:
        scr = self.top
        if scr.focus is None:
            return False
        scr.form[scr.focus] = ""
        self.changed()
        return True

    def enter(self) -> None:
        page = self.frame().page
        scr = self.top
        if page.on_enter is not None and scr.dialog is None:
            page.on_enter()
        elif scr.focus is not None and scr.focus.endswith("body"):
            scr.form[scr.focus] = scr.form.get(scr.focus, self._field_text(scr.focus)) + "\n"
        else:
            scr.keyboard = False
        self.changed()

    def back(self) -> None:
        scr = self.top
        if scr.keyboard and scr.focus is not None:
            scr.keyboard = False
        elif scr.dialog is not None:
            self.close_dialog()
        elif scr.selected:
            scr.selected = []
        else:
            page = self.frame().page
            if page.back is not None:
                page.back()
            else:
                self.pop()
        self.changed()

    def scroll(self, direction: str) -> None:
        f = self.frame()
        if direction == "down":
            self.top.scroll = f.next_down
        elif direction == "up":
            self.top.scroll = f.next_up
        self.changed()

    def open_app(self, name: str) -> None:
        from prorex.sim.apps import APPS

        key = name.strip().lower()
        for short, app in APPS.items():
            if short == "launcher":
                continue
            if key in (short, app.name.lower(), app.package):
                self.launch(short)
                return
        raise InputError(f"no app named {name!r} on this phone")
