"""Engine modules state only what differs from `EngineDefaults`."""

from __future__ import annotations

from pathlib import Path

import pytest

from signalint.engines.base import EngineDefaults
from signalint.engines.registry import ENGINES

# Engines that run a preliminary command (Pyrefly: `dump-config`, its file list).
PROBES = frozenset({"pyrefly"})


@pytest.mark.parametrize("name", list(ENGINES))
def test_an_engine_takes_its_name_and_probe_from_the_defaults(name: str) -> None:
    engine = ENGINES[name]
    cls = type(engine)
    assert isinstance(engine, EngineDefaults)
    assert engine.name == engine.spec.name == name
    assert "name" not in vars(cls), f"{name} restates name"
    assert ("probe" in vars(cls)) == (name in PROBES), f"{name} and its probe"


def test_default_enabled_follows_detect_unless_an_engine_says_otherwise(tmp_path: Path) -> None:
    class Bare(EngineDefaults):
        spec = ENGINES["mypy"].spec

    assert Bare().detect(tmp_path) is None
    assert Bare().default_enabled(tmp_path) is False

    class Configured(Bare):
        def detect(self, root: Path) -> str | None:
            return "tool.toml"

    assert Configured().default_enabled(tmp_path) is True
