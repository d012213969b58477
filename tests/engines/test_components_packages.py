"""The component checkers in a workspace's packages, without running them.

A package that uses Vue, Svelte or Astro brings its checker into a
planned workspace's check (`EngineSpec.from_packages`) unless the settings
name it, and its runs use the package's own executable first (its
`node_modules/.bin`, then the root's, the managed copy, PATH), each with
its own version, as the program cache keys it. The real runs:
tests/pipeline/test_workspace_components.py.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from signalint.cache.context import Context
from signalint.cli.engine_choice import EngineChoice, apply
from signalint.cli.main import main
from signalint.engines import resolve
from signalint.engines.registry import ENGINES
from signalint.pipeline.check_plan import PackagesTask, Task, plan
from signalint.pipeline.request import RunRequest
from signalint.pipeline.workspaces import plan as plan_workspace
from signalint.settings.config import load_config
from tests.helpers import write_executable

VUE_TSC = ENGINES["vue-tsc"]


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A workspace root (a Vue package, a Svelte one, a plain one), an empty
    managed directory and PATH, isolated from the host."""
    layout = {name: tmp_path / name for name in ("root", "managed", "path", "outside")}
    for directory in layout.values():
        directory.mkdir()
    root = layout["root"]
    (root / "package.json").write_text('{"name": "w", "workspaces": ["packages/*"]}')
    manifests = {
        "web": {"name": "@w/web", "dependencies": {"vue": "3.5.26"}},
        "ui": {"name": "@w/ui", "devDependencies": {"svelte-check": "4.7.9"}},
        "lib": {"name": "@w/lib"},
    }
    for name, manifest in manifests.items():
        (root / "packages" / name).mkdir(parents=True)
        (root / "packages" / name / "package.json").write_text(json.dumps(manifest))
        (root / "packages" / name / "tsconfig.json").write_text("{}")
    monkeypatch.setenv("SIGNALINT_ENGINES_DIR", str(layout["managed"]))
    monkeypatch.setenv("PATH", str(layout["path"]))
    monkeypatch.delenv("SIGNALINT_MONOREPO_MODE", raising=False)
    return layout


def install(home: Path, package: str, version: str, bin_name: str) -> Path:
    """npm's layout in `home`: the package's manifest and script, and the
    `.bin` link to it."""
    script = write_executable(home / "node_modules" / package / "bin" / f"{bin_name}.js", "")
    manifest = {"name": package, "version": version}
    (home / "node_modules" / package / "package.json").write_text(json.dumps(manifest))
    link = home / "node_modules" / ".bin" / bin_name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(script, link.parent))
    return link


def test_a_package_resolves_its_own_executable_first(dirs: dict[str, Path]) -> None:
    root = dirs["root"]
    at_root = install(root, "vue-tsc", "3.3.14", "vue-tsc")
    own = install(root / "packages" / "web", "vue-tsc", "2.2.12", "vue-tsc")
    found = resolve.resolve(VUE_TSC, root, "packages/web")
    assert (found.source, found.path) == ("project", own)
    # A package without one: the root's; the root itself: its own.
    assert resolve.resolve(VUE_TSC, root, "packages/lib").path == at_root
    assert resolve.resolve(VUE_TSC, root).path == at_root


def test_a_package_executable_escaping_the_root_is_refused(dirs: dict[str, Path]) -> None:
    root = dirs["root"]
    outside = write_executable(dirs["outside"] / "vue-tsc", "")
    link = root / "packages" / "web" / "node_modules" / ".bin" / "vue-tsc"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    managed = dirs["managed"] / "components" / "node_modules" / ".bin" / "vue-tsc"
    write_executable(managed, "")
    found = resolve.resolve(VUE_TSC, root, "packages/web")
    assert (found.source, found.path) == ("managed", managed)
    assert resolve.resolve(VUE_TSC, root, "packages/ui").path == managed


def _plan(root: Path, settings: dict[str, object]) -> dict[str, Task]:
    (root / "signalint.config.json").write_text(json.dumps(settings))
    config = load_config(root)
    workspace = plan_workspace(root, config.monorepo_mode).workspace
    request = RunRequest(root, config, workspace=workspace, use_cache=False)
    planned = asyncio.run(plan(request, Context()))
    return {t.engine.name: t for t in planned.tasks}


def _packages(tasks: dict[str, Task], name: str) -> PackagesTask:
    task = tasks[name]
    assert isinstance(task, PackagesTask), task
    return task


LINTERS_OFF = {"oxlint": False, "biome": False, "eslint": False}


def test_packages_bring_their_checkers_with_their_own_versions(dirs: dict[str, Path]) -> None:
    """Neither checker named: each runs in the package that uses it, with
    the package's executable and version (the program key's); tsc checks
    the other packages."""
    root = dirs["root"]
    install(root, "vue-tsc", "3.3.14", "vue-tsc")
    own = install(root / "packages" / "web", "vue-tsc", "2.2.12", "vue-tsc")
    tasks = _plan(root, {"monorepoMode": "auto", "engines": LINTERS_OFF})
    assert {"vue-tsc", "svelte-check", "tsc"} <= set(tasks)
    (web,) = _packages(tasks, "vue-tsc").requests
    assert web.job.target == "packages/web"
    assert web.job.resolved is not None and web.job.resolved.path == own
    assert web.job.version == "2.2.12"
    (ui,) = _packages(tasks, "svelte-check").requests
    assert ui.job.target == "packages/ui"
    assert [r.job.target for r in _packages(tasks, "tsc").requests] == ["packages/lib"]
    notes = {r.package.path: r.note for r in _packages(tasks, "tsc").skipped}
    assert "checked by vue-tsc" in (notes["packages/web"] or "")
    assert "checked by svelte-check" in (notes["packages/ui"] or "")


def test_a_checker_the_settings_name_off_is_not_brought(dirs: dict[str, Path]) -> None:
    root = dirs["root"]
    engines = {**LINTERS_OFF, "vue-tsc": False}
    tasks = _plan(root, {"monorepoMode": "auto", "engines": engines})
    assert "vue-tsc" not in tasks and "svelte-check" in tasks
    targets = sorted(r.job.target for r in _packages(tasks, "tsc").requests)
    assert targets == ["packages/lib", "packages/web"]


def test_nothing_is_brought_without_a_planned_workspace(dirs: dict[str, Path]) -> None:
    tasks = _plan(dirs["root"], {"monorepoMode": "off", "engines": LINTERS_OFF})
    assert set(tasks) == {"tsc"} and not isinstance(tasks["tsc"], PackagesTask)


def test_only_and_skip_name_the_engines_they_choose(dirs: dict[str, Path]) -> None:
    """`--only` chooses every engine (none is brought), `--skip` those it
    names (the others may still be brought)."""
    root = dirs["root"]
    (root / "signalint.config.json").write_text(json.dumps({"monorepoMode": "auto"}))
    config = load_config(root)
    assert not config.engines["vue-tsc"].chosen
    only = apply(config, EngineChoice(only=frozenset({"tsc"})))
    assert all(s.chosen for s in only.engines.values())
    skip = apply(config, EngineChoice(skip=frozenset({"svelte-check", "oxlint"})))
    chosen = {name for name, s in skip.engines.items() if s.chosen}
    assert chosen == {"svelte-check", "oxlint"}


def test_doctor_names_the_checkers_the_packages_bring(
    dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = dirs["root"]
    (root / "signalint.config.json").write_text(json.dumps({"monorepoMode": "auto"}))
    monkeypatch.chdir(root)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    main(["doctor", "--no-run"])
    rows = {
        line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line[:2] == "  "
    }
    assert "enabled" in rows["vue-tsc"] and "(brought by packages/web/)" in rows["vue-tsc"]
    assert "(brought by packages/ui/)" in rows["svelte-check"]
    assert "brought" not in rows["astro"] and "disabled" in rows["astro"]
