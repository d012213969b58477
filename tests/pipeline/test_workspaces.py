"""Workspace discovery, the package graph and monorepoMode fallbacks (no engine runs)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from signalint.formats.sarif import Baseline, build_log
from signalint.model import CheckResult, Issue, Scope
from signalint.pipeline.matching import persisting
from signalint.pipeline.workspaces import (
    Package,
    WorkspaceError,
    _pattern_regex,
    discover,
    owned,
    plan,
)

FIXTURE = Path(__file__).parents[1] / "fixtures" / "workspace-pnpm"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def manifest(root: Path, rel: str, **fields: object) -> None:
    write(root / rel / "package.json", json.dumps(fields))


@pytest.fixture
def pnpm(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    return root


def test_pnpm_workspace_lists_named_packages_in_dependency_order_without_exclusions(
    pnpm: Path,
) -> None:
    workspace = discover(pnpm)
    names = [p.name for p in workspace.packages]
    assert sorted(names) == ["@ws/app", "@ws/core", "@ws/docs", "@ws/util"]
    assert "@ws/legacy" not in names  # `!packages/legacy`
    assert names.index("@ws/core") < names.index("@ws/app")
    assert names.index("@ws/core") < names.index("@ws/util")
    assert workspace.needs["@ws/app"] == ("@ws/core",)  # workspace:*
    assert workspace.needs["@ws/util"] == ("@ws/core",)  # ^1.0.0 served by 1.2.0
    assert workspace.source == "pnpm-workspace.yaml"


def test_npm_workspaces_field_is_discovered_like_pnpm(tmp_path: Path) -> None:
    manifest(tmp_path, ".", name="root", workspaces=["libs/*", "apps/web"])
    manifest(tmp_path, "libs/a", name="a", version="2.0.0")
    manifest(tmp_path, "apps/web", name="web", dependencies={"a": "file:../../libs/a"})
    manifest(tmp_path, "apps/other", name="other")  # not matched
    workspace = discover(tmp_path)
    assert [p.name for p in workspace.packages] == ["a", "web"]
    assert workspace.needs["web"] == ("a",)
    assert workspace.source == "package.json"


def test_yarn_workspaces_object_form_is_read(tmp_path: Path) -> None:
    manifest(tmp_path, ".", name="root", workspaces={"packages": ["pkgs/**"], "nohoist": []})
    manifest(tmp_path, "pkgs/deep/x", name="x", dependencies={"y": "link:../../y"})
    manifest(tmp_path, "pkgs/y", name="y")
    workspace = discover(tmp_path)
    assert [p.name for p in workspace.packages] == ["y", "x"]


def test_a_manifest_without_a_name_is_not_a_package(tmp_path: Path) -> None:
    manifest(tmp_path, ".", name="root", workspaces=["p/*"])
    manifest(tmp_path, "p/named", name="named")
    manifest(tmp_path, "p/anonymous", version="1.0.0")
    assert [p.name for p in discover(tmp_path).packages] == ["named"]


def test_version_ranges_make_edges_only_when_the_local_version_serves_them(
    tmp_path: Path,
) -> None:
    manifest(tmp_path, ".", name="root", workspaces=["p/*"])
    manifest(tmp_path, "p/lib", name="lib", version="1.4.2")
    manifest(tmp_path, "p/caret", name="caret", dependencies={"lib": "^1.2.0"})
    manifest(tmp_path, "p/tilde", name="tilde", devDependencies={"lib": "~1.4.0"})
    manifest(tmp_path, "p/other", name="other", dependencies={"lib": "^2.0.0"})
    manifest(tmp_path, "p/exact", name="exact", peerDependencies={"lib": "1.4.1"})
    needs = discover(tmp_path).needs
    assert needs["caret"] == ("lib",)
    assert needs["tilde"] == ("lib",)
    assert needs["other"] == ()  # the registry's lib 2.x, not the local one
    assert needs["exact"] == ()


def test_tsconfig_references_are_edges(tmp_path: Path) -> None:
    manifest(tmp_path, ".", name="root", workspaces=["p/*"])
    manifest(tmp_path, "p/a", name="a")
    manifest(tmp_path, "p/b", name="b")
    write(
        tmp_path / "p/a/tsconfig.json",
        '{ // a comment\n "references": [{ "path": "../b/tsconfig.json" }] }',
    )
    workspace = discover(tmp_path)
    assert workspace.needs["a"] == ("b",)
    assert [p.name for p in workspace.packages] == ["b", "a"]


def test_a_cycle_falls_back_in_auto_and_fails_in_strict_naming_the_packages(
    tmp_path: Path,
) -> None:
    manifest(tmp_path, ".", name="root", workspaces=["p/*"])
    manifest(tmp_path, "p/a", name="a", dependencies={"b": "workspace:*"})
    manifest(tmp_path, "p/b", name="b", dependencies={"a": "workspace:^"})
    manifest(tmp_path, "p/c", name="c")
    planned = plan(tmp_path, "auto")
    assert planned.workspace is None
    assert planned.warning is not None and "cycle among: a, b" in planned.warning
    with pytest.raises(WorkspaceError, match="cycle among: a, b"):
        plan(tmp_path, "strict")


def test_malformed_pnpm_yaml_names_the_file(tmp_path: Path) -> None:
    write(tmp_path / "pnpm-workspace.yaml", "packages: [unclosed\n")
    with pytest.raises(WorkspaceError, match=r"pnpm-workspace\.yaml cannot be read"):
        plan(tmp_path, "strict")
    assert "pnpm-workspace.yaml" in (plan(tmp_path, "auto").warning or "")


def test_packages_that_are_not_a_list_of_strings_are_refused(tmp_path: Path) -> None:
    write(tmp_path / "pnpm-workspace.yaml", "packages:\n  - 3\n")
    with pytest.raises(WorkspaceError, match="list of directory patterns"):
        discover(tmp_path)


def test_no_workspace_declaration_is_a_warning_in_auto_and_nothing_when_off(
    tmp_path: Path,
) -> None:
    manifest(tmp_path, ".", name="solo")
    assert plan(tmp_path, "off").workspace is None
    assert plan(tmp_path, "off").warning is None
    warning = plan(tmp_path, "auto").warning
    assert warning is not None and "no `workspaces` field in package.json" in warning


def test_a_pattern_leaving_the_root_is_refused(tmp_path: Path) -> None:
    manifest(tmp_path, ".", name="root", workspaces=["../elsewhere/*"])
    with pytest.raises(WorkspaceError, match="leaves the project root"):
        discover(tmp_path)


def test_two_packages_with_one_name_are_refused(tmp_path: Path) -> None:
    manifest(tmp_path, ".", name="root", workspaces=["p/*"])
    manifest(tmp_path, "p/a", name="same")
    manifest(tmp_path, "p/b", name="same")
    with pytest.raises(WorkspaceError, match="two packages are named 'same'"):
        discover(tmp_path)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("packages/*", "packages/a", True),
        ("packages/*", "packages/a/b", False),
        ("packages/**", "packages/a/b", True),
        ("**/x", "x", True),
        ("**/x", "a/b/x", True),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/c/d/b", True),
        ("a/?", "a/bb", False),
        ("./apps/*/", "apps/web", True),
    ],
)
def test_directory_patterns_match_like_package_manager_globs(
    pattern: str, path: str, matches: bool
) -> None:
    assert bool(_pattern_regex(pattern).match(path)) is matches


def test_an_exclusion_also_excludes_what_lies_below_it(tmp_path: Path) -> None:
    write(tmp_path / "pnpm-workspace.yaml", "packages: ['apps/**', '!apps/old']\n")
    manifest(tmp_path, "apps/web", name="web")
    manifest(tmp_path, "apps/old/inner", name="inner")
    assert [p.name for p in discover(tmp_path).packages] == ["web"]


def test_dependents_and_closure_follow_the_graph_both_ways(pnpm: Path) -> None:
    workspace = discover(pnpm)
    assert [p.name for p in workspace.closure(["@ws/app"])] == ["@ws/core", "@ws/app"]
    assert {p.name for p in workspace.dependents(["@ws/core"])} == {
        "@ws/core",
        "@ws/app",
        "@ws/util",
    }
    assert [p.name for p in workspace.dependents(["@ws/util"])] == ["@ws/util"]


def test_a_change_affects_its_package_and_the_packages_that_need_it(pnpm: Path) -> None:
    workspace = discover(pnpm)
    among = workspace.packages
    core = next(p for p in among if p.name == "@ws/core")
    affected = workspace.affected([f"{core.path}/src/index.ts"], among)
    assert affected is not None
    checked, others = affected
    assert {p.name for p in checked} == {"@ws/core", "@ws/app", "@ws/util"}
    assert {p.name for p in others} == {p.name for p in among} - {p.name for p in checked}
    assert workspace.affected(["README.md"], among) is None  # outside every package


def test_the_packages_a_check_runs_meet_its_scope(pnpm: Path) -> None:
    workspace = discover(pnpm)
    core = next(p for p in workspace.packages if p.name == "@ws/core")
    assert workspace.checked(None, Scope()) == workspace.packages
    assert workspace.checked(None, Scope((f"{core.path}/src",))) == (core,)
    assert workspace.checked(None, Scope((".",))) == workspace.packages
    assert workspace.checked(["@ws/core"], Scope(("elsewhere",))) == (core,)


def issue(file: str, line: int, message: str = "Type 'number' is not assignable") -> Issue:
    return Issue(
        engine="tsc", file=file, line=line, col=1, rule="TS2322", severity="error", message=message
    )


def test_an_issue_belongs_to_the_deepest_package_holding_its_file() -> None:
    outer, inner = Package("outer", "p"), Package("inner", "p/nested")
    found = owned([outer, inner], [issue("p/a.ts", 1), issue("p/nested/b.ts", 1), issue("x.ts", 1)])
    assert [i.file for i in found["inner"]] == ["p/nested/b.ts"]
    assert [i.file for i in found["outer"]] == ["p/a.ts"]
    assert [i.file for i in found[None]] == ["x.ts"]


def test_a_moved_issue_persists_and_a_new_one_does_not() -> None:
    old = [issue("a.ts", 10)]
    moved, added = issue("a.ts", 12), issue("a.ts", 30, "Type 'string' is not assignable")
    assert persisting(old, [moved, added]) == frozenset({moved.issue_id})


def test_sarif_marks_each_result_with_its_baseline_state() -> None:
    new, old = issue("a.ts", 1), issue("b.ts", 2)
    result = CheckResult("c", "f", "/p", {}, (new, old), 0.0)
    log = build_log(result, None, Baseline({new.issue_id: "new", old.issue_id: "unchanged"}))
    states = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r["baselineState"]
        for r in log["runs"][0]["results"]
    }
    assert states == {"a.ts": "new", "b.ts": "unchanged"}
    assert "baselineState" not in json.dumps(build_log(result))
