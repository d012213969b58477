"""Root selection, path containment and the gitignore-aware file walk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from signalint.project.ignores import ignored_reason
from signalint.project.markers import has_js_ts_markers
from signalint.project.outside import Boundary
from signalint.project.paths import PathRefused, safe_relative, target_from_cwd
from signalint.project.roots import RootError, discover_root, find_root
from signalint.project.walk import ProjectFiles, WalkMemo, walk


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


@pytest.mark.parametrize(
    ("markers", "expected"),
    [
        # The nearest signalint.config.json wins over nearer project markers.
        (["signalint.config.json", "pkg/package.json", "pkg/.git"], "."),
        ([".signalint.json", "pkg/package.json", "pkg/.git"], "."),
        # Without a config, the nearest package.json, pyproject.toml or .git.
        ([".git", "pkg/package.json"], "pkg"),
        ([".git", "pkg/pyproject.toml"], "pkg"),
        (["package.json", "pkg/src/.git"], "pkg/src"),
        ([".git"], "."),
        (["pkg/package.json"], "pkg"),
    ],
)
def test_the_cli_root_is_found_upward_like_git(
    tmp_path: Path, markers: list[str], expected: str
) -> None:
    top = tmp_path / "top"
    (top / "pkg" / "src" / "deep").mkdir(parents=True)
    touch(top, *markers)
    assert discover_root({}, top / "pkg" / "src" / "deep") == (top / expected).resolve()


def test_a_pyproject_with_a_signalint_table_is_a_config_for_root_discovery(
    tmp_path: Path,
) -> None:
    (tmp_path / "app" / "web").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text('[tool.signalint]\nignore = ["dist/**"]\n')
    (tmp_path / "app" / "web" / "package.json").write_text("{}")
    (tmp_path / "app" / "pyproject.toml").write_text('[project]\nname = "signalint-demo"\n')
    assert discover_root({}, tmp_path / "app" / "web") == tmp_path.resolve()


def test_a_package_json_with_a_signalint_key_is_a_config_for_root_discovery(
    tmp_path: Path,
) -> None:
    (tmp_path / "packages" / "web").mkdir(parents=True)
    (tmp_path / "package.json").write_text('{\n  "name": "top",\n  "signalint": {}\n}\n')
    # A nearer package.json that only mentions us elsewhere is a plain marker.
    (tmp_path / "packages" / "web" / "package.json").write_text(
        '{"name": "web", "scripts": {"lint": "signalint"}, "description": "\\"signalint\\""}'
    )
    assert discover_root({}, tmp_path / "packages" / "web") == tmp_path.resolve()


def test_without_any_marker_the_cli_root_is_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    found = discover_root({}, tmp_path / "a" / "b")
    # Nothing marks a project up to the file system root in a fresh tmp dir,
    # unless the machine has one above it; either way never below cwd.
    assert found == (tmp_path / "a" / "b").resolve() or (
        tmp_path / "a" / "b"
    ).resolve().is_relative_to(found)


def test_the_root_variable_wins_over_upward_discovery(tmp_path: Path) -> None:
    (tmp_path / "repo" / "sub").mkdir(parents=True)
    touch(tmp_path, "repo/signalint.config.json", "other/package.json")
    env = {"SIGNALINT_PROJECT_ROOT": str(tmp_path / "other")}
    assert discover_root(env, tmp_path / "repo" / "sub") == (tmp_path / "other").resolve()


def test_command_line_paths_are_relative_to_the_working_directory(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    touch(root, "pkg/src/a.ts", "lib/b.ts")
    cwd = root / "pkg"
    assert target_from_cwd(root, cwd, "src/a.ts", []) == "pkg/src/a.ts"
    assert target_from_cwd(root, cwd, ".", []) == "pkg"
    assert target_from_cwd(root, cwd, "../lib/b.ts", []) == "lib/b.ts"
    assert target_from_cwd(root, cwd, "..", []) == "."
    assert target_from_cwd(root, cwd, str(root / "lib" / "b.ts"), []) == "lib/b.ts"


def test_absolute_paths_through_a_symlinked_directory_reach_the_project(tmp_path: Path) -> None:
    root = (tmp_path / "real").resolve()
    touch(root, "src/a.ts")
    (tmp_path / "alias").symlink_to(root)
    alias = tmp_path / "alias"
    assert target_from_cwd(root, root, str(alias / "src" / "a.ts"), []) == "src/a.ts"
    assert target_from_cwd(root, root, str(alias / "src"), []) == "src"
    assert target_from_cwd(root, root, str(alias), []) == "."


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../../outside.ts", "outside the project root"),
        ("/etc/passwd", "outside the project root"),
        ("", "empty"),
        ("-rf", "starts with '-'"),
        ("a\0b", "NUL"),
        ("missing.ts", "no such file"),
        ("link.ts", "symlink to outside"),
    ],
)
def test_command_line_paths_keep_the_containment_rules(
    tmp_path: Path, path: str, reason: str
) -> None:
    root = (tmp_path / "root").resolve()
    touch(root, "pkg/a.ts")
    (tmp_path / "outside.ts").write_text("")
    (root / "pkg" / "link.ts").symlink_to(tmp_path / "outside.ts")
    with pytest.raises(PathRefused, match=reason):
        target_from_cwd(root, root / "pkg", path, [])


@pytest.mark.parametrize(
    ("path", "ignore", "needle"),
    [
        ("node_modules/dep", [], "never checks node_modules/"),
        ("node_modules/dep/index.js", [], "never checks node_modules/"),
        ("pkg/node_modules/dep", [], "never checks node_modules/"),
        (".signalint/cache.sqlite", [], "never checks .signalint/"),
        ("dist", ["dist/**"], "pattern 'dist/**' of `ignore`"),
        ("dist/app.js", ["dist/**"], "pattern 'dist/**' of `ignore`"),
        ("gen/deep/x.ts", ["gen/"], "pattern 'gen/' of `ignore`"),
        ("src/a.gen.ts", ["*.gen.ts"], "pattern '*.gen.ts' of `ignore`"),
    ],
)
def test_an_ignored_path_is_refused_naming_what_ignores_it(
    tmp_path: Path, path: str, ignore: list[str], needle: str
) -> None:
    root = tmp_path.resolve()
    touch(root, path if "." in path.rsplit("/", 1)[-1] else path + "/index.js")
    # node_modules entries are often links to outside (pnpm, workspaces):
    # still "ignored", never "outside the project".
    with pytest.raises(PathRefused, match="it is ignored") as refused:
        target_from_cwd(root, root, path, ignore)
    assert needle in str(refused.value) and "outside" not in str(refused.value)


def test_a_linked_dependency_is_ignored_not_outside(tmp_path: Path) -> None:
    root = (tmp_path / "app").resolve()
    (tmp_path / "shared").mkdir()
    (root / "node_modules").mkdir(parents=True)
    (root / "node_modules" / "shared").symlink_to(tmp_path / "shared")
    with pytest.raises(PathRefused, match="never checks node_modules/"):
        target_from_cwd(root, root, "node_modules/shared", [])


def test_negated_contents_and_unignored_paths_are_not_refused() -> None:
    assert ignored_reason("src/a.ts", ["dist/**"], is_dir=False) is None
    # "dist/**" with a negation keeps the walk descending into dist/.
    assert ignored_reason("dist", ["dist/**", "!dist/keep.js"], is_dir=True) is None
    assert ignored_reason("dist/keep.js", ["dist/**", "!dist/keep.js"], is_dir=False) is None
    assert ignored_reason(".", ["**"], is_dir=True) is None


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


def test_walk_has_no_file_cap(tmpfs_path: Path) -> None:
    # D3: a scan covers every file. 20,000 files across nested directories,
    # made empty with bare system calls (five times faster than write_bytes).
    expected = []
    for d in range(200):
        directory = tmpfs_path / "src" / f"pkg{d}" / "lib"
        directory.mkdir(parents=True)
        for f in range(100):
            os.close(os.open(f"{directory}/m{f}.ts", os.O_CREAT | os.O_WRONLY, 0o644))
            expected.append(f"src/pkg{d}/lib/m{f}.ts")
    os.makedirs(tmpfs_path / "node_modules" / "big")
    (tmpfs_path / "node_modules" / "big" / "i.js").write_bytes(b"")
    files = walk(tmpfs_path, ["dist/**"])
    assert len(files) == 20_000
    assert files == sorted(expected)


def _age(path: Path, seconds: float = 10.0) -> None:
    """Make a directory look modified `seconds` ago (older than the racy window)."""
    stamp = os.stat(path).st_mtime_ns - int(seconds * 1e9)
    os.utime(path, ns=(stamp, stamp))


def test_a_walk_memo_gives_the_same_files_and_sees_every_change(tmp_path: Path) -> None:
    root = tmp_path
    (root / "src" / "deep").mkdir(parents=True)
    for name in ("src/a.ts", "src/deep/b.ts", "keep.md", "src/.gitignore"):
        (root / name).write_text("x" if name.endswith((".ts", ".md")) else "")
    for directory in (root, root / "src", root / "src" / "deep"):
        _age(directory)
    memo = WalkMemo()
    plain = walk(root, [])
    assert walk(root, [], memo=memo) == plain
    assert walk(root, [], memo=memo) == plain  # answered from the memo
    (root / "src" / "deep" / "c.ts").write_text("new")  # changes deep/'s stat
    assert walk(root, [], memo=memo) == sorted([*plain, "src/deep/c.ts"])
    # A new rule in an existing .gitignore (its directory unchanged) applies at once.
    _age(root / "src" / "deep")
    walk(root, [], memo=memo)
    (root / "src" / ".gitignore").write_text("deep/\n")
    _age(root / "src")
    assert walk(root, [], memo=memo) == walk(root, [])
    assert not any(f.startswith("src/deep/") for f in walk(root, [], memo=memo))
    # Other config patterns are another walk, not a reuse.
    assert walk(root, ["*.md"], memo=memo) == walk(root, ["*.md"])
    assert "keep.md" not in walk(root, ["*.md"], memo=memo)


def _memo_walk(root: Path, memo: WalkMemo) -> tuple[list[str], dict[str, str], int]:
    """`walk` with `memo`: its files, the links out of the root it noted,
    and how many directories it listed (not answered from the memo)."""
    listed = 0
    real_scandir = os.scandir

    def counting(path: str) -> object:
        nonlocal listed
        listed += 1
        return real_scandir(path)

    boundary = Boundary(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "scandir", counting)
        files = walk(root, [], memo=memo, boundary=boundary)
    return files, boundary.links, listed


def _fresh_walk(root: Path) -> tuple[list[str], dict[str, str]]:
    boundary = Boundary(root)
    return walk(root, [], boundary=boundary), boundary.links


def test_a_walk_memo_keeps_a_directory_of_links_while_their_targets_hold(tmp_path: Path) -> None:
    # A language server's shadow copy is a directory of absolute links into
    # the project: remembered, its walk lists nothing, and it sees at once a
    # target replaced by a link out of the root, or the targets' directory
    # moved out and linked back (same inode, same stat: only its path says).
    root, outside = tmp_path / "root", tmp_path / "outside"
    touch(outside, "secret.ts")
    touch(root, "real/a.ts", "real/b.ts")
    (root / "links").mkdir()
    for name in ("a.ts", "b.ts"):
        (root / "links" / name).symlink_to(root / "real" / name)
    (root / "links" / "relative.ts").symlink_to(Path("..") / "real" / "a.ts")
    (root / "direct").mkdir()
    (root / "direct" / "a.ts").symlink_to(root / "real" / "a.ts")
    (root / "out").mkdir()
    (root / "out" / "s.ts").symlink_to(outside / "secret.ts")
    for directory in (root, root / "real", root / "links", root / "direct", root / "out", outside):
        _age(directory)
    memo = WalkMemo()
    out = {"out/s.ts": str(outside / "secret.ts")}
    expected = [
        "direct/a.ts",
        "links/a.ts",
        "links/b.ts",
        "links/relative.ts",
        "real/a.ts",
        "real/b.ts",
    ]
    assert _memo_walk(root, memo)[:2] == (expected, out)
    files, links, listed = _memo_walk(root, memo)
    assert (files, links) == (expected, out)  # `out/`'s link told from the memo
    # Only `links/` is listed again: a relative link is not vouched for.
    assert listed == 1

    (root / "real" / "b.ts").unlink()
    (root / "real" / "b.ts").symlink_to(outside / "secret.ts")
    _age(root / "real")
    files, links, _ = _memo_walk(root, memo)
    assert (files, links) == _fresh_walk(root)
    assert "links/b.ts" not in files and "real/b.ts" not in files
    assert links["links/b.ts"] == str(outside / "secret.ts")

    (root / "real" / "b.ts").unlink()
    _age(root / "real")
    _memo_walk(root, memo)
    os.rename(root / "real", tmp_path / "moved")
    (root / "real").symlink_to(tmp_path / "moved")
    _age(root)
    files, links, _ = _memo_walk(root, memo)
    assert (files, links) == _fresh_walk(root)
    assert files == []
    assert links["direct/a.ts"] == str(tmp_path / "moved" / "a.ts")


def test_the_project_listing_of_a_directory_is_its_walk_whether_or_not_known(
    tmp_path: Path,
) -> None:
    touch(tmp_path, "pkg/a.ts", "pkg/sub/b.ts", "pkg0/c.ts", "pkg-x/d.ts", "top.ts", "pkg/x.log")
    ignore = ["*.log"]
    whole = walk(tmp_path, ignore)
    known = ProjectFiles(tmp_path, ignore, WalkMemo(), whole)
    unknown = ProjectFiles(tmp_path, ignore, WalkMemo(), None)
    expected = walk(tmp_path, ignore, ("pkg",))
    assert expected == ["pkg/a.ts", "pkg/sub/b.ts"]
    assert known.under("pkg") == unknown.under("pkg") == expected
    assert known.all() == unknown.all() == whole
