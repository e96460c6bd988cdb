"""App name -> package table for ``open_app``.

Agents name apps the way a person would ("Simple Calendar Pro", "files");
``app_start`` needs a package. The defaults cover the apps AndroidWorld's
tasks use, with the aliases its own launcher table accepts; a deployment
passes its own table (``AndroidDeviceConfig.app_packages``) to add or
override names.
"""

from __future__ import annotations

import re

from prorex.device import DeviceError

DEFAULT_APP_PACKAGES: dict[str, str] = {
    "Settings": "com.android.settings",
    "System Settings": "com.android.settings",
    "Chrome": "com.android.chrome",
    "Google Chrome": "com.android.chrome",
    "Camera": "com.android.camera2",
    "Clock": "com.google.android.deskclock",
    "Contacts": "com.google.android.contacts",
    "Files": "com.google.android.documentsui",
    "Markor": "net.gsantner.markor",
    "Messages": "com.google.android.apps.messaging",
    "Phone": "com.google.android.dialer",
    "Dialer": "com.google.android.dialer",
    "Simple Calendar Pro": "com.simplemobiletools.calendar.pro",
    "Simple Calendar": "com.simplemobiletools.calendar.pro",
    "Calendar": "com.simplemobiletools.calendar.pro",
    "Simple Gallery Pro": "com.simplemobiletools.gallery.pro",
    "Simple Gallery": "com.simplemobiletools.gallery.pro",
    "Gallery": "com.simplemobiletools.gallery.pro",
    "Simple SMS Messenger": "com.simplemobiletools.smsmessenger",
    "Simple Draw Pro": "com.simplemobiletools.draw.pro",
    "Pro Expense": "com.arduia.expense",
    "Broccoli": "com.flauschcode.broccoli",
    "Audio Recorder": "com.dimowner.audiorecorder",
    "Tasks": "org.tasks",
    "OpenTracks": "de.dennisguse.opentracks",
    "Joplin": "net.cozic.joplin",
    "VLC": "org.videolan.vlc",
    "Retro Music": "code.name.monkey.retromusic",
    "OsmAnd": "net.osmand",
}

# A Java package name: two or more dot-separated identifiers.
_PACKAGE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")


def _key(name: str) -> str:
    return " ".join(name.lower().split())


class AppTable:
    """Case- and space-insensitive lookup of app names."""

    def __init__(self, packages: dict[str, str] | None = None, *, defaults: bool = True):
        merged = dict(DEFAULT_APP_PACKAGES) if defaults else {}
        merged.update(packages or {})
        for name, pkg in merged.items():
            if not _PACKAGE.match(pkg):
                raise ValueError(
                    f"app table: {name!r} maps to {pkg!r}, which is not a package name"
                )
        self._names = {_key(n): n for n in merged}
        self._packages = {_key(n): p for n, p in merged.items()}

    def names(self) -> list[str]:
        return sorted(self._names.values(), key=str.lower)

    def package_for(self, app_name: str) -> str:
        """The package to start for ``app_name``; a package name passes through."""
        name = app_name.strip()
        hit = self._packages.get(_key(name))
        if hit is not None:
            return hit
        if _PACKAGE.match(name):
            return name
        raise DeviceError(
            f"unknown app {app_name!r}: not a package name and not in the app table "
            f"(known: {', '.join(self.names())})"
        )
