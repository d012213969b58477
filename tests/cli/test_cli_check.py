"""`signalint check` end to end: real engines on fixture projects, through main()."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from signalint.cli.main import main
from tests.conftest import require_engine
from tests.helpers import write_executable

FIXTURES = Path(__file__).parents[1] / "fixtures"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def sarif_keys(log: dict[str, Any]) -> dict[str, Counter[tuple[str, str, int]]]:
    """Per engine: multiset of (file, rule, line) over all SARIF results."""
    keys: dict[str, Counter[tuple[str, str, int]]] = {}
    for run in log["runs"]:
        counter: Counter[tuple[str, str, int]] = Counter()
        for result in run["results"]:
            location = result["locations"][0]["physicalLocation"]
            counter[
                (
                    location["artifactLocation"]["uri"],
                    result["ruleId"],
                    location["region"]["startLine"],
                )
            ] += 1
        keys[run["tool"]["driver"]["name"]] = counter
    return keys


def merged_keys(log: dict[str, Any]) -> dict[str, Counter[tuple[str, int]]]:
    """Per engine: multiset of (file, line) of results another engine leads (D20)."""
    keys: dict[str, Counter[tuple[str, int]]] = {}
    for run in log["runs"]:
        for result in run["results"]:
            location = result["locations"][0]["physicalLocation"]
            where = (location["artifactLocation"]["uri"], location["region"]["startLine"])
            for engine in result.get("properties", {}).get("alsoReportedBy", []):
                keys.setdefault(engine, Counter())[where] += 1
    return keys


def assert_same_multiset(
    engine: str,
    native_keys: Counter[tuple[str, str, int]],
    log: dict[str, Any],
) -> None:
    """Every native diagnostic appears once: in the engine's own run, or merged
    into another engine's result on the same file and line; nothing extra."""
    own = sarif_keys(log).get(engine, Counter())
    assert not own - native_keys, f"{engine}: extra results"
    missing = native_keys - own
    lines = Counter((file, line) for file, _, line in missing.elements())
    assert lines == merged_keys(log).get(engine, Counter()), engine


def native(argv: list[str], cwd: Path) -> str:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False).stdout


def native_tsc(root: Path) -> Counter[tuple[str, str, int]]:
    out = native(
        [str(require_engine("tsc")), "-p", "tsconfig.json", "--noEmit", "--pretty", "false"], root
    )
    found = re.findall(r"^(.+?)\((\d+),\d+\): (?:error|warning) (TS\d+):", out, re.M)
    return Counter((file, rule, int(line)) for file, line, rule in found)


def native_oxlint(root: Path) -> Counter[tuple[str, str, int]]:
    data = json.loads(native([str(require_engine("oxlint")), "--format", "json", "."], root))
    return Counter(
        (d["filename"], d["code"], d["labels"][0]["span"]["line"]) for d in data["diagnostics"]
    )


def native_eslint(root: Path) -> Counter[tuple[str, str, int]]:
    data = json.loads(native([str(require_engine("eslint")), "--format", "json", "."], root))
    return Counter(
        (str(Path(f["filePath"]).relative_to(root)), m["ruleId"], m["line"])
        for f in data
        for m in f["messages"]
    )


def native_biome(root: Path) -> Counter[tuple[str, str]]:
    out = native(
        [str(require_engine("biome")), "lint", "--reporter", "json", "--max-diagnostics=none", "."],
        root,
    )
    data = json.loads(out[out.index("{") :].splitlines()[0])
    return Counter((d["location"]["path"], d["category"]) for d in data["diagnostics"])


@pytest.mark.real
def test_every_native_diagnostic_appears_exactly_once_in_sarif(
    demo_project: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    in_project(demo_project)
    code, out, _ = run_cli(capsys, "check", "--format", "sarif")
    assert code == 1
    log = json.loads(out)
    ours = sarif_keys(log)
    assert set(ours) >= {"oxlint", "tsc", "biome", "eslint"}
    for engine, expected in (
        ("tsc", native_tsc(demo_project)),
        ("oxlint", native_oxlint(demo_project)),
        ("eslint", native_eslint(demo_project)),
    ):
        assert expected, f"native {engine} found nothing: the fixture lost its errors"
        assert_same_multiset(engine, expected, log)
    # Biome's JSON has no line; count per file what other engines lead.
    biome_ours = Counter((file, rule) for file, rule, _ in ours["biome"].elements())
    biome_native = native_biome(demo_project)
    assert not biome_ours - biome_native
    led = Counter(file for file, _ in merged_keys(log).get("biome", Counter()).elements())
    assert Counter(file for file, _ in (biome_native - biome_ours).elements()) == led


@pytest.mark.real
def test_json_report_has_schema_fields_and_ranked_clusters(
    demo_project: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    in_project(demo_project)
    code, out, _ = run_cli(capsys, "check")
    payload = json.loads(out)
    assert code == 1
    assert payload["schemaVersion"] == "1.4" and payload["status"] == "issues_found"
    assert payload["projectRoot"] == str(demo_project.resolve())
    assert {name: e["status"] for name, e in payload["engines"].items()} == {
        "oxlint": "ok",
        "tsc": "ok",
        "biome": "ok",
        "eslint": "ok",
    }
    returned = sum(c["issueCount"] for c in payload["clusters"]) + len(payload["remainingIssues"])
    assert returned == payload["totalIssues"] > 0
    priorities = [c["priority"] for c in payload["clusters"]]
    assert priorities == sorted(priorities)
    assert re.fullmatch(r"[0-9a-f]{16}", payload["checkId"])


@pytest.mark.real
def test_check_ids_are_unique_and_fingerprints_follow_content(
    demo_project: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    in_project(demo_project)
    first = json.loads(run_cli(capsys, "check")[1])
    second = json.loads(run_cli(capsys, "check")[1])
    assert first["checkId"] != second["checkId"]
    assert first["fingerprint"] == second["fingerprint"]
    (demo_project / "src" / "user.ts").write_text("export const ok: number = 1;\n")
    third = json.loads(run_cli(capsys, "check")[1])
    assert third["fingerprint"] != first["fingerprint"]


@pytest.mark.real
def test_compact_keys_from_flag_and_environment(
    demo_project: Path,
    in_project: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    in_project(demo_project)
    flagged = json.loads(run_cli(capsys, "check", "--compact")[1])
    monkeypatch.setenv("SIGNALINT_COMPACT", "1")
    from_env = json.loads(run_cli(capsys, "check")[1])
    for payload in (flagged, from_env):
        assert payload["v"] == "1.4" and "projectRoot" not in payload
        assert {"total", "remaining", "omitted"} <= set(payload)


@pytest.mark.real
def test_fail_on_priority_counts_clusters_and_flat_records(
    demo_project: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    in_project(demo_project)
    payload = json.loads(run_cli(capsys, "check")[1])
    best = min(
        [c["priority"] for c in payload["clusters"]]
        + [2 if r["severity"] == "error" else 4 for r in payload["remainingIssues"]]
    )
    assert run_cli(capsys, "check", "--fail-on-priority", str(best))[0] == 1
    if best > 1:
        assert run_cli(capsys, "check", "--fail-on-priority", str(best - 1))[0] == 0
    assert run_cli(capsys, "check", "--fail-on-priority", "0")[0] == 2


@pytest.mark.real
def test_github_format_annotates_every_issue(
    demo_project: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    in_project(demo_project)
    total = json.loads(run_cli(capsys, "check")[1])["totalIssues"]
    _, out, _ = run_cli(capsys, "check", "--format", "github")
    annotations = [line for line in out.splitlines() if re.match(r"::(error|warning) file=", line)]
    assert len(annotations) == total


@pytest.mark.real
def test_text_format_lists_file_line_col(
    demo_project: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    in_project(demo_project)
    _, out, _ = run_cli(capsys, "check", "--format", "text")
    assert "\x1b[" not in out  # not a TTY: no colour codes
    assert re.search(r"^src/\S+\.(ts|js):\d+:\d+", out, re.M)


@pytest.mark.real
def test_path_arguments_scope_the_report(
    demo_project: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    in_project(demo_project)
    full = json.loads(run_cli(capsys, "check", "--format", "sarif")[1])
    code, out, _ = run_cli(capsys, "check", "src/legacy.js", "--format", "sarif")
    scoped = json.loads(out)
    files = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for run in scoped["runs"]
        for r in run["results"]
    }
    assert files == {"src/legacy.js"}
    assert sum(len(r["results"]) for r in scoped["runs"]) < sum(
        len(r["results"]) for r in full["runs"]
    )
    assert code == 1


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../outside", "outside the project root"),
        ("/etc/passwd", "outside the project root"),
        ("-rf", "-"),
        ("src/none.ts", "no such"),
    ],
)
def test_refused_paths_exit_2_naming_the_path(
    demo_copy: Path, in_project: Any, capsys: pytest.CaptureFixture[str], path: str, reason: str
) -> None:
    in_project(demo_copy)
    code, out, err = run_cli(capsys, "check", "--", path)
    assert code == 2 and out == ""
    assert path in err and reason in err


def test_symlink_escape_is_refused(
    demo_copy: Path, in_project: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    outside = tmp_path / "secret.ts"
    outside.write_text("export const x = 1;\n")
    (demo_copy / "src" / "link.ts").symlink_to(outside)
    in_project(demo_copy)
    code, _, err = run_cli(capsys, "check", "src/link.ts")
    assert code == 2 and "src/link.ts" in err


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"engines": {"oxlint": true}, "colour": 1}', "colour"),
        ('{"engines": {"tsc": "yes"}}', "engines.tsc"),
        ('{"timeoutsMs": {"tsc": 0}}', "timeoutsMs.tsc"),
        ('{"engines": {', "1:"),
    ],
)
def test_bad_config_exits_2_naming_file_and_key(
    demo_copy: Path,
    in_project: Any,
    capsys: pytest.CaptureFixture[str],
    content: str,
    needle: str,
) -> None:
    (demo_copy / "signalint.config.json").write_text(content)
    in_project(demo_copy)
    code, out, err = run_cli(capsys, "check")
    assert code == 2 and out == ""
    assert "signalint.config.json" in err and needle in err


@pytest.mark.real
def test_identical_files_under_an_override_get_their_own_results(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    require_engine("oxlint")
    root = tmp_path / "proj"
    for folder in ("lax", "strict"):
        (root / folder).mkdir(parents=True)
        (root / folder / "a.js").write_text("export function f() {\n  debugger;\n}\n")
    (root / "package.json").write_text('{"name": "p", "private": true}\n')
    (root / ".oxlintrc.json").write_text(
        json.dumps(
            {
                "rules": {"no-debugger": "off"},
                "overrides": [{"files": ["strict/**"], "rules": {"no-debugger": "error"}}],
            }
        )
    )
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": True, "tsc": False, "biome": False, "eslint": False}})
    )
    in_project(root)
    _, out, _ = run_cli(capsys, "check", "--format", "sarif")
    results = [r for run in json.loads(out)["runs"] for r in run["results"]]
    files = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert files == ["strict/a.js"]
    assert results[0]["level"] == "error"


@pytest.mark.real
def test_large_project_is_complete_in_sarif_and_capped_in_json(
    tmp_path: Path,
    in_project: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require_engine("oxlint")
    root = tmp_path / "big"
    for index in range(1200):
        folder = root / "src" / f"m{index % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{index}.js").write_text(
            f"export function f{index}() {{\n  debugger;\n  debugger;\n  return {index};\n}}\n"
        )
    (root / "package.json").write_text('{"name": "big", "private": true}\n')
    (root / ".oxlintrc.json").write_text('{"rules": {"no-debugger": "error"}}\n')
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": True, "tsc": False, "biome": False, "eslint": False}})
    )
    # Force many small batches so the argv splitting is exercised on a real engine.
    monkeypatch.setattr("signalint.engines.runner._ARGV_BUDGET", 8192)
    in_project(root)
    _, out, _ = run_cli(capsys, "check", "--format", "sarif")
    results = [r for run in json.loads(out)["runs"] for r in run["results"]]
    assert len(results) == 2400
    assert len({r["partialFingerprints"]["signalintIssueId/v1"] for r in results}) == 2400
    payload = json.loads(run_cli(capsys, "check")[1])
    assert payload["totalIssues"] == 2400
    assert len(payload["remainingIssues"]) <= 100
    assert payload["clusters"][0]["issueCount"] == 2400 and payload["clusters"][0]["priority"] == 1


def test_nothing_checked_when_no_engine_can_run(
    tmp_path: Path,
    in_project: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    (root / "package.json").write_text('{"name": "e", "private": true}\n')
    (root / "a.js").write_text("export const a = 1;\n")
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": True, "tsc": False, "biome": False, "eslint": False}})
    )
    monkeypatch.setenv("SIGNALINT_ENGINES_DIR", str(tmp_path / "no-engines"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    in_project(root)
    code, out, err = run_cli(capsys, "check")
    payload = json.loads(out)
    assert code == 1
    assert payload["status"] == "error" and payload.get("code") == "nothing_checked", payload
    assert payload["engines"]["oxlint"]["status"] == "disabled"
    assert "signalint engines install oxlint" in payload["engines"]["oxlint"]["message"]
    assert "signalint engines install oxlint" in err


@pytest.mark.real
def test_one_problem_reported_by_three_engines_is_one_issue_naming_all(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("oxlint", "eslint", "biome"):
        require_engine(name)
    root = tmp_path / "merge"
    shutil.copytree(FIXTURES / "merge", root)
    in_project(root)
    _, out, _ = run_cli(capsys, "check", "--format", "sarif")
    log = json.loads(out)
    assert_same_multiset("oxlint", native_oxlint(root), log)
    assert_same_multiset("eslint", native_eslint(root), log)
    by_line: dict[int, list[dict[str, Any]]] = {}
    for run in log["runs"]:
        for result in run["results"]:
            line = result["locations"][0]["physicalLocation"]["region"]["startLine"]
            by_line.setdefault(line, []).append(result)
    assert [r["ruleId"] for r in by_line[5]] == ["no-debugger"]
    assert by_line[5][0]["properties"]["alsoReportedBy"] == ["biome", "oxlint"]
    # Two unused variables on one line stay two issues, each seen by all three.
    assert [r["ruleId"] for r in by_line[6]] == ["no-unused-vars", "no-unused-vars"]
    assert all(r["properties"]["alsoReportedBy"] == ["biome", "oxlint"] for r in by_line[6])

    code, out, _ = run_cli(capsys, "check")
    payload = json.loads(out)
    assert code == 1
    native_total = sum(native_oxlint(root).values()) + sum(native_eslint(root).values())
    native_total += sum(native_biome(root).values())
    # 28 native diagnostics (9 ESLint, 9 Oxlint, 10 Biome) are 11 problems.
    # Left apart: Biome's noAssignInExpressions (only inspired by
    # no-cond-assign), and Biome's two reports of the twice-declared
    # variable (one per declaration) against ESLint's one.
    assert native_total == 28
    assert payload["totalIssues"] == 11


def coverage_project(tmp_path: Path, **config: Any) -> Path:
    """A copy of fixtures/coverage (clean TS, CSS, Markdown) with `config`."""
    root = tmp_path / "coverage"
    shutil.copytree(FIXTURES / "coverage", root)
    settings = json.loads((root / "signalint.config.json").read_text())
    settings.update(config)
    (root / "signalint.config.json").write_text(json.dumps(settings))
    return root


@pytest.mark.real
def test_ignoring_everything_is_nothing_checked_not_clean(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("oxlint", "tsc", "biome"):
        require_engine(name)
    in_project(coverage_project(tmp_path))
    code, out, _ = run_cli(capsys, "check")
    assert code == 0 and json.loads(out)["status"] == "clean"  # the fixture is clean

    in_project(coverage_project(tmp_path / "all-ignored", ignore=["**"]))
    code, out, _ = run_cli(capsys, "check")
    payload = json.loads(out)
    assert code == 1
    assert payload["status"] == "error" and payload.get("code") == "nothing_checked", payload
    assert {e["filesChecked"] for e in payload["engines"].values()} == {0}
    assert "`ignore` in signalint.config.json" in payload["message"]


@pytest.mark.real
def test_a_scope_without_a_file_any_engine_checks_is_nothing_checked(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("oxlint", "biome"):
        require_engine(name)
    engines = {"oxlint": True, "tsc": False, "biome": True, "eslint": False}
    root = in_project(coverage_project(tmp_path, engines=engines))
    # Plain text: neither Oxlint nor Biome reads it (Biome does read Markdown).
    (root / "NOTES.txt").write_text("nothing to lint here\n")
    code, out, _ = run_cli(capsys, "check", "NOTES.txt")
    payload = json.loads(out)
    assert code == 1 and payload["code"] == "nothing_checked"
    assert "oxlint checked no file" in payload["message"]
    assert "biome checked no file" in payload["message"]


@pytest.mark.real
def test_an_engine_that_checked_nothing_in_the_project_beside_others_warns_and_fails(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("oxlint", "biome"):
        require_engine(name)
    engines = {"oxlint": True, "tsc": False, "biome": True, "eslint": False}
    # Only the stylesheet and the README are left for the whole project.
    in_project(coverage_project(tmp_path, engines=engines, ignore=["src/**"]))
    code, out, _ = run_cli(capsys, "check")
    payload = json.loads(out)
    assert code == 1
    assert payload["status"] == "error" and "code" not in payload
    assert payload["engines"]["biome"]["filesChecked"] >= 1
    assert payload["engines"]["oxlint"]["filesChecked"] == 0
    assert "oxlint checked no file" in payload["coverageWarning"]
    assert "only from biome" in payload["coverageWarning"]
    code, _, _ = run_cli(capsys, "check", "--fail-on-priority", "1")
    assert code == 1
    code, _, err = run_cli(capsys, "check", "--format", "sarif")
    assert code == 1 and "oxlint checked no file" in err


@pytest.mark.real
def test_a_chosen_file_only_some_engines_read_is_clean_when_they_find_nothing(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # Oxlint has nothing to check in a stylesheet: it lost no coverage, so a
    # clean Biome result on that file is a clean check (an agent's post-edit
    # check of a CSS file must not fail for it).
    for name in ("oxlint", "biome"):
        require_engine(name)
    engines = {"oxlint": True, "tsc": False, "biome": True, "eslint": False}
    in_project(coverage_project(tmp_path, engines=engines))
    code, out, _ = run_cli(capsys, "check", "styles/site.css")
    payload = json.loads(out)
    assert (code, payload["status"]) == (0, "clean")
    assert "coverageWarning" not in payload
    assert payload["engines"]["biome"]["filesChecked"] == 1
    assert payload["engines"]["oxlint"]["filesChecked"] == 0


def monorepo(tmp_path: Path) -> Path:
    """A repository whose config sits at the top, with a package below it."""
    root = tmp_path / "repo"
    (root / "packages" / "web" / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "signalint.config.json").write_text(
        json.dumps(
            {
                "engines": {"oxlint": True, "tsc": False, "biome": False, "eslint": False},
                "ignore": ["dist/**"],
            }
        )
    )
    (root / "packages" / "web" / "package.json").write_text('{"name": "web"}\n')
    (root / "packages" / "web" / "src" / "a.js").write_text("debugger;\n")
    (root / "top.js").write_text("debugger;\n")
    (root / "dist").mkdir()
    (root / "dist" / "bundle.js").write_text("debugger;\n")
    shared = tmp_path / "shared-lib"  # a workspace link, as pnpm makes them
    shared.mkdir()
    (shared / "index.js").write_text("debugger;\n")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "shared").symlink_to(shared)
    return root


@pytest.mark.real
def test_from_a_subdirectory_the_root_is_found_upward_and_paths_follow_the_cwd(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    require_engine("oxlint")
    root = monorepo(tmp_path)
    subdir = in_project(root / "packages" / "web" / "src")
    code, out, _ = run_cli(capsys, "check", "--format", "sarif")
    files = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for run in json.loads(out)["runs"]
        for r in run["results"]
    }
    assert code == 1 and files == {"packages/web/src/a.js", "top.js"}
    assert (root / ".signalint").is_dir()
    assert not (subdir / ".signalint").exists()
    assert not (root / "packages" / "web" / ".signalint").exists()

    code, out, _ = run_cli(capsys, "check", "a.js")
    payload = json.loads(out)
    assert code == 1 and payload["projectRoot"] == str(root.resolve())
    assert {r["file"] for r in payload["remainingIssues"]} == {"packages/web/src/a.js"}


@pytest.mark.real
@pytest.mark.parametrize(
    ("cwd", "path", "needle"),
    [
        (".", "node_modules/shared", "never checks node_modules/"),
        ("packages/web", "../../node_modules/shared/index.js", "never checks node_modules/"),
        (".", "dist/bundle.js", "pattern 'dist/**' of `ignore` in signalint.config.json"),
        (".", "dist", "pattern 'dist/**' of `ignore`"),
    ],
)
def test_an_ignored_path_is_refused_naming_what_ignores_it(
    tmp_path: Path,
    in_project: Any,
    capsys: pytest.CaptureFixture[str],
    cwd: str,
    path: str,
    needle: str,
) -> None:
    require_engine("oxlint")
    root = monorepo(tmp_path)
    in_project(root / cwd)
    code, out, err = run_cli(capsys, "check", path)
    assert code == 2 and out == ""
    assert path in err and "it is ignored" in err and needle in err
    assert "outside" not in err


def oxlint_only_project(root: Path) -> Path:
    """A one-file project (an Oxlint error) with only Oxlint enabled."""
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "p", "private": true}\n')
    (root / "src" / "a.js").write_text("debugger;\n")
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": True, "tsc": False, "biome": False, "eslint": False}})
    )
    return root


def sarif_check(root: Path) -> tuple[int, str]:
    """`signalint check --format sarif` in a new process (nothing remembered
    in memory, only in the state directory): exit code and the driver version."""
    done = subprocess.run(
        [sys.executable, "-m", "signalint.cli", "check", "--format", "sarif"],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return done.returncode, json.loads(done.stdout)["runs"][0]["tool"]["driver"]["version"]


@pytest.mark.real
def test_a_warm_sarif_check_starts_no_engine_process_not_even_for_its_version(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # SARIF names each engine's version: it comes from the engine's npm
    # manifest, so CI's SARIF checks keep "a warm check runs nothing".
    real = require_engine("oxlint")
    root = oxlint_only_project(tmp_path / "p")
    log = tmp_path / "oxlint.log"
    package = root / "node_modules" / "oxlint"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "oxlint", "version": "1.94.0"}\n')
    write_executable(package / "bin" / "oxlint", f'echo "$*" >> "{log}"\nexec "{real}" "$@"\n')
    (root / "node_modules" / ".bin").mkdir()
    (root / "node_modules" / ".bin" / "oxlint").symlink_to("../oxlint/bin/oxlint")
    in_project(root)
    assert sarif_check(root) == (1, "1.94.0")
    log.unlink()
    assert sarif_check(root) == (1, "1.94.0")
    assert not log.exists()


@pytest.mark.real
def test_a_warm_sarif_check_through_a_package_manager_shim_starts_no_process(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # pnpm puts shell shims (not links into the package) in node_modules/.bin:
    # no manifest names the version, so it is asked once and remembered in
    # the state directory, for the cache keys and for SARIF alike.
    real = require_engine("oxlint")
    root = oxlint_only_project(tmp_path / "p")
    log = tmp_path / "oxlint.log"
    shim = f'echo "$*" >> "{log}"\nexec "{real}" "$@"\n'
    write_executable(root / "node_modules" / ".bin" / "oxlint", shim)
    in_project(root)
    assert sarif_check(root) == (1, "1.94.0")
    log.unlink()
    assert sarif_check(root) == (1, "1.94.0")
    assert not log.exists()
