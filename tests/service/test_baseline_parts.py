"""The parts of `--new-from-rev` that need no engine: the changed-lines rule,
what the old tree borrows, the fallback in each format, the MCP selections.
(tests/service/test_baseline.py runs the whole thing with real engines.)"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from signalint.formats import sarif, text
from signalint.pipeline import old_tree
from signalint.pipeline.changes import changed_lines, parse_changed_lines
from signalint.pipeline.cluster import cluster
from signalint.pipeline.report import Additions
from signalint.server import check_tools as checking
from signalint.server.refusals import ToolRefusal
from signalint.service import baseline
from signalint.service.baseline import Baseline, Fallback, Since
from tests.factories import issue, result
from tests.helpers import git

DIFF = """\
diff --git a/src/a.ts b/src/a.ts
index 1..2 100644
--- a/src/a.ts
+++ b/src/a.ts
@@ -3 +3 @@ export const a = 1;
-old
+new
@@ -10,0 +11,2 @@ tail
+one
+two
diff --git a/src/gone.ts b/src/gone.ts
deleted file mode 100644
--- a/src/gone.ts
+++ /dev/null
@@ -1 +0,0 @@
-x
diff --git a/src/cut.ts b/src/cut.ts
--- a/src/cut.ts
+++ b/src/cut.ts
@@ -4,2 +3,0 @@ x
-a
-b
diff --git a/src/added.ts b/src/added.ts
new file mode 100644
--- /dev/null
+++ b/src/added.ts
@@ -0,0 +1,2 @@
+a
+b
diff --git "a/src/\\303\\251t\\303\\251.ts" "b/src/\\303\\251t\\303\\251.ts"
--- "a/src/\\303\\251t\\303\\251.ts"
+++ "b/src/\\303\\251t\\303\\251.ts"
@@ -1 +1 @@
-a
+b
"""


def test_the_changed_lines_of_a_diff_are_its_new_side_lines_and_whole_new_files() -> None:
    assert parse_changed_lines(DIFF) == {
        "src/a.ts": frozenset({3, 11, 12}),
        "src/cut.ts": frozenset(),  # only deletions: no line of it changed
        "src/added.ts": None,
        "src/été.ts": frozenset({1}),
    }


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.ts").write_text("one\ntwo\nthree\n")
    (root / "src" / "moved.ts").write_text("".join(f"line {n}\n" for n in range(20)))
    (root / ".gitignore").write_text("dist/\nnode_modules/\n.signalint/\n*.log\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    return Path(os.path.realpath(root))


@pytest.mark.anyio
async def test_changed_lines_cover_edits_moves_and_untracked_files_not_ignored_ones(
    repository: Path,
) -> None:
    root = repository
    (root / "src" / "a.ts").write_text("one\nTWO\nthree\nfour\n")
    git(root, "mv", "src/moved.ts", "src/renamed.ts")
    renamed = root / "src" / "renamed.ts"
    renamed.write_text(renamed.read_text().replace("line 7\n", "line seven\n"))
    (root / "src" / "new.ts").write_text("x\n")
    (root / "debug.log").write_text("ignored\n")
    assert await changed_lines(root, "HEAD") == {
        "src/a.ts": frozenset({2, 4}),
        "src/renamed.ts": frozenset({8}),
        "src/new.ts": None,
    }


def test_split_falls_back_to_changed_lines_for_an_engine_that_failed_at_rev() -> None:
    kept = issue("src/a.ts", 1, engine="tsc", rule="TS2322")
    planted = issue("src/a.ts", 2, engine="tsc", rule="TS2322", message="other")
    old_line = issue("src/b.js", 1, engine="eslint", rule="no-var")
    edited = issue("src/b.js", 2, engine="eslint", rule="no-var")
    fresh = issue("src/c.js", 9, engine="eslint", rule="no-var")
    found = Baseline(
        rev="HEAD",
        commit="c" * 40,
        tree="t" * 40,
        issues=(kept,),
        checked=(".",),
        reused=(),
        failed=("eslint",),
        fallback=(Fallback("eslint", "eslint exited with code 2"),),
        changed={"src/a.ts": frozenset({2}), "src/b.js": frozenset({2}), "src/c.js": None},
    )
    parts = baseline.split([kept, planted, old_line, edited, fresh], found)
    assert set(parts.new) == {planted, edited, fresh}
    assert set(parts.unchanged) == {kept, old_line}


def test_the_old_tree_borrows_ignored_files_but_no_caches_dependencies_or_revision_files(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repository
    old = root / ".signalint" / "baseline" / "trees" / "t"
    (old / "src").mkdir(parents=True)
    (old / "src" / "a.ts").write_text("as at REV\n")
    files = {
        "dist/index.d.ts": "d",
        "dist/sub/x.js": "x",
        "dist/.cache/big": "c",
        "dist/app.tsbuildinfo": "b",
        "build.log": "l",
        "node_modules/p/index.js": "n",
        ".venv/pyvenv.cfg": "v",
    }
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)
    listed = [
        "build.log",
        "dist/",
        "node_modules/",
        ".venv/",
        ".signalint/",
        "src/a.ts",  # ignored now, tracked at the revision: the old tree keeps its own
    ]
    manifest = old.parent / "t.borrowed"
    state = root / ".signalint"
    assert old_tree.borrow_files(root, old, listed, manifest, state) == (3, True)
    assert sorted(p.relative_to(old).as_posix() for p in old.rglob("*") if p.is_file()) == [
        "build.log",
        "dist/index.d.ts",
        "dist/sub/x.js",
        "src/a.ts",
    ]
    assert (old / "src" / "a.ts").read_text() == "as at REV\n"
    assert not (old / "dist" / "index.d.ts").is_symlink()
    # Refreshed when the working tree's copy changes; removed when it goes.
    (root / "dist" / "index.d.ts").write_text("regenerated")
    (root / "build.log").unlink()
    assert old_tree.borrow_files(root, old, ["dist/"], manifest, state) == (2, True)
    assert (old / "dist" / "index.d.ts").read_text() == "regenerated"
    assert not (old / "build.log").exists()
    # Bounded: the answer says the bound cut the list; a file too big for
    # what is left is skipped, smaller ones still fit.
    (root / "dist" / "big.js").write_text("b" * 100)
    monkeypatch.setattr(old_tree, "MAX_BORROWED_BYTES", 50)
    assert old_tree.borrow_files(root, old, ["dist/"], manifest, state) == (2, False)
    assert not (old / "dist" / "big.js").exists()
    monkeypatch.setattr(old_tree, "MAX_BORROWED_FILES", 1)
    assert old_tree.borrow_files(root, old, ["dist/"], manifest, state) == (1, False)


def test_the_borrowing_never_writes_through_a_link_out_of_the_old_tree(
    repository: Path, tmp_path: Path
) -> None:
    root = repository
    old = root / ".signalint" / "baseline" / "trees" / "t"
    old.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (old / "dist").symlink_to(outside, target_is_directory=True)  # a tracked symlink at REV
    (root / "dist").mkdir()
    (root / "dist" / "x.js").write_text("x")
    manifest = old.parent / "t.borrowed"
    assert old_tree.borrow_files(root, old, ["dist/"], manifest, root / ".signalint") == (0, True)
    assert list(outside.iterdir()) == []


BLOCK = {
    "rev": "main",
    "commit": "c" * 40,
    "mergeBase": False,
    "new": 1,
    "unchanged": 2,
    "checkedAtRev": ["."],
    "reusedPackages": [],
    "enginesNotOkAtRev": ["eslint"],
    "fallback": [
        {"engine": "eslint", "reason": "eslint exited with code 2\nstack", "rule": "changed-lines"}
    ],
    "borrowedIgnoredFiles": 5000,
    "borrowedAllIgnoredFiles": False,
}


def test_the_text_header_names_the_fallback_engine_its_failure_and_a_cut_borrowing() -> None:
    found = issue("src/b.js", 2, engine="eslint", rule="no-var")
    checked = result([found], engines={"eslint": "ok"})
    lines = ["".join(span for span, _ in line) for line in text.build_lines(
        checked, cluster([found]), Additions(baseline=BLOCK)
    )]  # fmt: skip
    assert (
        "  eslint failed at main: its issues are new only on lines changed since then "
        "(changed-lines); it said: eslint exited with code 2"
    ) in lines
    assert any("only 5000 ignored files were copied" in line for line in lines)


def test_sarif_marks_the_run_and_results_of_a_fallback_engine() -> None:
    lint = issue("src/b.js", 2, engine="eslint", rule="no-var")
    types = issue("src/a.ts", 1, engine="tsc", rule="TS2322")
    checked = result([lint, types], engines={"eslint": "ok", "tsc": "ok"})
    fallback = {"eslint": {"rule": "changed-lines", "reason": "eslint exited with code 2"}}
    states = {lint.issue_id: "new", types.issue_id: "unchanged"}
    log = sarif.build_log(checked, None, sarif.Baseline(states, fallback))
    runs = {run["tool"]["driver"]["name"]: run for run in log["runs"]}
    assert runs["eslint"]["properties"]["signalintBaselineFallback"] == fallback["eslint"]
    (result_entry,) = runs["eslint"]["results"]
    assert result_entry["baselineState"] == "new"
    assert result_entry["properties"] == {"signalintBaselineRule": "changed-lines"}
    assert "signalintBaselineFallback" not in runs["tsc"]["properties"]
    assert "properties" not in runs["tsc"]["results"][0]
    json.dumps(log)


@pytest.mark.parametrize(
    ("arguments", "field", "words"),
    [
        ({"newFromRev": "a", "newFromMergeBase": "b"}, "newFromMergeBase", "newFromRev and"),
        ({"paths": ["src"], "packages": ["x"]}, "packages", "paths and packages cannot"),
        ({"paths": ["src"], "changed": True}, "changed", "paths and changed cannot"),
    ],
)
def test_conflicting_check_selections_are_refused_naming_both(
    arguments: dict[str, object], field: str, words: str
) -> None:
    with pytest.raises(ToolRefusal) as refused:
        checking.selection(arguments, "paths")
    assert refused.value.data.get("field") == field
    assert words in refused.value.data["message"]


def test_check_selections_keep_the_cli_semantics_under_camel_case_names() -> None:
    chosen = checking.selection({"newFromMergeBase": "main", "changed": True}, "paths")
    assert chosen.changed and chosen.packages == ()
    assert chosen.since == Since(None, "main", names=("newFromRev", "newFromMergeBase"))
    assert chosen.since.option == "newFromMergeBase"
    assert checking.selection({"changed": False}, "paths") == checking.Selection()


def test_the_old_tree_s_dependencies_link_workspace_packages_to_their_old_selves(
    tmp_path: Path,
) -> None:
    root, old = tmp_path / "work", tmp_path / "old"
    for tree in (root, old):
        (tree / "pkgs" / "b").mkdir(parents=True)
    modules = root / "node_modules"
    (modules / "a").mkdir(parents=True)
    (modules / ".bin").mkdir()
    (modules / "@s").mkdir()
    (modules / "@s" / "b").symlink_to("../../pkgs/b", target_is_directory=True)
    # An older Signalint linked node_modules whole.
    (old / "node_modules").symlink_to(modules, target_is_directory=True)
    old_tree.link_dependencies(root, old)
    mirrored = old / "node_modules"
    assert mirrored.is_dir() and not mirrored.is_symlink()
    assert os.readlink(mirrored / "a") == str(modules / "a")
    assert os.readlink(mirrored / ".bin") == str(modules / ".bin")
    assert os.readlink(mirrored / "@s" / "b") == str(old / "pkgs" / "b")
    # Refreshed on each use: what the working tree dropped goes.
    shutil.rmtree(modules / "a")
    (modules / "@s" / "b").unlink()
    old_tree.link_dependencies(root, old)
    assert sorted(os.listdir(mirrored)) == [".bin", "@s"]
    assert os.listdir(mirrored / "@s") == []
