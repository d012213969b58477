"""The installed-packages stamp tsc's program records are keyed by (`engines.node_env`)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from signalint.engines.node_env import installed_stamp


def project(base: Path) -> Path:
    root = base / "repo"
    (root / "node_modules" / "@types" / "node").mkdir(parents=True)
    (root / "node_modules" / "dep").mkdir()
    (root / "node_modules" / ".package-lock.json").write_text('{"lockfileVersion": 3}\n')
    (root / "tsconfig.json").write_text("{}\n")
    return root


def test_the_stamp_is_the_same_for_a_copy_at_another_depth(tmp_path: Path) -> None:
    # A second machine on a shared cache checks the same project elsewhere.
    first = project(tmp_path / "a")
    second = tmp_path / "b" / "deeper" / "still" / "repo"
    second.parent.mkdir(parents=True)
    shutil.copytree(first, second, symlinks=True)
    assert installed_stamp(first, [""]) == installed_stamp(second, [""])


def test_installing_removing_relinking_or_reinstalling_changes_the_stamp(tmp_path: Path) -> None:
    root = project(tmp_path)
    modules = root / "node_modules"
    seen = {installed_stamp(root, [""])}

    def changed() -> bool:
        stamp = installed_stamp(root, [""])
        new = stamp not in seen
        seen.add(stamp)
        return new

    (modules / "added").mkdir()
    assert changed()
    (modules / "@types" / "react").mkdir()
    assert changed()
    shutil.rmtree(modules / "dep")
    assert changed()
    (tmp_path / "store" / "v1").mkdir(parents=True)
    (tmp_path / "store" / "v2").mkdir(parents=True)
    os.symlink(tmp_path / "store" / "v1", modules / "linked")
    assert changed()
    os.unlink(modules / "linked")
    os.symlink(tmp_path / "store" / "v2", modules / "linked")
    assert changed()
    (modules / ".package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "v": 2}))
    assert changed()
    assert not changed()  # nothing else moved


def test_a_node_modules_above_the_project_counts(tmp_path: Path) -> None:
    root = project(tmp_path / "workspace" / "packages")
    before = installed_stamp(root, [""])
    (tmp_path / "workspace" / "node_modules" / "hoisted").mkdir(parents=True)
    assert installed_stamp(root, [""]) != before


def test_the_stamp_does_not_depend_on_the_order_configs_are_named_in(tmp_path: Path) -> None:
    # Config directories come as a set, whose order differs between
    # processes (string hashing is seeded per process); a shared cache
    # found a second machine's key differing from the first's.
    root = project(tmp_path)
    (root / "packages" / "a" / "node_modules" / "x").mkdir(parents=True)
    (root / "packages" / "b" / "node_modules" / "y").mkdir(parents=True)
    one = installed_stamp(root, ["packages/a", "packages/b"])
    assert installed_stamp(root, ["packages/b", "packages/a"]) == one
