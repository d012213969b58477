"""ty adapter (Astral's type checker): one whole-program `ty check` run per check.

Provisioning: the PyPI package `ty` (one native binary), pinned; a
project's own copy is looked for in its virtual environment.

Verified against ty 0.0.104:
- `ty check` has no JSON output of its own; `--output-format gitlab` (GitLab
  Code Quality) is a JSON array, one object per diagnostic: `check_name`
  (the rule, "invalid-assignment"; "invalid-syntax" for syntax errors),
  `description` ("<rule>: <message>"), `severity` ("major" for an error,
  "minor" for a warning, "info" for information such as `reveal_type`'s
  revealed type), `location.path` (relative to the working directory) and
  `location.positions.begin`/`end` with 1-based `line` and `column`, the
  column counting code points (converted to UTF-16 here), the end
  exclusive. The other formats are text (`full`, `concise`, `github`),
  XML (`junit`) or SARIF. Rules are documented at `DOCS_BASE#<rule>`.
- Severities: "major" is `error`, "minor" and "info" are `warning` (the
  model has no informational level; every native diagnostic is kept).
- Exit codes: 0 no errors, 1 errors (or warnings under the config's
  `terminal.error-on-warning`), 2 an invalid configuration or command line
  (the reason on stderr: "ty failed" and its "Cause:" lines), 101 a panic.
- `-vv` logs, on stderr, "Checking file '<absolute path>'" for every file
  it checks: those are the run's checked files (D17), and nothing else is
  guessed. Which files it checks comes from `[src] include`/`exclude` and
  the project's ignore files (`respect-ignore-files`, on by default).
- Configuration: `ty.toml`, else `[tool.ty]` in `pyproject.toml`, of the
  project ty finds from the working directory (the root), and the user's
  `$XDG_CONFIG_HOME/ty/ty.toml` (`~/.config/ty/ty.toml`), whose content is
  part of the cache key. ty finds the project's environment itself
  (`VIRTUAL_ENV`, `.venv`); `--python` names the project's interpreter
  when Signalint knows it and the config does not choose one
  (`environment.python`).
- ty writes nothing in the project (no cache directory).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from signalint import answers
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

CONFIG_NAMES = ("ty.toml", "pyproject.toml")
DOCS_BASE = "https://docs.astral.sh/ty/reference/rules/#"
_CHECKING = re.compile(r"Checking file '(.+)'\s*$", re.MULTILINE)
_SEVERITIES: dict[str, Severity] = {"major": "error", "minor": "warning", "info": "warning"}


def settings(root: Path) -> tuple[dict[str, Any], str | None]:
    """The ty settings of the project at `root` and the file they come
    from: `ty.toml` (the whole file) over `[tool.ty]` in `pyproject.toml`."""
    if (root / "ty.toml").is_file():
        return load_toml(root / "ty.toml") or {}, "ty.toml"
    table = tool_table(root / "pyproject.toml", "ty")
    return (table, "pyproject.toml") if table is not None else ({}, None)


def user_config() -> Path:
    """The user-level config ty reads besides the project's."""
    home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(home) / "ty" / "ty.toml"


def _section(config: dict[str, Any], name: str) -> dict[str, Any]:
    found = config.get(name)
    return found if isinstance(found, dict) else {}


def _failure_message(result: ProcessResult) -> str:
    """ty's own error: "ty failed" and its causes, on one line."""
    lines = [line.strip() for line in (result.stderr + "\n" + result.stdout).splitlines()]
    said = [line for line in lines if line and not line.startswith(("INFO", "DEBUG", "WARN"))]
    said = [line for line in said if not re.match(r"^\d{4}-\d\d-\d\d ", line)]
    if not said:
        return f"exited with code {result.exit_code} and printed nothing"
    causes = [line[len("Cause:") :].strip() for line in said if line.startswith("Cause:")]
    return ": ".join([said[0], *causes]) if causes else said[0]


def _diagnostics(result: ProcessResult) -> list[dict[str, Any]]:
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:
        report = None
    if not isinstance(report, list):
        raise EngineOutputError(_failure_message(result), result.stderr[-2000:] or result.stdout)
    for diag in report:
        if not isinstance(diag, dict):
            raise EngineOutputError("ty diagnostic is not an object", str(diag))
    return report


def _point(positions: Any, key: str) -> tuple[int, int] | None:
    point = positions.get(key) if isinstance(positions, dict) else None
    if not isinstance(point, dict):
        return None
    line, column = point.get("line"), point.get("column")
    if not isinstance(line, int) or not isinstance(column, int):
        return None
    return line, column


def checked(result: ProcessResult, root: Path) -> list[str]:
    """Absolute paths of the files a `-vv` run says it checked, inside `root`."""
    prefix = os.fspath(root).rstrip(os.sep) + os.sep
    return [p for p in dict.fromkeys(_CHECKING.findall(result.stderr)) if p.startswith(prefix)]


SPEC = EngineSpec(
    name="ty",
    title="ty",
    kind="compiler",
    language="python",
    provision=Provision("pip", "ty", "0.0.104", "ty", ("venv",)),
    majors=(0,),
    timeout_ms=300_000,
    docs_url="https://docs.astral.sh/ty/",
    whole_program=True,
    watch_patterns=CONFIG_NAMES,
    warm_driver="signalint.engines.ty.warm",
)


class TyEngine(EngineDefaults):
    spec = SPEC

    def detect(self, root: Path) -> str | None:
        """`ty.toml`, `[tool.ty]`, or ty among the declared dependencies."""
        if (root / "ty.toml").is_file():
            return "ty.toml"
        if tool_table(root / "pyproject.toml", "ty") is not None:
            return "pyproject.toml"
        return "pyproject.toml" if declares(root / "pyproject.toml", "ty") else None

    def relevant(self, rel_path: str) -> bool:
        return pyprogram.relevant(rel_path)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        return [name for name in CONFIG_NAMES if (root / name).is_file()]

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        """The whole project as configured (module docstring); `files` are ignored."""
        argv = [str(ctx.executable), "check", "--output-format", "gitlab", "--no-progress", "-vv"]
        config, _ = settings(ctx.root)
        python = pyenv.interpreter(ctx.root, ctx.python)
        if python is not None and not _section(config, "environment").get("python"):
            argv += ["--python", str(python)]
        return Command(argv=tuple(argv), cwd=ctx.root, timeout_s=ctx.timeout_s)

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        issues: list[Issue] = []
        sources: dict[str, SourceText] = {}
        for diag in _diagnostics(result):
            location = diag.get("location")
            location = location if isinstance(location, dict) else {}
            file = paths.project_path(ctx.root, str(location.get("path") or ""))
            if file is None:
                continue
            source = sources.get(file) or sources.setdefault(file, SourceText(ctx.root, file))
            issues.append(self._issue(diag, location, file, source))
        return issues

    def _issue(
        self, diag: dict[str, Any], location: dict[str, Any], file: str, source: SourceText
    ) -> Issue:
        positions = location.get("positions")
        start = _point(positions, "begin") or (1, 1)
        end = _point(positions, "end")
        rule = str(diag.get("check_name") or "ty")
        message = str(diag.get("description") or "")
        if message.startswith(f"{rule}: "):
            message = message[len(rule) + 2 :]
        return Issue(
            engine=self.name,
            file=file,
            line=start[0],
            col=source.codepoint_to_utf16(*start),
            rule=rule,
            severity=_SEVERITIES.get(str(diag.get("severity")), "error"),
            message=message,
            end_line=end[0] if end else None,
            end_col=source.codepoint_to_utf16(*end) if end else None,
            docs_url=DOCS_BASE + rule,
        )

    def program_key(self, ctx: EngineContext) -> ProgramKey | None:
        """The project's config files, the user's, and the environment."""
        answers.note((str(user_config()),))  # a kept answer depends on it too
        try:
            user = hashlib.sha256(user_config().read_bytes()).hexdigest()
        except OSError:
            user = ""
        config, _ = settings(ctx.root)
        named = _section(config, "environment").get("python")
        python = pyenv.named_or_own(ctx.root, named, ctx.python)
        stamp = pyenv.environment_stamp(python, ctx.root)
        return ProgramKey(configs=CONFIG_NAMES, extra=json.dumps({"env": stamp, "user": user}))

    def program(
        self,
        results: Sequence[ProcessResult],
        ctx: EngineContext,
        memory: Memory | None,
        changed: frozenset[str],
    ) -> Program:
        """The project's Python and ignore files, and the extra search paths
        outside it (`pyprogram`); checked: what the run says it checked."""
        config, source = settings(ctx.root)
        extra = _section(config, "environment").get("extra-paths")
        entries = [e for e in extra if isinstance(e, str)] if isinstance(extra, list) else []
        found = pyprogram.searched_inputs(ctx.root, ctx.state_dir, entries, source)
        listed = checked(results[-1], ctx.root) if results else []
        return Program(inputs=found, checked=tuple(listed))


ENGINE = TyEngine()
