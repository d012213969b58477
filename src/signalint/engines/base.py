"""The engine plug-in interface (docs/architecture.md, "Engines").

An engine is one package (`engines/<name>/`) and one line in
`signalint.engines.registry`. Its `adapter` module exposes `ENGINE`, an
object that satisfies `Engine`: a frozen `EngineSpec` with everything
generic code needs to know about it (provisioning, default timeout, kind,
docs, fix command, options, the config files that enable it or change its
results, its warm driver), plus pure functions that decide which files it
reads, build `Command`s and parse `ProcessResult`s into `Issue`s. No other
module names an engine: `config`, `init`, `watch`, clustering, SARIF,
`doctor`, resolution, git hooks, the language server, the warm registry and
the server all read the registry and the specs.

Adapters never start processes: the shared runner (`engines.runner`) does
resolve -> probe -> command(s) -> `process.run` -> parse for every engine,
and the program cache (`engines.program`) does it for whole-program engines.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from signalint.process import Command, ProcessResult

if TYPE_CHECKING:
    from signalint.model import Issue, IssueMemo

EngineKind = Literal["linter", "compiler"]
Installer = Literal["npm", "pip"]
Language = Literal["javascript", "python"]
# Where a project keeps its own copy of an engine, in resolution order.
LocalPlace = Literal["node_modules", "venv"]


@dataclass(frozen=True, slots=True)
class Provision:
    """How `signalint engines install` provides the engine, and where a
    project's own copy is looked for first.

    `package` is installed at exactly `version` with `installer` into the
    managed directory; `bin_name` is the executable it provides. `local`
    lists where the project's own copy may live, in resolution order.
    """

    installer: Installer
    package: str
    version: str
    bin_name: str
    local: tuple[LocalPlace, ...]
    # Pinned packages installed beside it (`package@version`), and the
    # managed directory's subdirectory it gets as an npm prefix of its own
    # ("": the shared one). The component checkers need TypeScript's
    # JavaScript API (5 or 6) where the shared prefix pins TypeScript 7.
    companions: tuple[str, ...] = ()
    prefix: str = ""

    @property
    def requirement(self) -> str:
        """`package@version` for npm, `package==version` for pip."""
        sep = "@" if self.installer == "npm" else "=="
        return f"{self.package}{sep}{self.version}"


@dataclass(frozen=True, slots=True)
class EngineSpec:
    """What generic code knows about an engine, as data.

    - `title`: how people name it in prose ("TypeScript" for tsc).
    - `kind`: a compiler type-checks a program; a linter checks files.
    - `language`: the projects it belongs to (`init` enables engines of the
      languages it finds, and `fallback` linters only there).
    - `whole_program`: runs once on its configured program and ignores file
      lists; its results are kept by the program cache (`WholeProgram`).
    - `timeout_ms`: the default deadline (`timeoutsMs.<name>` overrides).
    - `options`: the engine's config options and their defaults; the value
      type of each default is the accepted type.
    - `fix_command`: what a person runs to apply its safe fixes, if any.
    - `watch_patterns`: base-name globs of config files whose change can
      alter any file's result (`watch` re-checks fully on them).
    - `fallback`: `init` enables it when the project configures no other
      linter of its language (D21: never beside the linter it chose).
    - `per_package`: a whole-program engine that, in a planned JavaScript
      workspace (`monorepoMode`), checks each package's own program (the
      package directory as its target), in dependency order.
    - `from_packages`: a `per_package` engine a workspace's packages bring
      (the component checkers): in a planned workspace it also runs where a
      package checked detects it while the root's settings do not name it,
      and each package runs its own executable first (its
      `node_modules/.bin`, then the root's: `resolve.resolve`'s `package`).
    - `cache_dirs`: directory names the engine writes into a project when
      run with its defaults (its own caches). Signalint never lets it write
      them there (D18), and a shadow copy leaves them out.
    - `majors`: the major versions whose command line and output the
      adapter knows (each with a fixture of the real engine in tests/); a
      run of another version still runs, but its outcome is a coverage gap
      naming the version (`reads`, D17). Empty: every version.
    - `replaces`: engines this one makes redundant when both are enabled
      (vue-tsc checks tsc's program and its components): the replaced
      engine is not run (`Config.enabled_engines`, `Config.replaced_by`).
    - `hook_suffixes`: for an engine whose configuration decides what it
      lints (its `relevant` accepts any text file), the suffixes a git
      hook's file must have for it to take the file (`hook_files`); empty:
      its `relevant` decides.
    - `checks_buffer`: a whole-program engine the language server runs on
      an unsaved buffer in its shadow copy (`lsp/backend.py`); the others
      answer on save.
    - `warm_driver`: the module (dotted name) whose `DRIVER` keeps the
      engine warm (`warm/registry.py`, D23); empty: always run cold.
    - `cache_files`: names of the caches the engine may leave in a project
      when asked to (`.eslintcache`), which no run needs to read.
    """

    name: str
    title: str
    kind: EngineKind
    language: Language
    provision: Provision
    timeout_ms: int
    docs_url: str
    whole_program: bool = False
    fix_command: str | None = None
    options: Mapping[str, bool] = field(default_factory=dict)
    watch_patterns: tuple[str, ...] = ()
    fallback: bool = False
    per_package: bool = False
    from_packages: bool = False
    cache_dirs: tuple[str, ...] = ()
    majors: tuple[int, ...] = ()
    replaces: tuple[str, ...] = ()
    hook_suffixes: tuple[str, ...] = ()
    checks_buffer: bool = False
    warm_driver: str = ""
    cache_files: tuple[str, ...] = ()

    def reads(self, version: str) -> bool:
        """Whether the adapter knows `version` (one of `majors`); an
        unknown version ("unknown", unparsable) is not held against it."""
        major = version_major(version)
        return not self.majors or major is None or major in self.majors

    def versions_read(self) -> str:
        """The majors the adapter reads, for people: "1.x, 2.x"."""
        return ", ".join(f"{major}.x" for major in self.majors) or "every version"

    def unread_version(self, version: str) -> str | None:
        """The coverage gap of a run of `version` when the adapter does not
        know it (`reads`), else None."""
        if self.reads(version):
            return None
        return (
            f"{self.title} {version} is not a version Signalint reads "
            f"(it reads {self.versions_read()}); its output may be misread, "
            f"so this engine's results are not a complete check"
        )


def version_major(version: str) -> int | None:
    """The major number of an engine version ("1.9.4" -> 1, "v8.57.1" -> 8),
    or None when it is not a version number."""
    match = _MAJOR.match(version.strip())
    return int(match.group(1)) if match else None


_MAJOR = re.compile(r"v?(\d+)(?:\.|$)")


@dataclass(frozen=True, slots=True)
class EngineContext:
    """Everything an adapter may look at to build a command or parse output.

    `root` is the canonical project root; file arguments and parsed paths are
    project-relative POSIX strings. `options` holds the engine's options from
    the config, every key of `EngineSpec.options` present. `target` is the
    first user path of the check ("." by default); it selects a whole-program
    engine's configuration. `state_dir` is where the engine may keep state
    (its own caches, build info); a cold run gets a fresh one. `work_dir`
    is where it keeps what holds source files or links to them (tsc's
    build wrappers and their declarations), outside the project
    (`signalint.project.work_dir`); None: `state_dir` (a tree that is itself outside
    every project, such as a shadow copy). `python` is
    the project's Python interpreter (its virtual environment), if it has one.
    `issues` is the process's memo of issues already made, if any.
    """

    root: Path
    executable: Path
    timeout_s: float
    state_dir: Path
    options: Mapping[str, object] = field(default_factory=dict)
    target: str = "."
    python: Path | None = None
    work_dir: Path | None = None
    # Issues made before in this process (`model.IssueMemo`), for adapters
    # that re-report the same diagnostics run after run; None: make new ones.
    issues: IssueMemo | None = None
    # Links out of the project root the check's walk met (project-relative,
    # a directory ending in "/"; `project.outside`): an engine that finds
    # files on its own is told to leave them out where it can be.
    outside: tuple[str, ...] = ()

    # The engine's version (`resolve.engine_version`): adapters whose
    # command line differs between majors read it ("unknown": the newest).
    version: str = "unknown"

    @property
    def major(self) -> int | None:
        """The major number of `version`, None when unknown."""
        return version_major(self.version)

    @property
    def work(self) -> Path:
        """Where what holds source files goes: `work_dir`, else `state_dir`."""
        return self.work_dir or self.state_dir


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

    @property
    def spec(self) -> EngineSpec: ...

    @property
    def name(self) -> str:
        """`spec.name`."""
        ...

    def relevant(self, rel_path: str) -> bool:
        """Whether a project file (project-relative POSIX path) may be an input."""
        ...

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        """Project-relative config files that affect `rel_path` (cache keys)."""
        ...

    def detect(self, root: Path) -> str | None:
        """The root config file that means the project uses this engine, if any."""
        ...

    def default_enabled(self, root: Path) -> bool:
        """Whether the engine runs when the configuration does not say."""
        ...

    def probe(self, ctx: EngineContext) -> Command | None:
        """An optional preliminary command; None if not needed."""
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


class EngineDefaults:
    """What an engine module need not restate: subclass it and define only
    what differs (`spec`, `detect`, `relevant`, `config_files`, `command`,
    `parse`, and any optional protocol below)."""

    spec: EngineSpec

    @property
    def name(self) -> str:
        return self.spec.name

    def detect(self, root: Path) -> str | None:
        """No config file of its own: nothing to detect."""
        return None

    def default_enabled(self, root: Path) -> bool:
        """Runs where the project configures it."""
        return self.detect(root) is not None

    def probe(self, ctx: EngineContext) -> Command | None:
        """No preliminary command."""
        return None


@runtime_checkable
class ReportsLinted(Protocol):
    """An engine whose output names every file it linted, with or without findings."""

    def linted(self, result: ProcessResult, ctx: EngineContext) -> set[str]:
        """Project-relative paths the run linted. Raises EngineOutputError on garbage."""
        ...


@dataclass(frozen=True, slots=True)
class TextTool:
    """A resolved engine asked about one text on stdin: its executable, its
    deadline and its major version (None: unknown, taken as the newest)."""

    executable: Path
    timeout_s: float
    major: int | None = None


@runtime_checkable
class FormatsText(Protocol):
    """An engine that formats a text given on stdin (the settings file `init`
    writes is formatted the project's way)."""

    def format_text(self, root: Path, tool: TextTool, rel: str, text: str) -> Command:
        """The command that prints `text`, formatted as the file `rel` would be."""
        ...

    def formatted(self, result: ProcessResult, text: str) -> str:
        """The formatted text of `result`, or `text` unchanged when it cannot tell."""
        ...


@runtime_checkable
class LintsText(Protocol):
    """An engine that lints a text given on stdin as the file `rel`."""

    def lint_text(self, root: Path, tool: TextTool, rel: str, text: str) -> Command | None:
        """The command that lints `text` as `rel`; None when the project's
        configuration does not lint `rel` (no problems)."""
        ...

    def text_problems(self, result: ProcessResult) -> list[str] | None:
        """`rule: message` for each problem; None when the run failed or
        printed no report it can read."""
        ...


@runtime_checkable
class SelectsFiles(Protocol):
    """An engine that can say, without linting, which candidate files it lints."""

    def selection(self, ctx: EngineContext, files: Sequence[str]) -> Command:
        """A command whose output names the files of `files` the engine would lint."""
        ...

    def selected(self, result: ProcessResult, ctx: EngineContext) -> set[str]:
        """Project-relative paths the selection run names. Raises EngineOutputError."""
        ...


@runtime_checkable
class Reruns(Protocol):
    """An engine whose failed run a second, different command can avoid."""

    def rerun(self, result: ProcessResult, ctx: EngineContext, command: Command) -> Command | None:
        """The command to run once in place of `command`, whose run gave
        `result`; None when `result` is not such a failure."""
        ...


@dataclass(frozen=True, slots=True)
class ProgramKey:
    """What a whole-program result depends on besides its inputs' contents.

    `configs` are the config files that define the program (paths relative
    to the root; `../` is allowed), hashed by content. `extra` is any other
    text that must match (the installed packages of the project's Python
    environment, say).
    """

    configs: tuple[str, ...]
    extra: str = ""


@dataclass(frozen=True, slots=True)
class Program:
    """What one whole-program run read and checked.

    - `inputs`: absolute paths of every file the result depends on (hashed
      by content; a superset is safe, a missing input is a false cache hit).
    - `checked`: absolute paths of the project files the engine type-checked
      (coverage, D17); None means the project files among `inputs`.
    - `gap`: a part of the program the engine was expected to check but did
      not; the outcome is then `error` and nothing is stored.
    - `retry`: the engine's state could not be trusted and was removed: run
      once more (at most once).
    - `remember`: engine-specific entries for `Memory`, stored with the result
      (a run asked to retry passes its own to the retry, `run_program`).
    """

    inputs: tuple[str, ...]
    checked: tuple[str, ...] | None = None
    gap: str | None = None
    retry: bool = False
    remember: Mapping[str, bytes] = field(default_factory=dict)


class Memory(Protocol):
    """A content-addressed store a whole-program engine may read (see `Program.remember`)."""

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]: ...


@runtime_checkable
class WholeProgram(Protocol):
    """A whole-program engine: says what its results depend on."""

    def program_key(self, ctx: EngineContext) -> ProgramKey | None:
        """The config chain and environment of the selected program; None when
        freshness cannot be proven from files (the engine then always runs)."""
        ...

    def program(
        self,
        results: Sequence[ProcessResult],
        ctx: EngineContext,
        memory: Memory | None,
        changed: frozenset[str],
    ) -> Program:
        """The program of a successful run, from its results (the last is the
        check). `changed` are absolute inputs whose content changed since the
        previous record (they may invalidate the engine's own state)."""
        ...


@runtime_checkable
class SelectsProgram(Protocol):
    """A whole-program engine whose program depends on the check's first target
    (tsc: the nearest tsconfig.json). Engines without it have one program."""

    def program_for(self, root: Path, target: str) -> str:
        """The configuration a check whose first target is `target` would check.

        Raises EngineConfigError when there is none (the check reports it).
        """
        ...
