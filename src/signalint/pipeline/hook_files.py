"""Which of the files a git hook passes a check takes, as the linters' own hooks do.

A hook framework (pre-commit, and others like it) passes the
staged files by name. `signalint check` refuses a named file its `ignore`
setting excludes (exit 2) and says "Nothing was checked" when no enabled
engine takes any named file (exit 1): right for a person who named them,
wrong for a hook, which would block a commit it has no reason to block.
ESLint (`--no-warn-ignored`) and Ruff (`--force-exclude`) pass such files
over silently; `select` does the same for `signalint pre-commit`:

- a file under an ignored path (`ignore`, or a directory Signalint never
  checks: node_modules, .git, .signalint) is passed over;
- a file no enabled engine may take is passed over. Engines whose own
  configuration decides what they lint (ESLint, Biome, Ruff) count only
  for the file types their `EngineSpec.hook_suffixes` name: JavaScript and TypeScript for ESLint
  and Biome, Python for Ruff (a hook's files are sources; a project that
  lints other types with them names those files in `signalint check`);
- everything else is kept as given, so a path the check refuses for
  another reason (missing, outside the project, a leading dash) is still
  refused with its own message.

The whole-program engines (tsc, mypy, Pyright) still check the program the
kept files belong to: the check of those paths selects it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from signalint.engines.adapter_paths import has_suffix
from signalint.engines.registry import ENGINES
from signalint.pipeline.targets import ignore_source
from signalint.project.ignores import ignored_reason
from signalint.settings.config import Config


@dataclass(frozen=True)
class Selection:
    """The hook's files split three ways, each as the hook gave them, in order."""

    kept: tuple[str, ...]
    ignored: tuple[str, ...]
    unchecked: tuple[str, ...]

    def passed_over(self) -> str | None:
        """One line for stderr saying what was passed over, or None."""
        parts = []
        if self.ignored:
            parts.append(f"{_count(len(self.ignored))} ignored by the settings")
        if self.unchecked:
            parts.append(f"{_count(len(self.unchecked))} no enabled engine checks")
        if not parts:
            return None
        return "passed over " + " and ".join(parts)


def _count(n: int) -> str:
    return f"{n} file" if n == 1 else f"{n} files"


def takes(config: Config, rel_path: str) -> bool:
    """Whether an enabled engine may take the project file `rel_path` from a hook."""
    for name in config.enabled_engines:
        engine = ENGINES[name]
        if not engine.relevant(rel_path):
            continue
        suffixes = engine.spec.hook_suffixes  # EngineSpec: empty when `relevant` decides
        if not suffixes or has_suffix(rel_path, suffixes):
            return True
    return False


def select(root: Path, config: Config, paths: Sequence[str], cwd: Path | None = None) -> Selection:
    """Split a hook's `paths` (relative to `cwd`, default the working
    directory, or absolute) into those to check, those ignored by `config`,
    and those no enabled engine checks. `root` is canonical (realpath)."""
    here = Path(os.path.realpath(cwd if cwd is not None else os.getcwd()))
    if not here.is_relative_to(root):
        here = root  # as `targets.from_cwd` does
    source = ignore_source(root)
    kept: list[str] = []
    ignored: list[str] = []
    unchecked: list[str] = []
    for path in paths:
        rel = _project_relative(root, here, path)
        if rel is None or rel == ".":
            kept.append(path)  # the check says what is wrong with it, or checks it all
            continue
        full = root / rel
        is_dir = full.is_dir()
        if ignored_reason(rel, config.ignore, is_dir=is_dir, source=source) is not None:
            ignored.append(path)
        elif not is_dir and not takes(config, rel):
            unchecked.append(path)
        else:
            kept.append(path)
    return Selection(tuple(kept), tuple(ignored), tuple(unchecked))


def _project_relative(root: Path, here: Path, path: str) -> str | None:
    """`path`'s project-relative POSIX form when it names something inside
    `root` that exists, else None (left to the check to refuse)."""
    if not path or "\0" in path or path.startswith("-"):
        return None
    joined = os.path.normpath(os.path.join(here, path))
    root_s = os.fspath(root)
    if joined != root_s and not joined.startswith(root_s + os.sep):
        return None
    if not os.path.lexists(joined):
        return None
    return Path(os.path.relpath(joined, root_s)).as_posix()


__all__ = ["Selection", "select", "takes"]
