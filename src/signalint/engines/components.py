"""What the component checkers (vue-tsc, svelte-check, astro check) share.

- `dependencies(root)`: the package names the project's `package.json`
  declares (dependencies of every kind), which decide whether a project
  uses a framework and its checker.
- `tsconfig_scope(root, config, suffixes)`: the project files a TypeScript
  configuration includes, by tsc's own rules (`files`, `include`, `exclude`,
  inherited through `extends` from the nearest config that sets them, each
  relative to the config that sets it, `${configDir}` meaning the checked
  config's own directory; an include whose last part has
  neither a wildcard nor an extension is a directory; `*` and `**` never
  match a name starting with "."; `node_modules`, `bower_components`,
  `jspm_packages` and the `outDir` are excluded by default). svelte-check
  and astro check diagnose exactly these files (with their own extensions
  added), and neither prints which ones it checked, so coverage (D17)
  comes from here.
- `program_inputs(root, suffixes)`: a safe superset of what such a run
  reads inside the project (D2): every file with one of `suffixes` outside
  version control and `node_modules` (installed packages are covered by
  `node_env.installed_stamp` in the program key), generated directories
  (`.svelte-kit`, `.astro`) included.
- `linked_packages(root, base)`: the workspace packages a project imports
  through links in `node_modules`, whose files are inputs as its own are.
- `ComponentChecker`: what svelte-check and astro check share as engines
  (detection, the files they may read, the program key, the program, the
  files checked), each run in its project directory (`home`): the root,
  or in a planned workspace the package checked (`EngineSpec.per_package`,
  the package directory as the target). Their adapters only build the
  command and read the output.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

from signalint.engines import adapter_paths as paths
from signalint.engines.base import (
    EngineContext,
    EngineDefaults,
    Memory,
    Program,
    ProgramKey,
)
from signalint.engines.node_env import installed_stamp
from signalint.engines.tsc.build import resolve_extends
from signalint.engines.tsc.program import config_chain
from signalint.process import ProcessResult

# Never walked for inputs or scope (installed packages have their own stamp).
_NEVER = frozenset({".git", ".hg", ".svn", "node_modules", ".signalint"})
_DEFAULT_EXCLUDES = ("node_modules", "bower_components", "jspm_packages")
_WILD = re.compile(r"[*?]")
_TEMPLATE = "${configDir}"
# A configuration's chain is followed at most this far (a loop is cut).
_CHAIN = paths.MAX_CONFIG_CHAIN


def dependencies(root: Path) -> frozenset[str]:
    """Names in `package.json`'s dependencies, devDependencies,
    peerDependencies and optionalDependencies (none when it is unreadable)."""
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return frozenset()
    if not isinstance(data, dict):
        return frozenset()
    names: set[str] = set()
    for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        table = data.get(key)
        if isinstance(table, dict):
            names.update(k for k in table if isinstance(k, str))
    return frozenset(names)


def linked_packages(root: Path, base: Path) -> list[str]:
    """Real paths of the directories inside `root`, outside every
    `node_modules`, that the project at `base` imports as installed
    packages: each dependency its `package.json` names, found in the
    nearest `node_modules` from `base` up to `root`, that is a link to such
    a directory (a workspace package, as pnpm, npm and Yarn link them), and
    theirs in turn."""
    top = os.path.realpath(root)
    seen = {os.path.realpath(base)}
    found: list[str] = []
    todo = [Path(os.path.realpath(base))]
    while todo:
        here = todo.pop()
        for name in sorted(dependencies(here)):
            real = _installed(here, top, name)
            if real is None or real in seen:
                continue
            seen.add(real)
            inside = real.startswith(top + os.sep) and "node_modules" not in Path(real).parts
            if inside and os.path.isdir(real):
                found.append(real)
                todo.append(Path(real))
    return found


def _installed(here: Path, top: str, name: str) -> str | None:
    """The real path of package `name` as Node finds it from `here`, looking
    no higher than `top`."""
    at = str(here)
    while True:
        candidate = os.path.join(at, "node_modules", name)
        if os.path.exists(candidate):
            return os.path.realpath(candidate)
        if at == top or not at.startswith(top + os.sep):
            return None
        at = os.path.dirname(at)


def walk(root: Path) -> Iterator[tuple[str, list[str]]]:
    """(project-relative directory, file names) below `root`, without
    version control, `node_modules` and Signalint's state; links to
    directories are not followed."""
    top = str(root)
    for directory, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in _NEVER)
        rel = os.path.relpath(directory, top)
        yield ("" if rel == "." else Path(rel).as_posix()), sorted(files)


def program_inputs(root: Path, suffixes: Sequence[str], configs: Sequence[str]) -> tuple[str, ...]:
    """Absolute paths of every project file ending in one of `suffixes`, and
    `configs` (project-relative, `../` allowed): see the module docstring."""
    found: dict[str, None] = {}
    ends = tuple(suffixes)
    for directory, files in walk(root):
        base = os.path.join(str(root), directory) if directory else str(root)
        found.update(dict.fromkeys(os.path.join(base, f) for f in files if f.endswith(ends)))
    for config in configs:
        found[os.path.normpath(os.path.join(str(root), config))] = None
    return tuple(found)


def _pattern(entry: str, *, include: bool) -> re.Pattern[str]:
    """A tsconfig `include` or `exclude` entry (relative to the root, POSIX)
    as a regex over project-relative paths."""
    parts = [p for p in entry.split("/") if p not in ("", ".")]
    if include and parts and not _WILD.search(parts[-1]) and "." not in parts[-1]:
        parts += ["**", "*"]  # a directory: everything below it
    out: list[str] = []
    for part in parts:
        if part == "**":
            # Any directories; for includes none starting with "." or default-excluded.
            out.append(
                r"(?:(?!(?:node_modules|bower_components|jspm_packages)/)[^/.][^/]*/)*"
                if include
                else r"(?:[^/]+/)*"
            )
            continue
        piece = "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in part)
        if include and part[:1] in ("*", "?"):
            piece = "(?!\\.)" + piece  # a wildcard never matches a leading dot
        out.append(piece + "/")
    text = "".join(out)
    text = text[:-1] if text.endswith("/") else text
    # An exclude also excludes everything below a directory it names.
    return re.compile(text if include else text + "(?:/.*)?")


def _setting(root: Path, config: str) -> tuple[dict[str, tuple[str, list[str]]], str | None]:
    """`files`, `include`, `exclude` (each with the directory of the config
    that sets it, relative to the root) and `outDir` (relative to the
    root), from the nearest config of `config`'s `extends` chain that sets
    each."""
    found: dict[str, tuple[str, list[str]]] = {}
    out_dir: str | None = None
    current: str | None = os.path.normpath(os.path.join(str(root), config))
    seen = 0
    while current is not None and seen < _CHAIN:
        seen += 1
        data = paths.load_jsonc(Path(current))
        if not isinstance(data, dict):
            break
        here = os.path.relpath(os.path.dirname(current), str(root))
        for key in ("files", "include", "exclude"):
            value = data.get(key)
            if key not in found and isinstance(value, list):
                found[key] = (here, [v for v in value if isinstance(v, str)])
        options = data.get("compilerOptions")
        if out_dir is None and isinstance(options, dict) and isinstance(options.get("outDir"), str):
            out_dir = os.path.normpath(os.path.join(here, options["outDir"]))
        base = data.get("extends")
        first = base[0] if isinstance(base, list) and base else base
        current = (
            resolve_extends(first, os.path.dirname(current)) if isinstance(first, str) else None
        )
    return found, out_dir


def _rooted(here: str, entry: str, home: str = ".") -> str | None:
    """`entry`, relative to the config directory `here`, relative to the root
    (None when it lies outside the root). `${configDir}` is the directory of
    the config being checked (`home`), wherever the entry is written."""
    if entry.startswith(_TEMPLATE):
        here, entry = home, "." + entry[len(_TEMPLATE) :]
    joined = os.path.normpath(os.path.join(here, entry))
    if joined == ".." or joined.startswith("../") or os.path.isabs(joined):
        return None
    return PurePosixPath(Path(joined).as_posix()).as_posix()


def tsconfig_scope(root: Path, config: str, suffixes: Sequence[str]) -> list[str]:
    """Project-relative files with `suffixes` that `config` includes
    (module docstring); `config` is project-relative."""
    found, out_dir = _setting(root, config)
    home = os.path.dirname(config) or "."
    files = [
        f
        for f in (
            _rooted(d, e, home) for d, entries in [found.get("files", (home, []))] for e in entries
        )
        if f
    ]
    if "include" in found:
        here, entries = found["include"]
        includes = [_rooted(here, e, home) for e in entries]
    elif "files" in found:
        includes = []
    else:
        includes = [_rooted(home, "**/*")]
    if "exclude" in found:
        here, entries = found["exclude"]
        excludes = [_rooted(here, e, home) for e in entries]
    else:
        excludes = [_rooted(home, e) for e in _DEFAULT_EXCLUDES]
        if out_dir is not None:
            excludes.append(_rooted(".", out_dir))
    include_re = [_pattern(i, include=True) for i in includes if i]
    exclude_re = [_pattern(x, include=False) for x in excludes if x]
    ends = tuple(suffixes)
    chosen: dict[str, None] = dict.fromkeys(f for f in files if f.endswith(ends))
    for directory, names in walk(root):
        for name in names:
            if not name.endswith(ends):
                continue
            rel = f"{directory}/{name}" if directory else name
            if rel in chosen:
                continue
            if any(r.fullmatch(rel) for r in include_re) and not any(
                r.fullmatch(rel) for r in exclude_re
            ):
                chosen[rel] = None
    return [f for f in chosen if (root / f).is_file()]


def nearest_config(
    root: Path, names: Sequence[str] = ("tsconfig.json", "jsconfig.json")
) -> str | None:
    """The root's own TypeScript or JavaScript configuration, if any."""
    return paths.root_file(root, names)


TS_CONFIGS = ("tsconfig.json", "jsconfig.json")


class ComponentChecker(EngineDefaults):
    """A component checker run in its project directory (module docstring).

    A subclass names its own config files (`own_configs`), the dependency
    that enables it without one (`dependency`), the files it checks
    (`suffixes`, the components' own `component`), what else it reads
    (`input_suffixes`) and the directory its run writes, if any
    (`generated`); `command` and `parse` are its own, run in `cwd(ctx)`.
    """

    own_configs: tuple[str, ...]
    dependency: str
    suffixes: tuple[str, ...]
    component: str
    input_suffixes: tuple[str, ...]
    generated: str | None = None

    def detect(self, root: Path) -> str | None:
        """Its own config file in `root`, else `package.json` naming it."""
        found = paths.root_file(root, self.own_configs)
        if found is not None:
            return found
        return "package.json" if self.dependency in dependencies(root) else None

    def relevant(self, rel_path: str) -> bool:
        if not paths.has_suffix(rel_path, self.suffixes) or paths.in_node_modules(rel_path):
            return False
        return self.generated is None or f"/{self.generated}/" not in f"/{rel_path}"

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        return self.configs(root, ".")

    def home(self, root: Path, target: str) -> str:
        """The project directory (root-relative, "." for the root) a run for
        `target` checks: the nearest directory from the target upward that
        the checker detects (a workspace package checked on its own), else
        the root."""
        rel = paths.project_path(root, str(root / target)) or "."
        directory = PurePosixPath(rel if (root / rel).is_dir() else PurePosixPath(rel).parent)
        while directory.as_posix() not in (".", ""):
            if self.detect(root / directory) is not None:
                return directory.as_posix()
            directory = directory.parent
        return "."

    def cwd(self, ctx: EngineContext) -> Path:
        """Where the run starts: its project directory (`home`)."""
        home = self.home(ctx.root, ctx.target)
        return ctx.root if home == "." else ctx.root / home

    def configs(self, root: Path, home: str) -> list[str]:
        """Root-relative: its own config in `home`, and the TypeScript
        config there with its chain."""
        base = root / home
        own = [_under(home, c) for c in (paths.root_file(base, self.own_configs),) if c]
        config = nearest_config(base, TS_CONFIGS)
        if config is None:
            return own
        config = _under(home, config)
        return own + (config_chain(root, config) or [config])

    def program_key(self, ctx: EngineContext) -> ProgramKey | None:
        """Its config files (`configs`), `extra_key`, and the packages installed."""
        home = self.home(ctx.root, ctx.target)
        config = nearest_config(ctx.root / home, TS_CONFIGS)
        if config is not None and config_chain(ctx.root, _under(home, config)) is None:
            return None  # an `extends` we cannot follow: always run
        extra = self.extra_key(ctx) + installed_stamp(ctx.root, [home])
        return ProgramKey(tuple(self.configs(ctx.root, home)), extra=extra)

    def extra_key(self, ctx: EngineContext) -> str:
        """What else its result depends on (an option), as text."""
        return ""

    def program(
        self,
        results: Sequence[ProcessResult],
        ctx: EngineContext,
        memory: Memory | None,
        changed: frozenset[str],
    ) -> Program:
        """A superset of what it read below its directory, and the files its
        config includes; its generated directory, when the run writes it
        (`writes_generated`), is its output, not an input."""
        home = self.home(ctx.root, ctx.target)
        configs = self.configs(ctx.root, home)
        base = ctx.root / home
        relative = [os.path.relpath(ctx.root / c, base) for c in configs]
        inputs = program_inputs(base, self.input_suffixes, relative)
        for linked in linked_packages(ctx.root, base):  # a workspace package it imports
            inputs += program_inputs(Path(linked), self.input_suffixes, ["package.json"])
        if self.generated is not None and self.writes_generated(ctx):
            skip = os.path.join(str(base), self.generated) + os.sep
            inputs = tuple(i for i in inputs if not i.startswith(skip))
        return Program(inputs=inputs, checked=self.checked(ctx.root, home))

    def writes_generated(self, ctx: EngineContext) -> bool:
        """Whether the run writes its generated directory."""
        return False

    def checked(self, root: Path, home: str = ".") -> tuple[str, ...]:
        """Absolute paths of the files it diagnoses: those its config in
        `home` includes, else every component file below `home`."""
        base = root / home
        config = nearest_config(base, TS_CONFIGS)
        if config is not None:
            found = tsconfig_scope(root, _under(home, config), self.suffixes)
        else:
            found = [
                _under(home, f"{d}/{n}" if d else n)
                for d, names in walk(base)
                for n in names
                if n.endswith(self.component)
            ]
        return tuple(os.path.join(str(root), f) for f in found)


def _under(home: str, rel: str) -> str:
    """`rel` (relative to `home`) relative to the root."""
    return rel if home == "." else paths.join(home, rel)
