"""The component checkers' adapters on recorded output, without the engines.

The recordings (tests/engines/recorded/components/) are the real output of
svelte-check 4.7.9 (`--output machine-verbose`) and astro check 5.18.2
(ANSI colors kept) on the fixtures of tests/fixtures/components, with the
project path replaced by /project. tests/engines/test_components.py runs
the engines themselves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from signalint.engines import components
from signalint.engines.astro import adapter as astro
from signalint.engines.base import EngineContext, EngineOutputError
from signalint.engines.registry import ENGINES
from signalint.engines.resolve import install_commands
from signalint.engines.svelte_check import adapter as svelte_check
from signalint.engines.vue_tsc import adapter as vue_tsc
from signalint.process import ProcessResult
from signalint.settings.config import load_config

RECORDED = Path(__file__).parent / "recorded" / "components"


def result(stdout: str, code: int = 1) -> ProcessResult:
    return ProcessResult(argv=("x",), exit_code=code, stdout=stdout, stderr="", duration_s=0.1)


def context(root: Path) -> EngineContext:
    return EngineContext(root=root, executable=Path("/bin/true"), timeout_s=10, state_dir=root)


def test_svelte_check_machine_verbose_is_read_with_one_based_columns(tmp_path: Path) -> None:
    text = (RECORDED / "svelte-check-4.7.9.txt").read_text()
    found = svelte_check.ENGINE.parse(result(text), context(tmp_path))
    where = [(i.file, i.line, i.col, i.rule, i.severity) for i in found]
    assert where == [
        ("src/lib/Counter.svelte", 3, 30, "state_referenced_locally", "warning"),
        ("src/lib/Counter.svelte", 4, 25, "state_referenced_locally", "warning"),
        ("src/lib/Counter.svelte", 4, 9, "TS2322", "error"),
        ("src/lib/Counter.svelte", 7, 67, "TS2339", "error"),
        ("src/main.ts", 2, 7, "TS2322", "error"),
        ("src/main.ts", 4, 14, "TS2322", "error"),
    ]
    assert found[0].docs_url == (
        "https://svelte.dev/docs/svelte/compiler-warnings#state_referenced_locally"
    )
    assert (found[2].end_line, found[2].end_col) == (4, 14)
    # The whole message, elaboration lines included (D5).
    elaboration = "    Type 'number' is not assignable to type 'string'."
    assert found[-1].message.splitlines()[2] == elaboration


def test_svelte_check_failures_are_engine_errors(tmp_path: Path) -> None:
    with pytest.raises(EngineOutputError, match="svelte-check failed"):
        svelte_check.ENGINE.parse(result('1 FAILURE "Cannot find tsconfig"'), context(tmp_path))
    with pytest.raises(EngineOutputError, match="without completing"):
        svelte_check.ENGINE.parse(result('1 START "/project"\n', 1), context(tmp_path))
    with pytest.raises(EngineOutputError, match="not JSON"):
        svelte_check.ENGINE.parse(result("1 {nope\n1 COMPLETED 1 FILES 0 ERRORS 0 WARNINGS"),
                                  context(tmp_path))  # fmt: skip


def test_astro_check_text_is_read_without_colors(tmp_path: Path) -> None:
    text = (RECORDED / "astro-5.18.2.txt").read_text()
    found = astro.ENGINE.parse(result(text), context(tmp_path))
    where = [(i.file, i.line, i.col, i.rule) for i in found]
    assert where == [
        ("src/util.ts", 2, 14, "TS2322"),
        ("src/util.ts", 1, 14, "TS2322"),
        ("src/components/Card.astro", 6, 12, "TS2551"),
        ("src/components/Card.astro", 4, 7, "TS2322"),
        ("src/pages/index.astro", 4, 19, "TS2322"),
    ]
    assert found[0].message == (
        "Type '(x: string) => string' is not assignable to type '(x: number) => string'.\n"
        "  Types of parameters 'x' and 'x' are incompatible.\n"
        "    Type 'number' is not assignable to type 'string'."
    )
    assert all("\x1b" not in i.message for i in found)


def test_astro_check_without_a_result_is_an_engine_error(tmp_path: Path) -> None:
    said = "[check] The `@astrojs/check` and `typescript` packages are required"
    with pytest.raises(EngineOutputError, match="without a result"):
        astro.ENGINE.parse(result(said, 0), context(tmp_path))


def test_astro_rules_name_their_source(tmp_path: Path) -> None:
    text = "src/a.astro:3:1 - warning astro(4000): A script tag is processed\n\nResult (1 file):\n"
    [issue] = astro.ENGINE.parse(result(text, 0), context(tmp_path))
    assert (issue.rule, issue.severity, issue.line, issue.col) == ("astro(4000)", "warning", 3, 1)


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_tsconfig_scope_follows_tscs_include_rules(tmp_path: Path) -> None:
    """A directory include, `**` not entering dot directories, excludes
    below a directory, and include inherited from a generated base config
    relative to that config (SvelteKit's `.svelte-kit/tsconfig.json`)."""
    write(tmp_path, {
        "tsconfig.json": json.dumps({"extends": "./.svelte-kit/tsconfig.json"}),
        ".svelte-kit/tsconfig.json": json.dumps({
            "include": ["ambient.d.ts", "../src/**/*.ts", "../src/**/*.svelte", "../tests"],
            "exclude": ["../src/skip"],
        }),
        ".svelte-kit/ambient.d.ts": "",
        "src/a.ts": "", "src/b.svelte": "", "src/.hidden/c.ts": "", "src/skip/d.ts": "",
        "src/e.js": "", "tests/f.ts": "", "other/g.ts": "", "src/node_modules/h.ts": "",
    })  # fmt: skip
    scope = components.tsconfig_scope(tmp_path, "tsconfig.json", svelte_check.SUFFIXES)
    assert sorted(scope) == [".svelte-kit/ambient.d.ts", "src/a.ts", "src/b.svelte", "tests/f.ts"]


def test_tsconfig_scope_reads_config_dir_as_the_checked_configs(tmp_path: Path) -> None:
    """`${configDir}` in an inherited include is the directory of the config
    being checked, not of the one that writes it."""
    write(tmp_path, {
        "tsconfig.json": json.dumps({"extends": "./base/tsconfig.json"}),
        "base/tsconfig.json": json.dumps({"include": ["${configDir}/src"]}),
        "src/a.ts": "", "base/src/b.ts": "",
    })  # fmt: skip
    assert components.tsconfig_scope(tmp_path, "tsconfig.json", astro.SUFFIXES) == ["src/a.ts"]


def test_tsconfig_scope_defaults(tmp_path: Path) -> None:
    """No include: everything but node_modules-like directories and the outDir."""
    write(tmp_path, {
        "tsconfig.json": json.dumps({"compilerOptions": {"outDir": "out"}}),
        "a.ts": "", "src/b.astro": "", "out/c.ts": "", "bower_components/d.ts": "",
    })  # fmt: skip
    scope = components.tsconfig_scope(tmp_path, "tsconfig.json", astro.SUFFIXES)
    assert sorted(scope) == ["a.ts", "src/b.astro"]


def test_inputs_hold_components_and_configs(tmp_path: Path) -> None:
    """The program's inputs (its cache key's contents, D2) include every
    component and the framework's config."""
    write(tmp_path, {
        "svelte.config.js": "export default {};", "tsconfig.json": "{}",
        "src/A.svelte": "", "src/b.ts": "", "node_modules/x/index.d.ts": "",
    })  # fmt: skip
    program = svelte_check.ENGINE.program([], context(tmp_path), None, frozenset())
    inputs = {str(Path(i).relative_to(tmp_path)) for i in program.inputs}
    assert {"svelte.config.js", "tsconfig.json", "src/A.svelte", "src/b.ts"} <= inputs
    assert not any(i.startswith("node_modules/") for i in inputs)
    # A tsconfig without `include` includes every file: the config script too.
    assert {str(Path(i).relative_to(tmp_path)) for i in program.checked or ()} == {
        "src/A.svelte",
        "src/b.ts",
        "svelte.config.js",
    }


def test_detection(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"dependencies": {"vue": "3"}}))
    assert vue_tsc.ENGINE.detect(tmp_path) is None  # Vue without TypeScript
    (tmp_path / "tsconfig.json").write_text("{}")
    assert vue_tsc.ENGINE.detect(tmp_path) == "package.json"
    assert svelte_check.ENGINE.detect(tmp_path) is None
    (tmp_path / "svelte.config.js").write_text("")
    assert svelte_check.ENGINE.detect(tmp_path) == "svelte.config.js"
    (tmp_path / "astro.config.ts").write_text("")
    assert astro.ENGINE.detect(tmp_path) == "astro.config.ts"
    config = load_config(tmp_path)
    assert "tsc" not in config.enabled_engines
    assert config.replaced_by("tsc") == "vue-tsc"  # the first in the registry's order
    assert {"vue-tsc", "svelte-check", "astro"} <= set(config.enabled_engines)


def test_managed_component_checkers_get_a_prefix_with_typescript_5(tmp_path: Path) -> None:
    """TypeScript 7 (the shared prefix's) has no JavaScript API: the
    component checkers are installed into a prefix of their own, with
    their companions pinned beside them."""
    chosen = [ENGINES[n] for n in ("tsc", "vue-tsc", "svelte-check", "astro")]
    commands = install_commands(chosen, 60, tmp_path)
    by_prefix = {c.argv[c.argv.index("--prefix") + 1]: c.argv for c in commands}
    shared = by_prefix[str(tmp_path)]
    assert "typescript@7.0.2" in shared and "vue-tsc@3.3.14" not in shared
    own = by_prefix[str(tmp_path / "components")]
    assert own.count("typescript@5.9.3") == 1
    for wanted in ("vue-tsc@3.3.14", "svelte-check@4.7.9", "svelte@5.46.1", "astro@5.18.2",
                   "@astrojs/check@0.9.12"):  # fmt: skip
        assert wanted in own
    assert (tmp_path / "components" / "package.json").is_file()


def test_a_package_is_checked_from_its_own_directory(tmp_path: Path) -> None:
    """In a workspace (the package directory as the target) svelte-check
    runs in the package, its files and configs are the package's, named
    from the root, and the workspace packages it imports through a link
    are inputs; a target without a checker's config of its own on the way
    up is checked from the root."""
    write(tmp_path, {
        "package.json": "{}", "svelte.config.js": "export default {};",
        "packages/ui/package.json": json.dumps({"dependencies": {"@w/lib": "workspace:*"}}),
        "packages/ui/svelte.config.js": "export default {};",
        "packages/ui/tsconfig.json": '{"include": ["src"]}',
        "packages/ui/src/A.svelte": "", "packages/ui/src/b.ts": "",
        "packages/lib/package.json": "{}", "packages/lib/src/index.ts": "",
        "packages/other/src/c.ts": "",
    })  # fmt: skip
    link = tmp_path / "packages/ui/node_modules/@w/lib"
    link.parent.mkdir(parents=True)
    link.symlink_to("../../../lib", target_is_directory=True)
    engine = svelte_check.ENGINE
    ctx = EngineContext(
        root=tmp_path, executable=Path("/bin/true"), timeout_s=10, state_dir=tmp_path,
        target="packages/ui",
    )  # fmt: skip
    assert engine.home(tmp_path, "packages/ui") == "packages/ui"
    assert engine.home(tmp_path, "packages/ui/src/b.ts") == "packages/ui"
    assert engine.home(tmp_path, "packages/other/src/c.ts") == "."
    assert engine.command(ctx, [], None).cwd == tmp_path / "packages/ui"
    assert engine.configs(tmp_path, "packages/ui") == [
        "packages/ui/svelte.config.js",
        "packages/ui/tsconfig.json",
    ]
    program = engine.program([], ctx, None, frozenset())
    inputs = {Path(i).relative_to(tmp_path).as_posix() for i in program.inputs}
    assert {"packages/ui/src/A.svelte", "packages/lib/src/index.ts"} <= inputs
    assert not any(i.startswith("packages/other/") for i in inputs)
    checked = {Path(i).relative_to(tmp_path).as_posix() for i in program.checked or ()}
    assert checked == {"packages/ui/src/A.svelte", "packages/ui/src/b.ts"}
    # The run's file names are the package's own, read from the root.
    diagnostic = {"type": "ERROR", "filename": "src/b.ts", "start": {"line": 0, "character": 0}}
    line = "1 " + json.dumps({**diagnostic, "message": "m", "code": 2322})
    done = engine.parse(result(f"{line}\n1 COMPLETED 2 FILES 1 ERRORS 0 WARNINGS"), ctx)
    assert [(i.file, i.rule) for i in done] == [("packages/ui/src/b.ts", "TS2322")]
