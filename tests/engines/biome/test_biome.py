from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

import pytest

from signalint.engines.base import EngineOutputError
from signalint.engines.biome.adapter import ENGINE, docs_url, launcher
from signalint.model import Issue
from signalint.process import ProcessResult
from tests.engines.recordings import context, fixture, recorded, recorded_argv


def lint_issues() -> list[Issue]:
    ctx = context("biome")
    return ENGINE.parse(recorded("biome-lint", ctx.root), ctx)


def test_biome_lint_command_is_json_without_the_diagnostic_cap() -> None:
    ctx = context("biome")
    argv = ENGINE.command(ctx, ["src/a.ts"], None).argv
    assert argv[1] == "lint"
    assert "--reporter=json" in argv
    assert "--max-diagnostics=none" in argv
    assert argv[argv.index("--") + 1 :] == ("src/a.ts",)
    assert recorded_argv("biome-lint")[1:4] == ["lint", "--reporter=json", "--max-diagnostics=none"]


def test_biome_formatter_mode_uses_check_without_assist() -> None:
    ctx = context("biome", options={"includeFormatter": True})
    argv = ENGINE.command(ctx, ["src/a.ts"], None).argv
    assert argv[1:3] == ("check", "--assist-enabled=false")
    assert "--reporter=json" in argv


def test_biome_issue_fields_come_from_the_recorded_json() -> None:
    issues = lint_issues()
    equals = next(i for i in issues if i.rule == "lint/suspicious/noDoubleEquals")
    assert (equals.file, equals.severity) == ("src/a.ts", "error")
    assert equals.message == "Using == may be unsafe if you are relying on type coercion."
    assert equals.docs_url == "https://biomejs.dev/linter/rules/no-double-equals"
    assert equals.fixable is False
    # Biome counts code points (column 27); 😀 is two UTF-16 units, so 28.
    assert (equals.line, equals.col, equals.end_line, equals.end_col) == (1, 28, 1, 30)
    unused = next(i for i in issues if i.rule == "lint/correctness/noUnusedVariables")
    assert (unused.file, unused.line, unused.col, unused.severity) == ("src/a.ts", 2, 5, "warning")
    css = next(i for i in issues if i.file == "src/s.css")
    assert (css.rule, css.line, css.col, css.end_col) == (
        "lint/correctness/noUnknownProperty",
        1,
        17,
        21,
    )


def test_biome_parse_and_unreadable_file_diagnostics_are_issues() -> None:
    issues = lint_issues()
    parse = next(i for i in issues if i.rule == "parse")
    assert (parse.file, parse.line, parse.col, parse.severity) == ("src/bad.js", 1, 11, "error")
    assert parse.help == "Expected an expression, or an assignment here."
    assert parse.docs_url is None
    missing = next(i for i in issues if i.rule == "fs/cantRead")
    assert (missing.file, missing.line, missing.col, missing.end_line) == (
        "src/missing.js",
        1,
        1,
        None,
    )
    duplicate = next(i for i in issues if i.file == "src/d.json")
    assert duplicate.help is not None and "only the last definition" in duplicate.help
    # The list is the truth (summary counts can disagree with it).
    assert len(issues) == 9
    assert not any(i.rule == "format" for i in issues)


def test_biome_formatter_diagnostics_are_whole_file_issues() -> None:
    ctx = context("biome", options={"includeFormatter": True})
    issues = ENGINE.parse(recorded("biome-check", ctx.root), ctx)
    formatted = sorted(i.file for i in issues if i.rule == "format")
    assert formatted == ["src/a.ts", "src/bad.js", "src/d.json", "src/fmt.js", "src/s.css"]
    fmt = next(i for i in issues if i.file == "src/fmt.js")
    assert (fmt.line, fmt.col, fmt.severity) == (1, 1, "error")


def test_biome_broken_config_is_an_output_error_with_biome_headline() -> None:
    ctx = context("biome-badconfig")
    with pytest.raises(EngineOutputError) as caught:
        ENGINE.parse(recorded("biome-badconfig", ctx.root), ctx)
    assert caught.value.message == "biome.json:1:3: Property key must be double quoted"


def test_biome_candidates_are_text_files_its_config_then_selects() -> None:
    # Biome's own configuration decides; only binaries and dependencies are never passed.
    assert ENGINE.relevant("a.graphql") and ENGINE.relevant("index.html")
    assert ENGINE.relevant("README.md") and ENGINE.relevant("notes.txt")
    assert not ENGINE.relevant("logo.png") and not ENGINE.relevant("node_modules/x/a.js")


def test_biome_docs_urls_and_config_files() -> None:
    assert docs_url("lint/a11y/useAltText") == "https://biomejs.dev/linter/rules/use-alt-text"
    assert docs_url("parse") is None
    assert ENGINE.config_files(fixture("biome"), "src/a.ts") == ["biome.json"]


def test_biome_selection_names_the_files_with_a_size_diagnostic_only() -> None:
    ctx = context("biome")
    argv = ENGINE.selection(ctx, ["src/a.ts"]).argv
    assert "--files-max-size=1" in argv and "--files-ignore-unknown=true" in argv
    assert argv[argv.index("--") + 1 :] == ("src/a.ts",)

    def diag(path: str, category: str) -> dict[str, object]:
        return {"category": category, "severity": "warning", "message": "m",
                "location": {"path": path}}  # fmt: skip

    stdout = json.dumps(
        {
            "diagnostics": [
                diag("src/a.ts", "lint"),
                diag("README.md", "lint"),
                diag("gone.js", "fs/cantRead"),
                diag("notes.txt", "fs/missingHandler"),
            ]
        }
    )
    selected = ENGINE.selected(ProcessResult(("biome",), 0, stdout, "", 0.1), ctx)
    assert selected == {"src/a.ts", "README.md"}


def _package(node_modules: Path, binary: str) -> Path:
    """@biomejs/biome's launcher script and the platform package's binary."""
    script = node_modules / "@biomejs" / "biome" / "bin" / "biome"
    script.parent.mkdir(parents=True)
    script.write_text("#!/usr/bin/env node\n")
    native = node_modules / binary
    native.parent.mkdir(parents=True)
    native.write_text("")
    native.chmod(0o755)
    return script


@pytest.mark.skipif(
    (sys.platform, platform.machine()) != ("linux", "x86_64"), reason="the x64 Linux package"
)
def test_commands_run_the_platform_binary_the_launcher_would_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BIOME_BINARY", raising=False)
    # npm: .bin/biome links to the script; the binary is a sibling package.
    npm = tmp_path / "npm" / "node_modules"
    script = _package(npm, "@biomejs/cli-linux-x64/biome")
    (npm / ".bin").mkdir()
    (npm / ".bin" / "biome").symlink_to(script)
    found = launcher(npm / ".bin" / "biome")
    assert found == str(npm / "@biomejs" / "cli-linux-x64" / "biome")
    # pnpm: a shell shim names the script; packages live under .pnpm.
    store = tmp_path / "pnpm" / "node_modules" / ".pnpm" / "@biomejs+biome@2.5.3" / "node_modules"
    script = _package(store, "@biomejs/cli-linux-x64/biome")
    shown = tmp_path / "pnpm" / "node_modules"
    (shown / "@biomejs").mkdir()
    (shown / "@biomejs" / "biome").symlink_to(script.parent.parent)
    (shown / ".bin").mkdir()
    shim = shown / ".bin" / "biome"
    shim.write_text(
        '#!/bin/sh\nif [ -x "$basedir/node" ]; then\n'
        '  exec "$basedir/node"  "$basedir/../@biomejs/biome/bin/biome" "$@"\nfi\n'
    )
    assert launcher(shim) == str(store / "@biomejs" / "cli-linux-x64" / "biome")
    # The user's own binary choice, or no platform package: the launcher.
    monkeypatch.setenv("BIOME_BINARY", "/opt/biome")
    assert launcher(shim) == str(shim)
    monkeypatch.delenv("BIOME_BINARY")
    (store / "@biomejs" / "cli-linux-x64" / "biome").unlink()
    assert launcher(shim) == str(shim)
