"""`check`'s options as ESLint, Ruff and Biome users expect them, on real engines.

Each real test runs the pinned engines on a copy of examples/demo through
the CLI's entry point (`main`, and once the console script in a process
of its own): `--output-file`, `--only`/`--engine`/`--skip`, `--config`,
`--max-warnings`, `--quiet`, `--color`/`--no-color` with `FORCE_COLOR`
and `NO_COLOR`, `--exit-zero`. The quick tests check the option layer
itself: refusals, the exit policy (`cli.verdict`) and the colour rule.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from signalint.cli.main import main
from signalint.cli.output import wants_colour
from signalint.cli.verdict import Verdict, errors_only
from signalint.pipeline.cluster import cluster
from signalint.settings.config import ENGINE_NAMES
from tests import factories

ANSI = "\x1b["
# A file with one Biome warning (useTemplate) and nothing else.
WARN_ONLY = 'export function label(n: number): string {\n  return "n=" + n;\n}\n'


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", "--no-daemon", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def severities(payload: dict[str, Any]) -> list[str]:
    found = [i["severity"] for c in payload["clusters"] for i in c.get("issues", [])]
    found += [i["severity"] for i in payload["remainingIssues"]]
    return found


def levels_of(sarif: str) -> list[dict[str, Any]]:
    return [r for run in json.loads(sarif)["runs"] for r in run["results"]]


@pytest.fixture
def demo(demo_project: Path, in_project: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    in_project(demo_project)
    for name in ("FORCE_COLOR", "NO_COLOR", "SIGNALINT_STATE_DIR"):
        monkeypatch.delenv(name, raising=False)
    (demo_project / "src" / "warn.ts").write_text(WARN_ONLY)
    return demo_project


@pytest.mark.real
def test_output_file_quiet_and_engine_choice_on_the_demo(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "--format", "json")
    whole = json.loads(out)
    assert code == 1 and {"error", "warning"} <= set(severities(whole))
    levels = [r["level"] for r in levels_of(run(capsys, "--format", "sarif")[1])]
    errors = levels.count("error")
    assert 0 < errors < whole["totalIssues"] == len(levels)

    # --quiet: errors only, in the report and its counts; to a file, nothing on stdout.
    target = demo / "reports" / "quiet.json"
    code, out, err = run(capsys, "--quiet", "--output-file", str(target))
    assert code == 1 and out == "", err
    quiet = json.loads(target.read_text())
    assert set(severities(quiet)) == {"error"} and quiet["totalIssues"] == errors
    assert oct(target.stat().st_mode & 0o777) != oct(0o600)  # a report, not private state
    # ... and its ids expand: the kept check holds every issue.
    assert main(["show", quiet["checkId"]]) == 0
    capsys.readouterr()

    # --only (alias --engine, comma list) runs just those engines; --skip leaves some out.
    code, out, _ = run(capsys, "--only", "eslint,biome", "--format", "json")
    assert code == 1 and set(json.loads(out)["engines"]) == {"eslint", "biome"}
    code, out, _ = run(capsys, "--engine", "tsc", "--format", "json")
    assert set(json.loads(out)["engines"]) == {"tsc"}
    code, out, _ = run(capsys, "--skip", "tsc", "--skip", "eslint", "--format", "json")
    assert set(json.loads(out)["engines"]) == {"oxlint", "biome"}

    # The partial runs kept only their engines' entries: the full check
    # after them answers exactly as a check that reads no cache.
    code, out, _ = run(capsys, "--format", "json")
    code_cold, cold, _ = run(capsys, "--format", "json", "--no-cache")
    after, fresh = json.loads(out), json.loads(cold)
    assert code == code_cold == 1
    assert after["fingerprint"] == fresh["fingerprint"] == whole["fingerprint"]
    assert {n: e["filesChecked"] for n, e in after["engines"].items()} == {
        n: e["filesChecked"] for n, e in fresh["engines"].items()
    }


@pytest.mark.real
def test_max_warnings_and_exit_zero_change_only_what_issues_count(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one_warning = ("src/warn.ts", "--only", "biome", "--format", "github")
    code, out, err = run(capsys, *one_warning)
    assert code == 1 and out.startswith("::warning ")  # the default: any issue fails
    assert run(capsys, *one_warning, "--max-warnings", "1")[0] == 0
    code, _, err = run(capsys, *one_warning, "--max-warnings", "0")
    assert code == 1 and "1 warning, more than --max-warnings 0" in err
    # Errors still fail under --max-warnings, as in ESLint.
    assert run(capsys, "--format", "github", "--max-warnings", "100")[0] == 1
    assert run(capsys, "--format", "github", "--exit-zero")[0] == 0
    # --quiet leaves the warning out, so the check is clean.
    code, out, _ = run(capsys, *one_warning[:3], "--quiet", "--format", "json")
    assert code == 0 and json.loads(out)["status"] == "clean"


@pytest.mark.real
def test_colour_follows_the_flag_then_force_color_then_no_color(
    demo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ("src/warn.ts", "--only", "biome", "--format", "text")
    assert ANSI not in run(capsys, *args)[1]  # captured stdout is no terminal
    assert ANSI in run(capsys, *args, "--color")[1]
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert ANSI in run(capsys, *args)[1]
    assert ANSI not in run(capsys, *args, "--no-color")[1]
    monkeypatch.setenv("FORCE_COLOR", "0")
    monkeypatch.setenv("NO_COLOR", "1")
    assert ANSI not in run(capsys, *args)[1]
    target = demo / "out.txt"
    run(capsys, *args, "--color", "-o", str(target))
    assert ANSI in target.read_text()


@pytest.mark.real
def test_config_reads_a_settings_file_elsewhere(
    demo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    elsewhere = tmp_path / "ci" / "signalint-ci.json"
    elsewhere.parent.mkdir()
    off = {name: name == "biome" for name in ("oxlint", "tsc", "biome", "eslint")}
    elsewhere.write_text(json.dumps({"engines": off, "ignore": ["src/legacy.js"]}))
    code, out, err = run(capsys, "--config", str(elsewhere), "--format", "json")
    payload = json.loads(out)
    assert code == 1, err
    assert set(payload["engines"]) == {"biome"}
    files = {i["file"] for i in payload["remainingIssues"]}
    files |= {i["file"] for c in payload["clusters"] for i in c.get("issues", [])}
    assert files and "src/legacy.js" not in files
    # A file that holds no settings, and a bad key, are named.
    empty = tmp_path / "pyproject.toml"
    empty.write_text("[project]\nname = 'x'\n")
    code, _, err = run(capsys, "--config", str(empty))
    assert code == 2 and "holds no Signalint settings" in err and str(empty) in err
    elsewhere.write_text(json.dumps({"engine": {}}))
    code, _, err = run(capsys, "--config", str(elsewhere))
    assert code == 2 and str(elsewhere) in err and "engine" in err


@pytest.mark.real
def test_the_console_script_writes_the_file_and_never_replays_it(demo: Path) -> None:
    """An answer written to a file is not kept: a replay would print it instead."""
    target = demo / "report.sarif"
    env = {**os.environ, "SIGNALINT_DAEMON": "0"}
    command = [sys.executable, "-m", "signalint.cli", "check", "--format", "sarif"]
    for _ in range(2):
        target.unlink(missing_ok=True)
        done = subprocess.run(
            [*command, "--output-file", str(target)],
            cwd=demo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 1 and done.stdout == "", done.stderr
        assert json.loads(target.read_text())["version"] == "2.1.0"


# Quick tier: the option layer.


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--only", "nope"], ["'--only'", "'nope' is not an engine", *ENGINE_NAMES]),
        (["--engine", "eslint,"], ["'--only'", "empty engine name"]),
        (["--skip", "ESLint,mystery"], ["'--skip'", "'mystery' is not an engine"]),
        (["--skip", ",".join(ENGINE_NAMES)], ["--skip leaves no engine to run"]),
        (["--only", "tsc", "--skip", "tsc"], ["--only and --skip leave no engine"]),
        (["--max-warnings", "-1"], ["'--max-warnings'", "-1"]),
        (["--max-warnings", "lots"], ["'--max-warnings'", "lots"]),
        (["--config", "missing.json"], ["'--config'", "missing.json"]),
        (["--config", "."], ["'--config'"]),
        (["--output-file", "."], ["'--output-file'"]),
    ],
)
def test_bad_option_values_are_usage_errors_naming_the_option(
    demo_copy: Path,
    in_project: Any,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    words: list[str],
) -> None:
    in_project(demo_copy)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    for word in words:
        assert word in err


def test_every_new_option_has_help_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--help"]) == 0
    text = capsys.readouterr().out
    for option in (
        "--output-file",
        "--only",
        "--engine",
        "--skip",
        "--config",
        "--max-warnings",
        "--quiet",
        "--color / --no-color",
        "--exit-zero",
    ):
        assert option in text, option
    assert main(["merge", "--help"]) == 0
    assert "--output-file" in capsys.readouterr().out


def test_the_exit_policy() -> None:
    warning = factories.issue("a.ts", line=1, severity="warning")
    error = factories.issue("b.ts", line=2, severity="error")
    both = factories.result([warning, error])
    warned = factories.result([warning])
    clean = factories.result([])

    def code(verdict: Verdict, result: Any) -> int:
        return verdict.code(result, cluster(result.issues))

    assert [code(Verdict(), r) for r in (both, warned, clean)] == [1, 1, 0]
    assert [code(Verdict(max_warnings=1), r) for r in (both, warned, clean)] == [1, 0, 0]
    assert code(Verdict(max_warnings=0), warned) == 1
    assert [code(Verdict(exit_zero=True), r) for r in (both, warned)] == [0, 0]
    quiet, clustering = errors_only(warned, cluster(warned.issues))
    assert quiet.issues == () and Verdict().code(quiet, clustering) == 0
    assert quiet.check_id == warned.check_id


def test_the_exit_policy_never_passes_a_failed_check() -> None:
    failed = factories.result([], engines={"oxlint": "ok", "tsc": "error"})
    for verdict in (Verdict(), Verdict(exit_zero=True), Verdict(max_warnings=5)):
        assert verdict.code(failed, cluster(())) == 1


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_colour_rule() -> None:
    tty = _Terminal()
    assert wants_colour(None, tty, {}) is True
    assert wants_colour(None, None, {}) is False  # a file
    assert wants_colour(None, tty, {"NO_COLOR": "1"}) is False
    assert wants_colour(None, None, {"FORCE_COLOR": "1"}) is True
    assert wants_colour(None, tty, {"FORCE_COLOR": "0"}) is False
    assert wants_colour(None, tty, {"FORCE_COLOR": "", "NO_COLOR": ""}) is True
    assert wants_colour(False, tty, {"FORCE_COLOR": "1"}) is False
    assert wants_colour(True, None, {"NO_COLOR": "1"}) is True
