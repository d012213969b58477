"""`signalint engines install`: pinned engines into the managed directory (D12),
safe beside another install and beside checks that are running.

Layout, for the managed directory `<parent>/<name>` (`resolve.managed_dir()`):

- `<parent>/<name>.lock`: an exclusive `flock` held for the whole install; a
  second install waits for it (and says so), then finds the engines
  installed and has nothing to do.
- `<parent>/<name>.generations/<stamp>`: each install builds a complete
  managed directory there (npm prefix and `python/` virtual environment),
  asks every engine in it for `--version`, and only then swaps it in.
- `<parent>/<name>`: a symbolic link to the current generation, replaced
  atomically (`rename`), so a reader sees the old engines or the new ones,
  never a half-installed tree. A virtual environment cannot be moved after
  it is created (its scripts name their interpreter by absolute path), which
  is why the generation stays where it was built and the link moves.

The previous generation is kept until the next install, so a check still
running from it finishes; older ones are removed. A failed install removes
what it built and leaves the current generation as it was. A managed
directory from before this layout (a real directory) is moved among the
generations on the first install: that one switch is two renames, not one.

Engines already in the managed directory are installed again in the new
generation at their pinned versions, so installing one engine keeps the
others.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from signalint import files
from signalint.engines import resolve
from signalint.engines.base import Engine
from signalint.process import Command, run_blocking

Say = Callable[[str], None]


class InstallError(Exception):
    """The install failed; the message says what and which engine. The
    managed directory is as it was."""


@dataclass(frozen=True)
class Installed:
    engine: str
    version: str
    already: bool  # it was installed at the pinned version before this run


def lock_path(directory: Path) -> Path:
    return directory.parent / f"{directory.name}.lock"


def generations_dir(directory: Path) -> Path:
    return directory.parent / f"{directory.name}.generations"


@contextlib.contextmanager
def locked(directory: Path, say: Say) -> Iterator[None]:
    """Hold the managed directory's install lock; say so when waiting for it.

    Where the platform has no file locking, installs are not serialised."""
    path = lock_path(directory)

    def waiting() -> None:
        say(
            f"Another `signalint engines install` is installing into {directory}; "
            f"waiting for it to finish (lock: {path})."
        )

    with files.locked(path, required=False, on_wait=waiting):
        yield


def answered_version(path: Path, timeout_s: float) -> tuple[str | None, str]:
    """`<path> --version`: the version it printed, or None and why not."""
    result = run_blocking(resolve.version_command(path, timeout_s))
    if result.missing or result.start_error:
        return None, f"{path} cannot be started ({result.start_error or 'not found'})"
    if result.timed_out:
        return None, f"`{path} --version` did not answer within {timeout_s:g} s"
    said = (result.stderr.strip() or result.stdout.strip())[-500:]
    if result.exit_code != 0:
        return None, f"`{path} --version` exited with code {result.exit_code}: {said}"
    found = resolve.parse_version(result.stdout)
    if found is None:
        return None, f"`{path} --version` printed no version: {said}"
    return found, ""


def _at_pin(engine: Engine, directory: Path, timeout_s: float) -> bool:
    """`engine` is in `directory` at its pinned version and answers `--version`."""
    path = resolve.managed_executable(engine, directory)
    if path is None:
        return False
    pinned = engine.spec.provision.version
    if resolve.package_version(os.path.realpath(path), engine.spec.provision) != pinned:
        return False
    return answered_version(path, timeout_s)[0] is not None


def _run(commands: Sequence[Command], timeout_s: float) -> None:
    for command in commands:
        tool = Path(command.argv[0]).name
        result = run_blocking(command)
        if result.missing:
            raise InstallError(f"{tool} was not found on PATH; install it first.")
        if result.start_error:
            raise InstallError(f"{tool} could not be started: {result.start_error}")
        if result.timed_out:
            raise InstallError(f"{tool} did not finish within {timeout_s:g} s.")
        if result.exit_code != 0:
            said = " ".join(command.argv[:4])
            output = result.stderr.rstrip() or result.stdout.rstrip()
            raise InstallError(f"{output}\n`{said} ...` failed (exit code {result.exit_code}).")


def _verify(engines: Sequence[Engine], directory: Path, timeout_s: float) -> dict[str, str]:
    """Every engine in `directory` answers `--version` with its pinned version."""
    versions: dict[str, str] = {}
    for engine in engines:
        name, pinned = engine.spec.name, engine.spec.provision.version
        path = resolve.managed_executable(engine, directory)
        if path is None:
            raise InstallError(
                f"{name}: the install left no executable {engine.spec.provision.bin_name}."
            )
        found, why = answered_version(path, timeout_s)
        if found is None:
            raise InstallError(f"{name}: {why}")
        # vue-tsc answers `--version` with its TypeScript's version: the
        # package's manifest names its own.
        found = resolve.package_version(os.path.realpath(path), engine.spec.provision) or found
        if found != pinned:
            raise InstallError(f"{name}: `{path} --version` says {found}, not the pinned {pinned}.")
        versions[name] = found
    return versions


def _swap(directory: Path, generation: Path) -> Path | None:
    """Point `directory` at `generation` (one atomic rename); the generation it
    pointed to before (a pre-generations real directory is moved among them)."""
    link = directory.parent / f".{directory.name}.{os.getpid()}.link"
    with contextlib.suppress(FileNotFoundError):
        link.unlink()
    link.symlink_to(os.path.relpath(generation, directory.parent), target_is_directory=True)
    previous: Path | None = None
    if directory.is_symlink():
        previous = Path(os.path.realpath(directory))
        os.replace(link, directory)
    elif directory.exists():
        previous = generation.parent / f"{time.strftime('%Y%m%dT%H%M%S')}-before-generations"
        os.rename(directory, previous)
        try:
            os.replace(link, directory)
        except OSError:
            os.rename(previous, directory)
            raise
    else:
        os.replace(link, directory)
    return previous


def _prune(generations: Path, keep: Sequence[Path]) -> None:
    kept = {os.path.realpath(path) for path in keep}
    for entry in generations.iterdir():
        if os.path.realpath(entry) not in kept:
            shutil.rmtree(entry, ignore_errors=True)


def install(
    engines: Sequence[Engine], timeout_s: float, say: Say, *, force: bool = False
) -> list[Installed]:
    """Install the pinned `engines` into the managed directory (module docstring).

    Without `force`, nothing is done when every one of them is already there
    at its pinned version and answers `--version`. Raises `InstallError`.
    """
    directory = resolve.managed_dir()
    with locked(directory, say):
        if not force and all(_at_pin(e, directory, timeout_s) for e in engines):
            return [Installed(e.spec.name, e.spec.provision.version, True) for e in engines]
        from signalint.engines.registry import ENGINES

        chosen = {e.spec.name for e in engines}
        # Engines already managed stay managed (at their pinned versions).
        kept = [
            e
            for e in ENGINES.values()
            if e.spec.name not in chosen and resolve.managed_executable(e, directory)
        ]
        everything = [*engines, *kept]
        generations = generations_dir(directory)
        generations.mkdir(parents=True, exist_ok=True)
        generation = Path(tempfile.mkdtemp(prefix=time.strftime("%Y%m%dT%H%M%S-"), dir=generations))
        packages = " ".join(e.spec.provision.requirement for e in everything)
        say(f"Installing into {generation}: {packages}")
        try:
            resolve.prepare_managed_dir(generation)
            _run(resolve.install_commands(everything, timeout_s, generation), timeout_s)
            versions = _verify(everything, generation, timeout_s)
            previous = _swap(directory, generation)
        except BaseException:
            shutil.rmtree(generation, ignore_errors=True)
            raise
        _prune(generations, [generation] + ([previous] if previous else []))
        say(f"{directory} now points to {generation}")
        return [Installed(e.spec.name, versions[e.spec.name], False) for e in engines]
