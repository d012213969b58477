"""Pyrefly adapter (Meta's type checker): one whole-program `pyrefly check` run per check.

Provisioning: the PyPI package `pyrefly` (one native binary), pinned; a
project's own copy is looked for in its virtual environment.

Verified against Pyrefly 1.4.1:
- `--output-format json` prints `{"errors": [...]}` on stdout; each error
  has `path` (relative to the working directory), 1-based `line`,
  `column`, `stop_line`, `stop_column` (code points, converted to UTF-16
  here; the stop exclusive), `name` (the error kind, "bad-assignment",
  "parse-error"; documented at `DOCS_BASE#<kind>`), `description` (with
  elaborations on further lines), `concise_description` and `severity`
  ("error", "warn" or "info").
- What is shown: Pyrefly's default `--min-severity error` hides warnings
  (it says "N warnings not shown" on stderr) but shows `reveal_type`'s
  information; the adapter runs it as the project does, so the check
  reports what `pyrefly check` reports. "warn" and "info" become `warning`.
- Exit codes: 0 no errors, 1 errors, and 1 as well for a configuration it
  cannot parse ("Fatal configuration error" on stderr, nothing on stdout:
  the check reports that line as the engine's error).
- Files: `pyrefly dump-config --max-files all` with the same arguments
  lists "Covered files:" under each configuration it uses (without
  `--max-files all` only the first 10, then "...and N more"); it runs
  first (the probe) and its list is the run's checked files (D17). The check's `-v` log says
  "Checking N files": a different N is a coverage gap, never a guess.
- Configuration: `pyrefly.toml`, else `[tool.pyrefly]` in `pyproject.toml`,
  the nearest upward from the root; with neither, Pyrefly checks the root
  with its "auto configuration" (the adapter runs only where the project
  configures it or declares it as a dependency). It respects ignore files
  (`use-ignore-files`). `--python-interpreter-path` names the project's
  interpreter when Signalint knows it and the config chooses no
  environment (`python-interpreter-path`, `conda-environment`,
  `site-package-path`, `skip-interpreter-query`).
- Pyrefly writes nothing in the project.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from signalint.engines import adapter_paths as paths
from signalint.engines import pyenv, pyprogram
from signalint.engines.base import (
    EngineContext,
    EngineDefaults,
    EngineOutputError,
    EngineSpec,
    Memory,
    Program,
    ProgramKey,
    Provision,
)
from signalint.engines.positions import SourceText
from signalint.engines.python_configs import declares, load_toml, tool_table
from signalint.model import Issue, Severity
from signalint.process import Command

if TYPE_CHECKING:
    from signalint.process import ProcessResult

CONFIG_NAMES = ("pyrefly.toml", "pyproject.toml")
DOCS_BASE = "https://pyrefly.org/en/docs/error-kinds/#"
# Config keys that choose the environment: the adapter then names none.
_ENVIRONMENT_KEYS = (
    "python-interpreter-path",
    "python-interpreter",
    "conda-environment",
    "site-package-path",
    "skip-interpreter-query",
    "fallback-python-interpreter-name",
)
_COUNT = re.compile(r"Checking (\d+) files?\b")
_SEVERITIES: dict[str, Severity] = {"error": "error", "warn": "warning", "info": "warning"}


def _load(root: Path, rel: str) -> dict[str, Any] | None:
    if PurePosixPath(rel).name == "pyproject.toml":
        return tool_table(root / rel, "pyrefly")
    if not (root / rel).is_file():
        return None
    return load_toml(root / rel) or {}  # a broken file is still Pyrefly's config


def find_config(root: Path) -> str | None:
    """The config Pyrefly uses when run in `root`, project-relative (`../`
    above the root), up to the repository root; None when there is none."""
    directory, prefix = root, ""
    for _ in range(paths.MAX_CONFIG_CHAIN):
        for name in CONFIG_NAMES:
            if _load(root, prefix + name) is not None:
                return prefix + name
        if any((directory / marker).exists() for marker in (".git", ".hg")):
            return None
        if directory.parent == directory:
            return None
        directory, prefix = directory.parent, prefix + "../"
    return None


def settings(root: Path) -> tuple[dict[str, Any], str | None]:
    """The settings of the config Pyrefly uses, and its project-relative path."""
    found = find_config(root)
    return (_load(root, found) or {}, found) if found else ({}, None)


def covered(result: ProcessResult) -> list[str]:
    """The absolute paths `pyrefly dump-config` lists as covered files."""
    found: list[str] = []
    listing = False
    for line in result.stdout.splitlines():
        stripped = line.strip()
        if stripped == "Covered files:":
            listing = True
        elif listing and line.startswith("    ") and stripped.startswith("..."):
            listing = False  # "...and N more": a shortened list (never asked for)
        elif listing and line.startswith("    ") and stripped:
            found.append(stripped)
        else:
            listing = False
    return found


def _diagnostics(result: ProcessResult) -> list[dict[str, Any]]:
    text = result.stdout
    report = pyprogram.json_report(text)
    errors = report.get("errors") if isinstance(report, dict) else None
    if not isinstance(errors, list):
        lines = [s.strip() for s in (result.stderr + "\n" + text).splitlines() if s.strip()]
        said = next((s for s in lines if s.startswith("ERROR")), lines[-1] if lines else "")
        raise EngineOutputError(
            said or f"exited with code {result.exit_code} and printed nothing",
            result.stderr[-2000:] or text,
        )
    for diag in errors:
        if not isinstance(diag, dict):
            raise EngineOutputError("pyrefly error is not an object", str(diag))
    return errors


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) else None


SPEC = EngineSpec(
    name="pyrefly",
    title="Pyrefly",
    kind="compiler",
    language="python",
    provision=Provision("pip", "pyrefly", "1.4.1", "pyrefly", ("venv",)),
    majors=(1,),
    timeout_ms=300_000,
    docs_url="https://pyrefly.org/",
    whole_program=True,
    watch_patterns=CONFIG_NAMES,
)


class PyreflyEngine(EngineDefaults):
    spec = SPEC

    def detect(self, root: Path) -> str | None:
        """`pyrefly.toml`, `[tool.pyrefly]`, or Pyrefly among the declared dependencies."""
        found = next((n for n in CONFIG_NAMES if _load(root, n) is not None), None)
        if found is None and declares(root / "pyproject.toml", "pyrefly"):
            return "pyproject.toml"
        return found

    def relevant(self, rel_path: str) -> bool:
        return pyprogram.relevant(rel_path)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        found = find_config(root)
        return [found] if found else []

    def _arguments(self, ctx: EngineContext) -> list[str]:
        argv = ["--output-format", "json", "--summary=none", "--progress-bar", "no", "-v"]
        config, _ = settings(ctx.root)
        python = pyenv.interpreter(ctx.root, ctx.python)
        if python is not None and not any(key in config for key in _ENVIRONMENT_KEYS):
            argv += ["--python-interpreter-path", str(python)]
        return argv

    def probe(self, ctx: EngineContext) -> Command | None:
        """`pyrefly dump-config` with the check's arguments: the covered files."""
        argv = (str(ctx.executable), "dump-config", "--max-files", "all", *self._arguments(ctx))
        return Command(argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s)

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        """The whole project as configured (module docstring); `files` are ignored."""
        argv = (str(ctx.executable), "check", *self._arguments(ctx))
        return Command(argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s)

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        issues: list[Issue] = []
        sources: dict[str, SourceText] = {}
        for diag in _diagnostics(result):
            file = paths.project_path(ctx.root, str(diag.get("path") or ""))
            if file is None:
                continue
            source = sources.get(file) or sources.setdefault(file, SourceText(ctx.root, file))
            issues.append(self._issue(diag, file, source))
        return issues

    def _issue(self, diag: dict[str, Any], file: str, source: SourceText) -> Issue:
        line = _int(diag.get("line")) or 1
        column = _int(diag.get("column")) or 1
        stop_line, stop_column = _int(diag.get("stop_line")), _int(diag.get("stop_column"))
        rule = str(diag.get("name") or "pyrefly")
        end_line: int | None = None
        end_col: int | None = None
        if stop_line is not None and stop_column is not None:
            end_line, end_col = stop_line, source.codepoint_to_utf16(stop_line, stop_column)
        return Issue(
            engine=self.name,
            file=file,
            line=line,
            col=source.codepoint_to_utf16(line, column),
            rule=rule,
            severity=_SEVERITIES.get(str(diag.get("severity")), "error"),
            message=str(diag.get("description") or diag.get("concise_description") or ""),
            end_line=end_line,
            end_col=end_col,
            docs_url=DOCS_BASE + rule,
        )

    def program_key(self, ctx: EngineContext) -> ProgramKey | None:
        """Every config file name Pyrefly reads in the root, the one it uses
        now, and the environment."""
        configs = list(CONFIG_NAMES)
        found = find_config(ctx.root)
        if found and found not in configs:
            configs.append(found)
        config, _ = settings(ctx.root)
        named = config.get("python-interpreter-path") or config.get("python-interpreter")
        python = pyenv.named_or_own(ctx.root, named, ctx.python)
        stamp = pyenv.environment_stamp(python, ctx.root)
        return ProgramKey(configs=tuple(configs), extra=json.dumps({"env": stamp}))

    def program(
        self,
        results: Sequence[ProcessResult],
        ctx: EngineContext,
        memory: Memory | None,
        changed: frozenset[str],
    ) -> Program:
        """The project's Python and ignore files and the search paths
        outside it (`pyprogram`); checked: the probe's covered files."""
        config, source = settings(ctx.root)
        entries: list[str] = []
        for key in ("search-path", "search_path"):
            value = config.get(key)
            entries += [e for e in value if isinstance(e, str)] if isinstance(value, list) else []
        found = pyprogram.searched_inputs(ctx.root, ctx.state_dir, entries, source)
        listed = covered(results[0]) if len(results) > 1 else []
        prefix = os.fspath(ctx.root).rstrip(os.sep) + os.sep
        inside = tuple(p for p in listed if p.startswith(prefix))
        counted = _COUNT.search(results[-1].stderr) if results else None
        gap = None
        if counted is not None and int(counted.group(1)) != len(listed):
            gap = (
                f"pyrefly checked {counted.group(1)} files where its configuration "
                f"lists {len(listed)}"
            )
        elif counted is None:
            gap = "pyrefly did not say how many files it checked"
        return Program(inputs=found, checked=inside, gap=gap)


ENGINE = PyreflyEngine()
