"""Real Android devices (emulators and phones) through adbutils + uiautomator2."""

from prorex.android.apps import DEFAULT_APP_PACKAGES, AppTable
from prorex.android.device import AndroidDevice, AndroidDeviceConfig
from prorex.android.emulator import EmulatorConsole, EmulatorProcess, EmulatorSpec

__all__ = [
    "DEFAULT_APP_PACKAGES",
    "AndroidDevice",
    "AndroidDeviceConfig",
    "AppTable",
    "EmulatorConsole",
    "EmulatorProcess",
    "EmulatorSpec",
]
