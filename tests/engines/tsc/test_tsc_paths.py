"""Build-mode wrappers keep every path-valued option resolving as natively.

A check of a config with `references` runs `tsc -b` on wrapper configs in
the state directory (signalint.engines.tsc.build). Whatever resolves against
the directory of the config tsc is given would follow the wrapper there, so a
wrapper that changes what tsc checks must fail here, never in a user's
project. Each fixture under `tests/fixtures/tsc-paths/` exercises one
path-valued option (a `types` entry that is a path, `typeRoots`, `paths` with
and without `baseUrl`, `rootDirs`, `files`, an `extends` base in another
directory, a `types` package subpath that only package `exports` map) and
holds one planted type error. A mis-resolved option shows up
as an option-level error (tsc then skips type checking, so the planted error
disappears too) or as an undeclared name.

Each case runs native `tsc -b` in a scratch copy and `signalint check` on
another copy, under TypeScript 7 (the managed engine), 6 and 5 (pinned by
scripts/setup under `~/.cache/signalint/lsp` and `~/.cache/signalint/ts5`,
installed into the copy's `node_modules` so that the project's own tsc is
the one resolved), and compares the multisets of (file, line, code).
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from signalint.model import CheckResult
from signalint.pipeline.check_run import run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from tests.typescripts import install_typescript, typescript

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tsc-paths"
# The planted error of each fixture, which both runs must report.
PLANTED = {
    "types-path": ("src/main.ts", 2, "TS2322"),
    "types-package": ("src/main.ts", 2, "TS2322"),
    "type-roots": ("src/main.ts", 3, "TS2322"),
    "paths-base-url": ("src/main.ts", 4, "TS2322"),
    "paths": ("src/main.ts", 4, "TS2322"),
    "root-dirs": ("src/main.ts", 4, "TS2322"),
    "files": ("src/main.ts", 2, "TS2322"),
    "extends-subdir": ("packages/app/src/index.ts", 4, "TS2322"),
}
# The TypeScript majors each case runs under: 7 and 5 (two code bases), 6
# too where `types` entries are paths. `baseUrl` is an error in TypeScript 6
# (deprecated) and 7 (removed).
MAJORS = {"types-path": (7, 6, 5), "extends-subdir": (7, 6, 5), "paths-base-url": (5,)}


def exports_package(root: Path) -> None:
    """node_modules/exportslib: its `expect` subpath exists only in `exports`."""
    package = root / "node_modules" / "exportslib"
    (package / "dist").mkdir(parents=True)
    manifest = {
        "name": "exportslib",
        "version": "1.0.0",
        "exports": {"./expect": {"types": "./dist/expect.d.ts", "default": "./dist/expect.js"}},
    }
    (package / "package.json").write_text(json.dumps(manifest))
    (package / "dist" / "expect.d.ts").write_text("declare const exportsGlobal: string;\n")
    (package / "dist" / "expect.js").write_text("")


def no_setup(root: Path) -> None:
    """Nothing beyond the fixture."""


# What each copy needs that the repository cannot hold (node_modules is ignored).
SETUP = {"types-package": exports_package}
_LOCATED = re.compile(r"^(?P<file>\S.*?)\((?P<line>\d+),\d+\): error (?P<code>TS\d+): ")
_GLOBAL = re.compile(r"^error (?P<code>TS\d+): ")

Diagnostic = tuple[str, int, str]


def native_diagnostics(stdout: str) -> list[Diagnostic]:
    """(file, line, code) of each error tsc printed; ("", 0, code) without a location."""
    found: list[Diagnostic] = []
    for line in stdout.splitlines():
        located = _LOCATED.match(line)
        if located:
            found.append((located["file"], int(located["line"]), located["code"]))
        elif unlocated := _GLOBAL.match(line):
            found.append(("", 0, unlocated["code"]))
    return found


def check(root: Path) -> CheckResult:
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": False, "tsc": True, "biome": False, "eslint": False}})
    )
    return asyncio.run(run_check(RunRequest(root, load_config(root), use_cache=False))).result


@pytest.mark.real
@pytest.mark.parametrize(
    ("case", "major"),
    [(case, major) for case in sorted(PLANTED) for major in MAJORS.get(case, (7, 5))],
)
def test_build_mode_resolves_path_valued_options_as_native_tsc_b(
    case: str, major: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)
    tsc = typescript(major)
    setup = SETUP.get(case, no_setup)
    scratch = shutil.copytree(FIXTURES / case, tmp_path / "native")
    setup(scratch)
    done = subprocess.run(
        [str(tsc), "-b", "--pretty", "false"],
        cwd=scratch,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    native = native_diagnostics(done.stdout)
    assert PLANTED[case] in native, done.stdout  # the fixture means what it says

    root = shutil.copytree(FIXTURES / case, tmp_path / "repo")
    setup(root)
    install_typescript(root, major)
    result = check(root)
    ours = [(i.file, i.line, i.rule) for i in result.issues]
    assert Counter(ours) == Counter(native), [i.message for i in result.issues]
    outcome = result.outcomes["tsc"]
    assert outcome.status == "ok" and outcome.coverage_gap is None, outcome.message
