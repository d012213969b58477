"""The engines kept warm, by name: one line per driver module.

Imported only when a pool first serves a command, so a process that never
keeps engines warm never loads a driver.
"""

from __future__ import annotations

from collections.abc import Mapping

from signalint.warm.pool import Driver
from signalint.warm.tsc_native import NativeTscDriver


def drivers() -> Mapping[str, Driver]:
    """Every warm driver, by engine name."""
    found: dict[str, Driver] = {}
    found["tsc"] = NativeTscDriver()  # TypeScript 7+; the lead composes it with warm/tsc.py
    return found
