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
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

from signalint.engines import paths
from signalint.engines.tsc_build import resolve_extends

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
