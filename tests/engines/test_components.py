"""The component checkers run for real: vue-tsc, svelte-check, astro check.

Each fixture (tests/fixtures/components/) gets the pinned packages of its
framework as its own node_modules (installed once into
`~/.cache/signalint/components/<fixture>` or `SIGNALINT_TEST_COMPONENTS`,
as scripts/setup does; hard links, since a symlink out of the root is not
the project's own engine). Every check is compared with the native engine
run alone over the project, diagnostics counted with multiplicity by file,
line, column and rule, read here from the native output with patterns of
this test's own. Then: tsc is replaced (never run beside them, never
credited with a component), coverage names the component files, the
program cache's key includes a component file, and `--new-from-rev HEAD`
reports only a type error planted in a component.

The Svelte fixture is plain Svelte 5 + TypeScript, not SvelteKit: a
SvelteKit project's types come from `svelte-kit sync` (its `.svelte-kit/`
tsconfig), which would add the kit, its adapter and Vite to the pinned
packages; svelte-check reads such a project the same way.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from signalint.cli.main import main
from signalint.model import Scope
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from tests.engines.eslint.test_eslint_warm import pinned_modules
from tests.helpers import git

pytestmark = [pytest.mark.real, pytest.mark.usefixtures("settled_inputs")]

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "components"
DEFAULT_DIR = Path.home() / ".cache" / "signalint" / "components"
# The same pinned lines as scripts/setup.
PACKAGES: dict[str, tuple[str, ...]] = {
    "vue": (
        "vue@3.5.26",
        "vue-tsc@3.3.14",
        "typescript@5.9.3",
        "vite@7.3.8",
        "@vitejs/plugin-vue@6.0.3",
    ),
    # vue-tsc 2 (the major many projects still pin) on the same fixture.
    "vue2": (
        "vue@3.5.26",
        "vue-tsc@2.2.12",
        "typescript@5.9.3",
        "vite@7.3.8",
        "@vitejs/plugin-vue@6.0.3",
    ),
    "svelte": ("svelte@5.46.1", "svelte-check@4.7.9", "typescript@5.9.3"),
    "astro": ("astro@5.18.2", "@astrojs/check@0.9.12", "typescript@5.9.3"),
}
ENGINE_OF = {"vue": "vue-tsc", "svelte": "svelte-check", "astro": "astro"}
Found = Counter[tuple[str, int, int, str]]


def modules(fixture: str) -> Path:
    prefix = Path(os.environ.get("SIGNALINT_TEST_COMPONENTS", str(DEFAULT_DIR))) / fixture
    return pinned_modules(prefix, PACKAGES[fixture])


def project(tmp_path: Path, fixture: str, packages: str | None = None) -> Path:
    """A copy of the fixture with its pinned node_modules (hard links; those
    of `packages`, default the fixture's own) and every other engine but
    Oxlint left to its default."""
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root)
    shutil.copytree(
        modules(packages or fixture), root / "node_modules", symlinks=True, copy_function=os.link
    )
    (root / ".gitignore").write_text("node_modules/\n.signalint/\n.astro/\ndist/\n")
    (root / "signalint.config.json").write_text(json.dumps({"engines": {"oxlint": False}}))
    return root.resolve()


def check(root: Path, *, cache: bool, paths: tuple[str, ...] = ()) -> CheckRun:
    config = load_config(root)
    scope = Scope(targets=paths) if paths else Scope()
    if cache:
        request = RunRequest(root, config, scope, state=root.parent / f"state-{root.name}")
    else:
        request = RunRequest(root, config, scope, use_cache=False)
    return asyncio.run(run_check(request, None))


def issues(run: CheckRun, engine: str) -> Found:
    assert {i.engine for i in run.result.issues} <= {engine}
    return Counter((i.file, i.line, i.col, i.rule) for i in run.result.issues)


# Native outputs, read with this test's own patterns.
_TSC = re.compile(r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+),(?P<col>\d+)\): \w+ (?P<rule>TS\d+):")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_ASTRO = re.compile(
    r"^(?P<file>\S+):(?P<line>\d+):(?P<col>\d+) - \w+ (?P<src>\w+)\((?P<code>\d+)\)"
)


def native(root: Path, fixture: str) -> Found:
    """The fixture's checker run alone, as its project runs it."""
    bin_dir = root / "node_modules" / ".bin"
    argv = {
        "vue": [str(bin_dir / "vue-tsc"), "--noEmit", "--pretty", "false"],
        "svelte": [str(bin_dir / "svelte-check"), "--output", "machine-verbose"],
        "astro": [str(bin_dir / "astro"), "check"],
    }[fixture]
    env = {**os.environ, "ASTRO_TELEMETRY_DISABLED": "1"}
    done = subprocess.run(
        argv, cwd=root, capture_output=True, text=True, timeout=300, check=False, env=env
    )
    assert done.returncode in (1, 2), done.stdout[-2000:] + done.stderr[-2000:]
    found: Found = Counter()
    for line in done.stdout.splitlines():
        if fixture == "vue" and (m := _TSC.match(line)):
            found[(m["file"], int(m["line"]), int(m["col"]), m["rule"])] += 1
        elif fixture == "svelte" and line.split(" ", 1)[-1].startswith("{"):
            data: dict[str, Any] = json.loads(line.split(" ", 1)[1])
            code = data.get("code")
            rule = f"TS{code}" if isinstance(code, int) else str(code)
            start = data["start"]
            found[(data["filename"], start["line"] + 1, start["character"] + 1, rule)] += 1
        elif fixture == "astro" and (m := _ASTRO.match(_ANSI.sub("", line))):
            rule = f"TS{m['code']}" if m["src"] == "ts" else f"{m['src']}({m['code']})"
            found[(m["file"], int(m["line"]), int(m["col"]), rule)] += 1
    assert found, done.stdout[-2000:]
    return found


# The files each engine diagnoses in its fixture (its tsconfig's scope).
CHECKED = {
    "vue": {"src/App.vue", "src/components/Hello.vue", "src/main.ts", "vite.config.ts"},
    "svelte": {"src/lib/Counter.svelte", "src/main.ts"},
    "astro": {
        "astro.config.mjs",
        "src/components/Card.astro",
        "src/pages/index.astro",
        "src/util.ts",
    },
}


@pytest.mark.parametrize(
    ("fixture", "packages"),
    [("vue", "vue"), ("vue", "vue2"), ("svelte", "svelte"), ("astro", "astro")],
)
def test_each_checker_is_read_as_its_native_run(
    tmp_path: Path, fixture: str, packages: str
) -> None:
    """Cold, filling the cache and answered from it: the native diagnostics
    with multiplicity; tsc never runs beside it; the component files are
    counted as checked by the component engine (vue-tsc 3 and 2)."""
    root = project(tmp_path, fixture, packages)
    engine = ENGINE_OF[fixture]
    expected = native(root, fixture)
    for cache in (False, True, True):
        run = check(root, cache=cache)
        assert set(run.result.outcomes) == {engine}, run.result.outcomes
        outcome = run.result.outcomes[engine]
        assert outcome.status == "ok", outcome.message or outcome.coverage_gap
        assert outcome.coverage_gap is None  # the version is one the adapter reads
        assert outcome.files_checked == len(CHECKED[fixture])
        assert issues(run, engine) == expected
    assert outcome.cache_hits == 1
    components = [f for f in CHECKED[fixture] if f.endswith((".vue", ".svelte", ".astro"))]
    assert {f for f, *_ in expected} & set(components)


def test_vue_errors_in_script_setup_and_template(tmp_path: Path) -> None:
    """The errors inside `<script setup lang="ts">` and in the template are
    reported at the component file's own line and column; a check of one
    component is covered by vue-tsc, and tsc is not run."""
    root = project(tmp_path, "vue")
    run = check(root, cache=False)
    found = issues(run, "vue-tsc")
    assert found[("src/components/Hello.vue", 5, 7, "TS2322")] == 1  # <script setup>
    assert found[("src/components/Hello.vue", 9, 20, "TS2551")] == 1  # {{ props.msg.toFixed }}
    assert found[("src/App.vue", 7, 11, "TS2322")] == 1  # <Hello :msg="42" />
    one = check(root, cache=False, paths=("src/App.vue",))
    assert set(one.result.outcomes) == {"vue-tsc"}
    assert one.result.outcomes["vue-tsc"].files_checked == 1
    assert {i.file for i in one.result.issues} == {"src/App.vue"}


def test_tsc_enabled_by_name_is_still_replaced(tmp_path: Path) -> None:
    """A settings file naming tsc (as `init` wrote before vue-tsc existed)
    does not make tsc check the program twice; disabling vue-tsc brings it
    back, and then no `.vue` file counts as checked by tsc."""
    root = project(tmp_path, "vue")
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": False, "tsc": True}})
    )
    config = load_config(root)
    assert "tsc" not in config.enabled_engines
    assert config.replaced_by("tsc") == "vue-tsc"
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": False, "tsc": True, "vue-tsc": False}})
    )
    run = check(root, cache=False)
    assert set(run.result.outcomes) == {"tsc"}
    # main.ts and vite.config.ts; tsc reads no component.
    assert run.result.outcomes["tsc"].files_checked == 2
    assert all(not i.file.endswith(".vue") for i in run.result.issues)
    one = check(root, cache=False, paths=("src/App.vue",))
    assert one.result.outcomes["tsc"].files_checked == 0
    assert one.result.status != "clean"


@pytest.mark.parametrize("fixture", ["vue", "svelte"])
def test_the_cache_key_includes_a_component_file(tmp_path: Path, fixture: str) -> None:
    """Editing only a component re-runs the engine: the stored program is
    not reused for the new content, and the fixed error is gone."""
    root = project(tmp_path, fixture)
    engine = ENGINE_OF[fixture]
    first = check(root, cache=True)
    again = check(root, cache=True)
    assert again.result.outcomes[engine].cache_hits == 1
    component = root / (
        "src/components/Hello.vue" if fixture == "vue" else "src/lib/Counter.svelte"
    )
    text = component.read_text()
    fixed = text.replace("const wrong: string = count.value;", "const wrong: number = count.value;")
    fixed = fixed.replace("const label: string = count;", "const label: number = count;")
    assert fixed != text
    component.write_text(fixed)
    after = check(root, cache=True)
    outcome = after.result.outcomes[engine]
    assert outcome.cache_hits == 0 and outcome.cache_misses == 1
    rel = component.relative_to(root).as_posix()
    before = sum(n for (f, *_), n in issues(first, engine).items() if f == rel)
    now = sum(n for (f, *_), n in issues(after, engine).items() if f == rel)
    assert now == before - 1
    assert issues(after, engine) == native(root, fixture)


def test_new_from_rev_reports_only_a_planted_component_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    in_project: Callable[[Path], Path],
) -> None:
    """`check --new-from-rev HEAD` after a type error is planted in a
    component: only that one is new, the committed ones are unchanged."""
    root = project(tmp_path, "svelte")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fixture")
    component = root / "src" / "lib" / "Counter.svelte"
    component.write_text(
        component.read_text().replace("</script>", "  const planted: boolean = 'yes';\n</script>")
    )
    in_project(root)
    code = main(["check", "--format", "json"])
    everything = json.loads(capsys.readouterr().out)
    assert code == 1
    total = everything["totalIssues"]
    code = main(["check", "--format", "json", "--new-from-rev", "HEAD"])
    document = json.loads(capsys.readouterr().out)
    assert code == 1
    found = document["baseline"]
    assert found["enginesNotOkAtRev"] == []
    assert (found["new"], found["unchanged"]) == (1, total - 1)
    [planted] = document["remainingIssues"]
    assert (planted["file"], planted["line"], planted["rule"]) == (
        "src/lib/Counter.svelte",
        5,
        "TS2322",
    )


def test_astro_without_sync_writes_nothing(tmp_path: Path) -> None:
    """`"astro": {"sync": false}` passes `--noSync`: the check writes no
    `.astro/` into the project (D18), which the default run, as the
    project's own `astro check`, does; the diagnostics are the same here
    (the fixture has no content collections)."""
    root = project(tmp_path, "astro")
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": False, "astro": {"sync": False}}})
    )
    run = check(root, cache=False)
    assert run.result.outcomes["astro"].status == "ok"
    assert not (root / ".astro").exists()
    found = issues(run, "astro")
    assert found == native(root, "astro")  # the native run syncs
    assert (root / ".astro").is_dir()
