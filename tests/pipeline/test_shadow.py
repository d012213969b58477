"""Shadow copies: nothing done in the copy reaches the project, and engines resolve as there."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from signalint.engines.registry import ENGINES, engine_cache_dirs
from signalint.engines.resolve import origin_of, resolve
from signalint.pipeline.shadow import shadow_copy
from signalint.project.paths import inside
from tests.helpers import write_executable


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "a.ts").write_text("a\n")
    (root / "src" / "deep" / "b.ts").write_text("b\n")
    (root / "other").mkdir()
    (root / "other" / "c.ts").write_text("c\n")
    (root / ".signalint").mkdir()
    (root / ".signalint" / "cache.sqlite").write_text("state\n")
    write_executable(root / "node_modules" / ".bin" / "oxlint", "#!/bin/sh\nexit 0\n")
    return root


def test_a_full_copy_has_fresh_files_and_links_installed_directories(tmp_path: Path) -> None:
    root = _project(tmp_path)
    with shadow_copy(root, {"src/a.ts": b"patched\n", "new/d.ts": b"d\n"}) as shadow:
        assert (shadow / "src" / "a.ts").read_text() == "patched\n"
        assert (shadow / "new" / "d.ts").read_text() == "d\n"
        (shadow / "src" / "deep" / "b.ts").write_text("changed in the copy\n")
        assert not (shadow / "src" / "deep" / "b.ts").is_symlink()
        assert (shadow / "node_modules").is_symlink()
        assert not (shadow / ".signalint").exists()
        assert origin_of(shadow) == root
        local = resolve(ENGINES["oxlint"], shadow)
        assert (local.source, local.path) == ("project", root / "node_modules/.bin/oxlint")
    assert (root / "src" / "a.ts").read_text() == "a\n"
    assert (root / "src" / "deep" / "b.ts").read_text() == "b\n"
    assert origin_of(shadow) == shadow


def test_a_sparse_copy_copies_only_the_named_files(tmp_path: Path) -> None:
    root = _project(tmp_path)
    with shadow_copy(root, only=["src/deep/b.ts"]) as shadow:
        copied = shadow / "src" / "deep" / "b.ts"
        assert copied.is_file() and not copied.is_symlink()
        assert (shadow / "src" / "a.ts").is_symlink()
        assert (shadow / "other").is_symlink()
        assert os.path.realpath(shadow / "other") == str(root / "other")
        copied.write_text("fixed\n")
        assert not (shadow / ".signalint").exists()
    assert (root / "src" / "deep" / "b.ts").read_text() == "b\n"


def test_engine_caches_named_by_the_engines_are_left_out_of_both_kinds_of_copy(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    for name in (".mypy_cache", ".ruff_cache", "kept_cache"):
        (root / name).mkdir()
        (root / name / "entry").write_text("x\n")
    skip = engine_cache_dirs()
    assert {".mypy_cache", ".ruff_cache"} <= skip
    with shadow_copy(root, skip=skip) as shadow:
        assert not (shadow / ".mypy_cache").exists()
        assert not (shadow / ".ruff_cache").exists()
        assert (shadow / "kept_cache" / "entry").is_file()
    with shadow_copy(root, only=["src/a.ts"], skip=skip) as shadow:
        assert not os.path.lexists(shadow / ".ruff_cache")
        assert os.path.lexists(shadow / "kept_cache")


def _workspace(tmp_path: Path) -> Path:
    """An npm workspace: the member `packages/x` takes its packages and its
    base settings from the workspace's top; a `.venv` and `node_modules`
    above the top too."""
    top = tmp_path / "outer" / "ws"
    member = top / "packages" / "x"
    (member / "src").mkdir(parents=True)
    (member / "src" / "a.ts").write_text("a\n")
    (top / "package.json").write_text('{"workspaces": ["packages/*"]}\n')
    (top / "package-lock.json").write_text("{}\n")
    (top / "tsconfig.base.json").write_text("{}\n")
    (top / "node_modules" / "dep").mkdir(parents=True)
    (top / "packages" / "y").mkdir()
    (top / ".signalint").mkdir()
    (tmp_path / "outer" / "node_modules").mkdir()
    (tmp_path / "outer" / ".venv").mkdir()
    (tmp_path / "outer" / "notes.txt").write_text("not the project's\n")
    return member


def test_a_copy_s_ancestors_resolve_as_the_project_s(tmp_path: Path) -> None:
    member = _workspace(tmp_path)
    top = member.parent.parent
    for sparse in (None, ["src/a.ts"]):
        with shadow_copy(member, {"src/a.ts": b"b\n"}, only=sparse) as shadow:
            assert shadow.parts[-len(member.parts) + 1 :] == member.parts[1:]
            assert (shadow / "src" / "a.ts").read_text() == "b\n"
            mirrored_top = shadow.parent.parent
            # Up to the workspace's top: every entry, as links (the path's own
            # directories are the copy's).
            for name in ("package.json", "tsconfig.base.json", "node_modules"):
                assert os.path.realpath(mirrored_top / name) == str(top / name)
            assert os.path.realpath(mirrored_top / "packages" / "y") == str(top / "packages/y")
            assert not (mirrored_top / "packages").is_symlink()
            assert not os.path.lexists(mirrored_top / ".signalint")
            assert (shadow / ".." / ".." / "node_modules" / "dep").is_dir()
            # Above it: only where packages are installed.
            above = mirrored_top.parent
            assert (above / "node_modules").is_symlink() and (above / ".venv").is_symlink()
            assert not os.path.lexists(above / "notes.txt")
            (shadow / "src" / "a.ts").write_text("changed\n")
        assert (member / "src" / "a.ts").read_text() == "a\n"


def test_a_copy_made_inside_the_workspace_links_no_way_back_to_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    member = _workspace(tmp_path)
    top = member.parent.parent
    (top / "scratch").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(top / "scratch"))
    with shadow_copy(member) as shadow:
        assert inside(str(shadow), str(top / "scratch"))
        mirrored_top = shadow.parent.parent
        assert (mirrored_top / "package.json").is_symlink()
        assert not os.path.lexists(mirrored_top / "scratch")  # it holds the copy
