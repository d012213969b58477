"""Pyright adapter: one whole-program `pyright --outputjson` run per check.

Provisioning: the npm package `pyright` (bin `pyright`), pinned. The PyPI
package of the same name is only a wrapper that downloads the npm package
the first time it runs, into a cache of its own outside the managed
directory and with the network needed at check time; `signalint engines
install pyright` therefore installs the npm package itself. A project's own
copy is looked for in its virtual environment (the PyPI wrapper, which the
project chose) and in its `node_modules`.

Verified against pyright 1.1.414:
- `--outputjson` prints one object on stdout: `version`, `time`,
  `generalDiagnostics` and `summary` (`filesAnalyzed`, counts). Each
  diagnostic has an absolute `file`, `severity` ("error", "warning" or
  "information"), `message` (elaborations on further lines), `range` with
  0-based `line`/`character` (UTF-16 code units, end exclusive) and `rule`
  ("reportAssignmentType"; absent for syntax errors and `reveal_type`).
- Severities: "information" becomes `warning` (the model has no
  informational level; every native diagnostic is kept, and none of them
  makes pyright fail). A diagnostic without a rule takes its severity as
  rule ("error", "information").
- Exit codes: 0 no errors, 1 errors, 3 a config file that cannot be parsed
  (the diagnostics printed then use default settings; the check reports
  the config error instead), 2 and 4 fatal or usage errors.
- `--outputjson` cannot be combined with `--verbose`, `--stats` or
  `--dependencies`, so the run does not say which files it read. The
  program is therefore a safe superset computed from the disk (`program`):
  every `.py`/`.pyi` file of the project outside virtual environments,
  plus those under `extraPaths` and `stubPath` outside the project.
  Installed packages are covered by the environment stamp in the program
  key (the interpreter pyright resolves imports with, and the names of the
  distributions installed for it); the bundled typeshed by pyright's
  version.
- The files pyright checks are its `include` entries (default: the config
  file's directory; directories, files or globs with `**`, `*`, `?`)
  minus `exclude` and what it always leaves out: `**/node_modules`,
  `**/__pycache__`, `**/.*`, `**/__editable__.*` and any directory holding
  a virtual environment (`pyvenv.cfg`). `checked` lists those files.
- Configuration: `pyrightconfig.json`, else `[tool.pyright]` in
  `pyproject.toml`, in the project root or a parent up to the repository
  root, plus the files it `extends`. `--pythonpath` names the project's
  interpreter unless the config chooses one (`venvPath`/`venv`).
- Pyright writes nothing: no cache, no build output.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from signalint.engines import adapter_paths as paths
from signalint.engines import pyenv, pyprogram
from signalint.engines.adapter_paths import config_walk
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
from signalint.engines.python_configs import declares, relative_config, tool_table
from signalint.model import Issue, Severity
from signalint.process import Command

if TYPE_CHECKING:
    from signalint.process import ProcessResult

SUFFIXES = pyprogram.SUFFIXES
CONFIG_NAMES = ("pyrightconfig.json", "pyproject.toml")
DOCS_BASE = "https://github.com/microsoft/pyright/blob/main/docs/configuration.md#"


@dataclass(frozen=True, slots=True)
class Dialect:
    """Where a checker of the Pyright family reads its configuration: the
    config file names in the order it prefers them (a `pyproject.toml`
    among them read through `tables`, the first table present winning).
    Pyright itself, and basedpyright (`engines/basedpyright/adapter.py`), which
    reads Pyright's files too after its own."""

    config_names: tuple[str, ...]
    tables: tuple[str, ...]


PYRIGHT = Dialect(CONFIG_NAMES, ("pyright",))
BASEDPYRIGHT = Dialect(
    ("basedpyrightconfig.json", "pyrightconfig.json", "pyproject.toml"),
    ("basedpyright", "pyright"),
)
# Never part of the program walk (the state directory is skipped separately).
_NEVER = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".signalint"})


def _load(root: Path, rel: str, dialect: Dialect = PYRIGHT) -> dict[str, Any] | None:
    """The settings of config file `rel`, if it configures a checker of `dialect`."""
    if PurePosixPath(rel).name == "pyproject.toml":
        for table in dialect.tables:
            found = tool_table(root / rel, table)
            if found is not None:
                return found
        return None
    data = paths.load_jsonc(root / rel)
    if data is None and (root / rel).is_file():
        return {}  # pyright reads it (and reports that it cannot)
    return data if isinstance(data, dict) else None


def find_config(root: Path, dialect: Dialect = PYRIGHT) -> str | None:
    """The config file pyright reads when run in `root` (module docstring), as
    a project-relative path (`../` above the root); None when there is none."""
    directory = root
    prefix = ""
    for _ in range(paths.MAX_CONFIG_CHAIN):
        for name in dialect.config_names:
            if _load(root, prefix + name, dialect) is not None:
                return prefix + name
        if any((directory / marker).exists() for marker in (".git", ".hg")):
            return None
        if directory.parent == directory:
            return None
        directory = directory.parent
        prefix += "../"
    return None


def _extends(root: Path, rel: str, dialect: Dialect = PYRIGHT) -> list[str]:
    settings = _load(root, rel, dialect)
    target = settings.get("extends") if settings else None
    resolved = relative_config(root, rel, target) if isinstance(target, str) else None
    return [resolved] if resolved is not None and (root / resolved).is_file() else []


def config_chain(root: Path, dialect: Dialect = PYRIGHT) -> list[str]:
    """The config pyright reads and every file it `extends`, nearest first."""
    found = find_config(root, dialect)
    if not found:
        return []
    return config_walk(root, [found], lambda r, rel: _extends(r, rel, dialect))


def settings(root: Path, dialect: Dialect = PYRIGHT) -> tuple[dict[str, Any], str]:
    """The merged settings of the config chain (nearest wins) and the
    project-relative directory of the nearest config ("" for the root)."""
    chain = config_chain(root, dialect)
    merged: dict[str, Any] = {}
    for rel in reversed(chain):
        merged.update(_load(root, rel, dialect) or {})
    base = PurePosixPath(chain[0]).parent.as_posix() if chain else ""
    return merged, "" if base == "." else base


def under(root: Path, base: str, entry: str) -> str:
    """A config path `entry` (relative to the config's directory) as a root-relative one."""
    joined = os.path.normpath(os.path.join(root, base, os.path.expanduser(entry)))
    return Path(os.path.relpath(joined, root)).as_posix()


@functools.lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A root-relative pyright path pattern as a regex matching a path or a
    directory above it (`**` any directories, `*` and `?` within a name)."""
    parts = [p for p in pattern.strip("/").split("/") if p not in ("", ".")]
    while parts and parts[-1] == "**":
        parts.pop()  # "dir/**" is "dir": everything below it
    out = ""
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            out += "(?:[^/]+/)*"
            continue
        piece = "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in part)
        out += piece + ("" if last else "/")
    if not parts:
        out = ""
    return re.compile(out if out else r"(?:)")


def _matches(regex: re.Pattern[str], rel: str) -> bool:
    if regex.pattern == "(?:)":
        return True  # the root itself: everything
    candidate = rel
    while True:
        if regex.fullmatch(candidate):
            return True
        if "/" not in candidate:
            return False
        candidate = candidate.rsplit("/", 1)[0]


def _auto_excluded(name: str) -> bool:
    return (
        name.startswith(".")
        or name in ("node_modules", "__pycache__")
        or name.startswith("__editable__.")
    )


def _walk(top: Path, skip: Mapping[str, None]) -> Iterator[tuple[str, list[str]]]:
    """(directory, Python file names) below `top`, pruning version control,
    dependencies, caches, virtual environments and the directories in `skip`."""
    for directory, dirs, files in os.walk(top):
        dirs[:] = [
            d
            for d in dirs
            if d not in _NEVER
            and os.path.join(directory, d) not in skip
            and not os.path.isfile(os.path.join(directory, d, "pyvenv.cfg"))
        ]
        yield directory, [f for f in files if f.endswith(SUFFIXES)]


def checked_files(root: Path, dialect: Dialect = PYRIGHT) -> list[str]:
    """Root-relative POSIX paths of the files pyright checks (module docstring).

    Patterns are relative to the config file's directory, which may lie
    above the root; only files inside the root are listed.
    """
    config, base = settings(root, dialect)
    raw_include = config.get("include")
    include = (
        [e for e in raw_include if isinstance(e, str)] if isinstance(raw_include, list) else []
    )
    raw_exclude = config.get("exclude")
    exclude = (
        [e for e in raw_exclude if isinstance(e, str)] if isinstance(raw_exclude, list) else []
    )
    home = os.path.normpath(os.path.join(root, base))
    includes = [glob_regex(_relative(home, e)) for e in include or ["."]]
    excludes = [glob_regex(_relative(home, e)) for e in exclude]
    found: list[str] = []
    for directory, files in _walk(root, {}):
        rel_dir = Path(os.path.relpath(directory, home)).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        if any(_auto_excluded(part) for part in rel_dir.split("/") if part not in ("", "..")):
            continue
        if rel_dir and any(_matches(x, rel_dir) for x in excludes):
            continue
        for name in files:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if name.startswith(".") or any(_matches(x, rel) for x in excludes):
                continue
            if any(_matches(i, rel) for i in includes):
                found.append(Path(os.path.relpath(os.path.join(directory, name), root)).as_posix())
    return sorted(found)


def _relative(home: str, entry: str) -> str:
    """A config path `entry` as a path relative to the config's directory `home`."""
    joined = os.path.normpath(os.path.join(home, os.path.expanduser(entry)))
    return Path(os.path.relpath(joined, home)).as_posix()


def interpreter(ctx: EngineContext, dialect: Dialect = PYRIGHT) -> Path | None:
    """The interpreter pyright resolves imports with: the config's
    `venvPath`/`venv`, else the project's, else `python3`/`python` on PATH."""
    config, base = settings(ctx.root, dialect)
    venv = config.get("venv")
    if isinstance(venv, str) and venv:
        venv_path = config.get("venvPath")
        parent = under(ctx.root, base, venv_path if isinstance(venv_path, str) else ".")
        return ctx.root / parent / venv / "bin" / "python"
    own = pyenv.interpreter(ctx.root, ctx.python)
    if own is not None:
        return own
    found = shutil.which("python3") or shutil.which("python")
    return Path(found) if found else None


def _diagnostics(result: ProcessResult) -> list[dict[str, Any]]:
    text = result.stdout
    report = pyprogram.json_report(text)
    if not isinstance(report, dict) or not isinstance(report.get("generalDiagnostics"), list):
        said = next(
            (s.strip() for s in (result.stderr + "\n" + text).splitlines() if s.strip()), ""
        )
        raise EngineOutputError(
            said or f"exited with code {result.exit_code} and printed nothing",
            result.stderr or text,
        )
    for diag in report["generalDiagnostics"]:
        if not isinstance(diag, dict):
            raise EngineOutputError("pyright diagnostic is not an object", str(diag))
    return list(report["generalDiagnostics"])


def _position(range_: Any, key: str) -> tuple[int, int] | None:
    point = range_.get(key) if isinstance(range_, dict) else None
    if not isinstance(point, dict):
        return None
    line, character = point.get("line"), point.get("character")
    if not isinstance(line, int) or not isinstance(character, int):
        return None
    return line + 1, character + 1


SPEC = EngineSpec(
    name="pyright",
    title="Pyright",
    kind="compiler",
    language="python",
    provision=Provision("npm", "pyright", "1.1.414", "pyright", ("venv", "node_modules")),
    majors=(1,),
    timeout_ms=300_000,  # a cold run of a large program on two shared cores
    docs_url="https://microsoft.github.io/pyright/",
    whole_program=True,
    watch_patterns=CONFIG_NAMES,
    checks_buffer=True,
    warm_driver="signalint.engines.pyright.warm",
)


def basedpyright_claims(root: Path) -> str | None:
    """The root file that says the project checks with basedpyright rather
    than Pyright: `basedpyrightconfig.json`, `[tool.basedpyright]` in
    `pyproject.toml`, or basedpyright among the dependencies `pyproject.toml`
    declares (docs/engines.md, "basedpyright and Pyright"); None otherwise."""
    if _load(root, "basedpyrightconfig.json", BASEDPYRIGHT) is not None:
        return "basedpyrightconfig.json"
    if tool_table(root / "pyproject.toml", "basedpyright") is not None:
        return "pyproject.toml"
    if declares(root / "pyproject.toml", "basedpyright"):
        return "pyproject.toml"
    return None


class PyrightEngine(EngineDefaults):
    spec = SPEC
    dialect = PYRIGHT
    docs_base = DOCS_BASE

    def detect(self, root: Path) -> str | None:
        """A root config file of Pyright's, unless basedpyright claims the
        project: it then checks those files instead (`basedpyright_claims`)."""
        found = next((n for n in CONFIG_NAMES if _load(root, n) is not None), None)
        return None if found is None or basedpyright_claims(root) else found

    def relevant(self, rel_path: str) -> bool:
        return pyprogram.relevant(rel_path)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        return config_chain(root, self.dialect)

    def extra_args(self, ctx: EngineContext) -> list[str]:
        """Arguments a dialect adds to the command (basedpyright's baseline)."""
        return []

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        """The whole program as configured (module docstring); `files` are ignored."""
        argv = [str(ctx.executable), "--outputjson", *self.extra_args(ctx)]
        config, _ = settings(ctx.root, self.dialect)
        python = pyenv.interpreter(ctx.root, ctx.python)
        if python is not None and not config.get("venv"):
            argv += ["--pythonpath", str(python)]
        return Command(argv=tuple(argv), cwd=ctx.root, timeout_s=ctx.timeout_s)

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        issues = []
        for diag in _diagnostics(result):
            file = paths.project_path(ctx.root, str(diag.get("file") or ""))
            if file is not None:
                issues.append(self._issue(diag, file))
        return issues

    def _issue(self, diag: dict[str, Any], file: str) -> Issue:
        start = _position(diag.get("range"), "start") or (1, 1)
        end = _position(diag.get("range"), "end")
        raw_severity = str(diag.get("severity") or "error")
        severity: Severity = "error" if raw_severity == "error" else "warning"
        rule = diag.get("rule")
        return Issue(
            engine=self.name,
            file=file,
            line=start[0],
            col=start[1],
            rule=str(rule) if rule else raw_severity,
            severity=severity,
            message=str(diag.get("message") or ""),
            end_line=end[0] if end else None,
            end_col=end[1] if end else None,
            docs_url=self.docs_base + str(rule) if rule else None,
        )

    def key_configs(self, ctx: EngineContext) -> list[str]:
        """Every config file name the checker reads in the root (a file
        appearing there takes over) and the chain it reads now."""
        configs = list(self.dialect.config_names)
        return configs + [c for c in config_chain(ctx.root, self.dialect) if c not in configs]

    def program_key(self, ctx: EngineContext) -> ProgramKey | None:
        """`key_configs` and the environment."""
        stamp = pyenv.environment_stamp(interpreter(ctx, self.dialect), ctx.root)
        return ProgramKey(configs=tuple(self.key_configs(ctx)), extra=json.dumps({"env": stamp}))

    def program(
        self,
        results: Sequence[ProcessResult],
        ctx: EngineContext,
        memory: Memory | None,
        changed: frozenset[str],
    ) -> Program:
        """A superset of what pyright read, and what it checked (module docstring)."""
        root = str(ctx.root)
        skip = dict.fromkeys([str(ctx.state_dir)])
        inputs: dict[str, None] = {}
        for directory, files in _walk(ctx.root, skip):
            inputs.update(dict.fromkeys(os.path.join(directory, f) for f in files))
        config, base = settings(ctx.root, self.dialect)
        extra = config.get("extraPaths")
        outside = [e for e in extra if isinstance(e, str)] if isinstance(extra, list) else []
        stubs = config.get("stubPath")
        outside += [stubs] if isinstance(stubs, str) else []
        for entry in outside:
            rel = under(ctx.root, base, entry)
            if rel.startswith("..") and (ctx.root / rel).is_dir():
                for directory, files in _walk(ctx.root / rel, skip):
                    inputs.update(
                        dict.fromkeys(os.path.normpath(os.path.join(directory, f)) for f in files)
                    )
        listed = checked_files(ctx.root, self.dialect)
        checked = tuple(os.path.join(root, rel) for rel in listed)
        return Program(inputs=tuple(inputs), checked=checked)


ENGINE = PyrightEngine()
