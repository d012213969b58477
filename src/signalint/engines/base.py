"""The engine adapter interface (DESIGN.md section 5).

An adapter is pure: it builds `Command` values and parses `ProcessResult`
values into `Issue`s. It never starts a process; `signalint.runner` does
resolve -> (probe) -> command -> process.run -> parse for every engine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from signalint.model import Issue
    from signalint.process import ProcessResult


@dataclass(frozen=True, slots=True)
class Command:
    """One process to run: argv (no shell), working directory, deadline.

    `ok_exit_codes` are the exit codes after which the output is parsed; any
    other code is an engine error unless the adapter's parse says otherwise.
    """

    argv: tuple[str, ...]
    cwd: Path
    timeout_s: float
    ok_exit_codes: frozenset[int] = frozenset({0, 1})
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EngineContext:
    """Everything an adapter may look at to build a command or parse output.

    `root` is the canonical project root; file arguments and parsed paths are
    project-relative POSIX strings. `options` holds engine options from the
    config (e.g. `{"includeFormatter": True}` for biome). `target` is the
    first user path of the check ("." by default), which selects the
    TypeScript configuration (reference "TypeScript configuration selection").
    """

    root: Path
    executable: Path
    timeout_s: float
    state_dir: Path
    options: Mapping[str, object] = field(default_factory=dict)
    target: str = "."


class EngineOutputError(Exception):
    """Engine output that cannot be understood; `excerpt` is a short sample."""

    def __init__(self, message: str, excerpt: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.excerpt = excerpt


class EngineConfigError(Exception):
    """The engine cannot run with this project's configuration (e.g. no tsconfig)."""


class Engine(Protocol):
    """What every adapter module exposes as its `ENGINE` object."""

    name: str  # "oxlint", "tsc", "biome", "eslint"
    npm_package: str  # the package `signalint engines install` installs
    bin_name: str  # executable name under node_modules/.bin
    whole_program: bool  # True: runs once on its configured program, ignores file lists

    def relevant(self, rel_path: str) -> bool:
        """Whether a project file (project-relative POSIX path) is an input."""
        ...

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        """Project-relative config files that affect `rel_path` (for cache keys)."""
        ...

    def probe(self, ctx: EngineContext) -> Command | None:
        """An optional preliminary command (tsc: `--showConfig`); None if not needed."""
        ...

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        """The command that checks `files` (ignored by whole-program engines).

        Raises EngineConfigError when the project cannot be checked by this
        engine as configured (the message is shown to the user).
        """
        ...

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        """Issues from a finished run. Raises EngineOutputError on garbage."""
        ...
