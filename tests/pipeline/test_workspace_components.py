"""A workspace of component packages, checked package by package for real.

The fixture `tests/fixtures/workspace-components` (see its README) holds a
plain TypeScript package (tsc), a Vue one (vue-tsc) and a Svelte one
(svelte-check). Each checker runs in the packages it detects, as tsc does in
a workspace; tsc, which the component checkers replace, still checks the
package neither of them detects. Every package's diagnostics are compared
with the native checker run in that package alone, with multiplicity, and
an edit re-runs only the checkers of the packages it can affect.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from signalint.cache.context import Context
from signalint.cli.main import main
from signalint.pipeline.check_run import PackageRun
from signalint.service import check_service as service
from tests.conftest import require_engine
from tests.engines.test_components import modules
from tests.helpers import git
from tests.pipeline.test_workspace_check import check

FIXTURE = Path(__file__).parents[1] / "fixtures" / "workspace-components"
# Which engine checks which package, and the pinned packages it gets.
CHECKER = {"@wsc/lib": "tsc", "@wsc/web": "vue-tsc", "@wsc/ui": "svelte-check"}
FRAMEWORK = {"web": "vue", "ui": "svelte"}
Found = Counter[tuple[str, int, int, str]]
_TSC = re.compile(r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+),(?P<col>\d+)\): \w+ (?P<rule>TS\d+):")

pytestmark = [pytest.mark.real, pytest.mark.usefixtures("settled_inputs")]


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    require_engine("tsc")
    root = tmp_path / "wsc"
    shutil.copytree(FIXTURE, root)
    for package, framework in FRAMEWORK.items():
        where = root / "packages" / package / "node_modules"
        shutil.copytree(modules(framework), where, symlinks=True, copy_function=os.link)
        link = where / "@wsc" / "lib"
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to("../../../lib", target_is_directory=True)
    (root / ".gitignore").write_text("node_modules/\n.signalint/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fixture")
    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)
    monkeypatch.delenv("SIGNALINT_MONOREPO_MODE", raising=False)
    return Path(os.path.realpath(root))


def runs(checked: service.Checked) -> dict[tuple[str, str], PackageRun]:
    return {(r.engine, r.package.name): r for r in checked.run.package_runs}


def ran(checked: service.Checked) -> set[tuple[str, str]]:
    """(engine, package) pairs whose checker really ran (not from the cache)."""
    return {k for k, r in runs(checked).items() if r.outcome and r.outcome.cache_misses}


def native(root: Path, package: str) -> Found:
    """The package's checker run alone in its directory, as the package runs it."""
    home = root / "packages" / package
    engine = CHECKER[f"@wsc/{package}"]
    bin_dir = home / "node_modules" / ".bin"
    argv = {
        "tsc": [str(require_engine("tsc")), "-p", "tsconfig.json", "--noEmit", "--pretty", "false"],
        "vue-tsc": [str(bin_dir / "vue-tsc"), "--noEmit", "--pretty", "false"],
        "svelte-check": [str(bin_dir / "svelte-check"), "--output", "machine-verbose"],
    }[engine]
    done = subprocess.run(argv, cwd=home, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode in (1, 2), done.stdout[-2000:] + done.stderr[-2000:]
    found: Found = Counter()
    for line in done.stdout.splitlines():
        if engine != "svelte-check" and (m := _TSC.match(line)):
            file = os.path.normpath(f"packages/{package}/{m['file']}")
            found[(file, int(m["line"]), int(m["col"]), m["rule"])] += 1
        elif engine == "svelte-check" and line.split(" ", 1)[-1].startswith("{"):
            data: dict[str, Any] = json.loads(line.split(" ", 1)[1])
            code = data.get("code")
            rule = f"TS{code}" if isinstance(code, int) else str(code)
            start = data["start"]
            file = f"packages/{package}/{data['filename']}"
            found[(file, start["line"] + 1, start["character"] + 1, rule)] += 1
    assert found, done.stdout[-2000:]
    return found


def as_natively(workspace: Path, by_run: dict[tuple[str, str], PackageRun]) -> None:
    """Each package's own checker answered `ok` with the issues its native
    run finds, with multiplicity."""
    for name, engine in CHECKER.items():
        run = by_run[(engine, name)]
        assert run.outcome is not None and run.outcome.status == "ok", run
        found = Counter((i.file, i.line, i.col, i.rule) for i in run.outcome.issues)
        assert found == native(workspace, name.split("/")[1]), name


def test_each_package_is_checked_by_its_own_checker_as_natively(workspace: Path) -> None:
    """Each package's issues equal its native checker's, with multiplicity;
    a checker skips the packages it does not detect, and tsc those a
    component checker covers (it is never run twice over a package)."""
    checked = check(workspace)
    by_run = runs(checked)
    as_natively(workspace, by_run)
    for name, engine in CHECKER.items():
        # Nothing else checked this package.
        others = [r for (e, n), r in by_run.items() if n == name and e != engine]
        assert all(r.outcome is None for r in others), others
    assert "checked by vue-tsc" in (by_run[("tsc", "@wsc/web")].note or "")
    assert "no svelte-check configuration" in (by_run[("svelte-check", "@wsc/web")].note or "")
    assert set(checked.result.outcomes) == {"tsc", "vue-tsc", "svelte-check"}
    issues = Counter((i.engine, i.file.split("/")[1]) for i in checked.result.issues)
    assert issues[("tsc", "lib")] == 1
    assert issues[("vue-tsc", "web")] >= 3 and issues[("svelte-check", "ui")] >= 3
    files = {i.file for i in checked.result.issues}
    assert "packages/web/src/components/Hello.vue" in files
    assert "packages/ui/src/lib/Counter.svelte" in files
    # A check of the Svelte package alone: tsc has no package left to check.
    ui = check(workspace, paths=("packages/ui",))
    assert "tsc" not in ui.result.outcomes
    assert {i.engine for i in ui.result.issues} == {"svelte-check"}


def test_an_edit_reruns_only_the_checkers_of_the_packages_it_affects(workspace: Path) -> None:
    context = Context()
    first = check(workspace, context)
    assert ran(first) == {("tsc", "@wsc/lib"), ("vue-tsc", "@wsc/web"), ("svelte-check", "@wsc/ui")}
    assert ran(check(workspace, context)) == set()
    # A leaf: the Svelte package alone.
    counter = workspace / "packages" / "ui" / "src" / "lib" / "Counter.svelte"
    counter.write_text(counter.read_text() + "<p>more</p>\n")
    assert ran(check(workspace, context)) == {("svelte-check", "@wsc/ui")}
    # The Vue package alone, named as `--changed` would name it.
    main = workspace / "packages" / "web" / "src" / "main.ts"
    main.write_text(main.read_text() + "export const more = 1;\n")
    changed = check(workspace, context, changed=["packages/web/src/main.ts"])
    assert "@wsc/web" in {r.package.name for r in changed.run.package_runs}
    assert ran(changed) == {("vue-tsc", "@wsc/web")}
    # The package both need: all three.
    index = workspace / "packages" / "lib" / "src" / "index.ts"
    index.write_text(index.read_text() + "export const third = 3;\n")
    assert ran(check(workspace, context)) == {
        ("tsc", "@wsc/lib"),
        ("vue-tsc", "@wsc/web"),
        ("svelte-check", "@wsc/ui"),
    }


def _settings(root: Path, engines: dict[str, bool]) -> None:
    """The root's settings: the linters off, tsc on, and `engines`; the
    component checkers named only where `engines` names them."""
    named = {"oxlint": False, "biome": False, "eslint": False, "tsc": True, **engines}
    text = json.dumps({"monorepoMode": "auto", "engines": named})
    (root / "signalint.config.json").write_text(text)


def _give(root: Path, package: str, fixture: str) -> Path:
    """`package`'s node_modules made of the pinned packages of `fixture`."""
    where = root / "packages" / package / "node_modules"
    shutil.rmtree(where)
    shutil.copytree(modules(fixture), where, symlinks=True, copy_function=os.link)
    link = where / "@wsc" / "lib"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to("../../../lib", target_is_directory=True)
    return where


def test_packages_bring_their_checkers_run_with_their_own_executables(
    workspace: Path,
) -> None:
    """Settings that do not name vue-tsc or svelte-check: the packages that
    use them bring them, each run with the package's own executable (the
    Vue package's vue-tsc 2, where the managed copy is 3), equal to the
    package's own checker run natively; tsc checks the plain package and
    no component. Named off, a checker is not brought."""
    _settings(workspace, {})
    web = _give(workspace, "web", "vue2")
    checked = check(workspace)
    by_run = runs(checked)
    as_natively(workspace, by_run)
    own = checked.run.toolchain
    assert own is not None
    resolved = own.for_package("vue-tsc", "packages/web")
    assert resolved is not None and resolved.source == "project"
    assert resolved.path == web / ".bin" / "vue-tsc"
    # vue-tsc 2 writes its global types beside the package's vue (3 does not).
    assert (web / ".vue-global-types").is_dir()
    assert "checked by vue-tsc" in (by_run[("tsc", "@wsc/web")].note or "")
    assert "checked by svelte-check" in (by_run[("tsc", "@wsc/ui")].note or "")
    tsc = [i for i in checked.result.issues if i.engine == "tsc"]
    assert tsc and not [i for i in tsc if i.file.endswith((".vue", ".svelte"))]
    # Named off in the settings: tsc checks the Vue package's scripts instead.
    _settings(workspace, {"vue-tsc": False})
    off = runs(check(workspace))
    assert ("vue-tsc", "@wsc/web") not in off
    assert off[("svelte-check", "@wsc/ui")].outcome is not None
    tsc_web = off[("tsc", "@wsc/web")].outcome
    assert tsc_web is not None and tsc_web.status == "ok", off[("tsc", "@wsc/web")]
    assert not [i for i in tsc_web.issues if i.file.endswith(".vue")]


def test_new_from_rev_in_a_package_that_brings_its_checker(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check --new-from-rev HEAD` after an error is planted in a Vue
    component of a package that brings vue-tsc (its own vue-tsc 2): the old
    tree is checked with the same executables, and only the planted error
    is new."""
    _settings(workspace, {})
    _give(workspace, "web", "vue2")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "settings")
    hello = workspace / "packages" / "web" / "src" / "components" / "Hello.vue"
    text = hello.read_text().replace("</script>", "const planted: boolean = 'yes';\n</script>", 1)
    hello.write_text(text)
    monkeypatch.chdir(workspace)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    assert main(["check", "--format", "json", "--new-from-rev", "HEAD"]) == 1
    document = json.loads(capsys.readouterr().out)
    found = document["baseline"]
    assert found["enginesNotOkAtRev"] == [], found
    [planted] = document["remainingIssues"]
    where = (planted["file"], planted["line"], planted["rule"])
    assert where == ("packages/web/src/components/Hello.vue", 6, "TS2322"), planted
