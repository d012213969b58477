"""Finding engine executables and their versions; installing pinned ones (D12).

Resolution order, per engine (its `Provision.local` says which local places
apply): the project's own copy, then the managed directory that `signalint
engines install` fills with pinned versions, then PATH.

- `node_modules`: the project's `node_modules/.bin`, only when the real
  path stays inside the canonical root (a symlink cannot smuggle in an
  executable from elsewhere). For a workspace package's run of an engine
  the packages bring (`EngineSpec.from_packages`: vue-tsc, svelte-check,
  astro) the package's own `node_modules/.bin` comes first, then the
  root's (`resolve`'s `package`), as the package's own script would run it.
- `venv`: the project's virtual environment (`project_venv`): `.venv` or
  `venv` in the root (real path inside it), else the active `VIRTUAL_ENV`.

A check resolves every enabled engine once, into a `Toolchain` (with the
project's Python), and runs exactly that; a check of the same project at
another git revision (`signalint.service.baseline`) is given the current check's
toolchain instead of resolving in its copy of the old tree, so both sides
run the same binaries (D22).

The managed directory holds an npm prefix (`node_modules/.bin`) and a
Python virtual environment (`python/`) for pip-provisioned engines; since
`engines/install.py` swaps installs in whole, it is a link to the current
installed copy (an older managed directory may still be a plain one).
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import hashlib
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from signalint import answers
from signalint.engines.base import Engine, Provision
from signalint.files import write_atomic
from signalint.process import Command, run, run_blocking

VERSION_TIMEOUT_S = 30.0
_VERSION = re.compile(r"(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)")
VENV_NAMES = (".venv", "venv")

Source = Literal["project", "managed", "PATH", "missing"]


@dataclass(frozen=True)
class Resolved:
    engine: str
    path: Path | None
    source: Source


def managed_dir() -> Path:
    """Where `signalint engines install` puts pinned engines."""
    override = os.environ.get("SIGNALINT_ENGINES_DIR")
    if override:
        return Path(override).expanduser()
    import platformdirs  # the managed engines' home only: not every command's start

    return Path(platformdirs.user_cache_dir("signalint")) / "engines"


def managed_venv() -> Path:
    """The managed virtual environment of pip-provisioned engines."""
    return managed_dir() / "python"


def prepare_managed_dir(directory: Path | None = None) -> Path:
    """Create the managed directory (default `managed_dir()`) with the
    package.json npm needs to install into it."""
    directory = managed_dir() if directory is None else directory
    directory.mkdir(parents=True, exist_ok=True)
    manifest = directory / "package.json"
    if not manifest.exists():
        text = json.dumps({"name": "signalint-engines", "private": True}, indent=2) + "\n"
        write_atomic(manifest, text.encode("utf-8"), mode=0o644)
    return directory


def _bin_candidates(bin_dir: Path, bin_name: str) -> list[Path]:
    names = [bin_name]
    if os.name == "nt":
        names = [f"{bin_name}.cmd", f"{bin_name}.exe", bin_name]
    return [bin_dir / name for name in names]


def _venv_bin(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin")


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _is_venv(path: Path) -> bool:
    return (path / "pyvenv.cfg").is_file()


# A shadow copy's root -> the project it copies, while the copy exists
# (this process): resolution in a copy finds the project's own engines
# and virtual environment (symlinked into the copy, their real paths are
# outside it), exactly as a check of the project (`shadow.shadow_copy`).
_STAND_INS: dict[str, Path] = {}


@contextlib.contextmanager
def standing_in(copy: Path, project: Path) -> Iterator[None]:
    """While inside, engines resolved for `copy` are the project's."""
    _STAND_INS[os.fspath(copy)] = Path(os.path.realpath(project))
    try:
        yield
    finally:
        _STAND_INS.pop(os.fspath(copy), None)


def origin_of(root: Path) -> Path:
    """The project `root` stands in for (`standing_in`), or `root` itself."""
    return _STAND_INS.get(os.fspath(root), root)


def project_venv(root: Path, env: Mapping[str, str] | None = None) -> Path | None:
    """The project's Python virtual environment, if it has one.

    `.venv` or `venv` in the root whose real path stays inside the root,
    else the active `VIRTUAL_ENV` (the one the user chose by activating it).
    """
    env = os.environ if env is None else env
    canonical_root = os.path.realpath(origin_of(root))
    for name in VENV_NAMES:
        candidate = Path(canonical_root) / name
        if _is_venv(candidate) and _inside(os.path.realpath(candidate), canonical_root):
            return candidate
    active = env.get("VIRTUAL_ENV", "")
    if active and _is_venv(Path(active)):
        return Path(active)
    return None


def project_python(root: Path) -> Path | None:
    """The interpreter of the project's virtual environment, if any."""
    venv = project_venv(root)
    if venv is None:
        return None
    for name in ("python", "python3", "python.exe"):
        candidate = _venv_bin(venv) / name
        if candidate.exists():
            return candidate
    return None


def _homes(root: Path, package: str) -> list[str]:
    """Where a run for `package` ("." the root) looks for installed packages:
    the package's directory, then the root (canonical paths)."""
    canonical_root = os.path.realpath(origin_of(root))
    if package in (".", ""):
        return [canonical_root]
    return [os.path.normpath(os.path.join(canonical_root, package)), canonical_root]


def _local(provision: Provision, root: Path, package: str = ".") -> Path | None:
    canonical_root = os.path.realpath(origin_of(root))
    places: list[tuple[Path, str]] = []
    for place in provision.local:
        if place == "node_modules":
            homes = _homes(root, package)
            places += [(Path(home) / "node_modules" / ".bin", canonical_root) for home in homes]
            continue
        venv = project_venv(root)
        if venv is not None:
            places.append((_venv_bin(venv), os.path.realpath(venv)))
    for bin_dir, inside in places:
        for candidate in _bin_candidates(bin_dir, provision.bin_name):
            if _executable(candidate) and _inside(os.path.realpath(candidate), inside):
                return candidate
    return None


def _managed_bin(provision: Provision, directory: Path | None = None) -> Path:
    directory = managed_dir() if directory is None else directory
    if provision.installer == "npm":
        prefix = directory / provision.prefix if provision.prefix else directory
        return prefix / "node_modules" / ".bin"
    return _venv_bin(directory / "python")


def managed_executable(engine: Engine, directory: Path | None = None) -> Path | None:
    """`engine`'s executable in the managed directory (default `managed_dir()`), if there."""
    provision = engine.spec.provision
    for candidate in _bin_candidates(_managed_bin(provision, directory), provision.bin_name):
        if _executable(candidate):
            return candidate
    return None


_INSTALL_STATES = (".package-lock.json", ".modules.yaml", ".yarn-state.yml")


def resolve(engine: Engine, root: Path, package: str = ".") -> Resolved:
    """Find `engine`'s executable for the project at `root` (see module
    docstring); `package` (root-relative) is the workspace package a run is
    for, whose own `node_modules/.bin` is searched first."""
    spec = engine.spec
    provision = spec.provision
    resolved = _resolve(engine, root, package)
    if resolved.path is not None:
        # What an answer kept for replay depends on (`answers`): the
        # executable, the manifest naming its version, and the places
        # searched before it, where another could appear.
        real = os.path.realpath(resolved.path)
        answers.note(
            (str(resolved.path), real, os.path.join(os.path.dirname(real), "package.json"))
        )
    canonical_root = os.path.realpath(origin_of(root))
    searched: list[str] = []
    for home in _homes(root, package):
        modules = os.path.join(home, "node_modules")
        searched += [os.path.join(modules, ".bin"), modules]
        # What package managers rewrite on every install into node_modules.
        searched += [os.path.join(modules, name) for name in _INSTALL_STATES]
    searched += [os.path.join(canonical_root, name) for name in VENV_NAMES]
    if resolved.source != "project":
        searched.append(str(_managed_bin(provision)))
    if resolved.source in ("PATH", "missing"):
        searched += os.environ.get("PATH", "").split(os.pathsep)
    answers.note(searched)
    return resolved


def _resolve(engine: Engine, root: Path, package: str) -> Resolved:
    spec = engine.spec
    provision = spec.provision
    local = _local(provision, root, package)
    if local is not None:
        return Resolved(spec.name, local, "project")
    managed = managed_executable(engine)
    if managed is not None:
        return Resolved(spec.name, managed, "managed")
    found = shutil.which(provision.bin_name)
    if found:
        return Resolved(spec.name, Path(found), "PATH")
    return Resolved(spec.name, None, "missing")


@dataclass(frozen=True, slots=True)
class Toolchain:
    """The executables one check runs: each engine's resolution (by name),
    the project's Python interpreter (None: the project has none) and, for
    the engines a workspace's packages bring (`EngineSpec.from_packages`),
    each package's own (by engine name, then package directory)."""

    engines: Mapping[str, Resolved]
    python: Path | None
    packages: Mapping[str, Mapping[str, Resolved]] = field(default_factory=dict)

    def for_package(self, name: str, package: str) -> Resolved | None:
        """Engine `name`'s executable for the package at `package` (None: the engine's)."""
        return self.packages.get(name, {}).get(package)


def toolchain(root: Path, engines: Sequence[Engine], packages: Sequence[str] = ()) -> Toolchain:
    """What a check of the project at `root` with `engines` runs, in the
    workspace packages at `packages` (root-relative; module docstring)."""
    own = {
        e.name: {p: resolve(e, root, p) for p in packages}
        for e in engines
        if e.spec.from_packages and packages
    }
    return Toolchain({e.name: resolve(e, root) for e in engines}, project_python(root), own)


def package_manifest_digest(real: str) -> str:
    """Digest of the package.json owning `real` ("" if none).

    npm extracts packages with a fixed mtime, and a launcher script can be
    byte-identical across releases, so the executable's own stat alone does
    not notice an upgrade; the owning manifest (which names the version) does.
    """
    directory = Path(real).parent
    for _ in range(4):
        manifest = directory / "package.json"
        answers.note((str(manifest),))
        try:
            return hashlib.sha256(manifest.read_bytes()).hexdigest()
        except OSError:
            directory = directory.parent
    return ""


def executable_key(path: Path) -> str | None:
    """What identifies an engine executable's version: its real path, size,
    mtime and the digest of the npm manifest owning it (npm can leave an
    upgraded launcher with the same size and mtime). None if it is gone."""
    real = os.path.realpath(path)
    try:
        stat = os.stat(real)
    except OSError:
        return None
    return f"{real}:{stat.st_mtime_ns}:{stat.st_size}:{package_manifest_digest(real)}"


def version_command(path: Path, timeout_s: float = VERSION_TIMEOUT_S) -> Command:
    """`<path> --version`, run beside the real executable."""
    return Command(
        argv=(str(path), "--version"),
        cwd=Path(os.path.realpath(path)).parent,
        timeout_s=min(VERSION_TIMEOUT_S, timeout_s),
        ok_exit_codes=frozenset({0}),
    )


def version(path: Path, provision: Provision | None = None) -> str | None:
    """The engine's version: from its package's metadata when that package
    owns `path` (no process), else `<path> --version`, parsed. None when the
    executable is gone or does not say."""
    if not os.path.exists(path):
        return None
    found = package_version(os.path.realpath(path), provision) if provision else None
    if found is None:
        result = run_blocking(version_command(path))
        found = parse_version(result.stdout) if result.exit_code == 0 else None
    return found


class VersionUnanswered(Exception):
    """An engine's `--version` did not answer within `seconds`: an engine
    that hangs before it is asked to check is not started again."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"did not answer `--version` within {seconds:g} s")
        self.seconds = seconds


class VersionBook(Protocol):
    """Where engine versions are remembered, by `executable_key`."""

    def version_for(self, exe_key: str) -> str | None: ...

    def remember_version(self, exe_key: str, version: str, *, asked: bool) -> None: ...


class Unremembered:
    """A `VersionBook` that keeps nothing: a check without the cache still
    tells its engines' versions (adapters and the coverage of a version
    they do not read depend on them), finding them afresh."""

    def version_for(self, exe_key: str) -> str | None:
        return None

    def remember_version(self, exe_key: str, version: str, *, asked: bool) -> None:
        return None


async def engine_version(
    resolved: Resolved, provision: Provision, timeout_s: float, book: VersionBook
) -> str:
    """The version of a resolved engine ("unknown" when it cannot be told),
    as cache keys name it.

    Remembered in `book` by `executable_key`. The package's own metadata
    (npm manifest, pip dist-info) names its version: reading it saves
    starting the engine just to ask; an engine that had to be asked is
    remembered for good (`asked`). Raises `VersionUnanswered` when the
    engine had to be asked and did not answer within `timeout_s` (at most
    `VERSION_TIMEOUT_S`).
    """
    assert resolved.path is not None
    exe_key = executable_key(resolved.path)
    known = book.version_for(exe_key) if exe_key is not None else None
    if known is not None:
        return known
    known = package_version(os.path.realpath(resolved.path), provision)
    asked = known is None
    command = version_command(resolved.path, timeout_s)
    if known is None:
        result = await run(command)
        if result.timed_out:
            raise VersionUnanswered(command.timeout_s)
        found = _VERSION.search(result.stdout) if result.exit_code == 0 else None
        known = found.group(1) if found else None
    if known is None:
        return "unknown"
    if exe_key is not None:
        book.remember_version(exe_key, known, asked=asked)
    return known


@dataclass(frozen=True, slots=True)
class Versions:
    """What `engine_versions` found: each version by key (an engine's name,
    or "<name> <package>" for a package's own executable; "unknown" when it
    cannot be told) and, by the same keys, the seconds waited on each
    `--version` that went unanswered (`VersionUnanswered`)."""

    found: Mapping[str, str]
    unanswered: Mapping[str, float]


async def engine_versions(
    engines: Sequence[Engine], tools: Toolchain, timeouts_ms: Mapping[str, int], book: VersionBook
) -> Versions:
    """The version of each engine of `tools` that was found, and of each
    package's own executable (`engine_version`), asked together."""
    # An engine the toolchain lacks (one an old tree's packages bring that
    # the current check's did not) resolves itself when it runs.
    found = [(e.name, e, tools.engines[e.name]) for e in engines if e.name in tools.engines]
    for e in engines:
        found += [(f"{e.name} {p}", e, r) for p, r in tools.packages.get(e.name, {}).items()]
    found = [(key, e, resolved) for key, e, resolved in found if resolved.path]

    async def one(engine: Engine, resolved: Resolved) -> str | VersionUnanswered:
        timeout_s = timeouts_ms[engine.name] / 1000
        try:
            return await engine_version(resolved, engine.spec.provision, timeout_s, book)
        except VersionUnanswered as unanswered:
            return unanswered

    answers = await asyncio.gather(*(one(e, resolved) for _, e, resolved in found))
    versions: dict[str, str] = {}
    unanswered: dict[str, float] = {}
    for (key, _, _), answer in zip(found, answers, strict=True):
        if isinstance(answer, VersionUnanswered):
            unanswered[key] = answer.seconds
            versions[key] = "unknown"
        else:
            versions[key] = answer
    return Versions(versions, unanswered)


def package_version(real: str, provision: Provision) -> str | None:
    """The installed version of `provision.package` owning the executable at
    `real`: from its npm manifest, or from the `*.dist-info` directory of its
    virtual environment (pip); None when neither is found."""
    if provision.installer == "pip":
        return _dist_version(real, provision.package)
    for target in (real, *shim_targets(real)):
        found = _npm_version(target, provision.package)
        if found is not None:
            return found
    return None


def shim_targets(real: str) -> list[str]:
    """The scripts a package manager's shell shim runs (pnpm writes
    `node_modules/.bin/tsc` as a `#!/bin/sh` script that execs
    `"$basedir/../typescript/bin/tsc"`), resolved; [] for anything else."""
    try:
        with open(real, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    base = os.path.dirname(real)
    named = re.findall(rb'"\$basedir/([^"$]+)"', head)
    return [os.path.normpath(os.path.join(base, os.fsdecode(rel))) for rel in named]


# Node's names (`process.platform`, `process.arch`) for this machine's, which
# npm packages of platform binaries are named after.
_NODE_PLATFORMS = {"linux": "linux", "darwin": "darwin"}
_NODE_ARCHES = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}


def node_platform() -> tuple[str, str] | None:
    """(`process.platform`, `process.arch`) as Node reports them here, or None
    on a platform this table does not name (Windows, 32-bit ARM: launchers
    then run as they are)."""
    import platform

    system, arch = _NODE_PLATFORMS.get(sys.platform), _NODE_ARCHES.get(platform.machine())
    return None if system is None or arch is None else (system, arch)


def platform_binary(executable: Path, request: str) -> str:
    """What to run for the npm launcher script `executable`: the binary
    `request` names (`@scope/package-<platform>-<arch>/file`, the one the
    script would run) when it is found where Node would find it and may be
    executed, else the script. Running it directly saves a Node start."""
    found = package_file(executable, request)
    return str(executable) if found is None or not os.access(found, os.X_OK) else str(found)


def package_file(executable: Path, request: str) -> Path | None:
    """The file `request` names (`@scope/package/file`), found as Node's
    `require.resolve` finds it from the package script `executable` runs
    (itself, through a symlink, or through a package manager's shell shim):
    in the `node_modules` directory of each ancestor of the script's
    directory not itself named `node_modules`; None when none has it."""
    real = os.path.realpath(executable)
    scripts = [t for t in shim_targets(real) if os.path.basename(t) not in ("node", "node.exe")]
    script = next((t for t in scripts if os.path.isfile(t)), real)
    directory = os.path.dirname(os.path.realpath(script))
    while True:
        if os.path.basename(directory) != "node_modules":
            candidate = os.path.join(directory, "node_modules", request)
            if os.path.isfile(candidate):
                answers.note((candidate,))
                return Path(candidate)
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _npm_version(real: str, package: str) -> str | None:
    directory = os.path.dirname(real)
    for _ in range(6):
        try:
            with open(os.path.join(directory, "package.json"), encoding="utf-8") as handle:
                manifest = json.load(handle)
        except (OSError, ValueError):
            directory = os.path.dirname(directory)
            continue
        if isinstance(manifest, dict) and manifest.get("name") == package:
            found = manifest.get("version")
            return found if isinstance(found, str) else None
        directory = os.path.dirname(directory)
    return None


def _dist_version(real: str, package: str) -> str | None:
    venv = os.path.dirname(os.path.dirname(real))  # <venv>/bin/<executable>
    name = re.sub(r"[-_.]+", "_", package).lower()
    pattern = os.path.join(glob.escape(venv), "lib", "python*", "site-packages", "*.dist-info")
    for found in glob.glob(pattern):
        stem = os.path.basename(found)[: -len(".dist-info")]
        dist, _, number = stem.rpartition("-")
        if re.sub(r"[-_.]+", "_", dist).lower() == name and number:
            return number
    return None


def parse_version(output: str) -> str | None:
    """The version number in `--version` output.

    tsc prints "Version 7.0.2", oxlint "Version: 1.94.0", biome
    "Version: 2.6.8" and eslint "v10.15.0".
    """
    match = _VERSION.search(output)
    return match.group(1) if match else None


def install_hint(name: str) -> str:
    return f"signalint engines install {name}"


def install_commands(
    engines: Sequence[Engine], timeout_s: float, directory: Path | None = None
) -> list[Command]:
    """The commands installing the pinned packages of `engines` into
    `directory` (default `managed_dir()`).

    npm packages go to its npm prefix; pip packages into its virtual
    environment (`python/`), created with this interpreter when missing.
    """
    provisions = [engine.spec.provision for engine in engines]
    pip = [p.requirement for p in provisions if p.installer == "pip"]
    directory = managed_dir() if directory is None else directory
    commands: list[Command] = []
    ok = frozenset({0})
    # One npm prefix per `Provision.prefix` ("" the shared one), each with
    # its engines' companions beside them.
    prefixes: dict[str, list[str]] = {}
    for p in provisions:
        if p.installer == "npm":
            wanted = prefixes.setdefault(p.prefix, [])
            wanted += [r for r in (p.requirement, *p.companions) if r not in wanted]
    for prefix, npm in prefixes.items():
        where = prepare_managed_dir(directory / prefix) if prefix else directory
        argv = ("npm", "install", "--prefix", str(where), "--no-audit", "--no-fund")
        commands.append(Command((*argv, "--save-exact", *npm), where, timeout_s, ok))
    if pip:
        venv = directory / "python"
        if not _is_venv(venv):
            commands.append(
                Command((sys.executable, "-m", "venv", str(venv)), directory, timeout_s, ok)
            )
        python = str(_venv_bin(venv) / "python")
        argv = (python, "-m", "pip", "install", "--disable-pip-version-check", "--quiet")
        commands.append(Command((*argv, *pip), directory, timeout_s, ok))
    return commands
