"""The engines kept warm, by name: one line per driver module.

Imported only when a pool first serves a command, so a process that never
keeps engines warm never loads a driver.
"""

from __future__ import annotations

from collections.abc import Mapping

from signalint.warm.pool import Driver


def drivers() -> Mapping[str, Driver]:
    """Every warm driver, by engine name."""
    from signalint.warm import eslint, mypy, pyright
    from signalint.warm.tsc_native import NativeTscDriver

    every: tuple[Driver, ...] = (eslint.DRIVER, mypy.DRIVER, pyright.DRIVER, NativeTscDriver())
    return {driver.engine: driver for driver in every}
