"""TypeScript adapter: one whole-program `tsc` run per check.

Verified against typescript 7.0.2 (the native port) and 5.9.3:
- `references` in the selected config itself (they are never inherited
  through `extends`) select build mode; a solution root has `"files": []`.
- No flag of ours changes what tsc checks: `--skipLibCheck` would also skip
  the project's own `.d.ts` files and hide their errors.
- A config with `references` is checked in build mode, on wrapper configs
  in the project's work directory, outside its tree
  (signalint.engines.tsc.build, signalint.project.work_dir): `-b --noEmit`
  would make tsc report TS6310 of its own, skip projects, and write
  `.tsbuildinfo` files beside the user's projects.
- With `--pretty false` diagnostics are `file(line,col): error TS2322: msg`
  (UTF-16 columns, paths relative to the cwd); elaborations follow on
  indented lines; config-level errors have no location (`error TS18003: ...`).
- Exit codes: 0 clean, 1 diagnostics (7.x), 2 diagnostics with outputs
  skipped (5.x, and 7.x for some config errors).
- A program whose options have errors (a missing `types` library, TS5011)
  is not type-checked at all, in `-p` and `-b` mode (7.0.2, 6.0.3, 5.7.3);
  such an error makes the outcome a coverage gap (`options_gap`).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Final

from signalint.engines import adapter_paths as paths
from signalint.engines.base import (
    EngineConfigError,
    EngineContext,
    EngineDefaults,
    EngineOutputError,
    EngineSpec,
    Memory,
    Program,
    ProgramKey,
    Provision,
)
from signalint.engines.node_env import installed_stamp
from signalint.engines.resolve import node_platform, platform_binary
from signalint.engines.tsc.build import BuildPlan, plan_build, typescript_major, typescript_package
from signalint.engines.tsc.program import build_program, config_chain
from signalint.model import Issue, IssueMemo, Reported, Severity
from signalint.process import Command, ProcessResult, node_stack_flag
from signalint.project.markers import has_js_ts_markers, has_python_markers

SUFFIXES = paths.JS_SUFFIXES
CONFIG_NAME = "tsconfig.json"
_CONFIG_FILE = re.compile(r"^tsconfig.*\.json$")
_LOCATED = re.compile(
    r"^(?P<file>.+?)\((?P<line>\d+),(?P<col>\d+)\): "
    r"(?P<category>error|warning|message|suggestion) TS(?P<code>\d+): (?P<message>.*)$"
)
# What Node prints when a run overflowed its JavaScript stack.
_STACK_OVERFLOW = "RangeError: Maximum call stack size exceeded"
_SAID = 160  # characters of tsc's message quoted in a coverage gap
_GLOBAL = re.compile(r"^(?P<category>error|warning|message) TS(?P<code>\d+): (?P<message>.*)$")


def select_config(root: Path, target: str) -> str:
    """The project-relative tsconfig chosen by the check's first target.

    "." -> the root tsconfig.json; a `tsconfig*.json` file -> itself; a
    directory or a source file -> the nearest tsconfig.json from it upward
    within the root (a directory's own first). Issues outside the target are
    filtered out by the check. Raises EngineConfigError.
    """
    candidate = Path(target)
    absolute = candidate if candidate.is_absolute() else root / candidate
    rel = paths.project_path(root, str(absolute))
    if rel is None or rel.startswith(".."):
        raise EngineConfigError(f"TypeScript target {target!r} is outside the project root")
    if rel == ".":
        rel = ""
    if rel and not (root / rel).is_dir() and _CONFIG_FILE.match(PurePosixPath(rel).name):
        if not (root / rel).is_file():
            raise EngineConfigError(f"no TypeScript configuration: {rel} does not exist")
        return rel
    directory = rel if rel == "" or (root / rel).is_dir() else PurePosixPath(rel).parent.as_posix()
    directory = "" if directory == "." else directory
    # A name inside the directory makes the upward search start at it.
    found = paths.configs_upward(root, paths.join(directory, CONFIG_NAME), (CONFIG_NAME,))
    if not found:
        where = (
            f"in {directory}/ or a directory above it up to the project root"
            if directory
            else "in the project root"
        )
        raise EngineConfigError(
            f"no TypeScript configuration: expected tsconfig.json {where} "
            "(add one, name a tsconfig*.json as the first path, or disable tsc)"
        )
    return found[0]


def _severity(category: str) -> Severity:
    return "error" if category == "error" else "warning"


SPEC = EngineSpec(
    name="tsc",
    title="TypeScript",
    kind="compiler",
    language="javascript",
    provision=Provision("npm", "typescript", "7.0.2", "tsc", ("node_modules",)),
    majors=(5, 6, 7),
    timeout_ms=180_000,  # a large program on two shared cores (see eslint)
    docs_url="https://www.typescriptlang.org/",
    whole_program=True,
    watch_patterns=("tsconfig*.json", "jsconfig*.json"),
    per_package=True,
    checks_buffer=True,
    warm_driver="signalint.engines.tsc.warm",
)


def compiler(executable: Path) -> str:
    """What to run for the `tsc` executable: TypeScript 7's is a Node script
    that finds the native compiler in the platform package
    (`@typescript/typescript-<platform>-<arch>/lib/tsc`) and runs it with the
    same arguments (or replaces itself with it, on Node 22.15 and later);
    that binary is run directly when it is found where the script would
    find it, saving a Node start (about 60 ms of a small project's 110).
    TypeScript 6 and older, and a platform or install where it is not
    found, run the executable."""
    where = node_platform()
    major = typescript_major(executable) if where is not None else None
    if where is None or major is None or major < 7:
        return str(executable)
    return platform_binary(executable, f"@typescript/typescript-{where[0]}-{where[1]}/lib/tsc")


class TscEngine(EngineDefaults):
    spec = SPEC

    def detect(self, root: Path) -> str | None:
        return paths.root_file(root, (CONFIG_NAME,))

    def default_enabled(self, root: Path) -> bool:
        # The reference enables tsc unless told otherwise, in a JS/TS project.
        # Except in a project that is only Python.
        return has_js_ts_markers(root) or not has_python_markers(root)

    def relevant(self, rel_path: str) -> bool:
        return paths.has_suffix(rel_path, SUFFIXES) and not paths.in_node_modules(rel_path)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        nearest = paths.configs_upward(root, rel_path, (CONFIG_NAME,))[:1]
        return paths.extends_chain(root, nearest)

    def program_for(self, root: Path, target: str) -> str:
        return select_config(root, target)

    def program_key(self, ctx: EngineContext) -> ProgramKey | None:
        """The selected config and its chain (`tsc_program.config_chain`),
        and the packages installed where its configs resolve imports
        (`node_env.installed_stamp`)."""
        try:
            config = select_config(ctx.root, ctx.target)
        except EngineConfigError:
            return None  # the run reports it
        chain = config_chain(ctx.root, config)
        if chain is None:
            return None
        installed = installed_stamp(ctx.root, {posixpath.dirname(c) for c in chain})
        return ProgramKey(tuple(chain), extra=installed)

    def program(
        self,
        results: Sequence[ProcessResult],
        ctx: EngineContext,
        memory: Memory | None,
        changed: frozenset[str],
    ) -> Program:
        """`--listFiles` of a project run; the build's union in build mode."""
        stdout = results[-1].stdout if results else ""
        config = select_config(ctx.root, ctx.target)
        plan = build_plan(ctx, config)
        if plan is None:
            program = Program(tuple(dict.fromkeys(program_files(stdout))))
        else:
            program = build_program(plan, stdout, memory, changed)
        gap = options_gap(_read(stdout, ctx))
        if gap is None:
            return program
        return replace(program, gap="; ".join(g for g in (program.gap, gap) if g))

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        """`tsc -p` for a plain project; `tsc -b` on wrappers for references.

        Build mode writes its wrapper configs in the work directory
        first (see signalint.engines.tsc.build); nothing else is written.
        """
        config = select_config(ctx.root, ctx.target)
        exe = compiler(ctx.executable)
        plan = build_plan(ctx, config)
        excluding = excluding_plan(ctx, config) if plan is None else None
        if excluding is not None:
            # Links out of the root: tsc checks the config through a wrapper
            # that excludes them (its `include` globs follow links).
            excluding.write()
            config = excluding.root_wrapper
        if plan is not None:
            plan.write()
            argv: tuple[str, ...] = (exe, "-b", plan.root_wrapper, "--pretty", "false")
            # --verbose names the projects built or up to date (coverage).
            argv += ("--listFiles", "--verbose")
        else:
            # No `--skipLibCheck` of our own: it would also skip the project's
            # own `.d.ts` files and hide their errors; the config decides.
            argv = (exe, "-p", config, "--noEmit", "--pretty", "false", "--listFiles")
            # TypeScript 7.0's build info misses a changed global declaration
            # (`declare const x` in a .d.ts, a `types` package): its
            # importers keep their old diagnostics. It gains 7 little on an
            # edit (docs/engines.md), so 7 and later run without one.
            major = typescript_major(ctx.executable)
            if major is not None and major < 7:
                selected = select_config(ctx.root, ctx.target)
                project_id = hashlib.sha256(selected.encode()).hexdigest()[:16]
                buildinfo = ctx.state_dir / "tsc" / project_id / "tsc.tsbuildinfo"
                argv += ("--incremental", "--tsBuildInfoFile", str(buildinfo))
        return Command(
            argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s, ok_exit_codes=frozenset({0, 1, 2})
        )

    def rerun(self, result: ProcessResult, ctx: EngineContext, command: Command) -> Command | None:
        """A run that overflowed Node's stack, again under `node` with a deeper one.

        TypeScript's incremental builder recurses once per importer when an
        exported type changes along an import chain, and overflows V8's
        default stack on chains of a few thousand modules (TypeScript 6.0.3
        on a 3,000-module chain; plain `tsc` without build info does not).
        The same arguments keep the build info, so the retry stays
        incremental and brings it up to date (docs/engines.md).
        """
        said = result.stderr + result.stdout
        if _STACK_OVERFLOW not in said or command.argv[:1] != (str(ctx.executable),):
            return None
        package = typescript_package(ctx.executable)
        node = shutil.which("node")
        script = package[0] / "bin" / "tsc" if package else None
        if node is None or script is None or not script.is_file():
            return None
        return replace(command, argv=(node, node_stack_flag(), str(script), *command.argv[1:]))

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        found = _read(result.stdout, ctx)
        if not found and result.exit_code not in (0, None):
            said = next(
                (s.strip() for s in (result.stdout + result.stderr).splitlines() if s.strip()), ""
            )
            raise EngineOutputError(
                f"exited with code {result.exit_code} without diagnostics"
                + (f": {said}" if said else ""),
                result.stdout or result.stderr,
            )
        return [item.issue(self.name, ctx.issues) for item in found if item.file is not None]


# The last output read, and what was read of it: `parse` and then `program`
# read the same run's output (a whole program's diagnostics, thousands of
# lines on every warm edit).
_last_read: tuple[str, tuple[str, str, str], list[_Pending]] | None = None


def _read(stdout: str, ctx: EngineContext) -> list[_Pending]:
    """The diagnostics of one run's output, mapped to the user's files."""
    global _last_read
    where = (str(ctx.root), ctx.target, str(ctx.work))
    last = _last_read
    if last is not None and last[0] is stdout and last[1] == where:
        return last[2]
    found = _read_output(stdout, ctx)
    _last_read = (stdout, where, found)
    return found


def _read_output(stdout: str, ctx: EngineContext) -> list[_Pending]:
    try:
        config = select_config(ctx.root, ctx.target)
    except EngineConfigError:
        config = CONFIG_NAME
    plan = build_plan(ctx, config)
    if plan is None:
        excluding = excluding_plan(ctx, config)
        if excluding is not None:
            # A message naming the wrapper names the user's config instead.
            for spelled in (excluding.root_wrapper, _relative_to(ctx.root, excluding.root_wrapper)):
                stdout = stdout.replace(spelled, config)
        return _read_plain(stdout.splitlines(), ctx.root, config)
    found: list[_Pending] = []
    # A diagnostic without a location belongs to the config of the project
    # tsc is building (build mode names it before its diagnostics).
    building = config
    open_ = False  # whether an indented line continues a diagnostic
    mapped: dict[str, tuple[str | None, int, int] | None] = {}  # reported many times
    located_in: dict[str, str | None] = {}
    for raw in stdout.splitlines():
        line = raw.rstrip()
        if open_ and line[:1].isspace() and line.strip():
            # An indented line elaborates the diagnostic above it.
            found[-1].message.append(plan.user_text(line))
            continue
        open_ = False
        project = plan.building(line)
        if project is not None:
            building = paths.project_path(ctx.root, project.config) or config
            continue
        located = _LOCATED.match(line)
        if located:
            reported = located["file"]
            if reported not in mapped:
                mapped[reported] = _wrapper_location(ctx.root, plan, reported)
            place = mapped[reported]
            if place is None:
                if reported not in located_in:
                    located_in[reported] = paths.project_path(ctx.root, reported)
                file = located_in[reported]
                row, col = int(located["line"]), int(located["col"])
            else:
                file, row, col = place
            # A diagnostic in a wrapper or any JSON file (a tsconfig of the
            # chain, say) is about the program's options, not its code.
            about_options = place is not None or reported.endswith(".json")
            rule, severity, message = _said(located, plan)
            found.append(_Pending(file, row, col, rule, severity, [message], about_options))
            open_ = True
            continue
        unlocated = _GLOBAL.match(line)
        if unlocated:
            rule, severity, message = _said(unlocated, plan)
            found.append(_Pending(building, 1, 1, rule, severity, [message], True))
            open_ = True
    return found


def _read_plain(lines: list[str], root: Path, config: str) -> list[_Pending]:
    """A plain project's diagnostics: each block (a diagnostic line and the
    indented lines that elaborate it) read once per process.

    A warm program re-prints every diagnostic of the program on every edit;
    a block read in the program's last output is the same `_Pending`, its
    issue already made. What is remembered per program is the blocks of
    its last output (bound: one output's diagnostics), so diagnostics fixed
    since are forgotten.
    """
    found: list[_Pending] = []
    program = (str(root), config)
    last = _blocks.get(program, {})
    memo: dict[str, _Pending | None] = {}
    count = len(lines)
    at = 0
    while at < count:
        line = lines[at]
        end = at + 1
        while end < count and lines[end][:1].isspace() and lines[end].strip():
            end += 1
        block = line if end == at + 1 else "\n".join(lines[at:end])
        at = end
        if block in memo:
            known = memo[block]
        elif block in last:
            known = memo[block] = last[block]
        else:
            known = memo[block] = _plain_block(block, root, config)
        if known is not None:
            found.append(known)
    _blocks[program] = memo
    while len(_blocks) > _PROGRAMS:
        _blocks.pop(next(iter(_blocks)))
    return found


def _plain_block(block: str, root: Path, building: str) -> _Pending | None:
    """What one block of `tsc -p` output says (None: not a diagnostic)."""
    first, *more = block.split("\n")
    first = first.rstrip()
    located = _LOCATED.match(first)
    if located:
        reported = located["file"]
        rule, severity, message = _said(located, None)
        file = paths.project_path(root, reported)
        if file is not None:
            file = sys.intern(file)  # one string per file, not per diagnostic
        row, col = int(located["line"]), int(located["col"])
        about_options = reported.endswith(".json")
    else:
        unlocated = _GLOBAL.match(first)
        if unlocated is None:
            return None
        file, row, col, about_options = building, 1, 1, True
        rule, severity, message = _said(unlocated, None)
    said = [message, *(m.rstrip() for m in more)]
    return _Pending(file, row, col, rule, severity, said, about_options)


def _said(match: re.Match[str], plan: BuildPlan | None) -> tuple[str, Severity, str]:
    """A diagnostic's rule, severity and first message line."""
    message = match["message"]
    # Wrapper paths in a message would send the user to our work directory.
    return (
        f"TS{match['code']}",
        _severity(match["category"]),
        plan.user_text(message) if plan else message,
    )


# Programs whose last output's blocks are remembered (the oldest forgotten).
_PROGRAMS: Final = 64
# (root, config) -> block of the program's last output -> what it says
# (None: not a diagnostic) (`_read_plain`).
_blocks: dict[tuple[str, str], dict[str, _Pending | None]] = {}


def options_gap(found: Sequence[_Pending]) -> str | None:
    """The coverage gap an error about the program's options leaves, if any.

    tsc does not type-check a program whose options have errors (a missing
    `types` library, TS5011 ...), and its output does not say whether it did,
    so any such error makes the run's coverage untrustworthy (D17): it is
    reported as an issue and named here. See docs/engines.md.
    """
    errors = [d for d in found if d.about_options and d.severity == "error"]
    if not errors:
        return None
    first = errors[0]
    said = first.message[0].strip()
    said = said if len(said) <= _SAID else said[: _SAID - 3] + "..."
    more = f" and {len(errors) - 1} more" if len(errors) > 1 else ""
    where = f" at {first.file}" if first.file else ""
    return (
        f"tsc reported an error in the TypeScript configuration ({first.rule}{where}: "
        f"{said}){more}; tsc skips type checking of a program whose "
        "options have errors, so its files may not have been type-checked"
    )


def has_references(root: Path, config: str) -> bool:
    """Whether `config` itself lists `references` (they are never inherited)."""
    data = paths.load_jsonc(root / config)
    return isinstance(data, dict) and bool(data.get("references"))


def build_plan(ctx: EngineContext, config: str) -> BuildPlan | None:
    """The build-mode wrappers for `config`, or None when it has no references.
    They exclude the links out of the root (`EngineContext.outside`)."""
    if not has_references(ctx.root, config):
        return None
    major = typescript_major(ctx.executable)
    return plan_build(ctx.root, config, ctx.work, major, ctx.outside)


def excluding_plan(ctx: EngineContext, config: str) -> BuildPlan | None:
    """For a plain config while links out of the root exist
    (`EngineContext.outside`): the wrapper (`tsc_build`) that checks
    `config` with those links excluded, run with `-p` as the config would
    be. None without such links."""
    if not ctx.outside:
        return None
    major = typescript_major(ctx.executable)
    return plan_build(ctx.root, config, ctx.work, major, ctx.outside)


def _relative_to(root: Path, path: str) -> str:
    return os.path.relpath(path, root)


def _wrapper_location(
    root: Path, plan: BuildPlan | None, reported: str
) -> tuple[str | None, int, int] | None:
    """Where a diagnostic in one of our wrapper configs belongs in the user's tree.

    None for any other file. Such diagnostics are about the project's
    `references` (TS6306, TS6053), so they point at that key of the user's
    config; the wrapper's own line and column mean nothing to the user.
    """
    if plan is None:
        return None
    absolute = os.path.normpath(os.path.join(root, reported))
    config = plan.user_config(absolute)
    if config is None:
        return None
    rel = paths.project_path(root, config)
    try:
        text = Path(config).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return rel, 1, 1
    at = text.find('"references"')
    if at < 0:
        return rel, 1, 1
    line = text.count("\n", 0, at) + 1
    return rel, line, at - (text.rfind("\n", 0, at) + 1) + 1


def program_files(stdout: str) -> list[str]:
    """The absolute paths `--listFiles` printed: the compiler's real inputs.

    They are the lines that are not diagnostics, not continuation lines and
    are absolute paths (the flag prints them after the diagnostics).
    """
    global _last_files
    last = _last_files
    if last is not None and last[0] is stdout:
        return list(last[1])  # a warm answer unchanged since the last one
    found = [
        line for line in stdout.splitlines() if line.startswith("/") and not _LOCATED.match(line)
    ]
    _last_files = (stdout, tuple(found))
    return found


# The last output `program_files` read, and what it found.
_last_files: tuple[str, tuple[str, ...]] | None = None


@dataclass(slots=True, eq=False)
class _Pending:
    """A diagnostic whose continuation lines may still follow (build mode);
    read whole, it is not changed again and makes its issue once."""

    file: str | None
    line: int
    col: int
    rule: str
    severity: Severity
    message: list[str]  # continuation lines are added
    about_options: bool
    _made: tuple[str, Issue] | None = field(default=None, init=False)

    def issue(self, engine: str, memo: IssueMemo | None) -> Issue:
        assert self.file is not None
        if memo is not None:
            made = self._made
            if made is not None and made[0] == engine:
                return made[1]
            message = "\n".join(self.message)
            said = Reported(
                engine, self.file, self.line, self.col, self.rule, self.severity, message
            )
            issue = memo.issue(said)
            self._made = (engine, issue)
            return issue
        return Issue(
            engine=engine,
            file=self.file,
            line=self.line,
            col=self.col,
            rule=self.rule,
            severity=self.severity,
            message="\n".join(self.message),
        )


ENGINE = TscEngine()
