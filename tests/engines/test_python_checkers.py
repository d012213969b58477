"""ty, Pyrefly and basedpyright through whole checks, against each run alone (real tier).

Each fixture (tests/fixtures/engines/<engine>) configures its engine to
check `src` minus `src/generated` (a script outside `include` and, for ty,
a file its `.gitignore` names are left out), turns one rule into a warning,
and has two errors of one rule on one line, non-ASCII text before a
column, a syntax error and an unresolved import; basedpyright's has a
baseline that hides one error. The native counts are the engine's own
machine-readable output as the project would run it, compared with
multiplicity.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from signalint import process
from signalint.cli.main import main
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from tests.conftest import require_engine
from tests.helpers import git, git_status

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "engines"
ENGINES = ("ty", "pyrefly", "basedpyright")
# The project files each fixture's engine checks (`files_checked`).
CHECKED = {
    "ty": {"src/app/__init__.py", "src/app/core.py", "src/app/broken.py"},
    "pyrefly": {"src/app/__init__.py", "src/app/core.py", "src/app/broken.py"},
    "basedpyright": {
        "src/app/__init__.py",
        "src/app/core.py",
        "src/app/broken.py",
        "src/app/old.py",
    },
}

Key = tuple[str, str, int]


def copy(name: str, target: Path) -> Path:
    """A committed git copy of a fixture (so `git status` shows any write)."""
    require_engine(name)
    root = target / name
    shutil.copytree(FIXTURES / name, root)
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "fixture"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *argv], cwd=root, check=True
        )
    return root


def native(name: str, root: Path) -> Counter[Key]:
    """(file, rule, line) of every diagnostic the engine reports run alone."""
    exe = str(require_engine(name))
    argv = {
        "ty": [exe, "check", "--output-format", "gitlab"],
        "pyrefly": [exe, "check", "--output-format", "json"],
        "basedpyright": [exe, "--outputjson"],
    }[name]
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    if name == "ty":
        return Counter(
            (d["location"]["path"], d["check_name"], d["location"]["positions"]["begin"]["line"])
            for d in json.loads(done.stdout)
        )
    if name == "pyrefly":
        return Counter((d["path"], d["name"], d["line"]) for d in json.loads(done.stdout)["errors"])
    start = done.stdout.index("{")
    return Counter(
        (
            str(Path(d["file"]).relative_to(root)),
            d.get("rule") or d["severity"],
            d["range"]["start"]["line"] + 1,
        )
        for d in json.loads(done.stdout[start:])["generalDiagnostics"]
    )


def check(root: Path, *, use_cache: bool = True) -> CheckRun:
    return asyncio.run(run_check(RunRequest(root, load_config(root), use_cache=use_cache)))


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, ...]]]:
    """The argv of every engine run a check starts."""
    started: list[tuple[str, ...]] = []
    real_run = process.run

    async def recording(command: Any, *args: Any, **kwargs: Any) -> Any:
        started.append(tuple(command.argv))
        return await real_run(command, *args, **kwargs)

    monkeypatch.setattr(process, "run", recording)
    yield started


def engine_runs(runs: list[tuple[str, ...]], name: str) -> int:
    """How many checks of `name` were started (Pyrefly's probe not counted)."""
    return sum(
        1
        for argv in runs
        if Path(argv[0]).name == name and "--version" not in argv and "dump-config" not in argv
    )


@pytest.mark.real
@pytest.mark.parametrize("use_cache", [False, True])
@pytest.mark.parametrize("name", ENGINES)
def test_check_reports_every_native_diagnostic_exactly_once(
    tmp_path: Path, name: str, use_cache: bool
) -> None:
    root = copy(name, tmp_path)
    expected = native(name, root)
    result = check(root, use_cache=use_cache).result
    assert set(result.outcomes) == {name}, "only the configured checker runs"
    outcome = result.outcomes[name]
    assert outcome.status == "ok", outcome.message
    found = Counter((i.file, i.rule, i.line) for i in outcome.issues)
    assert found == expected
    # Two of one rule on one line are two issues (multiplicity).
    line_14 = [n for (file, _, line), n in found.items() if (file, line) == ("src/app/core.py", 14)]
    assert sum(line_14) == 2
    assert not [k for k in found if k[0].startswith(("src/generated", "scripts"))]
    assert outcome.files_checked == len(CHECKED[name])


@pytest.mark.real
@pytest.mark.parametrize("name", ENGINES)
def test_columns_are_utf16_and_rules_link_to_their_documentation(tmp_path: Path, name: str) -> None:
    root = copy(name, tmp_path)
    outcome = check(root, use_cache=False).result.outcomes[name]
    line = (root / "src/app/core.py").read_text().splitlines()[14]
    # `wrong: int = label`: the value's column counts the emoji as two UTF-16 units.
    value = [i for i in outcome.issues if i.file == "src/app/core.py" and i.line == 15]
    assert len(value) == 1
    expected_col = len(line[: line.index("label", 10)].encode("utf-16-le")) // 2 + 1
    assert value[0].col == expected_col
    # Every rule links to its documentation (Pyright's syntax errors have none: rule "error").
    linked = [i for i in outcome.issues if i.rule != "error"]
    assert linked and all(i.docs_url and i.docs_url.endswith("#" + i.rule) for i in linked)


@pytest.mark.usefixtures("settled_inputs")
@pytest.mark.real
@pytest.mark.parametrize("name", ENGINES)
def test_cache_reruns_only_when_a_python_file_or_the_config_changes(
    tmp_path: Path, name: str, runs: list[tuple[str, ...]]
) -> None:
    root = copy(name, tmp_path)
    cold = check(root).result
    warm = check(root).result
    assert engine_runs(runs, name) == 1
    assert warm.outcomes[name].cache_hits == 1
    assert warm.issues == cold.issues
    # A config change (one more file excluded) is part of the key.
    file, key = {
        "ty": ("pyproject.toml", "exclude"),
        "pyrefly": ("pyrefly.toml", "project-excludes"),
        "basedpyright": ("pyproject.toml", "exclude"),
    }[name]
    path = root / file
    before = f'{key} = ["src/generated"]'
    assert before in path.read_text()
    path.write_text(
        path.read_text().replace(before, f'{key} = ["src/generated", "src/app/broken.py"]')
    )
    excluded = check(root).result
    assert engine_runs(runs, name) == 2
    assert not [i for i in excluded.issues if i.file == "src/app/broken.py"]
    assert excluded.outcomes[name].files_checked == len(CHECKED[name]) - 1
    assert Counter((i.file, i.rule, i.line) for i in excluded.outcomes[name].issues) == native(
        name, root
    )
    # So is a Python file.
    (root / "src/app/core.py").write_text("def fine() -> None:\n    pass\n")
    edited = check(root).result
    assert engine_runs(runs, name) == 3
    assert not [i for i in edited.issues if i.file == "src/app/core.py"]


@pytest.mark.usefixtures("settled_inputs")
@pytest.mark.real
@pytest.mark.parametrize("name", ENGINES)
def test_new_from_rev_reports_only_the_planted_error(
    tmp_path: Path,
    name: str,
    capsys: pytest.CaptureFixture[str],
    in_project: Callable[[Path], Path],
) -> None:
    root = copy(name, tmp_path)
    (root / ".gitignore").write_text(
        ((root / ".gitignore").read_text() if (root / ".gitignore").exists() else "")
        + ".signalint/\n"
    )
    git(root, "add", "-A")
    git(root, "commit", "-qm", "ignore state")
    core = root / "src/app/core.py"
    core.write_text(core.read_text() + 'planted: int = "new"\n')
    in_project(root)
    assert main(["check", "--format", "json"]) == 1
    total = json.loads(capsys.readouterr().out)["totalIssues"]
    assert main(["check", "--format", "json", "--new-from-rev", "HEAD"]) == 1
    found = json.loads(capsys.readouterr().out)["baseline"]
    assert found["enginesNotOkAtRev"] == []
    assert (found["new"], found["unchanged"]) == (1, total - 1)


@pytest.mark.real
@pytest.mark.parametrize("name", ENGINES)
def test_check_writes_nothing_in_the_project_outside_the_state_directory(
    tmp_path: Path, name: str
) -> None:
    root = copy(name, tmp_path)
    before = set(git_status(root))  # ty's fixture has a file its .gitignore names
    check(root, use_cache=False)
    check(root)
    assert all(line[3:].startswith(".signalint/") for line in set(git_status(root)) - before)


@pytest.mark.real
def test_basedpyright_baseline_hides_its_errors_and_is_never_rewritten(tmp_path: Path) -> None:
    """basedpyright rewrites a baseline whose errors were fixed; the check
    runs it on a copy, so the project's file stays as committed."""
    root = copy("basedpyright", tmp_path)
    outcome = check(root, use_cache=False).result.outcomes["basedpyright"]
    assert not [i for i in outcome.issues if i.file == "src/app/old.py"]
    (root / "src/app/old.py").write_text("fixed: int = 1\n")
    git(root, "commit", "-qam", "fix the baselined error")
    outcome = check(root, use_cache=False).result.outcomes["basedpyright"]
    assert outcome.status == "ok", outcome.message
    assert all(line[3:].startswith(".signalint/") for line in git_status(root))


@pytest.mark.real
def test_a_config_pyrefly_cannot_parse_is_an_engine_error(tmp_path: Path) -> None:
    root = copy("pyrefly", tmp_path)
    (root / "pyrefly.toml").write_text("project-includes = [\n")
    outcome = check(root, use_cache=False).result.outcomes["pyrefly"]
    assert outcome.status == "error"
    assert outcome.message is not None and "pyrefly.toml" in outcome.message


@pytest.mark.real
def test_a_config_ty_cannot_parse_is_an_engine_error(tmp_path: Path) -> None:
    root = copy("ty", tmp_path)
    (root / "ty.toml").write_text("[src]\ninclude = [\n")
    outcome = check(root, use_cache=False).result.outcomes["ty"]
    assert outcome.status == "error"
    assert outcome.message is not None and "ty.toml" in outcome.message


def all_three(tmp_path: Path) -> Path:
    """The ty fixture configured for Pyrefly and basedpyright too, committed."""
    root = copy("ty", tmp_path)
    for name in ("pyrefly", "basedpyright"):
        require_engine(name)
    shutil.copy(FIXTURES / "pyrefly" / "pyrefly.toml", root / "pyrefly.toml")
    based = (FIXTURES / "basedpyright" / "pyproject.toml").read_text()
    table = based[based.index("[tool.basedpyright]") :]
    with (root / "pyproject.toml").open("a") as handle:
        handle.write("\n" + table)
    (root / ".gitignore").write_text("src/app/ignored.py\n.signalint/\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "three checkers")
    return root


def sarif_ids(capsys: pytest.CaptureFixture[str], *args: str) -> Counter[str]:
    from signalint.formats import sarif

    assert main(["check", "--no-cache", "--format", "sarif", *args]) in (0, 1)
    log = json.loads(capsys.readouterr().out)
    return Counter(
        r["partialFingerprints"][sarif.FINGERPRINT_KEY]
        for run in log["runs"]
        for r in run["results"]
    )


@pytest.mark.real
def test_shards_divide_the_three_checkers_and_changed_scopes_them(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    in_project: Callable[[Path], Path],
) -> None:
    root = all_three(tmp_path)
    in_project(root)
    assert main(["check", "--no-cache", "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert {n: e["status"] for n, e in document["engines"].items()} == {
        "ty": "ok",
        "pyrefly": "ok",
        "basedpyright": "ok",
    }
    whole = sarif_ids(capsys)
    together: Counter[str] = Counter()
    for i in (1, 2, 3):
        together.update(sarif_ids(capsys, "--shard", f"{i}/3"))
    assert together == whole
    # `--changed` reports the whole programs of the type checkers holding the
    # edited file (README): the whole check's issues, the new one included.
    core = root / "src/app/core.py"
    core.write_text(core.read_text() + "late: int = 'x'\n")
    assert main(["check", "--no-cache", "--format", "json", "--changed"]) == 1
    changed = json.loads(capsys.readouterr().out)
    assert set(changed["engines"]) == {"ty", "pyrefly", "basedpyright"}
    assert changed["totalIssues"] == document["totalIssues"] + 3  # one per checker
