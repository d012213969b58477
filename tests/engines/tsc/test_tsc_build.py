"""TypeScript build mode (configs with `references`) and config selection.

The fixture `tests/fixtures/tsc-references` reproduces the pattern found on
real repositories: a root config with both `include` and `references`
(a planted `const x: number = "s"` in `src/main.ts`), two composite
packages (`app` references `core`), a package without `include` whose stale
build output (`packages/core/dist/index.d.ts`, with an error in it) lies in
the user's tree. Native `tsc -b` (7.0.2 and 5.9.3) reports exactly
TS2345 in `packages/app/src/index.ts` and TS2322 in `src/main.ts`.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from signalint.cache.program_reuse import _remove_abandoned_cold_dirs
from signalint.engines.tsc.build import BuildPlan, Project, plan_build, read_report
from signalint.engines.tsc.program import config_chain as _tsc_configs
from signalint.model import CheckResult, Scope
from signalint.pipeline.check_run import run_check
from signalint.pipeline.request import RunRequest
from signalint.project import work_dir as work
from signalint.settings.config import load_config
from tests.conftest import require_engine
from tests.helpers import write_executable
from tests.typescripts import install_typescript, typescript

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tsc-references"
NATIVE = [
    ("packages/app/src/index.ts", 3, 34, "TS2345"),
    ("src/main.ts", 3, 7, "TS2322"),
]


@pytest.fixture
def references_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the fixture with only tsc enabled and no tsc of its own yet."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    # `dist/` is ignored by this repository, so the stale output is made here.
    stale = root / "packages" / "core" / "dist" / "index.d.ts"
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_text("export declare const stale: MissingType;\n")
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": False, "tsc": True, "biome": False, "eslint": False}})
    )
    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)
    return root


@pytest.fixture
def project(references_copy: Path, tmp_path: Path, settled_inputs: None) -> Path:
    """The fixture copy launched through a project-local wrapper of the real
    pinned tsc that logs every invocation to `tsc.log`. Its files were just
    copied: they count as settled, or a check started within the settle
    window after the copy would keep no program record (as for a real edit
    that recent) and the next one would build again."""
    real = require_engine("tsc")
    write_executable(
        references_copy / "node_modules" / ".bin" / "tsc",
        f'echo "$*" >> "{tmp_path}/tsc.log"\nexec "{real}" "$@"\n',
    )
    return references_copy


def check(root: Path, scope: Scope | None = None, *, use_cache: bool = True) -> CheckResult:
    return asyncio.run(
        run_check(RunRequest(root, load_config(root), scope or Scope(), use_cache=use_cache))
    ).result


def located(result: CheckResult) -> list[tuple[str, int, int, str]]:
    return [(i.file, i.line, i.col, i.rule) for i in result.issues]


def invocations(root: Path, *, builds_only: bool = True) -> list[str]:
    """The logged tsc command lines (by default without `--version` probes)."""
    log = root.parent / "tsc.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [line for line in lines if not builds_only or line != "--version"]


@pytest.mark.real
def test_build_mode_reports_what_native_tsc_b_reports_including_the_root_sources(
    project: Path,
) -> None:
    result = check(project)
    outcome = result.outcomes["tsc"]
    assert outcome.status == "ok" and outcome.coverage_gap is None
    # No TS6310 of our own, the root's own sources are checked, and the stale
    # output in packages/core/dist is not read as an input.
    assert located(result) == NATIVE
    assert outcome.files_checked == 3
    assert all(".signalint" not in i.message for i in result.issues)


@pytest.mark.real
def test_a_type_library_listed_by_package_path_resolves_as_natively(project: Path) -> None:
    # hono's runtime tests list "types": ["vitest/globals"]: a wrapper's own
    # typeRoots must not stop tsc finding that file in node_modules (TS2688).
    library = project / "node_modules" / "fakelib"
    library.mkdir(parents=True)
    (library / "package.json").write_text('{"name": "fakelib", "version": "1.0.0"}\n')
    (library / "globals.d.ts").write_text("declare const fakeGlobal: number;\n")
    config = project / "packages" / "app" / "tsconfig.json"
    settings = json.loads(config.read_text())
    settings["compilerOptions"]["types"] = ["fakelib/globals"]
    config.write_text(json.dumps(settings))
    (project / "packages" / "app" / "src" / "uses.ts").write_text(
        "export const n: number = fakeGlobal;\n"
    )
    result = check(project)
    assert [i for i in located(result) if i[3] in ("TS2688", "TS2304")] == []
    assert located(result) == NATIVE


@pytest.mark.real
def test_a_diagnostic_without_location_points_at_the_config_of_its_project(
    project: Path,
) -> None:
    # Build mode says which project it builds before that project's
    # diagnostics: a missing type library of packages/app belongs to
    # packages/app/tsconfig.json, not to the root config.
    config = project / "packages" / "app" / "tsconfig.json"
    settings = json.loads(config.read_text())
    settings["compilerOptions"]["types"] = ["no-such-library"]
    config.write_text(json.dumps(settings))
    result = check(project)
    missing = [i for i in located(result) if i[3] == "TS2688"]
    assert missing == [("packages/app/tsconfig.json", 1, 1, "TS2688")]
    # tsc does not type-check packages/app then (its TS2345 is gone, as
    # natively): a coverage gap, never "ok" (D17).
    assert NATIVE[0] not in located(result)
    outcome = result.outcomes["tsc"]
    assert outcome.status == "error" and outcome.coverage_gap is not None
    assert "TS2688 at packages/app/tsconfig.json" in outcome.coverage_gap


@pytest.mark.real
def test_an_option_error_natively_given_too_is_an_issue_and_a_coverage_gap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No references (tsc -p): a `types` library that does not exist makes
    # tsc skip type checking, so the planted TS2322 is never reported, by
    # native tsc either. The option error is real (an issue) and the run's
    # coverage cannot be trusted (a gap), until the config is fixed.
    tsc = require_engine("tsc")
    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true, "types": ["no-such-library"]},'
        ' "include": ["src"]}'
    )
    (root / "src" / "main.ts").write_text('export const wrong: number = "planted";\n')
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": False, "tsc": True, "biome": False, "eslint": False}})
    )
    native = subprocess.run(
        [str(tsc), "-p", ".", "--pretty", "false"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert [line for line in native.stdout.splitlines() if "error TS" in line] == [
        "error TS2688: Cannot find type definition file for 'no-such-library'."
    ]
    result = check(root)
    assert located(result) == [("tsconfig.json", 1, 1, "TS2688")]
    outcome = result.outcomes["tsc"]
    assert outcome.status == "error" and outcome.failure is not None
    assert outcome.failure.kind == "incomplete"
    assert outcome.coverage_gap is not None and outcome.message == outcome.coverage_gap
    assert "TS2688 at tsconfig.json: Cannot find type definition file" in outcome.coverage_gap
    assert "may not have been type-checked" in outcome.coverage_gap
    # Fixed, the same check is ok and reports what the option error hid.
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true, "types": []}, "include": ["src"]}'
    )
    fixed = check(root)
    assert fixed.outcomes["tsc"].status == "ok" and fixed.outcomes["tsc"].coverage_gap is None
    assert located(fixed) == [("src/main.ts", 1, 14, "TS2322")]


@pytest.mark.real
def test_a_check_writes_nothing_outside_the_state_directory(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNALINT_STATE_DIR", str(tmp_path / "state"))

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=project, capture_output=True, text=True, check=True
        )
        return done.stdout

    git("init", "-q")
    git("add", "-A")
    before = git("status", "--porcelain", "--ignored")
    check(project)
    check(project, use_cache=False)
    assert git("status", "--porcelain", "--ignored") == before
    assert not list(project.rglob("*.tsbuildinfo"))


@pytest.mark.real
def test_a_warm_unchanged_references_check_spawns_no_engine_process(project: Path) -> None:
    first = check(project)
    assert invocations(project)
    runs = len(invocations(project, builds_only=False))
    second = check(project)
    # Served from the program record: not even a `--version` probe.
    assert len(invocations(project, builds_only=False)) == runs
    assert located(second) == located(first) == NATIVE
    assert second.outcomes["tsc"].cache_hits == 1
    assert second.outcomes["tsc"].files_checked == 3


@pytest.mark.real
def test_an_edit_in_one_referenced_project_is_seen_and_then_cached_again(project: Path) -> None:
    check(project)
    app = project / "packages" / "app" / "src" / "index.ts"
    app.write_text(app.read_text().replace('add("1", 2)', "add(1, 2)"))
    # core is up to date for tsc: its inputs come from the last build's record.
    fixed = check(project)
    assert located(fixed) == [NATIVE[1]]
    assert fixed.outcomes["tsc"].status == "ok"
    # A file changed moments before a run is not stored (it may have changed
    # under tsc); the next run stores the program, the one after reuses it.
    assert located(check(project)) == [NATIVE[1]]
    runs = len(invocations(project))
    assert located(check(project)) == [NATIVE[1]]
    assert len(invocations(project)) == runs
    core = project / "packages" / "core" / "src" / "index.ts"
    core.write_text(core.read_text() + 'export const broken: number = "no";\n')
    assert ("packages/core/src/index.ts", 4, 14, "TS2322") in located(check(project))


@pytest.mark.real
def test_build_info_kept_without_its_state_is_rebuilt_once_then_reused(project: Path) -> None:
    # The state directory removed (its remembered inputs gone) while the
    # build info in the work directory stays, and one project edited: tsc
    # builds app and calls core up to date with nothing remembered of it.
    # core's build info is removed and tsc runs again; app, built by the
    # first run, is up to date in the second, and what the first printed of
    # it is what the second reads (found by the real-world tier on hono).
    solution(project)
    check(project)
    shutil.rmtree(project / ".signalint")
    app = project / "packages" / "app" / "src" / "index.ts"
    app.write_text(app.read_text() + "export const edited = 1;\n")
    before = len(invocations(project))
    result = check(project)
    assert result.outcomes["tsc"].status == "ok", result.outcomes["tsc"].message
    assert located(result) == []
    assert len(invocations(project)) - before == 2
    # Every project's inputs are remembered: the next check reuses them.
    runs = len(invocations(project))
    again = check(project)
    assert located(again) == [] and again.outcomes["tsc"].cache_hits == 1
    assert len(invocations(project)) == runs


def solution(root: Path) -> None:
    """The fixture made a solution of independent projects, as hono's root
    (`files: []` and references): app no longer references core."""
    shutil.rmtree(root / "src")
    (root / "tsconfig.json").write_text(
        json.dumps(
            {"files": [], "references": [{"path": "packages/core"}, {"path": "packages/app"}]}
        )
    )
    app = root / "packages" / "app"
    config = json.loads((app / "tsconfig.json").read_text())
    del config["references"]
    (app / "tsconfig.json").write_text(json.dumps(config))
    # No errors: tsc builds a project with errors again in every run.
    (app / "src" / "index.ts").write_text("export const n: number = 1;\n")


@pytest.mark.real
def test_no_cache_check_uses_no_build_info_from_earlier_runs(project: Path) -> None:
    check(project)
    # The wrappers live in the project's work directory, outside its tree.
    assert not (project / ".signalint" / "tsc" / "build").exists()
    warm_build = work.for_project(project) / "tsc" / "build"
    assert warm_build.is_dir()
    cold = check(project, use_cache=False)
    assert located(cold) == NATIVE
    last = invocations(project)[-1].split()
    wrapper = Path(last[last.index("-b") + 1])
    assert not wrapper.is_relative_to(warm_build) and not wrapper.is_relative_to(project)
    assert not wrapper.exists()  # the cold build directory is removed afterwards


@pytest.mark.real
def test_checking_a_directory_without_its_own_tsconfig_uses_the_nearest_one_above(
    project: Path,
) -> None:
    result = check(project, Scope(("src",)))
    outcome = result.outcomes["tsc"]
    assert outcome.status == "ok", outcome.message
    assert located(result) == [NATIVE[1]]
    assert outcome.files_checked == 1  # src/main.ts: the only input inside the scope


@pytest.mark.real
def test_explicit_config_and_source_file_targets_still_select_their_config(
    project: Path,
) -> None:
    by_file = check(project, Scope(("packages/app/src/index.ts",)))
    assert located(by_file) == [NATIVE[0]]
    by_config = check(project, Scope(("packages/core/tsconfig.json",)))
    assert by_config.outcomes["tsc"].status == "ok"
    assert located(by_config) == []


@pytest.mark.real
def test_a_non_composite_reference_shows_tscs_own_error_at_the_users_config(
    project: Path,
) -> None:
    config = project / "packages" / "core" / "tsconfig.json"
    config.write_text(config.read_text().replace('"composite": true, ', ""))
    result = check(project)
    codes = {i.rule for i in result.issues}
    assert "TS6306" in codes  # what native tsc -b reports
    assert not codes & {"TS6310", "TS5069", "TS5053", "TS6059"}  # nothing of ours
    ts6306 = [i for i in result.issues if i.rule == "TS6306"]
    assert {i.file for i in ts6306} <= {"tsconfig.json", "packages/app/tsconfig.json"}
    assert all("signalint" not in i.message for i in ts6306)


def _fake_plan(root: Path) -> BuildPlan:
    base = str(root / ".signalint" / "tsc" / "build" / "k")
    projects = tuple(
        Project(str(root / rel), f"{base}/{rel}", True)
        for rel in ("packages/core/tsconfig.json", "packages/app/tsconfig.json", "tsconfig.json")
    )
    return BuildPlan(str(root), base, projects[-1].wrapper, projects)


def test_a_project_tsc_skipped_is_reported_as_missed(tmp_path: Path) -> None:
    plan = _fake_plan(tmp_path)
    wrapper = ".signalint/tsc/build/k"
    log = (
        f"1:02:03 AM - Building project '{tmp_path}/{wrapper}/packages/core/tsconfig.json'...\n"
        "\n"
        f"packages/core/src/index.ts(1,1): error TS2322: x\n"
        f"{tmp_path}/packages/core/src/index.ts\n"
        f"1:02:03 AM - Skipping build of project '{wrapper}/packages/app/tsconfig.json' "
        f"because its dependency '{wrapper}/packages/core/tsconfig.json' has errors\n"
        f"1:02:04 AM - Project '{wrapper}/tsconfig.json' is up to date because newest input\n"
    )
    report = read_report(plan, log)
    assert report.inputs == {
        f"{tmp_path}/packages/core/tsconfig.json": [f"{tmp_path}/packages/core/src/index.ts"]
    }
    assert report.up_to_date == [f"{tmp_path}/tsconfig.json"]
    assert report.missed == [f"{tmp_path}/packages/app/tsconfig.json"]
    assert "packages/app/tsconfig.json" in plan.user_text(log.splitlines()[4])
    assert wrapper not in plan.user_text(log.splitlines()[4])


def test_a_skipped_project_is_a_coverage_gap_not_ok(references_copy: Path, tmp_path: Path) -> None:
    # Fault injection: typescript before 5.6 skips dependents of a project
    # with errors; this fake tsc answers the way those versions do.
    fake = f"""
echo "$*" >> "{tmp_path}/tsc.log"
for arg in "$@"; do case "$arg" in */tsconfig.json) root_wrapper="$arg";; esac; done
base="$(dirname "$root_wrapper")"
echo "1:02:03 AM - Building project '$base/packages/core/tsconfig.json'..."
echo "packages/core/src/index.ts(1,1): error TS2322: Type 'string' is not assignable."
echo "{references_copy}/packages/core/src/index.ts"
why="because its dependency '$base/packages/core/tsconfig.json' has errors"
echo "1:02:03 AM - Skipping build of project '$base/packages/app/tsconfig.json' $why"
echo "1:02:03 AM - Skipping build of project '$base/tsconfig.json' $why"
exit 1
"""
    write_executable(references_copy / "node_modules" / ".bin" / "tsc", fake)
    result = check(references_copy)
    outcome = result.outcomes["tsc"]
    assert outcome.status == "error"
    assert outcome.coverage_gap is not None
    assert outcome.failure is not None and outcome.failure.kind == "incomplete"
    assert "packages/app/tsconfig.json" in outcome.coverage_gap
    assert "tsconfig.json" in outcome.coverage_gap and "has errors" in outcome.coverage_gap
    assert ".signalint" not in outcome.coverage_gap
    assert located(result) == [("packages/core/src/index.ts", 1, 1, "TS2322")]  # kept
    assert len(invocations(references_copy)) == 1
    check(references_copy)
    assert len(invocations(references_copy)) == 2  # a run with a gap is never stored


def test_an_installed_package_extends_is_part_of_the_cached_config_chain(tmp_path: Path) -> None:
    base = tmp_path / "node_modules" / "@tsconfig" / "strictest"
    base.mkdir(parents=True)
    (base / "package.json").write_text('{"name": "@tsconfig/strictest"}')
    (base / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}')
    (tmp_path / "tsconfig.json").write_text('{"extends": "@tsconfig/strictest/tsconfig.json"}')
    assert _tsc_configs(tmp_path, "tsconfig.json") == [
        "tsconfig.json",
        "node_modules/@tsconfig/strictest/tsconfig.json",
    ]
    (tmp_path / "tsconfig.json").write_text('{"extends": "@tsconfig/strictest"}')
    assert _tsc_configs(tmp_path, "tsconfig.json") == [
        "tsconfig.json",
        "node_modules/@tsconfig/strictest/tsconfig.json",
    ]
    (tmp_path / "tsconfig.json").write_text('{"extends": "@tsconfig/not-installed"}')
    assert _tsc_configs(tmp_path, "tsconfig.json") is None


@pytest.mark.real
def test_build_mode_matches_native_on_typescript_5(references_copy: Path) -> None:
    """TypeScript 5 as the project's own tsc (scripts/setup pins it)."""
    tsc5 = typescript(5)
    native = subprocess.run(
        [str(tsc5), "-b", "--pretty", "false", "--force"],
        cwd=shutil.copytree(references_copy, references_copy.parent / "native"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert native.stdout.count("error TS") == len(NATIVE)
    install_typescript(references_copy, 5)
    result = check(references_copy)
    assert result.outcomes["tsc"].status == "ok"
    assert located(result) == NATIVE
    assert located(check(references_copy, use_cache=False)) == NATIVE


@pytest.mark.real
def test_a_change_behind_an_old_modification_time_is_still_seen(project: Path) -> None:
    # npm extracts packages with a fixed 1985 mtime; tsc -b, which compares
    # modification times, then calls the project up to date.
    check(project)
    core = project / "packages" / "core" / "src" / "index.ts"
    core.write_text(core.read_text() + 'export const broken: number = "no";\n')
    os.utime(core, (499_162_000, 499_162_000))
    result = check(project)
    assert ("packages/core/src/index.ts", 4, 14, "TS2322") in located(result)
    assert result.outcomes["tsc"].status == "ok"


def _wrappers(root: Path, major: int) -> dict[str, dict[str, object]]:
    plan = plan_build(root, "tsconfig.json", root / ".state", major)
    return {
        os.path.relpath(p.config, root): json.loads(plan.contents[p.wrapper]) for p in plan.projects
    }


def test_wrappers_spell_out_what_would_resolve_against_the_wrapper(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "tsconfig.json").write_text(
        '{"compilerOptions": {"outDir": "${configDir}/out"}, "references": [{"path": "lib"}]}'
    )
    (tmp_path / "lib" / "tsconfig.json").write_text(
        '{"compilerOptions": {"composite": true, "outDir": "build"},'
        ' "include": ["${configDir}/src"]}'
    )
    wrappers = _wrappers(tmp_path, 7)
    root, lib = wrappers["tsconfig.json"], wrappers["lib/tsconfig.json"]
    root_options, lib_options = root["compilerOptions"], lib["compilerOptions"]
    assert isinstance(root_options, dict) and isinstance(lib_options, dict)
    # The root emits nothing; the referenced project emits declarations only,
    # into the state directory, and nothing names the state dir as a source.
    assert root_options["noEmit"] is True and "declarationDir" not in root_options
    assert lib_options["emitDeclarationOnly"] is True
    assert str(lib_options["declarationDir"]).startswith(str(tmp_path / ".state"))
    # Defaults that would follow the wrapper's directory point at the project.
    assert root["include"] == [f"{tmp_path}/**/*"]
    assert isinstance(root["exclude"], list) and isinstance(lib["exclude"], list)
    assert f"{tmp_path}/out" in root["exclude"]
    assert lib["include"] == [f"{tmp_path}/lib/src"]  # ${configDir} is the project's
    assert f"{tmp_path}/lib/build" in lib["exclude"]
    assert root_options["rootDir"] == str(tmp_path) and lib_options["rootDir"] == f"{tmp_path}/lib"
    # typescript 5 computes a non-composite rootDir from the sources: left alone.
    ts5_options = _wrappers(tmp_path, 5)["tsconfig.json"]["compilerOptions"]
    assert isinstance(ts5_options, dict) and "rootDir" not in ts5_options
    # The wrapper tree mirrors the root's absolute path.
    mirrored = f"{tmp_path}/.state/tsc/build{tmp_path}/lib/tsconfig.json"
    assert root["references"] == [{"path": mirrored}]


@pytest.mark.real
def test_a_solution_root_with_empty_files_is_no_coverage_gap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_engine("tsc")
    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)
    root = tmp_path / "solution"
    shutil.copytree(Path(__file__).parents[2] / "fixtures" / "engines" / "tsc" / "solution", root)
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": False, "tsc": True, "biome": False, "eslint": False}})
    )
    result = check(root)
    outcome = result.outcomes["tsc"]
    assert outcome.status == "ok" and outcome.coverage_gap is None
    assert [(i.file, i.rule) for i in result.issues] == [
        ("packages/a/src/index.ts", "TS2322"),
        ("packages/b/src/index.ts", "TS7006"),
    ]
    assert outcome.files_checked == 2


def test_cold_directories_of_killed_runs_are_removed_but_live_ones_kept(tmp_path: Path) -> None:
    abandoned, live = tmp_path / "cold-old", tmp_path / "cold-new"
    for directory in (abandoned, live):
        (directory / "tsc").mkdir(parents=True)
    os.utime(abandoned, (1_000_000, 1_000_000))
    _remove_abandoned_cold_dirs(tmp_path)
    assert not abandoned.exists() and live.is_dir()


def test_verbose_lines_are_recognised_in_any_locale_time_format(tmp_path: Path) -> None:
    plan = _fake_plan(tmp_path)
    wrapper = f"{tmp_path}/.signalint/tsc/build/k/tsconfig.json"
    for stamp in ("12:46:16 AM", "00:46:16", "午前0:46:16"):
        report = read_report(plan, f"{stamp} - Project '{wrapper}' is up to date because x\n")
        assert report.up_to_date == [f"{tmp_path}/tsconfig.json"]


def test_types_entries_and_package_lookups_resolve_from_the_users_config(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "pkg" / "node_modules").mkdir(parents=True)
    (project / "node_modules").mkdir()
    (tmp_path / "node_modules").mkdir()  # above the root: tsc walks up there too
    (project / "tsconfig.json").write_text('{"files": [], "references": [{"path": "pkg"}]}')
    (project / "pkg" / "tsconfig.json").write_text(
        '{"compilerOptions": {"composite": true, "types": ["./env.d.ts", "lib/sub", "/abs.d.ts"]}}'
    )
    # Wherever the work directory is (outside the root, as it is by default,
    # or inside): no typeRoots of ours, the node_modules of the config's
    # directory and of every parent linked at their mirrored places.
    for home in (tmp_path / "work-elsewhere", project / ".state"):
        plan = plan_build(project, "tsconfig.json", home, 7)
        assert plan.base == f"{home}/tsc/build{project}"
        options = json.loads(plan.contents[plan.projects[1].wrapper])["compilerOptions"]
        assert options["types"] == [f"{project}/pkg/env.d.ts", "lib/sub", "/abs.d.ts"]
        assert "typeRoots" not in options
        top = f"{home}/tsc/build"
        assert {k: v for k, v in plan.links.items() if k.startswith(top + str(tmp_path))} == {
            f"{plan.base}/pkg/node_modules": f"{project}/pkg/node_modules",
            f"{plan.base}/node_modules": f"{project}/node_modules",
            f"{top}{tmp_path}/node_modules": f"{tmp_path}/node_modules",
        }
        assert all(link.startswith(top + os.sep) for link in plan.links)
        message = f"Cannot find type definition file for '{project}/pkg/env.d.ts'."
        assert plan.user_text(message) == "Cannot find type definition file for './env.d.ts'."
        plan.write()
        assert os.readlink(f"{top}{tmp_path}/node_modules") == f"{tmp_path}/node_modules"
    tmp_path = project
    # The user's own typeRoots: every entry is looked up in them, as written.
    (tmp_path / "pkg" / "tsconfig.json").write_text(
        '{"compilerOptions": {"composite": true, "types": ["./env.d.ts"], "typeRoots": ["t"]}}'
    )
    plan = plan_build(tmp_path, "tsconfig.json", tmp_path / ".state", 7)
    options = json.loads(plan.contents[plan.projects[1].wrapper])["compilerOptions"]
    assert "types" not in options and "typeRoots" not in options and not plan.links
