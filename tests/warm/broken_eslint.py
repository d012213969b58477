"""Fault injection for the real ESLint worker: a project whose ESLint package
cannot be loaded through its API (its main module throws), so the real
worker (`engines/eslint/eslint_worker.cjs`, on real Node) fails to start
with that message, while the cold `eslint` executable answers a clean
report (each linted file, no messages). The package is the fake of the
driver's quick tests (`tests/engines/eslint/test_eslint_driver.py`), made
to fail.

A file named `slow` in the root makes the next cold run wait a minute
first (the file is removed as it starts): a check caught in progress.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.engines.eslint.test_eslint_driver import project

# What the package's main module throws, as the worker reports it.
INJECTED = "injected: this ESLint cannot be loaded by a worker"

COLD_BIN = r"""#!/usr/bin/env node
const fs = require("node:fs");
if (fs.existsSync("slow")) {
  fs.unlinkSync("slow");
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
}
const args = process.argv.slice(2);
const files = args.slice(args.indexOf("--") + 1).map(f => require("node:path").resolve(f));
const results = files.map(filePath => ({
  filePath, messages: [], suppressedMessages: [], errorCount: 0, fatalErrorCount: 0,
  warningCount: 0, fixableErrorCount: 0, fixableWarningCount: 0, usedDeprecatedRules: [],
}));
process.stdout.write(JSON.stringify({results, metadata: {rulesMeta: {}}}) + "\n");
"""


def broken_eslint_project(tmp_path: Path) -> Path:
    """The project (its real path), checked by ESLint alone."""
    root = project(tmp_path).root
    package = root / "node_modules" / "eslint"
    manifest = {"name": "eslint", "version": "10.15.0", "main": "lib/api.js"}
    (package / "package.json").write_text(json.dumps(manifest) + "\n")
    (package / "lib" / "api.js").write_text(f"throw new Error({INJECTED!r});\n")
    (package / "bin" / "eslint.js").write_text(COLD_BIN)
    (root / "src" / "a.js").write_text("let x = 1;\nx += 1;\n")
    (root / "package.json").write_text('{"type": "module"}\n')
    (root / ".git").mkdir()
    engines = dict.fromkeys(("oxlint", "tsc", "biome", "ruff", "mypy", "pyright"), False)
    settings = {"engines": {**engines, "eslint": True}}
    (root / "signalint.config.json").write_text(json.dumps(settings))
    return Path(os.path.realpath(root))


def edit(root: Path, n: int) -> None:
    """Change the linted file, so that the next check runs ESLint again."""
    (root / "src" / "a.js").write_text(f"let x = {n};\nx += 1;\n")
