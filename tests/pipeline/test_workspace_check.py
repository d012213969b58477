"""Checking a workspace with the real tsc: per package, in dependency order, only what is new.

The fixture `tests/fixtures/workspace-pnpm` (see its README) is copied and
linked as pnpm would (`node_modules/@ws/core` in each dependent), then
checked through the check service and the CLI's `main`.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from signalint.cache.context import Context
from signalint.cli.main import main
from signalint.pipeline.check_run import PackageRun
from signalint.project import work_dir as work
from signalint.service import check_service as service
from signalint.settings.config import load_config
from signalint.warm.pool import WarmPool
from tests.conftest import require_engine
from tests.helpers import git

FIXTURE = Path(__file__).parents[1] / "fixtures" / "workspace-pnpm"
CORE_ERROR = ("packages/core/src/index.ts", "TS2322")
APP_ERROR = ("packages/app/src/main.ts", "TS2345")
_NATIVE_LINE = re.compile(r"^(?P<file>.+?)\(\d+,\d+\): error (?P<rule>TS\d+):")

pytestmark = [pytest.mark.real, pytest.mark.usefixtures("settled_inputs")]


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    require_engine("tsc")
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    for dependent in ("app", "util"):
        link = root / "packages" / dependent / "node_modules" / "@ws" / "core"
        link.parent.mkdir(parents=True)
        link.symlink_to("../../../core", target_is_directory=True)
    (root / ".gitignore").write_text("node_modules/\n.signalint/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fixture")
    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)
    monkeypatch.delenv("SIGNALINT_MONOREPO_MODE", raising=False)
    return Path(os.path.realpath(root))


def check(root: Path, context: Context | None = None, **kwargs: Any) -> service.Checked:
    return asyncio.run(
        service.check(
            service.CheckRequest(
                root,
                load_config(root),
                kwargs.pop("paths", ()),
                locate=service.from_root(root),
                **kwargs,
            ),
            service.Services(context or Context()),
        )
    )


def runs(checked: service.Checked) -> dict[str, PackageRun]:
    return {r.package.name: r for r in checked.run.package_runs}


def ran(checked: service.Checked) -> set[str]:
    """Packages whose tsc really ran (not served from the program cache)."""
    return {n for n, r in runs(checked).items() if r.outcome and r.outcome.cache_misses}


def keys(issues: Sequence[Any]) -> Counter[tuple[str, str]]:
    return Counter((i.file, i.rule) for i in issues)


def test_each_package_is_checked_with_its_own_tsconfig_in_dependency_order(
    workspace: Path,
) -> None:
    checked = check(workspace)
    order = [r.package.name for r in checked.run.package_runs]
    assert order.index("@ws/core") < order.index("@ws/app")
    assert keys(checked.result.issues) == Counter([CORE_ERROR, APP_ERROR])
    docs = runs(checked)["@ws/docs"]
    assert docs.outcome is None and "no tsc configuration" in (docs.note or "")
    assert checked.result.outcomes["tsc"].status == "ok"
    # packages/legacy is excluded: its planted error is never reported.
    assert not any("legacy" in i.file for i in checked.result.issues)


def test_per_package_results_match_native_tsc_in_each_package_with_multiplicity(
    workspace: Path,
) -> None:
    tsc = require_engine("tsc")
    checked = check(workspace)
    for name, package_run in runs(checked).items():
        if package_run.outcome is None:
            continue
        path = package_run.package.path
        native = subprocess.run(
            [str(tsc), "-p", path, "--noEmit", "--pretty", "false"],
            cwd=workspace,
            capture_output=True,
            text=True,
        )
        found: Counter[tuple[str, str]] = Counter()
        for line in native.stdout.splitlines():
            if m := _NATIVE_LINE.match(line):
                found[(os.path.normpath(m["file"]), m["rule"])] += 1
        assert keys(package_run.outcome.issues) == found, name


def test_an_edit_in_a_leaf_package_reruns_tsc_for_that_package_alone(workspace: Path) -> None:
    context = Context()
    check(workspace, context)
    assert ran(check(workspace, context)) == set()
    source = workspace / "packages" / "util" / "src" / "index.ts"
    source.write_text(source.read_text() + "export const more = 1;\n")
    assert ran(check(workspace, context)) == {"@ws/util"}


def test_a_check_of_a_file_kept_warm_is_answered_for_that_file_alone(workspace: Path) -> None:
    # app gets a second module with an error of its own; a check of app's
    # main file (as the CLI's `check FILE` asks) lets app's warm tsc answer
    # for that file alone after an edit, equal to a cold check of it.
    extra = workspace / "packages" / "app" / "src" / "extra.ts"
    extra.write_text('export const wrong: number = "s";\n')
    app = "packages/app/src/main.ts"

    def request(**kwargs: Any) -> service.CheckRequest:
        config = load_config(workspace)
        return service.CheckRequest(
            workspace, config, locate=service.from_root(workspace), **kwargs
        )

    async def scenario() -> tuple[service.Checked, service.Checked]:
        pool = WarmPool(1 << 32, workspace / ".signalint" / "warm")
        warm = service.Services(Context(warm=pool))
        try:
            await service.check(request(), warm)
            source = workspace / "packages" / "core" / "src" / "index.ts"
            source.write_text(source.read_text() + "export const more = 1;\n")
            scoped = await service.check(request(paths=[app], files_only=True), warm)
        finally:
            await pool.close()
        cold = await service.check(request(paths=[app], use_cache=False), service.Services())
        return scoped, cold

    scoped, cold = asyncio.run(scenario())
    outcome = scoped.run.result.outcomes["tsc"]
    assert outcome.scoped and outcome.served == "warm"
    assert not cold.run.result.outcomes["tsc"].scoped
    assert keys(scoped.run.result.issues) == keys(cold.run.result.issues) == Counter([APP_ERROR])
    assert scoped.filtered_out is None and cold.filtered_out  # extra.ts, core: counted cold


def test_an_edit_in_a_needed_package_reruns_it_and_the_dependents_that_read_it(
    workspace: Path,
) -> None:
    context = Context()
    check(workspace, context)
    source = workspace / "packages" / "core" / "src" / "index.ts"
    source.write_text(source.read_text() + "export const more = 1;\n")
    # @ws/util declares @ws/core but imports nothing from it: its program
    # (what tsc read) is unchanged, so it is not re-run either.
    assert ran(check(workspace, context)) == {"@ws/core", "@ws/app"}


def test_package_option_checks_the_package_and_what_it_needs(workspace: Path) -> None:
    checked = check(workspace, packages=["@ws/app"])
    assert [r.package.name for r in checked.run.package_runs] == ["@ws/core", "@ws/app"]
    assert checked.targets == ("packages/core", "packages/app")
    assert keys(checked.result.issues) == Counter([CORE_ERROR, APP_ERROR])


def test_changed_files_bring_their_packages_programs_and_dependents(workspace: Path) -> None:
    (workspace / "packages" / "core" / "src" / "extra.ts").write_text("export const e = 1;\n")
    checked = check(workspace, changed=["packages/core/src/extra.ts"])
    assert {r.package.name for r in checked.run.package_runs} == {
        "@ws/core",
        "@ws/app",
        "@ws/util",
    }
    # The programs' issues are reported, not only the changed file's.
    assert keys(checked.result.issues) == Counter([CORE_ERROR, APP_ERROR])


def test_strict_mode_with_a_cycle_is_a_usage_error_naming_the_packages(
    workspace: Path,
    capsys: pytest.CaptureFixture[str],
    in_project: Callable[[Path], Path],
) -> None:
    manifest = workspace / "packages" / "core" / "package.json"
    data = json.loads(manifest.read_text())
    data["dependencies"] = {"@ws/app": "workspace:*"}
    manifest.write_text(json.dumps(data))
    in_project(workspace)
    assert main(["check", "--package", "@ws/app"]) == 2
    assert "cycle among: @ws/app, @ws/core" in capsys.readouterr().err
    os.environ["SIGNALINT_MONOREPO_MODE"] = "auto"
    try:
        code = main(["check", "--format", "json"])
    finally:
        del os.environ["SIGNALINT_MONOREPO_MODE"]
    out, err = capsys.readouterr()
    assert code == 1
    assert "fell back to the project root" in err
    assert "cycle" in json.loads(out)["workspace"]["warning"]


def test_json_and_text_summarize_each_package(
    workspace: Path, capsys: pytest.CaptureFixture[str], in_project: Callable[[Path], Path]
) -> None:
    in_project(workspace)
    assert main(["check", "--format", "json"]) == 1
    summary = json.loads(capsys.readouterr().out)["workspace"]
    by_name = {p["name"]: p for p in summary["packages"]}
    assert by_name["@ws/app"]["counts"] == {"errors": 1, "warnings": 0, "issues": 1}
    assert by_name["@ws/app"]["path"] == "packages/app"
    assert by_name["@ws/util"]["status"] == "clean"
    assert by_name["@ws/docs"]["status"] == "not_checked"
    assert by_name["@ws/docs"]["engines"]["tsc"]["status"] == "skipped"
    assert main(["check", "--format", "text"]) == 1
    text = capsys.readouterr().out
    assert re.search(r"@ws/core\s+issues_found\s+1 error, 0 warnings\s+packages/core/", text)
    # Issues are grouped under the package holding their file.
    grouped = text.split("Package @ws/core (packages/core/) (1 issue)")[1]
    head, rest = grouped.split("Package @ws/app (packages/app/) (1 issue)")
    assert "packages/core/src/index.ts:5:14" in head and "packages/app/" not in head
    assert "packages/app/src/main.ts:3:34" in rest


def test_sarif_names_each_results_package_as_the_json_workspace_block_does(
    workspace: Path, capsys: pytest.CaptureFixture[str], in_project: Callable[[Path], Path]
) -> None:
    in_project(workspace)
    assert main(["check", "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    block = document["workspace"]
    assert main(["check", "--format", "sarif"]) == 1
    log = json.loads(capsys.readouterr().out)
    expected = {p["name"]: {"path": p["path"], "status": p["status"]} for p in block["packages"]}
    assert {"@ws/core", "@ws/app", "@ws/util", "@ws/docs"} <= set(expected)
    for run in log["runs"]:
        assert run["properties"]["packages"] == expected
    per_package: Counter[str | None] = Counter(
        r.get("properties", {}).get("package") for run in log["runs"] for r in run["results"]
    )
    counted = {p["name"]: p["counts"]["issues"] for p in block["packages"]}
    outside = Counter({None: block["outsidePackages"]["issues"]})
    assert per_package == Counter({k: v for k, v in counted.items() if v}) + outside
    assert per_package == Counter({"@ws/core": 1, "@ws/app": 1})


def test_new_from_rev_reports_only_issues_absent_at_the_revision(
    workspace: Path, capsys: pytest.CaptureFixture[str], in_project: Callable[[Path], Path]
) -> None:
    source = workspace / "packages" / "util" / "src" / "index.ts"
    source.write_text(source.read_text() + 'export const bad: number = "x";\n')
    git(workspace, "commit", "-qam", "a new error")
    in_project(workspace)
    assert main(["check", "--new-from-rev", "HEAD~1", "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert [(i["file"], i["rule"]) for i in document["remainingIssues"]] == [
        ("packages/util/src/index.ts", "TS2322")
    ]
    found = document["baseline"]
    assert (found["new"], found["unchanged"]) == (1, 2)
    # Only the changed package (it has no dependents) is checked at HEAD~1.
    assert found["checkedAtRev"] == ["packages/util"]
    assert set(found["reusedPackages"]) == {"@ws/core", "@ws/docs", "@ws/app"}
    assert main(["check", "--new-from-rev", "HEAD~1", "--format", "sarif"]) == 1
    log = json.loads(capsys.readouterr().out)
    states = Counter(r["baselineState"] for run in log["runs"] for r in run["results"])
    assert states == Counter({"unchanged": 2, "new": 1})
    # The user's tree and repository are untouched.
    assert "a new error" in git(workspace, "log", "-1", "--format=%s")
    assert git(workspace, "status", "--porcelain") == ""
    # The old tree is a copy in the work directory, outside the project, not
    # a registered worktree.
    assert len(git(workspace, "worktree", "list").splitlines()) == 1
    assert list((work.for_project(workspace) / "trees").glob("*.tree"))
    assert not (workspace / ".signalint" / "baseline").exists()


def test_new_from_rev_with_nothing_new_is_clean_and_a_bad_revision_is_a_usage_error(
    workspace: Path, capsys: pytest.CaptureFixture[str], in_project: Callable[[Path], Path]
) -> None:
    in_project(workspace)
    assert main(["check", "--new-from-rev", "HEAD", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "clean"
    assert main(["check", "--new-from-rev", "no-such-branch"]) == 2
    assert "not a revision of this repository" in capsys.readouterr().err
    assert main(["check", "--new-from-merge-base", "HEAD", "--format", "json"]) == 0


@pytest.mark.anyio
async def test_mcp_check_project_carries_the_per_package_summary_and_refuses_strict_cycles(
    workspace: Path,
) -> None:
    from tests.server.conftest import connect

    async with connect(workspace) as client:
        answer = await client.call("check_project")  # validated against the output schema
        packages = {p["name"]: p["status"] for p in answer.data["workspace"]["packages"]}
        assert packages == {
            "@ws/core": "issues_found",
            "@ws/app": "issues_found",
            "@ws/util": "clean",
            "@ws/docs": "not_checked",
        }
    manifest = workspace / "packages" / "core" / "package.json"
    data = json.loads(manifest.read_text())
    data["dependencies"] = {"@ws/app": "workspace:*"}
    manifest.write_text(json.dumps(data))
    async with connect(workspace, SIGNALINT_MONOREPO_MODE="strict") as client:
        refused = await client.call("check_project")
        assert refused.error
        assert "cycle among: @ws/app, @ws/core" in json.dumps(refused.data)


def test_mcp_check_project_packages_checks_what_the_cli_package_option_checks(
    workspace: Path, capsys: pytest.CaptureFixture[str], in_project: Callable[[Path], Path]
) -> None:
    from tests.server.conftest import connect

    async def session() -> dict[str, Any]:
        async with connect(workspace) as client:
            answer = await client.call("check_project", {"packages": ["@ws/app"]})
            unknown = await client.call("check_project", {"packages": ["@ws/nope"]})
            assert unknown.error and unknown.data["field"] == "packages"
            assert "@ws/core" in unknown.data["message"]  # it lists the packages
            data: dict[str, Any] = answer.data
            return data

    answer = asyncio.run(session())
    in_project(workspace)
    assert main(["check", "--package", "@ws/app", "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    names = [p["name"] for p in answer["workspace"]["packages"]]
    assert names == [p["name"] for p in document["workspace"]["packages"]]
    assert names == ["@ws/core", "@ws/app"]
    assert answer["totalIssues"] == document["totalIssues"] == 2


def test_changed_option_checks_git_changes_and_says_when_nothing_changed(
    workspace: Path, capsys: pytest.CaptureFixture[str], in_project: Callable[[Path], Path]
) -> None:
    in_project(workspace)
    assert main(["check", "--changed"]) == 0
    assert "no file changed against HEAD" in capsys.readouterr().err
    source = workspace / "packages" / "util" / "src" / "index.ts"
    source.write_text(source.read_text() + 'export const bad: number = "x";\n')
    assert main(["check", "--changed", "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in document["workspace"]["packages"]] == ["@ws/util"]
    assert [(i["file"], i["rule"]) for i in document["remainingIssues"]] == [
        ("packages/util/src/index.ts", "TS2322")
    ]
    assert main(["check", "--changed", "packages"]) == 2
    assert "cannot be combined" in capsys.readouterr().err


def test_a_path_outside_every_package_is_type_checked_with_the_root_config(
    workspace: Path,
) -> None:
    (workspace / "scripts").mkdir()
    (workspace / "scripts" / "tool.ts").write_text('export const t: number = "root";\n')
    (workspace / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["scripts"]}\n'
    )
    checked = check(workspace, paths=["scripts"])
    assert checked.run.package_runs == ()
    assert keys(checked.result.issues) == Counter([("scripts/tool.ts", "TS2322")])


def test_at_rev_a_package_reads_the_revision_s_sibling_not_the_working_tree_s(
    workspace: Path, capsys: pytest.CaptureFixture[str], in_project: Callable[[Path], Path]
) -> None:
    # app imports @ws/core through node_modules (a workspace link). A change
    # to core's return type makes a new error in app: at the revision, app
    # must be checked against the revision's core, or the error would look
    # present there already and be called unchanged.
    core = workspace / "packages" / "core" / "src" / "index.ts"
    core.write_text(core.read_text().replace("b: number): number {", "b: number): string {"))
    core.write_text(core.read_text().replace("return a + b;", "return String(a + b);"))
    in_project(workspace)
    assert main(["check", "--new-from-rev", "HEAD", "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    found = document["baseline"]
    assert "packages/app" in found["checkedAtRev"]
    assert found["enginesNotOkAtRev"] == [] and found["fallback"] == []
    assert [(i["file"], i["rule"]) for i in document["remainingIssues"]] == [
        ("packages/app/src/main.ts", "TS2322")
    ]
    # The working tree's links are untouched.
    link = workspace / "packages" / "app" / "node_modules" / "@ws" / "core"
    assert os.readlink(link) == "../../../core"
