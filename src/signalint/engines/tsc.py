"""TypeScript adapter: one whole-program `tsc` run per check.

Verified against typescript 7.0.2 (the native port) and 5.9.3:
- `--showConfig -p <config>` prints the effective config as JSON (exit 0).
  A solution root's `"files": []` is omitted from that output, but its
  `references` are kept, so `references` alone selects build mode.
- `-b <config> --noEmit --pretty false` is accepted by both versions; build
  mode writes `.tsbuildinfo` files beside composite projects.
- With `--pretty false` diagnostics are `file(line,col): error TS2322: msg`
  (UTF-16 columns, paths relative to the cwd); elaborations follow on
  indented lines; config-level errors have no location (`error TS18003: ...`).
- Exit codes: 0 clean, 1 diagnostics (7.x), 2 diagnostics with outputs
  skipped (5.x, and 7.x for some config errors).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from signalint.engines import paths
from signalint.engines.base import Command, EngineConfigError, EngineContext, EngineOutputError
from signalint.model import Issue, Severity

if TYPE_CHECKING:
    from signalint.process import ProcessResult

SUFFIXES = paths.JS_SUFFIXES
CONFIG_NAME = "tsconfig.json"
_CONFIG_FILE = re.compile(r"^tsconfig.*\.json$")
_LOCATED = re.compile(
    r"^(?P<file>.+?)\((?P<line>\d+),(?P<col>\d+)\): "
    r"(?P<category>error|warning|message|suggestion) TS(?P<code>\d+): (?P<message>.*)$"
)
_GLOBAL = re.compile(r"^(?P<category>error|warning|message) TS(?P<code>\d+): (?P<message>.*)$")


def select_config(root: Path, target: str) -> str:
    """The project-relative tsconfig chosen by the check's first target.

    "." -> the root tsconfig.json; a directory -> its own tsconfig.json (no
    fallback); a `tsconfig*.json` file -> itself; a source file -> the
    nearest tsconfig.json upward within the root. Raises EngineConfigError.
    """
    candidate = Path(target)
    absolute = candidate if candidate.is_absolute() else root / candidate
    rel = paths.project_path(root, str(absolute))
    if rel is None or rel.startswith(".."):
        raise EngineConfigError(f"TypeScript target {target!r} is outside the project root")
    if rel == ".":
        rel = ""
    if (root / rel).is_dir() or rel == "":
        config = paths.join(rel, CONFIG_NAME)
        if not (root / config).is_file():
            raise EngineConfigError(
                f"no TypeScript configuration: expected {config} (add one, or disable tsc)"
            )
        return config
    if _CONFIG_FILE.match(PurePosixPath(rel).name):
        if not (root / rel).is_file():
            raise EngineConfigError(f"no TypeScript configuration: {rel} does not exist")
        return rel
    found = paths.configs_upward(root, rel, (CONFIG_NAME,))
    if not found:
        raise EngineConfigError(
            f"no TypeScript configuration: no tsconfig.json in the directories from "
            f"{PurePosixPath(rel).parent.as_posix()} up to the project root"
        )
    return found[0]


def _local_effective(root: Path, config: str, depth: int = 0) -> dict[str, object] | None:
    """The parts of the effective config we need, read from project files.

    Follows relative `extends` (string or array; later entries win, the file
    itself wins over its bases). Returns None when the chain leaves the
    project's files (a package `extends`) or cannot be read: then the
    compiler's own `--showConfig` is asked instead. `references` are not
    inherited through `extends`, as in TypeScript.
    """
    data = paths.load_jsonc(root / config)
    if not isinstance(data, dict) or depth > paths.MAX_CONFIG_CHAIN:
        return None
    bases = data.get("extends")
    options: dict[str, object] = {}
    for base in [bases] if isinstance(bases, str) else bases or []:
        if not isinstance(base, str) or not base.startswith("."):
            return None
        chain = paths.extends_chain(root, [config])
        resolved = next((c for c in chain[1:] if _is_extends_target(config, base, c)), None)
        inherited = _local_effective(root, resolved, depth + 1) if resolved else None
        if inherited is None:
            return None
        inherited_options = inherited.get("compilerOptions")
        if isinstance(inherited_options, dict):
            options.update(inherited_options)
    own = data.get("compilerOptions")
    if isinstance(own, dict):
        options.update(own)
    return {"compilerOptions": options, "references": data.get("references") or []}


def _is_extends_target(config: str, base: str, candidate: str) -> bool:
    joined = PurePosixPath(os.path.normpath((PurePosixPath(config).parent / base).as_posix()))
    return candidate in (joined.as_posix(), f"{joined.as_posix()}.json", f"{joined}/tsconfig.json")


def _effective_config(root: Path, config: str, probe: ProcessResult | None) -> dict[str, object]:
    """`--showConfig` output when probed, else the locally read config."""
    if probe is not None and probe.exit_code == 0:
        try:
            value = json.loads(probe.stdout)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            return value
    local = _local_effective(root, config)
    if local is not None:
        return local
    raw = paths.load_jsonc(root / config)
    return raw if isinstance(raw, dict) else {}


def _severity(category: str) -> Severity:
    return "error" if category == "error" else "warning"


class TscEngine:
    name = "tsc"
    npm_package = "typescript"
    bin_name = "tsc"
    whole_program = True

    def relevant(self, rel_path: str) -> bool:
        return paths.has_suffix(rel_path, SUFFIXES) and not paths.in_node_modules(rel_path)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        nearest = paths.configs_upward(root, rel_path, (CONFIG_NAME,))[:1]
        return paths.extends_chain(root, nearest)

    def probe(self, ctx: EngineContext) -> Command | None:
        config = select_config(ctx.root, ctx.target)
        if _local_effective(ctx.root, config) is not None:
            # Reading the project's own files is enough; skipping the probe
            # saves a whole compiler start on every check.
            return None
        argv = (str(ctx.executable), "--showConfig", "-p", config)
        return Command(
            argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s, ok_exit_codes=frozenset({0})
        )

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        config = select_config(ctx.root, ctx.target)
        effective = _effective_config(ctx.root, config, probe)
        exe = str(ctx.executable)
        if effective.get("references"):
            # Project mode on a solution root (`"files": []`) checks nothing;
            # build mode checks every referenced project.
            argv: tuple[str, ...] = (exe, "-b", config, "--noEmit", "--pretty", "false")
            argv += ("--listFiles",)
        else:
            project_id = hashlib.sha256(config.encode()).hexdigest()[:16]
            buildinfo = ctx.state_dir / "tsc" / project_id / "tsc.tsbuildinfo"
            argv = (exe, "-p", config, "--noEmit", "--pretty", "false", "--listFiles")
            argv += ("--incremental", "--tsBuildInfoFile", str(buildinfo))
            options = effective.get("compilerOptions")
            if not (isinstance(options, dict) and "skipLibCheck" in options):
                argv += ("--skipLibCheck",)
        return Command(
            argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s, ok_exit_codes=frozenset({0, 1, 2})
        )

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        try:
            config = select_config(ctx.root, ctx.target)
        except EngineConfigError:
            config = CONFIG_NAME
        found: list[_Pending] = []
        mapped: dict[str, str | None] = {}  # a file is reported many times
        for raw in result.stdout.splitlines():
            line = raw.rstrip()
            if found and line[:1].isspace() and line.strip():
                # An indented line elaborates the diagnostic above it.
                found[-1].message.append(line)
                continue
            located = _LOCATED.match(line)
            if located:
                reported = located["file"]
                if reported not in mapped:
                    mapped[reported] = paths.project_path(ctx.root, reported)
                file = mapped[reported]
                found.append(_Pending(file, int(located["line"]), int(located["col"]), located))
                continue
            unlocated = _GLOBAL.match(line)
            if unlocated:
                found.append(_Pending(config, 1, 1, unlocated))
        if not found and result.exit_code not in (0, None):
            said = next(
                (s.strip() for s in (result.stdout + result.stderr).splitlines() if s.strip()), ""
            )
            raise EngineOutputError(
                f"exited with code {result.exit_code} without diagnostics"
                + (f": {said}" if said else ""),
                result.stdout or result.stderr,
            )
        return [item.issue(self.name) for item in found if item.file is not None]


def program_files(stdout: str) -> list[str]:
    """The absolute paths `--listFiles` printed: the compiler's real inputs.

    They are the lines that are not diagnostics, not continuation lines and
    are absolute paths (the flag prints them after the diagnostics).
    """
    return [
        line
        for line in stdout.splitlines()
        if os.path.isabs(line) and not _LOCATED.match(line) and not line[:1].isspace()
    ]


class _Pending:
    """A diagnostic whose continuation lines may still follow."""

    def __init__(self, file: str | None, line: int, col: int, match: re.Match[str]) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.rule = f"TS{match['code']}"
        self.severity = _severity(match["category"])
        self.message = [match["message"]]

    def issue(self, engine: str) -> Issue:
        assert self.file is not None
        return _issue(
            engine,
            self.file,
            self.line,
            self.col,
            self.rule,
            self.severity,
            "\n".join(self.message),
        )


@functools.lru_cache(maxsize=131072)
def _issue(
    engine: str, file: str, line: int, col: int, rule: str, severity: Severity, message: str
) -> Issue:
    # tsc re-reports its whole program on every run; in a long-lived server
    # most diagnostics are the ones it reported last time, so the (immutable)
    # issues are reused instead of re-hashed.
    return Issue(
        engine=engine, file=file, line=line, col=col, rule=rule, severity=severity, message=message
    )


ENGINE = TscEngine()
