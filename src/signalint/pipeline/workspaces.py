"""JavaScript workspaces: which packages a repository has and what needs what.

Discovery reads pnpm's `pnpm-workspace.yaml` (`packages:`) or, without it,
the `workspaces` field of the root `package.json` (npm, Yarn and Bun: an
array, or Yarn's `{"packages": [...]}`). Patterns are relative directory
globs: literal segments, `*` and `?` within one segment, `**` for any
number of segments, and `!` exclusions, which apply after every inclusion
and also exclude the descendants of a directory they match. A candidate
is a package when its `package.json` has a non-empty string `name`.
Directories named node_modules, .git, .signalint, dist, build, .next,
.turbo and .cache are never entered.

The graph has an edge A -> B (A needs B) when a dependency section of A
(dependencies, devDependencies, peerDependencies, optionalDependencies)
names B with `workspace:`, points at B's directory with `file:` or
`link:`, or names B with a version range B's own version satisfies (exact,
`^`, `~`, `*`; a small static rule, not a semver implementation), or when
a `references` entry of A's tsconfig.json points at B's directory. The
check order is topological: every package after the packages it needs,
ties by path.

`plan` applies `monorepoMode`: `off` plans nothing; `auto` returns a
warning naming what went wrong (no workspace declaration, an unreadable or
malformed one, no package matched, two packages with one name, a cycle)
and the check falls back to the root; `strict` raises `WorkspaceError`
with the same message.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from signalint.engines import adapter_paths as paths
from signalint.errors import SignalintError
from signalint.model import Issue, Scope

PNPM_FILE = "pnpm-workspace.yaml"
MANIFEST = "package.json"
DEPENDENCY_SECTIONS = (
    "dependencies",
    "devDependencies",
    "peerDependencies",
    "optionalDependencies",
)
_SKIPPED_DIRS = frozenset(
    {"node_modules", ".git", ".signalint", "dist", "build", ".next", ".turbo", ".cache"}
)
_VERSION = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?")


class WorkspaceError(SignalintError):
    """The workspace cannot be planned, or a package named by the user is not
    in it; the message names the file or package and why (CLI exit 2)."""


@dataclass(frozen=True, slots=True)
class Package:
    """One workspace package: its manifest name, project-relative directory, version."""

    name: str
    path: str
    version: str | None = None

    def contains(self, rel_path: str) -> bool:
        return rel_path == self.path or rel_path.startswith(self.path + "/")


@dataclass(frozen=True, slots=True)
class Workspace:
    """The packages in check order and, per package name, the names it needs."""

    source: str  # the file that declared the workspace
    packages: tuple[Package, ...]  # topological order
    needs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def by_name(self) -> dict[str, Package]:
        return {p.name: p for p in self.packages}

    def closure(self, names: Iterable[str]) -> list[Package]:
        """The named packages and everything they need, transitively, in check order."""
        wanted: set[str] = set()
        stack = list(names)
        while stack:
            name = stack.pop()
            if name not in wanted:
                wanted.add(name)
                stack.extend(self.needs.get(name, ()))
        return [p for p in self.packages if p.name in wanted]

    def dependents(self, names: Iterable[str]) -> list[Package]:
        """The named packages and every package that needs them, transitively."""
        wanted = set(names)
        grew = True
        while grew:
            grew = False
            for package in self.packages:
                if package.name not in wanted and wanted.intersection(self.needs[package.name]):
                    wanted.add(package.name)
                    grew = True
        return [p for p in self.packages if p.name in wanted]

    def checked(self, programs: Sequence[str] | None, scope: Scope) -> tuple[Package, ...]:
        """The packages whose programs a check runs: those named in
        `programs`, else every package whose directory meets `scope`
        (either holds the other)."""
        if programs is not None:
            wanted = set(programs)
            return tuple(p for p in self.packages if p.name in wanted)
        if scope.whole_project:
            return self.packages
        return tuple(
            p
            for p in self.packages
            if scope.contains(p.path) or any(p.contains(t) for t in scope.targets)
        )

    def affected(
        self, changed: Iterable[str], among: Sequence[Package]
    ) -> tuple[tuple[Package, ...], tuple[Package, ...]] | None:
        """`among` divided into the packages a change to the `changed` files
        can affect (those holding one and their dependents) and the others;
        None when a changed file lies outside every package (it can affect
        them all)."""
        owners = {self.owner(f) for f in changed}
        if None in owners:
            return None
        names = {p.name for p in self.dependents(p.name for p in owners if p is not None)}
        return (
            tuple(p for p in among if p.name in names),
            tuple(p for p in among if p.name not in names),
        )

    def owner(self, rel_path: str) -> Package | None:
        """The package whose directory holds `rel_path` (the deepest one)."""
        best: Package | None = None
        for package in self.packages:
            if package.contains(rel_path) and (best is None or len(package.path) > len(best.path)):
                best = package
        return best


def owned(packages: Sequence[Package], issues: Sequence[Issue]) -> dict[str | None, list[Issue]]:
    """Issues by the name of the package that holds their file (None: no package)."""
    by_depth = sorted(packages, key=lambda p: -len(p.path))
    owners: dict[str, str | None] = {}
    out: dict[str | None, list[Issue]] = {}
    for issue in issues:
        if issue.file not in owners:
            owners[issue.file] = next((p.name for p in by_depth if p.contains(issue.file)), None)
        out.setdefault(owners[issue.file], []).append(issue)
    return out


@dataclass(frozen=True, slots=True)
class Planned:
    """What `plan` decided: a workspace, or None with the fallback warning (auto)."""

    workspace: Workspace | None
    warning: str | None = None


def plan(root: Path, mode: str) -> Planned:
    """The workspace of `root` under `mode` (module docstring). Raises WorkspaceError."""
    if mode == "off":
        return Planned(None)
    try:
        return Planned(discover(root))
    except WorkspaceError as exc:
        if mode == "strict":
            raise
        return Planned(None, f"workspace planning fell back to the project root: {exc}")


def discover(root: Path) -> Workspace:
    """Find the packages and order them. Raises WorkspaceError (module docstring)."""
    source, patterns = _declared_patterns(root)
    if not [p for p in patterns if not p.startswith("!")]:
        raise WorkspaceError(f"{source} lists no package pattern")
    packages = _match(root, patterns, source)
    if not packages:
        shown = ", ".join(json.dumps(p) for p in patterns)
        raise WorkspaceError(f"no directory with a named package.json matches {source} ({shown})")
    names: dict[str, Package] = {}
    for package in packages:
        if package.name in names:
            raise WorkspaceError(
                f"two packages are named {package.name!r}: "
                f"{names[package.name].path} and {package.path}"
            )
        names[package.name] = package
    needs = {p.name: tuple(sorted(_needs(root, p, packages))) for p in packages}
    return Workspace(source, tuple(_order(packages, needs)), needs)


def _declared_patterns(root: Path) -> tuple[str, list[str]]:
    pnpm = root / PNPM_FILE
    if pnpm.is_file():
        import yaml  # here: only a pnpm workspace pays for importing it

        try:
            data = yaml.safe_load(pnpm.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise WorkspaceError(f"{PNPM_FILE} cannot be read: {_first_line(exc)}") from exc
        listed = data.get("packages") if isinstance(data, dict) else None
        return PNPM_FILE, _strings(listed, f"{PNPM_FILE}: `packages`")
    manifest = root / MANIFEST
    if not manifest.is_file():
        raise WorkspaceError(f"no {PNPM_FILE} and no {MANIFEST} with a `workspaces` field")
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise WorkspaceError(f"{MANIFEST} cannot be read: {_first_line(exc)}") from exc
    field_ = data.get("workspaces") if isinstance(data, dict) else None
    if field_ is None:
        raise WorkspaceError(f"no {PNPM_FILE} and no `workspaces` field in {MANIFEST}")
    if isinstance(field_, dict):  # Yarn classic: {"packages": [...], "nohoist": [...]}
        field_ = field_.get("packages")
    return MANIFEST, _strings(field_, f"{MANIFEST}: `workspaces`")


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _strings(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise WorkspaceError(f"{where} must be a list of directory patterns (strings)")
    return [v.strip() for v in value if v.strip()]


def _segment_regex(segment: str) -> str:
    out = []
    for char in segment:
        out.append("[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char))
    return "".join(out)


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """A directory pattern as a regex over normalized relative paths."""
    parts = [p for p in pattern.strip("/").split("/") if p not in ("", ".")]
    regex = ""
    for index, part in enumerate(parts):
        if part == "**":
            # Zero or more whole segments.
            if index == 0:
                regex += "(?:[^/]+/)*" if len(parts) > 1 else "[^/]+(?:/[^/]+)*"
            else:
                regex += "(?:/[^/]+)*"
            continue
        # A leading `**` already ends in "/".
        sep = "" if index == 0 or (index == 1 and parts[0] == "**") else "/"
        regex += sep + _segment_regex(part)
    return re.compile(regex + "$")


def _literal_prefix(pattern: str) -> tuple[str, int | None]:
    """The walk start of a pattern and how many levels below it to look (None: any)."""
    parts = [p for p in pattern.strip("/").split("/") if p not in ("", ".")]
    literal: list[str] = []
    for part in parts:
        if any(c in part for c in "*?"):
            break
        literal.append(part)
    rest = parts[len(literal) :]
    return "/".join(literal), (None if "**" in rest else len(rest))


def _directories(root: Path, start: str, depth: int | None) -> Iterable[str]:
    """Project-relative directories from `start` down `depth` levels (never skipped ones)."""
    base = root / start if start else root
    if not base.is_dir():
        return
    yield start
    stack: list[tuple[str, int]] = [(start, 0)]
    while stack:
        rel, level = stack.pop()
        if depth is not None and level >= depth:
            continue
        try:
            entries = sorted(os.scandir(root / rel if rel else root), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name in _SKIPPED_DIRS or not entry.is_dir(follow_symlinks=False):
                continue
            child = f"{rel}/{entry.name}" if rel else entry.name
            yield child
            stack.append((child, level + 1))


def _match(root: Path, patterns: Sequence[str], source: str) -> list[Package]:
    includes = [p for p in patterns if not p.startswith("!")]
    excludes = [_pattern_regex(p[1:]) for p in patterns if p.startswith("!")]
    for pattern in includes:
        if pattern.startswith("/") or ".." in pattern.split("/"):
            raise WorkspaceError(f"{source}: pattern {pattern!r} leaves the project root")
    found: dict[str, Package] = {}  # real path -> package
    for pattern in includes:
        regex = _pattern_regex(pattern)
        start, depth = _literal_prefix(pattern)
        for rel in _directories(root, start, depth):
            if not regex.match(rel) or _excluded(rel, excludes):
                continue
            package = _read_package(root, rel)
            if package is None:
                continue
            real = os.path.realpath(root / rel) if rel else os.path.realpath(root)
            if not real.startswith(os.path.realpath(root) + os.sep) and rel:
                continue  # a symlink out of the project is not one of its packages
            found.setdefault(real, package)
    return sorted(found.values(), key=lambda p: p.path)


def _excluded(rel: str, excludes: Sequence[re.Pattern[str]]) -> bool:
    parts = rel.split("/")
    return any(
        regex.match("/".join(parts[:n])) for regex in excludes for n in range(1, len(parts) + 1)
    )


def _manifest(root: Path, rel: str) -> dict[str, object] | None:
    try:
        data = json.loads((root / rel / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _read_package(root: Path, rel: str) -> Package | None:
    if not rel:
        return None  # the root itself is the workspace, not one of its packages
    data = _manifest(root, rel)
    if data is None:
        return None
    name, version = data.get("name"), data.get("version")
    if not isinstance(name, str) or not name.strip():
        return None
    return Package(name, rel, version if isinstance(version, str) else None)


def _needs(root: Path, package: Package, packages: Sequence[Package]) -> set[str]:
    by_name = {p.name: p for p in packages}
    by_dir = {os.path.realpath(root / p.path): p for p in packages}
    data = _manifest(root, package.path) or {}
    found: set[str] = set()
    base = root / package.path
    for section in DEPENDENCY_SECTIONS:
        deps = data.get(section)
        if not isinstance(deps, dict):
            continue
        for name, spec in deps.items():
            if not isinstance(spec, str):
                continue
            target: Package | None = None
            if spec.startswith(("file:", "link:")):
                target = by_dir.get(os.path.realpath(base / spec.split(":", 1)[1]))
            elif spec.startswith("workspace:"):
                # `workspace:*`, `workspace:^`, or an alias `workspace:other@*`.
                alias = spec[len("workspace:") :]
                named = alias.rsplit("@", 1)[0] if "@" in alias[1:] else name
                target = by_name.get(named)
            elif name in by_name and _satisfies(by_name[name].version, spec):
                target = by_name[name]
            if target is not None and target.name != package.name:
                found.add(target.name)
    for reference in _references(root, package):
        target = by_dir.get(reference)
        if target is not None and target.name != package.name:
            found.add(target.name)
    return found


def _references(root: Path, package: Package) -> list[str]:
    """Real directories named by `references` in the package's tsconfig.json."""
    config = root / package.path / "tsconfig.json"
    data = paths.load_jsonc(config)
    if not isinstance(data, dict) or not isinstance(data.get("references"), list):
        return []
    out = []
    for entry in data["references"]:
        ref = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(ref, str):
            continue
        target = os.path.realpath(config.parent / ref)
        out.append(os.path.dirname(target) if target.endswith(".json") else target)
    return out


def _numbers(text: str) -> tuple[int, int, int] | None:
    found = _VERSION.match(text.strip())
    if found is None:
        return None
    return (int(found[1]), int(found[2] or 0), int(found[3] or 0))


def _satisfies(version: str | None, spec: str) -> bool:
    """Whether a local package of `version` serves the range `spec` (static rule)."""
    spec = spec.strip()
    if spec in ("*", "", "latest", "x"):
        return True
    if version is None:
        return False
    have = _numbers(version)
    if have is None:
        return False
    operator = spec[0] if spec[0] in "^~=" else ""
    want = _numbers(spec[len(operator) :].lstrip("="))
    if want is None:
        return False
    if operator == "^":
        same = have[:1] == want[:1] if want[0] else have[:2] == want[:2]
        return same and have >= want
    if operator == "~":
        return have[:2] == want[:2] and have >= want
    return have == want


def _order(packages: Sequence[Package], needs: Mapping[str, Sequence[str]]) -> list[Package]:
    """Topological order (needed packages first, ties by path). Raises on a cycle."""
    remaining = {p.name: set(needs[p.name]) for p in packages}
    ordered: list[Package] = []
    while remaining:
        ready = [p for p in packages if p.name in remaining and not remaining[p.name]]
        if not ready:
            blocked = ", ".join(sorted(remaining))
            raise WorkspaceError(f"the package graph has a cycle among: {blocked}")
        for package in ready:
            del remaining[package.name]
            ordered.append(package)
        for left in remaining.values():
            left.difference_update(p.name for p in ready)
    return ordered


__all__ = ["Package", "Planned", "Workspace", "WorkspaceError", "discover", "plan"]
