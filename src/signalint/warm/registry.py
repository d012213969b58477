"""The engines kept warm, by name: each engine's spec names its driver module.

An engine is kept warm when its `EngineSpec.warm_driver` names the module
whose `DRIVER` serves it (in the engine's own package): adding a warm engine
is that module and its spec's line, nothing here. The mapping is made when a
pool first serves a command, so a process that never keeps engines warm never
loads a driver; and each driver's module is imported only when a command of
its engine is first offered, so a server checking a TypeScript project never
loads Pyright's language client (pygls and lsprotocol: about 17 MiB of a
server's resident memory, docs/benchmarks.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping

from signalint.warm.driver import Driver


def _module(name: str) -> Callable[[], Driver]:
    def load() -> Driver:
        driver: Driver = importlib.import_module(name).DRIVER
        return driver

    return load


def loaders() -> dict[str, Callable[[], Driver]]:
    """Engine name -> how to make its driver, for every engine kept warm."""
    from signalint.engines.registry import ENGINES

    return {
        name: _module(engine.spec.warm_driver)
        for name, engine in ENGINES.items()
        if engine.spec.warm_driver
    }


class Drivers(Mapping[str, Driver]):
    """Every warm driver by engine name, each loaded at its first lookup."""

    def __init__(self, loaders: Mapping[str, Callable[[], Driver]]) -> None:
        self._loaders = loaders
        self._loaded: dict[str, Driver] = {}

    def __getitem__(self, engine: str) -> Driver:
        found = self._loaded.get(engine)
        if found is None:
            found = self._loaded[engine] = self._loaders[engine]()
        return found

    def __contains__(self, engine: object) -> bool:
        return engine in self._loaders

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


def drivers() -> Mapping[str, Driver]:
    """Every warm driver, by engine name (each module imported when first asked for)."""
    return Drivers(loaders())
