"""Load recorded engine runs (see record.py) as ProcessResults for parse tests."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from signalint.engines.base import EngineContext
from signalint.process import ProcessResult

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "engines"
RECORDED = HERE / "recorded"
STATE = Path("/state")


def fixture(name: str) -> Path:
    return (FIXTURES / name).resolve()


def context(
    name: str, *, target: str = ".", options: Mapping[str, object] | None = None
) -> EngineContext:
    return EngineContext(
        root=fixture(name),
        executable=Path("/engines/bin/engine"),
        timeout_s=30.0,
        state_dir=STATE,
        options=options or {},
        target=target,
    )


def recorded(name: str, root: Path) -> ProcessResult:
    """A recorded run, with the fixture root and state placeholders filled in."""
    data = json.loads((RECORDED / f"{name}.json").read_text(encoding="utf-8"))

    def fill(text: str) -> str:
        return text.replace("<ROOT>", str(root)).replace("<STATE>", str(STATE))

    return ProcessResult(
        argv=tuple(fill(a) for a in data["argv"]),
        exit_code=data["exit_code"],
        stdout=fill(data["stdout"]),
        stderr=fill(data["stderr"]),
        duration_s=0.1,
    )


def recorded_argv(name: str) -> list[str]:
    """The adapter argv at recording time (executable as its bare name)."""
    return list(json.loads((RECORDED / f"{name}.json").read_text(encoding="utf-8"))["argv"])
