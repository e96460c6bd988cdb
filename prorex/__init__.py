"""prorex: proactive rewards for GUI agents (ProRe) — the library, importable without Ray."""

__version__ = "0.1.0"
