"""Signalint: a local diagnostics hub for coding agents."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("signalint")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

SCHEMA_VERSION = "1.4"
