"""Settings: every setting on its own page, as on Android. "Pair new device"
turns Bluetooth on as a side effect (the paper's Figure 10 case)."""

from __future__ import annotations

from prorex.sim.apps.common import App, icon, item, label, toggle
from prorex.sim.render import Page, Row, W

APP = App(key="settings", name="Settings", package="com.prorex.settings", main="home")
NEARBY = ("Pixel Buds Pro", "JBL Flip 5", "Galaxy Watch4", "Bose QC45")
NETWORKS = ("HomeNet-5G", "HomeNet", "CoffeeShop_Guest", "DIRECT-42-HP Laser")


def _onoff(v: bool) -> str:
    return "On" if v else "Off"


def _page(phone, activity: str, title: str, rows: list[Row], **kw) -> Page:
    return Page(package=APP.package, activity=APP.activity(activity), title=title,
                up=phone.pop if title != "Settings" else None, items=rows, **kw)


@APP.page
def page_home(phone, scr) -> Page:
    st = phone.state.settings

    def go(page: str):
        return lambda: phone.push("settings", page)

    rows = [
        item("Network & internet", "Wi-Fi, mobile data, hotspot", on_click=go("network"), icon="Network"),
        item("Connected devices", "Bluetooth, pairing", on_click=go("connected"), icon="Devices"),
        item("Apps", "Recent apps, default apps", on_click=go("apps"), icon="Apps"),
        item("Display", "Dark theme, font size, brightness", on_click=go("display"), icon="Display"),
        item("Sound & vibration", f"Media volume {st.media_volume}%", on_click=go("sound"), icon="Sound"),
        item("Battery", "100%", on_click=go("battery"), icon="Battery"),
        item("About phone", "sdk_gphone_x86_64", on_click=go("about"), icon="About"),
    ]
    return _page(phone, "SettingsActivity", "Settings", rows,
                 menu=[icon("Search settings", None)])


@APP.page
def page_network(phone, scr) -> Page:
    st = phone.state.settings

    def airplane() -> None:
        st.airplane = not st.airplane
        phone.changed()

    wifi_summary = st.wifi_network if st.wifi and not st.airplane else _onoff(st.wifi)
    rows = [
        item("Internet", wifi_summary, on_click=lambda: phone.push("settings", "wifi")),
        item("Wi-Fi", _onoff(st.wifi), on_click=lambda: phone.push("settings", "wifi")),
        item("SIMs", "T-Mobile", on_click=None),
        toggle("Airplane mode", st.airplane, airplane),
        item("Hotspot & tethering", "Off", on_click=None),
    ]
    return _page(phone, "NetworkDashboardActivity", "Network & internet", rows)


@APP.page
def page_wifi(phone, scr) -> Page:
    st = phone.state.settings

    def flip() -> None:
        st.wifi = not st.wifi
        phone.changed()

    def join(name: str) -> None:
        st.wifi_network = name
        phone.changed()

    rows = [toggle("Use Wi-Fi", st.wifi, flip)]
    if st.wifi:
        rows += [item(n, "Connected" if n == st.wifi_network else "Saved", key=n,
                      on_click=lambda n=n: join(n)) for n in NETWORKS]
    else:
        rows.append(label("To see available networks, turn Wi-Fi on.", rid="empty_view"))
    return _page(phone, "WifiSettingsActivity", "Wi-Fi", rows)


def _pair_row(phone) -> Row:
    def pair() -> None:
        # Android turns Bluetooth on when you open the pairing page
        phone.state.settings.bluetooth = True
        phone.push("settings", "pair")

    return item("Pair new device", on_click=pair, icon="Add")


@APP.page
def page_connected(phone, scr) -> Page:
    st = phone.state.settings
    rows = [_pair_row(phone)]
    rows += [item(d, "Saved device", key=d) for d in st.paired]
    rows += [
        item("Bluetooth", _onoff(st.bluetooth), on_click=lambda: phone.push("settings", "bluetooth")),
        item("Connection preferences", "Bluetooth, Android Auto, NFC",
             on_click=lambda: phone.push("settings", "bluetooth")),
    ]
    return _page(phone, "ConnectedDeviceDashboardActivity", "Connected devices", rows)


@APP.page
def page_bluetooth(phone, scr) -> Page:
    st = phone.state.settings

    def flip() -> None:
        st.bluetooth = not st.bluetooth
        phone.changed()

    rows = [toggle("Use Bluetooth", st.bluetooth, flip), _pair_row(phone)]
    rows.append(label(f"Device name: Pixel 6 Sim. Bluetooth is {_onoff(st.bluetooth).lower()}.",
                      rid="footer_text"))
    return _page(phone, "BluetoothDashboardActivity", "Bluetooth", rows)


@APP.page
def page_pair(phone, scr) -> Page:
    st = phone.state.settings

    def pair(name: str) -> None:
        if name not in st.paired:
            st.paired.append(name)
        phone.pop()

    rows = [label("Available devices", rid="category_title", height=100)]
    rows += [item(d, key=d, on_click=lambda d=d: pair(d)) for d in NEARBY]
    return _page(phone, "BluetoothPairingDetailActivity", "Pair new device", rows)


@APP.page
def page_display(phone, scr) -> Page:
    st = phone.state.settings

    def dark() -> None:
        st.dark_theme = not st.dark_theme
        phone.changed()

    def adaptive() -> None:
        st.adaptive_brightness = not st.adaptive_brightness
        phone.changed()

    rows = [
        item("Brightness level", f"{st.brightness}%", on_click=lambda: phone.push("settings", "brightness")),
        toggle("Adaptive brightness", st.adaptive_brightness, adaptive),
        toggle("Dark theme", st.dark_theme, dark),
        item("Font size", "Default"),
        item("Screen timeout", "After 30 seconds of inactivity"),
    ]
    return _page(phone, "DisplaySettingsActivity", "Display", rows)


def _level_page(phone, title: str, activity: str, attr: str, what: str) -> Page:
    st = phone.state.settings

    def step(d: int) -> None:
        setattr(st, attr, max(0, min(100, getattr(st, attr) + d)))
        phone.changed()

    value = getattr(st, attr)
    rows = [
        Row([W("seek", text=f"{value}%", desc=what, rid="seekbar")], layout="hbox", height=150, key=attr),
        Row([W("ibutton", desc=f"Decrease {what.lower()}", on_click=lambda: step(-10), rid="minus"),
             W("text", text=f"{value}%", rid="value"),
             W("ibutton", desc=f"Increase {what.lower()}", on_click=lambda: step(10), rid="plus")],
            layout="hbox", height=150, key=attr + "_buttons"),
    ]
    return _page(phone, activity, title, rows)


@APP.page
def page_brightness(phone, scr) -> Page:
    return _level_page(phone, "Brightness level", "BrightnessActivity", "brightness", "Brightness")


@APP.page
def page_sound(phone, scr) -> Page:
    page = _level_page(phone, "Sound & vibration", "SoundSettingsActivity", "media_volume", "Media volume")
    page.items.insert(0, label("Media volume", rid="category_title", height=100))
    return page


@APP.page
def page_apps(phone, scr) -> Page:
    from prorex.sim.apps import APPS

    rows = [item(a.name, a.package, key=a.name) for k, a in APPS.items() if k != "launcher"]
    return _page(phone, "AppsDashboardActivity", "Apps", rows)


@APP.page
def page_battery(phone, scr) -> Page:
    return _page(phone, "BatterySettingsActivity", "Battery",
                 [item("Battery level", "100%"), item("Battery Saver", "Off")])


@APP.page
def page_about(phone, scr) -> Page:
    return _page(phone, "AboutPhoneActivity", "About phone",
                 [item("Device name", "Pixel 6 Sim"), item("Android version", "14"),
                  item("Model", "sdk_gphone_x86_64")])
