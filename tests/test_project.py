"""Root selection, path containment and the gitignore-aware file walk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from signalint.project import (
    PathRefused,
    RootError,
    find_root,
    has_js_ts_markers,
    safe_relative,
    walk,
)


def touch(root: Path, *paths: str) -> None:
    for rel in paths:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")


# --- root selection ---------------------------------------------------------


def test_root_is_the_canonical_cwd_without_override(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert find_root({}, tmp_path / "link") == (tmp_path / "real").resolve()


def test_root_override_selects_a_directory(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    assert find_root({"SIGNALINT_PROJECT_ROOT": "proj"}, tmp_path) == (tmp_path / "proj").resolve()


def test_invalid_root_override_is_an_error_naming_the_variable(tmp_path: Path) -> None:
    with pytest.raises(RootError) as info:
        find_root({"SIGNALINT_PROJECT_ROOT": "missing"}, tmp_path)
    assert "SIGNALINT_PROJECT_ROOT='missing'" in str(info.value)
    touch(tmp_path, "file")
    with pytest.raises(RootError, match="not a directory"):
        find_root({"SIGNALINT_PROJECT_ROOT": str(tmp_path / "file")}, tmp_path)


def test_markers(tmp_path: Path) -> None:
    assert not has_js_ts_markers(tmp_path)
    touch(tmp_path, "index.mts")
    assert has_js_ts_markers(tmp_path)


# --- path containment -------------------------------------------------------


def test_safe_relative_normalizes_paths_inside_the_root(tmp_path: Path) -> None:
    touch(tmp_path, "src/a.ts")
    assert safe_relative(tmp_path, "./src//x/../a.ts") == "src/a.ts"
    assert safe_relative(tmp_path, "src/") == "src"
    assert safe_relative(tmp_path, ".") == "."


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("", "empty"),
        ("src/\0a.ts", "NUL"),
        ("-rf", "option"),
        ("--help", "option"),
        ("/etc/passwd", "absolute"),
        ("../x", "escapes the project root"),
        ("src/../../x", "escapes the project root"),
        ("..", "escapes the project root"),
        ("src/missing.ts", "no such file or directory"),
    ],
)
def test_safe_relative_refuses_untrusted_paths(tmp_path: Path, path: str, reason: str) -> None:
    touch(tmp_path, "src/a.ts")
    with pytest.raises(PathRefused) as info:
        safe_relative(tmp_path, path)
    assert info.value.path == path and reason in info.value.reason
    assert str(info.value).startswith(f"path {path!r} refused: ")


def test_safe_relative_refuses_symlinks_leading_outside(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    touch(outside, "secret.ts")
    touch(root, "ok.ts")
    (root / "file_link.ts").symlink_to(outside / "secret.ts")
    (root / "dir_link").symlink_to(outside)
    (root / "inner_link.ts").symlink_to(root / "ok.ts")
    (root / "dangling.ts").symlink_to(root / "nowhere.ts")
    for path in ("file_link.ts", "dir_link", "dir_link/secret.ts"):
        with pytest.raises(PathRefused, match="outside the project root"):
            safe_relative(root, path)
    with pytest.raises(PathRefused, match="no such file"):
        safe_relative(root, "dangling.ts")
    assert safe_relative(root, "inner_link.ts") == "inner_link.ts"


# --- walk -------------------------------------------------------------------


def test_walk_honours_root_and_nested_gitignores_with_negation(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "a.ts",
        "debug.log",
        "important.log",
        "dist/out.js",
        "dist/keep.js",
        "build/b.js",
        "build/keep.js",
        "pkg/src/x.ts",
        "pkg/src/gen/g.ts",
        "pkg/y.ts",
        "pkg/only.ts",
    )
    (tmp_path / ".gitignore").write_text(
        "*.log\n!important.log\ndist/**\n!dist/keep.js\nbuild/\n!build/keep.js\n"
    )
    # Relative to pkg/: "/y.ts" anchors there; "gen/" matches at any depth below.
    (tmp_path / "pkg" / ".gitignore").write_text("/y.ts\ngen/\n*.ts\n!only.ts\n!src/x.ts\n")
    assert walk(tmp_path, []) == [
        ".gitignore",
        "a.ts",
        "dist/keep.js",  # "dist/**" excludes contents only, so the negation re-includes it
        "important.log",
        "pkg/.gitignore",
        "pkg/only.ts",
        "pkg/src/x.ts",
        # build/keep.js stays out: git cannot re-include below an excluded directory
    ]


def test_walk_applies_config_ignore_independently(tmp_path: Path) -> None:
    touch(tmp_path, "src/a.ts", "src/generated/g.ts", "dist/d.js", "lib/l.js")
    (tmp_path / ".gitignore").write_text("!src/generated/g.ts\n")
    assert walk(tmp_path, ["src/generated/**", "dist/**"]) == [".gitignore", "lib/l.js", "src/a.ts"]


def test_walk_always_skips_dependency_vcs_and_state_dirs(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "a.ts",
        "node_modules/p/index.js",
        "src/node_modules/q/i.js",
        ".git/config",
        ".signalint/cache.sqlite",
    )
    (tmp_path / ".gitignore").write_text("!node_modules/\n")
    assert walk(tmp_path, []) == [".gitignore", "a.ts"]
    assert walk(tmp_path, [], ["node_modules/p/index.js"]) == []


def test_walk_targets_and_explicit_ignored_files(tmp_path: Path) -> None:
    touch(tmp_path, "src/a.ts", "src/sub/b.ts", "src/sub/skip.gen.ts", "other/c.ts")
    (tmp_path / "src" / ".gitignore").write_text("*.gen.ts\n")
    # A directory target still applies the .gitignore files above it.
    assert walk(tmp_path, [], ["src/sub"]) == ["src/sub/b.ts"]
    # A file named explicitly is returned even though it is ignored.
    assert walk(tmp_path, [], ["src/sub/skip.gen.ts", "other"]) == [
        "other/c.ts",
        "src/sub/skip.gen.ts",
    ]
    with pytest.raises(PathRefused):
        walk(tmp_path, [], ["../elsewhere"])


def test_walk_does_not_follow_dir_links_or_outside_file_links(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    touch(outside, "secret.ts")
    touch(root, "src/a.ts")
    (root / "linked_dir").symlink_to(root / "src")
    (root / "out.ts").symlink_to(outside / "secret.ts")
    (root / "in.ts").symlink_to(root / "src" / "a.ts")
    (root / "dangling.ts").symlink_to(root / "gone.ts")
    assert walk(root, []) == ["in.ts", "src/a.ts"]


def test_walk_has_no_file_cap(tmp_path: Path) -> None:
    # D3: a scan covers every file. 20,000 files across nested directories.
    expected = []
    for d in range(200):
        directory = tmp_path / "src" / f"pkg{d}" / "lib"
        directory.mkdir(parents=True)
        for f in range(100):
            (directory / f"m{f}.ts").write_bytes(b"")
            expected.append(f"src/pkg{d}/lib/m{f}.ts")
    os.makedirs(tmp_path / "node_modules" / "big")
    (tmp_path / "node_modules" / "big" / "i.js").write_bytes(b"")
    files = walk(tmp_path, ["dist/**"])
    assert len(files) == 20_000
    assert files == sorted(expected)
