"""Ruff adapter: `ruff check --output-format json` on the files its config selects.

Verified against ruff 0.17.6:
- `--output-format json` prints one array on stdout; each diagnostic has
  `code` ("F401"; "invalid-syntax" for syntax errors, which older releases
  left null), `name`, `message`, `url` (null for syntax errors), `filename`
  (absolute), 1-based `location`/`end_location` `row`/`column` counted in
  code points (end exclusive), `fix` (null, or `applicability` "safe",
  "unsafe" or "display-only" plus a `message`), `severity` ("error" for
  every lint violation) and `cell` (the 1-based cell of a notebook, whose
  rows then count within that cell).
- Exit codes: 0 clean, 1 violations, 2 a broken configuration or an
  internal error (stderr says "ruff failed" and the cause; nothing on stdout).
- `--no-fix` overrides a config's `fix = true`: a check never edits files.
  `--no-cache` keeps Ruff from writing `.ruff_cache` into the project (D18);
  Signalint's own per-file cache makes Ruff's redundant anyway.
- A fix for a rule the config marks `unfixable` is left out of the JSON, so
  `fixable` (a safe fix exists) follows the project's configuration.
- Which files Ruff checks comes from its configuration: `include` /
  `extend-include` (by default `*.py`, `*.pyi`, `*.ipynb` and
  `pyproject.toml`, where RUF200 reports an invalid `[project]` table),
  `exclude` / `extend-exclude`, `.gitignore`, and nested configs. Files
  passed explicitly are linted whatever their name (even `notes.txt`, as
  Python), and `include` does not apply to them. So the selection run lists
  what Ruff's own directory walk finds (`--show-files` over the directories
  holding the candidates, with `--force-exclude` so an excluded directory
  passed explicitly is still excluded); only those candidates are linted
  and counted, as a plain `ruff check .` would.
- Each file is governed by the closest `.ruff.toml`, `ruff.toml` or
  `pyproject.toml` with a `[tool.ruff]` table (in that order within one
  directory), plus the files it `extend`s; `target-version` may come from
  `requires-python` in a nearby `pyproject.toml`. The cache key therefore
  covers every such file from the file's directory up to the root (a safe
  superset) and their `extend` chains.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from signalint.engines import adapter_paths as paths
from signalint.engines.adapter_paths import config_walk
from signalint.engines.base import (
    EngineContext,
    EngineDefaults,
    EngineOutputError,
    EngineSpec,
    Provision,
)
from signalint.engines.positions import SourceText
from signalint.engines.python_configs import load_toml, relative_config, tool_table
from signalint.model import Issue, Severity
from signalint.process import Command

if TYPE_CHECKING:
    from signalint.process import ProcessResult

SUFFIXES = (".py", ".pyi", ".ipynb")
# In Ruff's order of precedence within one directory.
CONFIG_NAMES = (".ruff.toml", "ruff.toml", "pyproject.toml")
SYNTAX_RULE = "invalid-syntax"


def _failure_message(result: ProcessResult) -> str:
    """Ruff's own error: its headline, the chain of causes and the final detail
    ("ruff failed: Failed to load configuration `ruff.toml`: ...: unknown field")."""
    lines = [line.strip() for line in (result.stderr + "\n" + result.stdout).splitlines()]
    lines = [line for line in lines if line and not line.startswith("warning: No Python files")]
    if not lines:
        return f"exited with code {result.exit_code} and printed nothing"
    causes = [line[len("Cause:") :].strip() for line in lines if line.startswith("Cause:")]
    if not causes:
        return lines[0]
    # After the causes Ruff may quote the offending lines ("3 | key = ...",
    # "| ^^^") and then say what is wrong with them.
    last = max(i for i, line in enumerate(lines) if line.startswith("Cause:"))
    detail = [line for line in lines[last + 1 :] if "|" not in line]
    return ": ".join([lines[0], *causes, *detail[-1:]])


def _diagnostics(result: ProcessResult) -> list[dict[str, Any]]:
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:
        report = None
    if not isinstance(report, list):
        raise EngineOutputError(_failure_message(result), result.stderr or result.stdout)
    for diag in report:
        if not isinstance(diag, dict):
            raise EngineOutputError("ruff diagnostic is not an object", str(diag))
    return report


def _point(value: Any) -> tuple[int, int] | None:
    if not isinstance(value, dict):
        return None
    row, column = value.get("row"), value.get("column")
    if not isinstance(row, int) or not isinstance(column, int):
        return None
    return row, column


def _extends(root: Path, rel: str) -> list[str]:
    """The project-local configs `rel` extends (`extend`, relative to its directory)."""
    if PurePosixPath(rel).name == "pyproject.toml":
        table = tool_table(root / rel, "ruff")
    else:
        table = load_toml(root / rel)
    target = table.get("extend") if table else None
    resolved = relative_config(root, rel, target) if isinstance(target, str) else None
    if resolved is None or resolved.startswith("..") or not (root / resolved).is_file():
        return []
    return [resolved]


def is_ruff_config(root: Path, rel: str) -> bool:
    """Whether `rel` is a Ruff config: `ruff.toml`, `.ruff.toml`, or a
    `pyproject.toml` with a `[tool.ruff]` table."""
    if PurePosixPath(rel).name == "pyproject.toml":
        return tool_table(root / rel, "ruff") is not None
    return (root / rel).is_file()


def search_roots(files: Sequence[str]) -> list[str]:
    """The fewest directories whose walks cover `files`: their parent
    directories, without those inside another one of them ("." for the root)."""
    parents = sorted({PurePosixPath(f).parent.as_posix() for f in files})
    if "." in parents:
        return ["."]
    kept: list[str] = []
    for directory in parents:  # sorted: an ancestor comes before its descendants
        if not any(directory.startswith(k + "/") for k in kept):
            kept.append(directory)
    return kept


SPEC = EngineSpec(
    name="ruff",
    title="Ruff",
    kind="linter",
    language="python",
    provision=Provision("pip", "ruff", "0.17.6", "ruff", ("venv",)),
    majors=(0,),
    timeout_ms=60_000,  # it lints large repositories in about a second
    docs_url="https://docs.astral.sh/ruff/",
    fix_command="ruff check --fix",
    watch_patterns=CONFIG_NAMES,
    fallback=True,
    cache_dirs=(".ruff_cache",),
    hook_suffixes=(".py", ".pyi"),
)


class RuffEngine(EngineDefaults):
    spec = SPEC

    def detect(self, root: Path) -> str | None:
        for name in (".ruff.toml", "ruff.toml"):
            if (root / name).is_file():
                return name
        return "pyproject.toml" if is_ruff_config(root, "pyproject.toml") else None

    def relevant(self, rel_path: str) -> bool:
        # A coarse filter: Ruff's configuration decides (module docstring).
        if paths.in_node_modules(rel_path):
            return False
        return paths.has_suffix(rel_path, SUFFIXES) or rel_path.rsplit("/", 1)[-1] == (
            "pyproject.toml"
        )

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        found = paths.configs_upward(root, rel_path, CONFIG_NAMES)
        return config_walk(root, found, _extends)

    def selection(self, ctx: EngineContext, files: Sequence[str]) -> Command:
        """Ruff's directory walk over the candidates' directories (module docstring)."""
        argv = (
            str(ctx.executable),
            "check",
            "--show-files",
            "--force-exclude",
            "--no-cache",
            "--",
            *search_roots(files),
        )
        return Command(
            argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s, ok_exit_codes=frozenset({0})
        )

    def selected(self, result: ProcessResult, ctx: EngineContext) -> set[str]:
        if result.exit_code != 0:
            raise EngineOutputError(_failure_message(result), result.stderr or result.stdout)
        chosen = set()
        for line in result.stdout.splitlines():
            file = paths.project_path(ctx.root, line.strip()) if line.strip() else None
            if file is not None:
                chosen.add(file)
        return chosen

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        argv = (
            str(ctx.executable),
            "check",
            "--output-format",
            "json",
            "--no-fix",
            "--no-cache",
            "--force-exclude",
            "--",
            *files,
        )
        return Command(argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s)

    def fix(self, ctx: EngineContext, files: Sequence[str]) -> Command:
        """Apply Ruff's safe fixes (as the configuration allows) to `files` in place."""
        argv = (
            str(ctx.executable), "check", "--fix", "--no-unsafe-fixes", "--exit-zero",
            "--no-cache", "--force-exclude", "--quiet", "--", *files,
        )  # fmt: skip
        return Command(argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s)

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        issues: list[Issue] = []
        sources: dict[str, SourceText] = {}
        for diag in _diagnostics(result):
            file = paths.project_path(ctx.root, str(diag.get("filename") or ""))
            if file is None:
                continue
            source = sources.setdefault(file, SourceText(ctx.root, file))
            issues.append(self._issue(diag, file, source))
        return issues

    def _issue(self, diag: dict[str, Any], file: str, source: SourceText) -> Issue:
        start = _point(diag.get("location")) or (1, 1)
        end = _point(diag.get("end_location"))
        message = str(diag.get("message") or "")
        cell = diag.get("cell")
        if isinstance(cell, int):
            # Rows count within the notebook cell, not within the .ipynb file:
            # the cell belongs to the message (it tells diagnostics apart).
            message = f"cell {cell}: {message}"
            col = start[1]
            end_col = end[1] if end else None
        else:
            col = source.codepoint_to_utf16(*start)
            end_col = source.codepoint_to_utf16(*end) if end else None
        fix = diag.get("fix")
        fixable = isinstance(fix, dict) and fix.get("applicability") == "safe"
        severity: Severity = "warning" if diag.get("severity") == "warning" else "error"
        return Issue(
            engine=self.name,
            file=file,
            line=start[0],
            col=col,
            rule=str(diag.get("code") or SYNTAX_RULE),
            severity=severity,
            message=message,
            fixable=fixable,
            end_line=end[0] if end else None,
            end_col=end_col,
            docs_url=diag.get("url") or None,
            help=_help(fix),
        )


def _help(fix: Any) -> str | None:
    """The fix Ruff offers, saying when `ruff check --fix` would not apply it."""
    if not isinstance(fix, dict) or not fix.get("message"):
        return None
    text = str(fix["message"])
    applicability = fix.get("applicability")
    if applicability == "unsafe":
        return f"{text} (unsafe fix: `ruff check --fix --unsafe-fixes`)"
    if applicability == "display-only":
        return f"{text} (suggestion only; not applied by `ruff check --fix`)"
    return text


ENGINE = RuffEngine()
