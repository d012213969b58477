from __future__ import annotations

import platform
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from signalint.engines.base import EngineConfigError, EngineOutputError
from signalint.engines.tsc.adapter import ENGINE, compiler, select_config
from signalint.process import ProcessResult
from tests.engines.recordings import STATE, context, fixture, recorded, recorded_argv


def test_tsc_project_mode_command_with_no_flag_of_ours() -> None:
    ctx = context("tsc/project")
    assert ENGINE.probe(ctx) is None
    argv = ENGINE.command(ctx, [], None).argv
    assert argv[1:6] == ("-p", "tsconfig.json", "--noEmit", "--pretty", "false")
    # --skipLibCheck would hide errors in the project's own .d.ts files.
    assert "--skipLibCheck" not in argv
    # An executable of no known TypeScript package is taken for 7: no build info.
    assert "--incremental" not in argv and "--tsBuildInfoFile" not in argv
    assert recorded_argv("tsc-project")[1:6] == list(argv[1:6])


@pytest.mark.parametrize(("version", "incremental"), [("5.7.3", True), ("6.0.3", True),
                                                      ("7.0.2", False)])  # fmt: skip
def test_build_info_is_redirected_into_the_state_dir_before_typescript_7(
    tmp_path: Path, version: str, incremental: bool
) -> None:
    """TypeScript 7.0's build info misses a changed global declaration
    (docs/engines.md): 7 runs without one; 5 and 6 keep theirs in our state."""
    package = tmp_path / "node_modules" / "typescript"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text(f'{{"name": "typescript", "version": "{version}"}}')
    (package / "bin" / "tsc").write_text("#!/usr/bin/env node\n")
    ctx = replace(context("tsc/project"), executable=package / "bin" / "tsc")
    argv = ENGINE.command(ctx, [], None).argv
    assert ("--tsBuildInfoFile" in argv) is incremental
    if incremental:
        assert "--incremental" in argv
        assert Path(argv[argv.index("--tsBuildInfoFile") + 1]).is_relative_to(STATE / "tsc")


def tsc_only_project(root: Path) -> None:
    """A strict project under `src/` that only tsc checks."""
    (root / "src").mkdir()
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true, "types": []}, "include": ["src"]}'
    )
    (root / "signalint.config.json").write_text(
        '{"engines": {"oxlint": false, "tsc": true, "biome": false, "eslint": false}}'
    )


@pytest.mark.real
def test_errors_in_the_projects_own_declaration_files_are_reported(tmp_path: Path) -> None:
    import asyncio

    from signalint.pipeline.check_run import run_check
    from signalint.pipeline.request import RunRequest
    from signalint.settings.config import load_config
    from tests.conftest import require_engine

    require_engine("tsc")
    tsc_only_project(tmp_path)
    (tmp_path / "src" / "types.d.ts").write_text("export type Broken = MissingName;\n")
    (tmp_path / "src" / "index.ts").write_text(
        'import type { Broken } from "./types";\nexport const b: Broken | 1 = 1;\n'
    )
    result = asyncio.run(run_check(RunRequest(tmp_path, load_config(tmp_path)))).result
    assert [(i.file, i.rule) for i in result.issues] == [("src/types.d.ts", "TS2304")]


@pytest.mark.real
def test_a_changed_global_declaration_reaches_its_users_on_the_next_check(
    tmp_path: Path, settled_inputs: None
) -> None:
    """TypeScript 7.0.2 with a build info kept `b.ts`'s old (empty)
    diagnostics after `g` changed type in a global declaration file."""
    import asyncio

    from signalint.pipeline.check_run import run_check
    from signalint.pipeline.request import RunRequest
    from signalint.settings.config import load_config
    from tests.conftest import require_engine

    require_engine("tsc")
    tsc_only_project(tmp_path)
    declared = tmp_path / "src" / "glob.d.ts"
    declared.write_text("declare const g: number;\n")
    (tmp_path / "src" / "b.ts").write_text("export const t: number = g;\n")

    def check() -> list[tuple[str, str]]:
        request = RunRequest(tmp_path, load_config(tmp_path))
        return [(i.file, i.rule) for i in asyncio.run(run_check(request)).result.issues]

    assert check() == []
    declared.write_text("declare const g: string;\n")
    assert check() == [("src/b.ts", "TS2322")]


def test_tsc_solution_root_is_detected_without_a_probe(tmp_path: Path) -> None:
    ctx = replace(context("tsc/solution"), work_dir=tmp_path)
    assert ENGINE.probe(ctx) is None
    argv = ENGINE.command(ctx, [], None).argv
    # The wrapper tree mirrors the root's absolute path.
    assert argv[1:3] == ("-b", f"{tmp_path}/tsc/build{ctx.root}/tsconfig.json")


def test_tsc_leaves_an_explicit_skiplibcheck_alone() -> None:
    ctx = context("tsc/project")
    probe = ProcessResult(("tsc",), 0, '{"compilerOptions": {"skipLibCheck": false}}', "", 0.1)
    assert "--skipLibCheck" not in ENGINE.command(ctx, [], probe).argv


def test_tsc_solution_root_with_references_builds_wrappers_in_the_work_dir(
    tmp_path: Path,
) -> None:
    ctx = replace(context("tsc/solution"), work_dir=tmp_path)
    argv = ENGINE.command(ctx, [], recorded("tsc-solution.probe", ctx.root)).argv
    assert argv[3:] == ("--pretty", "false", "--listFiles", "--verbose")
    assert "--noEmit" not in argv and Path(argv[2]).is_file()
    assert Path(argv[2]).is_relative_to(tmp_path)
    for name in ("tsc-solution", "tsc5-solution"):
        issues = ENGINE.parse(recorded(name, ctx.root), ctx)
        assert [(i.file, i.line, i.col, i.rule) for i in issues] == [
            ("packages/a/src/index.ts", 1, 14, "TS2322"),
            ("packages/b/src/index.ts", 1, 19, "TS7006"),
        ]


@pytest.mark.parametrize("name", ["tsc-project", "tsc5-project"])
def test_tsc_parses_located_and_multi_line_diagnostics(name: str) -> None:
    ctx = context("tsc/project")
    issues = ENGINE.parse(recorded(name, ctx.root), ctx)
    assert [(i.file, i.line, i.col, i.rule, i.severity) for i in issues] == [
        ("src/a.ts", 1, 28, "TS2322", "error"),
        ("src/a.ts", 2, 25, "TS2307", "error"),
        ("src/a.ts", 4, 7, "TS2345", "error"),
    ]
    assert issues[0].message == "Type 'string' is not assignable to type 'number'."
    assert issues[2].message.splitlines() == [
        "Argument of type '(a: { p: string; }) => void' is not assignable to parameter "
        "of type '(a: { p: number; }) => void'.",
        "  Types of parameters 'a' and 'a' are incompatible.",
        "    Type '{ p: number; }' is not assignable to type '{ p: string; }'.",
        "      Types of property 'p' are incompatible.",
        "        Type 'number' is not assignable to type 'string'.",
    ]
    assert all(i.docs_url is None and not i.fixable for i in issues)


def test_tsc_global_error_is_attributed_to_the_config() -> None:
    ctx = context("tsc/noinputs")
    [issue] = ENGINE.parse(recorded("tsc-noinputs", ctx.root), ctx)
    assert (issue.file, issue.line, issue.col, issue.rule) == ("tsconfig.json", 1, 1, "TS18003")
    assert issue.message.startswith("No inputs were found in config file")


def test_tsc_drops_node_modules_and_accepts_exit_code_2() -> None:
    ctx = context("tsc/project")
    stdout = (
        "node_modules/dep/index.d.ts(3,1): error TS1005: ';' expected.\n"
        "  continued\n"
        "src/a.ts(1,1): warning TS6133: 'x' is declared but its value is never read.\n"
    )
    [issue] = ENGINE.parse(ProcessResult(("tsc",), 2, stdout, "", 0.1), ctx)
    assert (issue.file, issue.severity, issue.message) == (
        "src/a.ts",
        "warning",
        "'x' is declared but its value is never read.",
    )
    assert 2 in ENGINE.command(ctx, [], None).ok_exit_codes


def test_tsc_nonzero_exit_without_diagnostics_is_an_output_error() -> None:
    ctx = context("tsc/project")
    with pytest.raises(EngineOutputError) as caught:
        ENGINE.parse(ProcessResult(("tsc",), 1, "", "panic: runtime error\n", 0.1), ctx)
    assert "panic: runtime error" in caught.value.message
    assert ENGINE.parse(ProcessResult(("tsc",), 0, "", "", 0.1), ctx) == []


def test_tsc_config_selection_follows_the_first_target(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "src" / "deep").mkdir(parents=True)
    (tmp_path / "nocfg").mkdir()
    (tmp_path / "tsconfig.json").write_text("{}")
    (tmp_path / "pkg" / "tsconfig.json").write_text("{}")
    (tmp_path / "pkg" / "tsconfig.build.json").write_text("{}")
    assert select_config(tmp_path, ".") == "tsconfig.json"
    assert select_config(tmp_path, "pkg") == "pkg/tsconfig.json"
    assert select_config(tmp_path, "pkg/tsconfig.build.json") == "pkg/tsconfig.build.json"
    assert select_config(tmp_path, "pkg/src/deep/x.ts") == "pkg/tsconfig.json"
    assert select_config(tmp_path, "other.ts") == "tsconfig.json"
    assert select_config(tmp_path, "nocfg") == "tsconfig.json"  # the nearest one above
    (tmp_path / "tsconfig.json").unlink()
    with pytest.raises(EngineConfigError, match=r"expected tsconfig\.json in nocfg/ or a"):
        select_config(tmp_path, "nocfg")
    with pytest.raises(EngineConfigError, match="outside the project root"):
        select_config(tmp_path, "../elsewhere")


def test_tsc_without_tsconfig_is_an_engine_config_error(tmp_path: Path) -> None:
    ctx = context("tsc/project")
    ctx = type(ctx)(root=tmp_path, executable=ctx.executable, timeout_s=1, state_dir=STATE)
    with pytest.raises(EngineConfigError, match=r"expected tsconfig\.json"):
        ENGINE.command(ctx, [], None)


def test_tsc_config_files_follow_the_extends_chain(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "tsconfig.base.json").write_text('{ /* c */ "compilerOptions": {}, }')
    (tmp_path / "app" / "tsconfig.json").write_text('{"extends": "../tsconfig.base.json"}')
    assert ENGINE.config_files(tmp_path, "app/main.ts") == [
        "app/tsconfig.json",
        "tsconfig.base.json",
    ]
    assert ENGINE.config_files(fixture("tsc/project"), "src/a.ts") == ["tsconfig.json"]
    assert ENGINE.spec.whole_program


def test_tsc_reads_an_installed_package_extends_instead_of_probing(tmp_path: Path) -> None:
    base = tmp_path / "node_modules" / "@tsconfig" / "strictest"
    base.mkdir(parents=True)
    (base / "tsconfig.json").write_text('{"compilerOptions": {"skipLibCheck": false}}')
    (tmp_path / "tsconfig.json").write_text('{"extends": "@tsconfig/strictest/tsconfig.json"}')
    ctx = replace(context("tsc/project"), root=tmp_path, state_dir=tmp_path / ".state")
    assert ENGINE.probe(ctx) is None
    assert "--skipLibCheck" not in ENGINE.command(ctx, [], None).argv  # inherited false


def test_an_error_about_the_options_is_a_coverage_gap_and_a_code_error_is_not() -> None:
    # tsc skips type checking of a program whose options have errors, so a
    # run with one cannot say its files were checked (D17).
    ctx = context("tsc/noinputs")
    gap = ENGINE.program([recorded("tsc-noinputs", ctx.root)], ctx, None, frozenset()).gap
    assert gap is not None
    assert "TS18003 at tsconfig.json: No inputs were found in config file" in gap
    ctx = context("tsc/project")
    program = ENGINE.program([recorded("tsc-project", ctx.root)], ctx, None, frozenset())
    assert program.gap is None


def _typescript(node_modules: Path, version: str, binary: bool) -> Path:
    """A `typescript` package of `version` linked from `.bin/tsc`, with the
    x64 Linux platform package's compiler when `binary`."""
    package = node_modules / "typescript"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text(f'{{"name": "typescript", "version": "{version}"}}')
    (package / "bin" / "tsc").write_text("#!/usr/bin/env node\n")
    if binary:
        native = node_modules / "@typescript" / "typescript-linux-x64" / "lib" / "tsc"
        native.parent.mkdir(parents=True)
        native.write_text("")
        native.chmod(0o755)
    (node_modules / ".bin").mkdir()
    (node_modules / ".bin" / "tsc").symlink_to(package / "bin" / "tsc")
    return node_modules / ".bin" / "tsc"


@pytest.mark.skipif(
    (sys.platform, platform.machine()) != ("linux", "x86_64"), reason="the x64 Linux package"
)
@pytest.mark.parametrize(("version", "binary", "native"), [
    ("7.0.2", True, True),
    ("7.0.2", False, False),  # no platform package: the launcher says what is missing
    ("6.0.3", True, False),  # JavaScript: the executable
])  # fmt: skip
def test_typescript_7_runs_the_compiler_its_launcher_would_run(
    tmp_path: Path, version: str, binary: bool, native: bool
) -> None:
    executable = _typescript(tmp_path / "node_modules", version, binary)
    ctx = replace(context("tsc/project"), executable=executable)
    expected = tmp_path / "node_modules/@typescript/typescript-linux-x64/lib/tsc"
    assert compiler(executable) == str(expected if native else executable)
    assert ENGINE.command(ctx, [], None).argv[0] == compiler(executable)


def test_a_plain_projects_blocks_are_remembered_from_its_last_output_only(tmp_path: Path) -> None:
    from signalint.engines.tsc import adapter as tsc

    first = [
        "src/a.ts(1,1): error TS2322: Type 'string' is not assignable to type 'number'.",
        "src/b.ts(2,3): error TS6133: 'x' is declared but its value is never read.",
    ]
    second = [first[1], "src/c.ts(4,5): error TS2304: Cannot find name 'y'."]
    read_first = tsc._read_plain(first, tmp_path, "tsconfig.json")
    read_second = tsc._read_plain(second, tmp_path, "tsconfig.json")
    assert read_second[0] is read_first[1]  # a block of the last output is reused
    assert [p.file for p in read_second] == ["src/b.ts", "src/c.ts"]
    # What stays remembered is the last output's blocks: the fixed one is forgotten.
    assert set(tsc._blocks[(str(tmp_path), "tsconfig.json")]) == set(second)
