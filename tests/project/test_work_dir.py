"""The work directory (signalint.project.work_dir) and the old trees kept in
it (signalint.pipeline.old_tree)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from signalint.pipeline import old_tree
from signalint.project import work_dir as work


def test_each_project_has_its_own_work_directory_outside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNALINT_WORK_DIR", str(tmp_path / "work"))
    one, two = tmp_path / "a" / "app", tmp_path / "b" / "app"
    one.mkdir(parents=True)
    two.mkdir(parents=True)
    (tmp_path / "link").symlink_to(one)
    assert work.for_project(one).parent == tmp_path / "work"
    assert work.for_project(one).name.startswith("app-")
    assert work.for_project(one) != work.for_project(two)
    assert work.for_project(tmp_path / "link") == work.for_project(one)  # by its real path
    # A relative value is taken relative to the project root, as SIGNALINT_STATE_DIR is.
    monkeypatch.setenv("SIGNALINT_WORK_DIR", "../shared")
    assert work.for_project(one).parent == tmp_path / "a" / "shared"
    monkeypatch.delenv("SIGNALINT_WORK_DIR")
    default = work.for_project(one)
    assert default.parent.name == "work" and not default.is_relative_to(tmp_path)


def test_a_sweep_removes_gone_and_stale_projects_but_not_one_in_use(tmp_path: Path) -> None:
    base = tmp_path / "work"
    live, gone, stale, busy = (tmp_path / n for n in ("live", "gone", "stale", "busy"))
    for root in (live, gone, stale, busy):
        root.mkdir()
    homes = {root: base / work.project_key(root) for root in (live, gone, stale, busy)}
    for root, home in homes.items():
        assert work.prepare(home, root)  # made now
    assert not work.prepare(homes[live], live)  # marked within the hour: nothing to do
    assert (homes[live] / work.ROOT_FILE).read_text() == str(live)
    gone.rmdir()
    (homes[busy] / "trees").mkdir()
    long_ago = time.time() - work.STALE_S - 60
    os.utime(homes[stale] / work.ROOT_FILE, (long_ago, long_ago))
    os.utime(homes[busy] / work.ROOT_FILE, (long_ago, long_ago))
    held = work.try_lock(homes[busy] / "trees" / "t.lock")
    assert held is not None
    try:
        removed = work.sweep(base)
    finally:
        os.close(held)
    assert sorted(removed) == sorted([homes[gone], homes[stale]])
    assert homes[live].is_dir() and homes[busy].is_dir()
    # A cold directory a killed run left goes; a fresh one stays.
    old, new = base / work.COLD_DIR / "tsc-old", base / work.COLD_DIR / "tsc-new"
    for directory in (old, new):
        directory.mkdir(parents=True)
    os.utime(old, (long_ago, long_ago))
    work.sweep(base)
    assert not old.exists() and new.is_dir()


def test_what_older_versions_kept_in_the_state_directory_goes(tmp_path: Path) -> None:
    state = tmp_path / ".signalint"
    (state / "baseline" / "trees" / "t" / "src").mkdir(parents=True)
    (state / "tsc" / "build" / "__out__").mkdir(parents=True)
    (state / "tsc" / "0123" / "tsc.tsbuildinfo").parent.mkdir(parents=True)
    (state / "cache.sqlite").write_text("")
    work.remove_legacy(state)
    assert not (state / "baseline").exists() and not (state / "tsc" / "build").exists()
    assert (state / "tsc" / "0123").is_dir() and (state / "cache.sqlite").exists()


def _tree(trees: Path, name: str, used: float) -> Path:
    copy = trees / name
    (copy / "src").mkdir(parents=True)
    (copy / "src" / "a.py").write_text("x = 1\n")
    marker = trees / f"{name}.tree"
    marker.write_text(name)
    os.utime(marker, (used, used))
    (trees / f"{name}.work").mkdir()
    return copy


def test_old_trees_are_bounded_and_one_in_use_is_never_removed(tmp_path: Path) -> None:
    trees = tmp_path / "trees"
    now = time.time()
    copies = [_tree(trees, f"t{i}", now - 100 * i) for i in range(5)]  # t0 newest
    busy = work.try_lock(old_tree.lock_of(copies[4]))  # the oldest, held by a check
    assert busy is not None
    try:
        old_tree._evict(trees, keep=copies[0])
    finally:
        os.close(busy)
    kept = sorted(p.name for p in trees.iterdir() if p.is_dir() and p.suffix == "")
    # The newest MAX_TREES (3) stay, and the held one; t3 goes with what sits beside it.
    assert old_tree.MAX_TREES == 3 and kept == ["t0", "t1", "t2", "t4"]
    assert not (trees / "t3.work").exists() and not (trees / "t3.tree").exists()
    assert old_tree.remove_trees(tmp_path) == (len(kept), 0)
    assert not [p for p in trees.iterdir() if p.is_dir()]


def test_a_copy_is_used_by_one_check_at_a_time(tmp_path: Path) -> None:
    lock = tmp_path / "trees" / "t.lock"
    order: list[str] = []

    async def use(name: str) -> None:
        async with work.tree_lock(lock):
            order.append(f"{name} in")
            await asyncio.sleep(0.1)
            order.append(f"{name} out")

    async def both() -> None:
        await asyncio.gather(use("a"), use("b"))

    asyncio.run(both())
    assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])


def test_the_old_tree_gets_the_node_modules_of_the_roots_parents_in_the_repository(
    tmp_path: Path,
) -> None:
    top = tmp_path / "repo"
    root = top / "packages" / "app"
    (root / "node_modules" / "left-pad").mkdir(parents=True)
    (top / "node_modules" / "hoisted").mkdir(parents=True)
    (top / "packages" / "lib").mkdir(parents=True)
    (top / "node_modules" / "lib").symlink_to(top / "packages" / "lib")  # a workspace package
    old_top = tmp_path / "copy"
    old_root = old_top / "packages" / "app"
    old_root.mkdir(parents=True)
    (old_top / "packages" / "lib").mkdir()
    old_tree.link_dependencies(root, old_root, top=top, old_top=old_top)
    assert os.readlink(old_root / "node_modules" / "left-pad") == str(
        root / "node_modules" / "left-pad"
    )
    assert os.readlink(old_top / "node_modules" / "hoisted") == str(
        top / "node_modules" / "hoisted"
    )
    # At the revision a package reads its siblings as they were then.
    assert os.readlink(old_top / "node_modules" / "lib") == str(old_top / "packages" / "lib")


def test_cache_clear_removes_the_copies_no_check_holds_and_info_names_the_work_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from signalint.cli.main import main

    root = tmp_path / "proj"
    root.mkdir()
    (root / "package.json").write_text('{"name": "p", "private": true}\n')
    (root / ".signalint" / "baseline" / "trees" / "old").mkdir(parents=True)  # an older version's
    monkeypatch.chdir(root)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)
    trees = work.for_project(root) / old_tree.TREES_DIR
    now = time.time()
    free, held = _tree(trees, "free", now), _tree(trees, "held", now)
    assert main(["cache", "info"]) == 0
    said = capsys.readouterr().out
    assert f"{work.for_project(root)}: 4 files" in said
    busy = work.try_lock(old_tree.lock_of(held))
    assert busy is not None
    try:
        assert main(["cache", "clear"]) == 0
    finally:
        os.close(busy)
    said = capsys.readouterr().out
    assert "removed 1 copy of old revisions" in said and "(1 in use kept)" in said
    assert not free.exists() and held.is_dir()
    assert not (root / ".signalint" / "baseline").exists()
