"""``prorex devices``: what an adb server sees, and in which state."""

from __future__ import annotations

import argparse
import sys

from prorex.android.adb import (
    AdbClient,
    DeviceEntry,
    list_devices,
    server_hint,
)
from prorex.device import DeviceError


def format_devices(entries: list[DeviceEntry], host: str, port: int) -> str:
    """A table of serial, state, and model/product for ready devices."""
    if not entries:
        return f"no devices attached ({server_hint(host, port)})"
    rows = [("SERIAL", "STATE", "MODEL", "PRODUCT")]
    for e in entries:
        ready = e.state == "device"
        rows.append((e.serial, e.state, e.model if ready else "", e.product if ready else ""))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )


def cli_devices(args: argparse.Namespace) -> int:
    """List every device the adb server at --adb-host:--adb-port reports.

    Exit 0 with the list (or "no devices attached"), 2 when the server cannot
    be reached or answers with an error.
    """
    host = getattr(args, "adb_host", "127.0.0.1")
    port = int(getattr(args, "adb_port", 5037))
    try:
        entries = list_devices(AdbClient(host, port, socket_timeout=10.0))
    except DeviceError as exc:  # AdbServerUnreachable included
        print(f"prorex devices: {exc}", file=sys.stderr)
        return 2
    print(format_devices(entries, host, port))
    return 0
