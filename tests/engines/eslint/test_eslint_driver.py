"""The warm ESLint driver's keys (`engines/eslint/warm.py`): which commands it serves
and what restarts its worker. Quick tier: a fake ESLint package, no process."""

from __future__ import annotations

import os
from pathlib import Path

from signalint.engines.base import EngineContext
from signalint.engines.eslint import adapter
from signalint.engines.eslint.warm import (
    WORKER_LOADS,
    EslintDriver,
    config_imports,
    eslint_package,
    lint_files,
)
from signalint.process import Command
from signalint.project.roots import workspace_top


def project(tmp_path: Path) -> EngineContext:
    root = tmp_path / "project"
    package = root / "node_modules" / "eslint"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "eslint", "version": "10.15.0"}\n')
    (package / "bin" / "eslint.js").write_text("#!/usr/bin/env node\n")
    (package / "bin" / "eslint.js").chmod(0o755)
    for module in WORKER_LOADS:  # what the worker loads of a real ESLint 10
        (package / module).parent.mkdir(parents=True, exist_ok=True)
        (package / module).write_text("module.exports = {};\n")
    (root / "node_modules" / ".bin").mkdir()
    (root / "node_modules" / ".bin" / "eslint").symlink_to("../eslint/bin/eslint.js")
    (root / "src" / "deep").mkdir(parents=True)
    (root / "eslint.config.js").write_text("export default [];\n")
    (root / "package.json").write_text("{}\n")
    return EngineContext(
        root=root,
        executable=root / "node_modules" / ".bin" / "eslint",
        timeout_s=60,
        state_dir=tmp_path / "state",
    )


def test_the_package_owning_the_executable_is_found(tmp_path: Path) -> None:
    ctx = project(tmp_path)
    package = ctx.root / "node_modules" / "eslint"
    assert eslint_package(ctx.executable) == package
    # A pnpm shell shim naming the real script.
    shim = tmp_path / "shim" / "eslint"
    shim.parent.mkdir()
    target = os.path.relpath(package / "bin" / "eslint.js", shim.parent)
    shim.write_text(f'#!/bin/sh\nexec node "$basedir/{target}" "$@"\n')
    assert eslint_package(shim) == package
    assert eslint_package(tmp_path / "missing") is None


def test_only_the_cold_lint_command_is_served(tmp_path: Path) -> None:
    ctx = project(tmp_path)
    driver = EslintDriver()
    command = adapter.ENGINE.command(ctx, ["src/a.js", "src/deep/b.js"], None)
    assert lint_files(ctx, command) == ["src/a.js", "src/deep/b.js"]
    assert driver.key(ctx, command) is not None
    fix = adapter.ENGINE.fix(ctx, ["src/a.js"])
    empty = adapter.ENGINE.command(ctx, [], None)
    other_env = Command(command.argv, command.cwd, command.timeout_s, env={"X": "1"})
    other_cwd = Command(command.argv, tmp_path, command.timeout_s)
    other_exe = Command(("eslint", *command.argv[1:]), command.cwd, command.timeout_s)
    for refused in (fix, empty, other_env, other_cwd, other_exe):
        assert driver.key(ctx, refused) is None
    (ctx.root / "eslint-suppressions.json").write_text("{}\n")
    assert driver.key(ctx, command) is None


def test_config_and_manifest_content_restart_the_worker(tmp_path: Path) -> None:
    ctx = project(tmp_path)
    driver = EslintDriver()
    root = ctx.root
    deep = adapter.ENGINE.command(ctx, ["src/deep/b.js"], None)
    top = adapter.ENGINE.command(ctx, ["src/a.js"], None)
    first = driver.key(ctx, deep)
    assert first is not None and driver.key(ctx, top) == first

    def changes(action: object) -> None:
        before = driver.key(ctx, deep)
        assert before is not None
        assert callable(action)
        action()
        after = driver.key(ctx, deep)
        assert after is not None and after.slot == before.slot
        assert after.state != before.state
        # Stable afterwards, whichever file is asked.
        assert driver.key(ctx, top) == after == driver.key(ctx, deep)

    config = root / "eslint.config.js"
    changes(lambda: config.write_text("export default [{ rules: {} }];\n"))
    # Same size, same mtime: content decides.
    stat = config.stat()

    def same_size_and_mtime() -> None:
        config.write_text("export default [{ rules: [] }];\n")
        os.utime(config, ns=(stat.st_atime_ns, stat.st_mtime_ns))

    changes(same_size_and_mtime)
    changes(lambda: (root / "src" / "eslint.config.mjs").write_text("export default [];\n"))
    changes(lambda: (root / "src" / "eslint.config.mjs").unlink())
    changes(lambda: (root / "package.json").write_text('{"devDependencies": {}}\n'))
    changes(lambda: (root / "package-lock.json").write_text("{}\n"))
    # A source file is not the config: the worker itself reads sources afresh.
    before = driver.key(ctx, deep)
    (root / "src" / "a.js").write_text("debugger;\n")
    assert driver.key(ctx, deep) == before


def test_local_modules_a_config_imports_are_followed(tmp_path: Path) -> None:
    ctx = project(tmp_path)
    root = ctx.root
    (root / "eslint.config.js").write_text(
        'import rules from "./eslint/rules.js";\nimport x from "eslint-plugin-x";\n'
        'const more = await import("./eslint/more");\nexport default [rules, more];\n'
    )
    (root / "eslint").mkdir()
    (root / "eslint" / "rules.js").write_text(
        'export * from "../shared.mjs";\nexport default { rules: {} };\n'
    )
    (root / "eslint" / "more.cjs").write_text("module.exports = {};\n")
    (root / "eslint" / "more.js").write_text('module.exports = require("./deep/index.cjs");\n')
    (root / "eslint" / "deep").mkdir()
    (root / "eslint" / "deep" / "index.cjs").write_text("module.exports = {};\n")
    (root / "shared.mjs").write_text("export const level = 'error';\n")
    assert config_imports(root, ["eslint.config.js"]) == {
        "eslint.config.js",
        "eslint/rules.js",
        "eslint/more.js",
        "eslint/deep/index.cjs",
        "shared.mjs",
    }
    driver = EslintDriver()
    command = adapter.ENGINE.command(ctx, ["src/a.js"], None)
    before = driver.key(ctx, command)
    (root / "shared.mjs").write_text("export const level = 'warn';\n")
    after = driver.key(ctx, command)
    assert before is not None and after is not None and before.state != after.state
    (root / "eslint" / "deep" / "index.cjs").write_text("module.exports = { a: 1 };\n")
    assert driver.key(ctx, command) != after


def test_a_workspace_package_watches_the_workspace_installs(tmp_path: Path) -> None:
    top = tmp_path / "workspace"
    top.mkdir()
    (top / "package-lock.json").write_text("{}\n")
    (top / "package.json").write_text('{"workspaces": ["packages/*"]}\n')
    ctx = project(top / "packages")
    assert workspace_top(ctx.root) == top
    assert workspace_top(top) == top
    driver = EslintDriver()
    command = adapter.ENGINE.command(ctx, ["src/a.js"], None)
    before = driver.key(ctx, command)
    (top / "package-lock.json").write_text('{"lockfileVersion": 3}\n')
    after = driver.key(ctx, command)
    assert before is not None and after is not None and before.state != after.state
    (top / "package.json").write_text('{"workspaces": ["packages/*", "apps/*"]}\n')
    assert driver.key(ctx, command) != after
    # A project of its own: its own lockfile, nothing above it counts.
    (ctx.root / "package-lock.json").write_text("{}\n")
    assert workspace_top(ctx.root) == ctx.root
    own = driver.key(ctx, command)
    (top / "package-lock.json").write_text('{"lockfileVersion": 2}\n')
    assert driver.key(ctx, command) == own


def test_an_eslint_without_the_modules_the_worker_loads_is_not_served(tmp_path: Path) -> None:
    # ESLint 9 before 9.34 keeps the CLI's option translation in lib/cli.js:
    # served when that file defines it, declined when nothing does.
    ctx = project(tmp_path)
    command = adapter.ENGINE.command(ctx, ["src/a.js"], None)
    assert EslintDriver().key(ctx, command) is not None
    package = ctx.root / "node_modules" / "eslint"
    (package / "lib" / "shared" / "translate-cli-options.js").unlink()
    assert EslintDriver().key(ctx, command) is None
    (package / "lib" / "cli.js").write_text("function other() {}\nmodule.exports = {};\n")
    assert EslintDriver().key(ctx, command) is None
    (package / "lib" / "cli.js").write_text(
        "async function translateOptions(\n\t{ cache },\n\tconfigType,\n) {}\n"
    )
    assert EslintDriver().key(ctx, command) is not None
    (package / "lib" / "options.js").unlink()
    assert EslintDriver().key(ctx, command) is None
