"""mypy adapter: one whole-program `mypy -O json` run per check.

Verified against mypy 2.4.1:
- `-O json` prints one JSON object per line on stdout: `file` (relative to
  the cwd), 1-based `line`, `column`, `end_line`, `end_column` (-1 when
  unknown), `message`, `hint` (the notes mypy attaches to the error, joined
  by newlines, or null), `code` (null for blocking errors such as a
  duplicate module) and `severity` ("error" or "note"). A note standing on
  its own (`reveal_type`, "By default the bodies of untyped functions are
  not checked") is reported with severity "note": it becomes a `warning`
  issue (the model has no informational level; every native diagnostic is
  kept, and a note never fails a check the way an error does).
- Columns are 0-based. With the native parser (the default from 2.0, off
  with `native_parser = false` or `--no-native-parser`) a column counts
  code points minus the extra UTF-8 bytes of the non-ASCII characters
  before it (`"é"; z` puts `z` one column early, after "😀" three); with
  the old parser it is a UTF-8 byte offset, as in mypy 1.x. Both are
  converted to UTF-16 from the line's text (the native one is ambiguous
  only on lines with non-ASCII text before the position; the first
  matching position is taken).
- Exit codes: 0 clean, 1 errors, 2 a blocking error (a syntax error, a
  duplicate module: those diagnostics are still printed as JSON) or a
  fatal usage error (nothing on stdout, the reason on stderr). A malformed
  or unknown config entry is reported on stderr and mypy goes on.
- `--cache-dir` keeps mypy's cache (SQLite shards in 2.x) in the state
  directory, never `.mypy_cache` in the tree (D18); `--no-install-types`
  keeps a config's `install_types` from installing packages during a check.
- `--verbose` logs every module of the build on stderr, with its path:
  "Parsing <path> (<module>)" when it was read, "Metadata fresh for
  <module>: file <path>" when mypy's cache had it; "Found source:
  BuildSource(path='<path>', ...)" names the files it was asked to check.
  Together they are the program's real inputs (`program`).
- Targets: the config's `files`, `modules` or `packages` when set (mypy
  then needs no argument), else the project root `.`, which mypy walks
  itself, skipping what its `exclude` says and any directory named
  `site-packages`, `node_modules`, `__pycache__` or starting with a dot.
- Configuration: the first of `mypy.ini`, `.mypy.ini`, `pyproject.toml`
  with `[tool.mypy]`, `setup.cfg` with `[mypy]` in the project root, else
  in a parent directory up to the repository root (`.git`/`.hg`), as mypy
  looks for it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
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
from signalint.engines.python_configs import ini_section, relative_config, tool_table
from signalint.engines.resolve import package_version
from signalint.model import Issue, Severity
from signalint.process import Command

if TYPE_CHECKING:
    from signalint.process import ProcessResult

SUFFIXES = pyprogram.SUFFIXES
CONFIG_NAMES = ("mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg")
DOCS_BASE = "https://mypy.rtfd.io/en/stable/_refs.html#code-"
TARGET_KEYS = ("files", "modules", "packages")
_PARSING = re.compile(r"^LOG:\s+Parsing (?P<path>.+) \((?P<module>[^()\s]+)\)$")
_FRESH = re.compile(r"^LOG:\s+Metadata fresh for (?P<module>\S+): file (?P<path>.+)$")
_VERSION = re.compile(r"^LOG:\s+Mypy Version:\s+(?P<version>\S+)", re.MULTILINE)
_SOURCE = re.compile(r"^LOG:\s+Found source:\s+BuildSource\(path='(?P<path>(?:[^'\\]|\\.)*)'")


def _section(root: Path, rel: str) -> Mapping[str, Any] | None:
    """The mypy settings of config file `rel`, if it configures mypy."""
    name = PurePosixPath(rel).name
    if name == "pyproject.toml":
        return tool_table(root / rel, "mypy")
    if not (root / rel).is_file():
        return None
    found = ini_section(root / rel, "mypy")
    if found is None and name in ("mypy.ini", ".mypy.ini"):
        return {}  # mypy reads it anyway (and says the section is missing)
    return found


def find_config(root: Path) -> str | None:
    """The config file mypy reads when run in `root` (module docstring), as a
    project-relative path (`../` above the root); None when there is none."""
    directory = root
    prefix = ""
    for _ in range(paths.MAX_CONFIG_CHAIN):
        for name in CONFIG_NAMES:
            rel = prefix + name
            if _section(root, rel) is not None:
                return rel
        if any((directory / marker).exists() for marker in (".git", ".hg")):
            return None
        if directory.parent == directory:
            return None
        directory = directory.parent
        prefix += "../"
    return None


def settings(root: Path) -> Mapping[str, Any]:
    """The global mypy settings of the project's config ({} without one)."""
    config = find_config(root)
    found = _section(root, config) if config else None
    return found or {}


def _false(value: Any) -> bool:
    return value is False or (isinstance(value, str) and value.strip().lower() in ("false", "0"))


def native_parser(ctx: EngineContext, log: str = "") -> bool:
    """Whether the run's columns come from mypy's native parser (module
    docstring): the config says, else mypy's version (from its `--verbose`
    log, else its installed package), 2.0 and later by default."""
    if _false(settings(ctx.root).get("native_parser", True)):
        return False
    said = _VERSION.search(log)
    found = (
        said["version"]
        if said
        else package_version(os.path.realpath(ctx.executable), SPEC.provision)
    )
    major = found.split(".", 1)[0] if found else ""
    return not major.isdigit() or int(major) >= 2


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def utf16_column(text: str, column: int, native: bool, end: bool = False) -> int:
    """mypy's 0-based `column` on a line reading `text`, as a 1-based UTF-16 column."""
    if column < 0:
        return 1
    if text.isascii():
        return column + 1
    if not native:  # a UTF-8 byte offset
        prefix = text.encode("utf-8")[:column].decode("utf-8", errors="ignore")
        return _utf16_len(prefix) + 1
    # Native parser: code points minus the extra UTF-8 bytes before the position.
    counted = 0
    found: int | None = None
    for index, char in enumerate(text):
        if counted == column:
            if not end:
                return _utf16_len(text[:index]) + 1
            found = index
        elif found is not None:
            break
        counted += 2 - len(char.encode("utf-8"))
    if counted == column:
        found = len(text) if found is None or end else found
    if found is None:
        return column + 1
    return _utf16_len(text[:found]) + 1


def docs_url(code: str | None) -> str | None:
    return DOCS_BASE + code if code else None


SPEC = EngineSpec(
    name="mypy",
    title="mypy",
    kind="compiler",
    language="python",
    provision=Provision("pip", "mypy", "2.4.1", "mypy", ("venv",)),
    majors=(1, 2),
    timeout_ms=300_000,  # a cold run of a large program on two shared cores
    docs_url="https://mypy.readthedocs.io/",
    whole_program=True,
    watch_patterns=CONFIG_NAMES,
    cache_dirs=(".mypy_cache",),
    warm_driver="signalint.engines.mypy.warm",
)


class MypyEngine(EngineDefaults):
    spec = SPEC

    def detect(self, root: Path) -> str | None:
        return next((name for name in CONFIG_NAMES if _section(root, name) is not None), None)

    def relevant(self, rel_path: str) -> bool:
        return pyprogram.relevant(rel_path)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        config = find_config(root)
        return [config] if config else []

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        """The whole program as configured (module docstring); `files` are ignored."""
        argv = [
            str(ctx.executable),
            "-O",
            "json",
            "--no-color-output",
            "--no-error-summary",
            "--no-install-types",
            "--cache-dir",
            str(ctx.state_dir / "mypy"),
            "--verbose",
        ]
        python = pyenv.interpreter(ctx.root, ctx.python)
        if python is not None:
            argv += ["--python-executable", str(python)]
        # Links out of the root (`project.outside`): left out of mypy's
        # directory walk, which follows links. mypy adds each `--exclude` to
        # the config's own (a file named in `files` is still read: then the
        # check withholds mypy's diagnostics).
        for link in ctx.outside:
            argv += ["--exclude", "^" + re.escape(link) + ("" if link.endswith("/") else "$")]
        configured = settings(ctx.root)
        if not any(configured.get(key) for key in TARGET_KEYS):
            argv.append(".")
        return Command(
            argv=tuple(argv),
            cwd=ctx.root,
            timeout_s=ctx.timeout_s,
            ok_exit_codes=frozenset({0, 1, 2}),
        )

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        found = [line for line in result.stdout.splitlines() if line.startswith("{")]
        if not found and result.exit_code not in (0, None):
            raise EngineOutputError(_failure_message(result), result.stderr or result.stdout)
        native: list[bool] = []  # decided once, and only for a non-ASCII line

        def is_native() -> bool:
            if not native:
                native.append(native_parser(ctx, result.stderr))
            return native[0]

        issues: list[Issue] = []
        lines: dict[str, list[str] | None] = {}
        for raw in found:
            try:
                diag = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise EngineOutputError("mypy printed a line that is not JSON", raw) from exc
            if not isinstance(diag, dict):
                raise EngineOutputError("mypy diagnostic is not an object", raw)
            file = paths.project_path(ctx.root, str(diag.get("file") or ""))
            if file is None:
                continue
            if file not in lines:
                lines[file] = _read_lines(ctx.root / file)
            issues.append(self._issue(diag, file, lines[file], is_native))
        return issues

    def _issue(
        self,
        diag: dict[str, Any],
        file: str,
        text: list[str] | None,
        native: Callable[[], bool],
    ) -> Issue:
        line = _int(diag.get("line"), 1)
        end_line = _int(diag.get("end_line"), -1)
        column = _int(diag.get("column"), -1)
        end_column = _int(diag.get("end_column"), -1)

        def at(row: int, col: int, end: bool = False) -> int:
            if text is None or not 1 <= row <= len(text):
                return max(col, 0) + 1
            line_text = text[row - 1]
            if line_text.isascii():
                return max(col, 0) + 1
            return utf16_column(line_text, col, native(), end)

        code = diag.get("code")
        raw_severity = str(diag.get("severity") or "error")
        severity: Severity = "error" if raw_severity == "error" else "warning"
        has_end = end_line >= max(line, 1) and end_column >= 0
        return Issue(
            engine=self.name,
            file=file,
            line=line,
            col=at(line, column),
            rule=str(code) if code else raw_severity,
            severity=severity,
            message=str(diag.get("message") or ""),
            end_line=end_line if has_end else None,
            end_col=at(end_line, end_column, end=True) if has_end else None,
            docs_url=docs_url(str(code)) if code else None,
            help=str(diag["hint"]) if diag.get("hint") else None,
        )

    def program_key(self, ctx: EngineContext) -> ProgramKey | None:
        """Every file name mypy could take its configuration from in the root
        (a file appearing there may take over), the config it reads now,
        path plugins it names, and the environment it resolves imports in."""
        configs = list(CONFIG_NAMES)
        found = find_config(ctx.root)
        if found and found not in configs:
            configs.append(found)
        plugins = settings(ctx.root).get("plugins")
        named = plugins.split(",") if isinstance(plugins, str) else plugins or []
        for plugin in named:
            if isinstance(plugin, str) and plugin.strip().endswith(".py") and found:
                rel = relative_config(ctx.root, found, plugin.strip())
                if rel is not None and rel not in configs:
                    configs.append(rel)
        python = pyenv.interpreter(ctx.root, ctx.python)
        # Without a project interpreter mypy resolves imports in its own.
        stamp = pyenv.environment_stamp(python or _own_python(ctx.executable), ctx.root)
        extra = json.dumps({"env": stamp, "MYPYPATH": os.environ.get("MYPYPATH", "")})
        return ProgramKey(configs=tuple(configs), extra=extra)

    def program(
        self,
        results: Sequence[ProcessResult],
        ctx: EngineContext,
        memory: Memory | None,
        changed: frozenset[str],
    ) -> Program:
        """The modules of the build (read or fresh in mypy's cache) from the
        `--verbose` log; `checked` are the project files among them that are
        not installed packages (sources and the project modules they import)."""
        log = results[-1].stderr if results else ""
        inputs: dict[str, None] = {}
        sources: dict[str, None] = {}
        base = str(ctx.root)
        for line in log.splitlines():
            match = _PARSING.match(line) or _FRESH.match(line)
            if match:
                inputs[os.path.normpath(os.path.join(base, match["path"]))] = None
                continue
            source = _SOURCE.match(line)
            if source:
                sources[os.path.normpath(os.path.join(base, source["path"]))] = None
        inputs.update(sources)
        # A namespace package is logged as its directory: not a file whose
        # content can be hashed. Its modules are logged on their own, and a
        # new file in it is a new candidate, which the program cache sees.
        inputs = {path: None for path in inputs if not os.path.isdir(path)}
        prefix = base.rstrip(os.sep) + os.sep
        state = str(ctx.state_dir).rstrip(os.sep) + os.sep
        checked = tuple(
            path
            for path in inputs
            if path.startswith(prefix)
            and not pyenv.in_environment(path)
            and not path.startswith(state)
        )
        return Program(inputs=tuple(inputs), checked=checked)


def _own_python(executable: Path) -> Path | None:
    """The interpreter beside an engine's console script (its environment's)."""
    directory = Path(os.path.realpath(executable)).parent
    for name in ("python", "python3", "python.exe"):
        candidate = directory / name
        if candidate.exists():
            return candidate
    return None


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) else default


def _read_lines(path: Path) -> list[str] | None:
    try:
        return path.read_bytes().decode("utf-8", errors="replace").split("\n")
    except OSError:
        return None


def _failure_message(result: ProcessResult) -> str:
    """mypy's own complaint: the last "error:" line, else the first line it printed."""
    lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("LOG:")]
    lines += [line.strip() for line in result.stdout.splitlines() if line.strip()]
    errors = [line for line in lines if "error:" in line]
    if errors:
        return errors[-1]
    if lines:
        return lines[0]
    return f"exited with code {result.exit_code} and printed nothing"


ENGINE = MypyEngine()
