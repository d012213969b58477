"""Finding engine executables and their versions (D12).

Resolution order: the project's own `node_modules/.bin` (only when its real
path stays inside the canonical root, so a symlink cannot smuggle in an
executable from elsewhere), then the managed directory that `signalint
engines install` fills with pinned versions, then PATH.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import platformdirs

from signalint.engines.base import Command, Engine
from signalint.process import run_blocking

PINNED: dict[str, str] = {
    "oxlint": "1.94.0",
    "tsc": "7.0.2",
    "biome": "2.6.8",
    "eslint": "10.15.0",
}
VERSION_TIMEOUT_S = 30.0
_VERSION = re.compile(r"(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)")

Source = Literal["project", "managed", "PATH", "missing"]


@dataclass(frozen=True)
class Resolved:
    engine: str
    path: Path | None
    source: Source


def _engine(engine: str | Engine) -> Engine:
    if isinstance(engine, str):
        from signalint.engines.registry import ENGINES  # registry imports every adapter

        try:
            return ENGINES[engine]
        except KeyError:
            raise ValueError(f"unknown engine {engine!r}") from None
    return engine


def managed_dir() -> Path:
    """Where `signalint engines install` puts pinned engines."""
    override = os.environ.get("SIGNALINT_ENGINES_DIR")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_cache_dir("signalint")) / "engines"


def prepare_managed_dir() -> Path:
    """Create the managed directory with the package.json npm needs to install into it."""
    directory = managed_dir()
    directory.mkdir(parents=True, exist_ok=True)
    manifest = directory / "package.json"
    if not manifest.exists():
        manifest.write_text(
            json.dumps({"name": "signalint-engines", "private": True}, indent=2) + "\n",
            encoding="utf-8",
        )
    return directory


def _bin_candidates(bin_dir: Path, bin_name: str) -> list[Path]:
    names = [bin_name]
    if os.name == "nt":
        names = [f"{bin_name}.cmd", f"{bin_name}.exe", bin_name]
    return [bin_dir / name for name in names]


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def resolve(engine: str | Engine, root: Path) -> Resolved:
    """Find `engine`'s executable for the project at `root` (see module docstring)."""
    spec = _engine(engine)
    canonical_root = os.path.realpath(root)
    for candidate in _bin_candidates(Path(canonical_root) / "node_modules" / ".bin", spec.bin_name):
        if _executable(candidate) and _inside(os.path.realpath(candidate), canonical_root):
            return Resolved(spec.name, candidate, "project")
    for candidate in _bin_candidates(managed_dir() / "node_modules" / ".bin", spec.bin_name):
        if _executable(candidate):
            return Resolved(spec.name, candidate, "managed")
    found = shutil.which(spec.bin_name)
    if found:
        return Resolved(spec.name, Path(found), "PATH")
    return Resolved(spec.name, None, "missing")


_versions: dict[str, str | None] = {}


def package_manifest_digest(real: str) -> str:
    """Digest of the package.json owning `real` ("" if none).

    npm extracts packages with a fixed mtime, and a launcher script can be
    byte-identical across releases, so the executable's own stat alone does
    not notice an upgrade; the owning manifest (which names the version) does.
    """
    directory = Path(real).parent
    for _ in range(4):
        manifest = directory / "package.json"
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


def version(path: Path, package: str | None = None) -> str | None:
    """The engine's version: from the manifest of its npm `package` when that
    package owns `path` (no process), else `<path> --version`, parsed;
    remembered in this process until the executable changes."""
    key = executable_key(path)
    if key is None:
        return None
    if key not in _versions:
        found = package_version(os.path.realpath(path), package) if package else None
        if found is None:
            result = run_blocking(version_command(path))
            found = parse_version(result.stdout) if result.exit_code == 0 else None
        _versions[key] = found
    return _versions[key]


def package_version(real: str, package: str) -> str | None:
    """The version in the manifest of npm package `package` owning `real`."""
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


def parse_version(output: str) -> str | None:
    """The version number in `--version` output.

    tsc prints "Version 7.0.2", oxlint "Version: 1.94.0", biome
    "Version: 2.6.8" and eslint "v10.15.0".
    """
    match = _VERSION.search(output)
    return match.group(1) if match else None


def install_hint(name: str) -> str:
    return f"signalint engines install {name}"


def install_argv(names: Sequence[str]) -> tuple[str, ...]:
    """The npm command installing the pinned packages of `names` into managed_dir()."""
    packages = [f"{_engine(name).npm_package}@{PINNED[name]}" for name in names]
    return (
        "npm",
        "install",
        "--prefix",
        str(managed_dir()),
        "--no-audit",
        "--no-fund",
        "--save-exact",
        *packages,
    )
