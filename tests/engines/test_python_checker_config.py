"""Which Python checker a project configures, and what keys its results (no engine runs).

basedpyright and Pyright read the same files; a project that chose
basedpyright (its config, its table, or the dependency) is basedpyright's,
and Pyright is not enabled beside it over the same files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from signalint.cli.init import detect
from signalint.engines.base import EngineContext
from signalint.engines.basedpyright import adapter as basedpyright
from signalint.engines.pyrefly import adapter as pyrefly
from signalint.engines.pyright import adapter as pyright
from signalint.engines.python_configs import declared_dependencies
from signalint.engines.ty import adapter as ty
from signalint.process import ProcessResult
from signalint.settings.config import load_config

PROJECT = '[project]\nname = "p"\nversion = "0"\n'


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def enabled(root: Path) -> set[str]:
    config = load_config(root)
    return {n for n in ("pyright", "basedpyright", "ty", "pyrefly") if config.engines[n].enabled}


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"pyrightconfig.json": "{}"}, {"pyright"}),
        ({"pyproject.toml": PROJECT + "[tool.pyright]\n"}, {"pyright"}),
        ({"basedpyrightconfig.json": "{}"}, {"basedpyright"}),
        ({"pyproject.toml": PROJECT + "[tool.basedpyright]\n"}, {"basedpyright"}),
        # Pyright's config read by basedpyright, which the project depends on.
        (
            {
                "pyrightconfig.json": "{}",
                "pyproject.toml": PROJECT + '[dependency-groups]\ndev = ["basedpyright>=1.20"]\n',
            },
            {"basedpyright"},
        ),
        (
            {
                "pyproject.toml": PROJECT
                + "[tool.pyright]\n[tool.poetry.group.dev.dependencies]\nbasedpyright = '*'\n"
            },
            {"basedpyright"},
        ),
        ({"ty.toml": ""}, {"ty"}),
        ({"pyproject.toml": PROJECT + "[tool.ty.rules]\n"}, {"ty"}),
        ({"pyproject.toml": PROJECT + '[tool.uv]\ndev-dependencies = ["ty==0.0.104"]\n'}, {"ty"}),
        ({"pyrefly.toml": ""}, {"pyrefly"}),
        ({"pyproject.toml": PROJECT + "[tool.pyrefly]\n"}, {"pyrefly"}),
        (
            {"pyproject.toml": PROJECT + '[project.optional-dependencies]\ndev = ["pyrefly"]\n'},
            {"pyrefly"},
        ),
        # A name inside another is no dependency ("typer" is not ty).
        ({"pyproject.toml": PROJECT + 'dependencies = ["typer", "pyrefly-plugin"]\n'}, set()),
        ({"pyproject.toml": PROJECT}, set()),
    ],
)
def test_each_checker_is_enabled_where_the_project_chose_it(
    tmp_path: Path, files: dict[str, str], expected: set[str]
) -> None:
    root = write(tmp_path, files)
    assert enabled(root) == expected
    configs = detect(root).configs
    assert {n for n in expected} == {
        n for n in ("pyright", "basedpyright", "ty", "pyrefly") if configs[n] is not None
    }


def test_pyright_enabled_explicitly_still_runs_beside_basedpyright(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "basedpyrightconfig.json": "{}",
            "signalint.config.json": '{"engines": {"pyright": true}}',
        },
    )
    assert enabled(root) == {"pyright", "basedpyright"}


def test_declared_dependencies_reads_every_table(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(
        PROJECT
        + "dependencies = [\"Requests[socks]>=2; python_version>'3.8'\"]\n"
        + '[project.optional-dependencies]\nlint = ["Ty"]\n'
        + '[dependency-groups]\ndev = ["pyrefly==1.4.1", {include-group = "lint"}]\n'
        + '[tool.pdm.dev-dependencies]\ntest = ["based_pyright"]\n'
    )
    assert declared_dependencies(path) == {"requests", "ty", "pyrefly", "based-pyright"}
    path.write_text("not = [toml")
    assert declared_dependencies(path) == frozenset()


def ctx(root: Path) -> EngineContext:
    return EngineContext(
        root=root, executable=Path("/bin/false"), timeout_s=1.0, state_dir=root / ".signalint"
    )


def test_basedpyright_config_order_and_baseline_are_keyed(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "pyrightconfig.json": '{"include": ["a"]}',
            "basedpyrightconfig.json": '{"include": ["b"], "baselineFile": "meta/base.json"}',
        },
    )
    assert pyright.config_chain(root, pyright.BASEDPYRIGHT) == ["basedpyrightconfig.json"]
    assert pyright.settings(root, pyright.BASEDPYRIGHT)[0]["include"] == ["b"]
    assert pyright.settings(root)[0]["include"] == ["a"]  # Pyright never reads basedpyright's
    key = basedpyright.ENGINE.program_key(ctx(root))
    assert key is not None
    assert "meta/base.json" in key.configs and "pyrightconfig.json" in key.configs
    (root / "basedpyrightconfig.json").unlink()
    key = basedpyright.ENGINE.program_key(ctx(root))
    assert key is not None and basedpyright.DEFAULT_BASELINE in key.configs


def test_basedpyright_runs_on_a_copy_of_the_baseline(tmp_path: Path) -> None:
    root = write(tmp_path, {"basedpyrightconfig.json": "{}"})
    argv = basedpyright.ENGINE.command(ctx(root), [], None).argv
    assert "--baselinefile" not in argv
    write(root, {basedpyright.DEFAULT_BASELINE: '{"files": {}}'})
    argv = basedpyright.ENGINE.command(ctx(root), [], None).argv
    copy = Path(argv[argv.index("--baselinefile") + 1])
    assert copy.parent == root / ".signalint"
    assert copy.read_text() == '{"files": {}}'


def test_ty_and_pyrefly_keys_name_their_config_files(tmp_path: Path) -> None:
    root = write(tmp_path, {"pyproject.toml": PROJECT})
    ty_key = ty.ENGINE.program_key(ctx(root))
    pyrefly_key = pyrefly.ENGINE.program_key(ctx(root))
    assert ty_key is not None and set(ty_key.configs) == {"ty.toml", "pyproject.toml"}
    assert pyrefly_key is not None
    assert set(pyrefly_key.configs) == {"pyrefly.toml", "pyproject.toml"}


def test_pyrefly_coverage_gap_when_its_count_differs_from_its_listing(tmp_path: Path) -> None:
    root = write(tmp_path, {"pyrefly.toml": "", "a.py": "", "b.py": ""})
    listing = (
        f"Configuration at `{root}/pyrefly.toml`\n  Covered files:\n"
        f"    {root}/a.py\n    {root}/b.py\n  Resolving imports from:\n    x\n"
    )

    def run(stdout: str, stderr: str) -> ProcessResult:
        return ProcessResult(("pyrefly",), 0, stdout, stderr, 0.0)

    same = pyrefly.ENGINE.program(
        [run(listing, ""), run('{"errors": []}', "DEBUG Checking 2 files (listing took 0s)")],
        ctx(root),
        None,
        frozenset(),
    )
    assert same.gap is None
    assert same.checked == (f"{root}/a.py", f"{root}/b.py")
    other = pyrefly.ENGINE.program(
        [run(listing, ""), run('{"errors": []}', "DEBUG Checking 3 files (listing took 0s)")],
        ctx(root),
        None,
        frozenset(),
    )
    assert other.gap is not None and "3" in other.gap


def test_ty_checked_files_are_the_ones_its_log_names(tmp_path: Path) -> None:
    log = (
        f"2026-12-07 00:00:00.1 DEBUG Checking file '{tmp_path}/a.py'\n"
        f"2026-12-07 00:00:00.2 INFO Checking file `{tmp_path}/a.py` took more than 100ms\n"
        "2026-12-07 00:00:00.3 DEBUG Checking file '/elsewhere/b.py'\n"
    )
    result = ProcessResult(argv=("ty",), exit_code=0, stdout="[]", stderr=log, duration_s=0.0)
    assert ty.checked(result, tmp_path) == [f"{tmp_path}/a.py"]


def test_a_shortened_pyrefly_listing_is_never_read_as_the_files(tmp_path: Path) -> None:
    """`dump-config` without `--max-files all` lists 10 files, then
    "...and N more": those 10 are not the checked files, and the count says so."""
    root = write(tmp_path, {"pyrefly.toml": ""})
    listing = (
        f"Configuration at `{root}/pyrefly.toml`\n  Covered files:\n"
        f"    {root}/a.py\n    ...and 92 more\n  Resolving imports from:\n    x\n"
    )
    assert pyrefly.covered(ProcessResult(("pyrefly",), 0, listing, "", 0.0)) == [f"{root}/a.py"]
    probe = pyrefly.ENGINE.probe(ctx(root))
    assert probe is not None and probe.argv[1:4] == ("dump-config", "--max-files", "all")
