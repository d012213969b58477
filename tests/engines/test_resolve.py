from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from signalint.cache.context import Context
from signalint.engines import resolve
from signalint.engines.registry import ENGINES
from tests.helpers import write_executable

REAL_BIN = Path(os.environ.get("SIGNALINT_TEST_ENGINES_BIN", "/tmp/eng/node_modules/.bin"))


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A project root, an (empty) managed dir and a PATH dir, isolated from the host."""
    layout = {name: tmp_path / name for name in ("root", "managed", "path", "outside")}
    for directory in layout.values():
        directory.mkdir()
    monkeypatch.setenv("SIGNALINT_ENGINES_DIR", str(layout["managed"]))
    monkeypatch.setenv("PATH", str(layout["path"]))
    return layout


def test_project_local_engine_wins(dirs: dict[str, Path]) -> None:
    # npm's layout: .bin/oxlint is a symlink into the package, inside the root.
    target = write_executable(dirs["root"] / "node_modules" / "oxlint" / "bin" / "oxlint", "")
    link = dirs["root"] / "node_modules" / ".bin" / "oxlint"
    link.parent.mkdir(parents=True)
    link.symlink_to(os.path.relpath(target, link.parent))
    write_executable(dirs["managed"] / "node_modules" / ".bin" / "oxlint", "")
    found = resolve.resolve(ENGINES["oxlint"], dirs["root"])
    assert (found.engine, found.source, found.path) == ("oxlint", "project", link)


def test_project_local_symlink_escaping_the_root_is_refused(dirs: dict[str, Path]) -> None:
    outside = write_executable(dirs["outside"] / "tsc", "")
    link = dirs["root"] / "node_modules" / ".bin" / "tsc"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    managed = write_executable(dirs["managed"] / "node_modules" / ".bin" / "tsc", "")
    found = resolve.resolve(ENGINES["tsc"], dirs["root"])
    assert (found.source, found.path) == ("managed", managed)


def test_symlinked_node_modules_directory_escaping_the_root_is_refused(
    dirs: dict[str, Path],
) -> None:
    write_executable(dirs["outside"] / "node_modules" / ".bin" / "eslint", "")
    (dirs["root"] / "node_modules").symlink_to(dirs["outside"] / "node_modules")
    on_path = write_executable(dirs["path"] / "eslint", "")
    found = resolve.resolve(ENGINES["eslint"], dirs["root"])
    assert (found.source, found.path) == ("PATH", on_path)


def test_root_given_through_a_symlink_still_finds_its_own_engines(
    dirs: dict[str, Path], tmp_path: Path
) -> None:
    write_executable(dirs["root"] / "node_modules" / ".bin" / "biome", "")
    alias = tmp_path / "alias"
    alias.symlink_to(dirs["root"])
    assert resolve.resolve(ENGINES["biome"], alias).source == "project"


def test_managed_then_path_then_missing(dirs: dict[str, Path]) -> None:
    engine = ENGINES["biome"]
    assert resolve.resolve(engine, dirs["root"]).source == "missing"
    assert resolve.resolve(engine, dirs["root"]).path is None
    on_path = write_executable(dirs["path"] / "biome", "")
    assert resolve.resolve(engine, dirs["root"]) == resolve.Resolved("biome", on_path, "PATH")
    managed = write_executable(dirs["managed"] / "node_modules" / ".bin" / "biome", "")
    assert resolve.resolve(engine, dirs["root"]) == resolve.Resolved("biome", managed, "managed")


def test_non_executable_project_file_is_skipped(dirs: dict[str, Path]) -> None:
    plain = dirs["root"] / "node_modules" / ".bin" / "oxlint"
    plain.parent.mkdir(parents=True)
    plain.write_text("not executable")
    assert resolve.resolve(ENGINES["oxlint"], dirs["root"]).source == "missing"


def test_managed_dir_defaults_to_the_user_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SIGNALINT_ENGINES_DIR", raising=False)
    assert resolve.managed_dir().parts[-2:] == ("signalint", "engines")


def test_prepare_managed_dir_writes_a_package_json(dirs: dict[str, Path]) -> None:
    directory = resolve.prepare_managed_dir()
    assert directory == dirs["managed"]
    manifest = json.loads((directory / "package.json").read_text())
    assert manifest["private"] is True


def test_install_commands_pin_exact_versions_into_the_managed_dir(dirs: dict[str, Path]) -> None:
    (command,) = resolve.install_commands([ENGINES["tsc"], ENGINES["biome"]], 60)
    argv = command.argv
    assert argv[:4] == ("npm", "install", "--prefix", str(dirs["managed"]))
    assert "--save-exact" in argv
    assert argv[-2:] == ("typescript@7.0.2", "@biomejs/biome@2.6.8")
    assert resolve.install_hint("eslint") == "signalint engines install eslint"


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("Version: 1.94.0\n\n", "1.94.0"),
        ("Version 7.0.2\n", "7.0.2"),
        ("Version: 2.6.8\n\n", "2.6.8"),
        ("v10.15.0\n", "10.15.0"),
        ("garbage", None),
    ],
)
def test_parse_version_reads_every_engines_format(output: str, expected: str | None) -> None:
    assert resolve.parse_version(output) == expected


def test_version_is_asked_from_the_executable_and_absent_is_none(tmp_path: Path) -> None:
    # A fake engine whose --version output we control (no real engine changes versions).
    fake = write_executable(tmp_path / "engine", 'echo "Version 1.0.0"\n')
    assert resolve.version(fake) == "1.0.0"
    write_executable(fake, 'echo "Version 10.0.0"\n')
    assert resolve.version(fake) == "10.0.0"
    assert resolve.version(tmp_path / "absent") is None


def test_a_context_remembers_a_version_until_the_executable_changes(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    fake = write_executable(tmp_path / "engine", f'echo x >> {calls}\necho "Version 1.0.0"\n')
    context = Context()
    store = context.store(tmp_path / "state", 1000)
    provision = ENGINES["oxlint"].spec.provision  # no npm manifest owns the fake
    found = resolve.Resolved("oxlint", fake, "PATH")

    def ask() -> str:
        return asyncio.run(resolve.engine_version(found, provision, 10, store))

    assert ask() == "1.0.0"
    assert ask() == "1.0.0"
    # A new context (another process) reads it from the state directory.
    other = Context().store(tmp_path / "state", 1000)
    assert asyncio.run(resolve.engine_version(found, provision, 10, other)) == "1.0.0"
    assert calls.read_text().count("x") == 1
    write_executable(fake, 'echo "Version 10.0.0"\n')
    os.utime(fake, ns=(1, 1))  # a different executable key even within one clock tick
    assert ask() == "10.0.0"


@pytest.mark.real
@pytest.mark.skipif(not (REAL_BIN / "tsc").exists(), reason="real engines not installed")
def test_real_engine_versions_match_the_pins() -> None:
    for name, engine in ENGINES.items():
        assert (
            resolve.version(REAL_BIN / engine.spec.provision.bin_name)
            == ENGINES[name].spec.provision.version
        )
