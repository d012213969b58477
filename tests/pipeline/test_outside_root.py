"""Nothing from outside the root (issue 37): links out of the project root.

The quick tests hold the path classification (`project.outside`) and the
walk's record of links out of the root. The real tests build, per engine
and per kind of link (a file, a directory, a chain of links, a link into a
`node_modules` outside the root), a project beside an outside directory
holding a "secret" whose text every engine would quote, and check that the
text appears in no answer, cold, cached or warm; that the engine's
`filesChecked` equals a check of the project without the link; that the
outcome names the link; and that cached and cold checks agree. A control
(the same text as a real file inside the root) shows each engine quotes it.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from signalint.cache.context import Context
from signalint.engines.tsc.build import plan_build
from signalint.model import EngineOutcome, Scope
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.request import RunRequest
from signalint.project.outside import Boundary, not_checked_note, plainly_outside, withheld_gap
from signalint.project.walk import walk
from signalint.settings.config import load_config
from signalint.warm.pool import WarmPool
from tests.conftest import require_engine

SECRET = "sk_live_SECRET123"

# Text every engine quotes: undefined names, unused variables, a wrong type.
JS_SECRET = (
    f"API_KEY = {SECRET};\nvar {SECRET}_unused = 1;\nlet other_{SECRET} = {SECRET}_unused == 1;\n"
)
PY_SECRET = f'API_KEY = {SECRET}\nother_{SECRET}: int = "{SECRET}"\n'


# --- quick: the classification ---------------------------------------------


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "proj", tmp_path / "outside"
    (root / "src" / "deep").mkdir(parents=True)
    (outside / "dir").mkdir(parents=True)
    (outside / "node_modules" / "pkg").mkdir(parents=True)
    (outside / "secret.env").write_text("x")
    (outside / "dir" / "s.ts").write_text("x")
    (outside / "node_modules" / "pkg" / "index.ts").write_text("x")
    (root / "src" / "inside.ts").write_text("x")
    (root / "src" / "deep" / "config.ts").symlink_to(outside / "secret.env")
    (root / "src" / "linked").symlink_to(outside / "dir", target_is_directory=True)
    (root / "hop").mkdir()
    (root / "hop" / "one.ts").symlink_to(outside / "secret.env")
    (root / "src" / "chain.ts").symlink_to("../hop/one.ts")
    (root / "src" / "vendor.ts").symlink_to(outside / "node_modules" / "pkg" / "index.ts")
    (root / "src" / "alias.ts").symlink_to("inside.ts")  # a link inside the root
    (root / "node_modules").mkdir()
    (root / "node_modules" / "dep").symlink_to(outside / "dir", target_is_directory=True)
    return root, outside


def test_paths_through_links_out_of_the_root_are_outside(tmp_path: Path) -> None:
    root, _ = _tree(tmp_path)
    edge = Boundary(root)
    for rel in (
        "src/deep/config.ts",
        "src/linked/s.ts",
        "src/linked",
        "src/chain.ts",
        "hop/one.ts",
        "src/vendor.ts",
    ):
        assert edge.hidden(rel) and edge.outside(rel), rel
    for rel in ("src/inside.ts", "src/alias.ts", "src", "missing.ts"):
        assert not edge.hidden(rel) and not edge.outside(rel), rel
    # Dependencies are the engines' to read; their issues are never reported.
    assert not edge.hidden("node_modules/dep/s.ts")
    # Written outside: outside, but not "hidden".
    for rel in ("../x.ts", "..", "/etc/passwd"):
        assert plainly_outside(rel) and edge.outside(rel) and not edge.hidden(rel)


def test_trusted_and_known_paths_count_as_inside(tmp_path: Path) -> None:
    root, outside = _tree(tmp_path)
    assert not Boundary(root, trusted=(outside,)).hidden("src/deep/config.ts")
    assert not Boundary(root, known={"src/deep/config.ts"}).hidden("src/deep/config.ts")
    edge = Boundary(root)
    absolute = [str(root / "src" / "chain.ts"), str(root / "src" / "inside.ts"), "/usr/lib/x.d.ts"]
    assert edge.hidden_inputs(absolute) == ["src/chain.ts"]


def test_the_walk_names_the_links_out_of_the_root_it_skips(tmp_path: Path) -> None:
    root, _ = _tree(tmp_path)
    (root / ".gitignore").write_text("hop/\n")
    edge = Boundary(root)
    files = walk(root, ["ignored/**"], boundary=edge)
    assert "src/inside.ts" in files and "src/alias.ts" in files
    assert not any(
        f.startswith(("src/deep/config", "src/linked", "src/chain", "src/vendor")) for f in files
    )
    # Ignored places (hop/, node_modules/) are not named.
    assert sorted(edge.links) == [
        "src/chain.ts",
        "src/deep/config.ts",
        "src/linked/",
        "src/vendor.ts",
    ]


def test_the_notes_name_the_paths_and_count_the_rest() -> None:
    assert not_checked_note([]) is None
    one = not_checked_note(["src/config.ts"])
    assert one is not None and one.startswith("1 file outside the project root was not checked")
    many = not_checked_note([f"f{i}.ts" for i in range(7)])
    assert many is not None and "7 files" in many and "f4.ts and 2 more" in many
    gap = withheld_gap("tsc", ["src/config.ts"])
    assert "src/config.ts" in gap and "withheld" in gap


# --- real: every engine, every kind of link --------------------------------


@dataclass(frozen=True)
class Lang:
    suffix: str
    secret: str
    clean: str


JS = Lang("js", JS_SECRET, "export const a = 1;\n")
TS = Lang("ts", JS_SECRET, "export const a: number = 1;\n")
PY = Lang("py", PY_SECRET, "x: int = 1\n")
ENGINE_LANG = {
    "oxlint": JS,
    "biome": JS,
    "eslint": JS,
    "tsc": TS,
    "ruff": PY,
    "mypy": PY,
    "pyright": PY,
    "ty": PY,
    "pyrefly": PY,
    "basedpyright": PY,
}
# The configuration each of Python's other type checkers reads, over `src/`.
PYTHON_CHECKERS = {
    "ty": '[tool.ty.src]\ninclude = ["src"]\n',
    "pyrefly": '[tool.pyrefly]\nproject-includes = ["src"]\n',
    "basedpyright": '[tool.basedpyright]\ninclude = ["src"]\n',
}
# Whole-program engines that read a file linked from outside the root
# whatever the walk gave them: the check withholds their diagnostics.
FOLLOW_FILE_LINKS = ("pyright", "basedpyright", "ty", "pyrefly")
BINARIES = {"tsc": "tsc", "oxlint": "oxlint", "biome": "biome", "eslint": "eslint"}
CASES = ("file", "directory", "chain", "node_modules")


def _project(base: Path, engine: str) -> tuple[Path, Path]:
    """A project enabling only `engine`, and the outside directory beside it."""
    root, outside = base / "proj", base / "outside"
    (root / "src").mkdir(parents=True)
    outside.mkdir()
    lang = ENGINE_LANG[engine]
    (root / "src" / f"main.{lang.suffix}").write_text(lang.clean)
    engines = {name: name == engine for name in ENGINE_LANG}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    if lang is not PY:
        (root / "package.json").write_text('{"name": "p", "type": "module"}\n')
    if engine == "tsc":
        (root / "tsconfig.json").write_text(
            '{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}\n'
        )
    if engine == "biome":
        (root / "biome.json").write_text('{"linter": {"rules": {"recommended": true}}}\n')
    if engine == "eslint":
        (root / "eslint.config.js").write_text(
            'export default [{ rules: { "no-undef": "error", "no-unused-vars": "error" } }];\n'
        )
    if engine == "mypy":
        (root / "pyproject.toml").write_text('[tool.mypy]\nfiles = ["src"]\n')
    if engine == "pyright":
        (root / "pyrightconfig.json").write_text('{"include": ["src"]}\n')
    if engine in ("ty", "pyrefly", "basedpyright"):
        (root / "pyproject.toml").write_text(PYTHON_CHECKERS[engine])
    return root, outside


def _link(root: Path, outside: Path, case: str, lang: Lang) -> str:
    """Place the secret outside and link it in as `case` says; the path named."""
    ext = lang.suffix
    if case == "file":  # nested, where it is hard to see
        (outside / f"secret.{ext}").write_text(lang.secret)
        (root / "src" / "deep" / "er").mkdir(parents=True)
        (root / "src" / "deep" / "er" / f"config.{ext}").symlink_to(outside / f"secret.{ext}")
        return f"src/deep/er/config.{ext}"
    if case == "directory":
        (outside / "lib").mkdir()
        (outside / "lib" / f"secret.{ext}").write_text(lang.secret)
        (root / "src" / "linked").symlink_to(outside / "lib", target_is_directory=True)
        return "src/linked/"
    if case == "chain":  # a link to a link (inside the root) to a link to the secret
        (outside / f"secret.{ext}").write_text(lang.secret)
        (outside / f"two.{ext}").symlink_to(outside / f"secret.{ext}")
        (root / "links").mkdir()
        (root / "links" / f"one.{ext}").symlink_to(outside / f"two.{ext}")
        (root / "src" / f"chain.{ext}").symlink_to(f"../links/one.{ext}")
        return f"src/chain.{ext}"
    package = outside / "node_modules" / "pkg"
    package.mkdir(parents=True)
    (package / f"index.{ext}").write_text(lang.secret)
    (root / "src" / f"vendor.{ext}").symlink_to(package / f"index.{ext}")
    return f"src/vendor.{ext}"


def _check(root: Path, *, cache: Path | None, context: Context | None = None) -> CheckRun:
    request = RunRequest(
        root, load_config(root), Scope(), use_cache=cache is not None, cache_dir=cache
    )
    return asyncio.run(run_check(request, context))


def _said(run: CheckRun) -> str:
    """Everything the check says: its issues and every engine outcome."""
    result = run.result
    issues = [(i.file, i.message, i.summary) for i in result.issues]
    outcomes = [(o.message, o.coverage_gap) for o in result.outcomes.values()]
    elsewhere = [(i.file, i.message) for i in (*run.ripple.present, *run.ripple.now)]
    return json.dumps([issues, outcomes, elsewhere])


def _same(a: EngineOutcome, b: EngineOutcome) -> None:
    assert (a.status, a.files_checked, a.coverage_gap) == (
        b.status,
        b.files_checked,
        b.coverage_gap,
    )
    assert sorted(i.issue_id for i in a.issues) == sorted(i.issue_id for i in b.issues)


def _require(engine: str) -> None:
    require_engine(BINARIES.get(engine, engine))


@pytest.mark.real
@pytest.mark.parametrize("engine", sorted(ENGINE_LANG))
def test_control_every_engine_quotes_the_secret_inside_the_root(
    tmp_path: Path, engine: str
) -> None:
    """Without a link (the same text as a file of the project) the engine
    quotes it: the tests below can fail."""
    _require(engine)
    root, _ = _project(tmp_path, engine)
    lang = ENGINE_LANG[engine]
    (root / "src" / f"config.{lang.suffix}").write_text(lang.secret)
    run = _check(root, cache=None)
    assert run.result.outcomes[engine].status == "ok", run.result.outcomes[engine]
    assert SECRET in _said(run)


@pytest.mark.real
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("engine", sorted(ENGINE_LANG))
def test_a_link_out_of_the_root_leaks_nothing(tmp_path: Path, engine: str, case: str) -> None:
    _require(engine)
    root, outside = _project(tmp_path, engine)
    without = _check(root, cache=None).result.outcomes[engine]
    assert without.status == "ok" and without.files_checked > 0, without
    link = _link(root, outside, case, ENGINE_LANG[engine])
    cold = _check(root, cache=None)
    cache = tmp_path / "cache"
    first = _check(root, cache=cache)
    cached = _check(root, cache=cache)
    for run in (cold, first, cached):
        assert SECRET not in _said(run)
        assert not any(
            i.file == link or i.file.startswith(link.rstrip("/") + "/") for i in run.result.issues
        )
    outcome = cold.result.outcomes[engine]
    if outcome.status == "ok":
        # Not given to the engine, or what it said dropped: the count is the
        # project's own, and the outcome names the link.
        assert outcome.files_checked == without.files_checked
        assert outcome.message is not None and link in outcome.message
        assert {i.issue_id for i in outcome.issues} == {i.issue_id for i in without.issues}
    else:
        # A whole-program engine that read it anyway: every diagnostic
        # withheld. tsc and mypy are told to leave links out; Pyright and
        # basedpyright have no way to be told, and follow file links (not
        # directory links), as ty and Pyrefly do (not told: FOLLOW_FILE_LINKS).
        assert engine in FOLLOW_FILE_LINKS and case != "directory", outcome
        assert outcome.status == "error" and outcome.coverage_gap is not None
        assert link.rstrip("/") in outcome.coverage_gap and "withheld" in outcome.coverage_gap
        assert outcome.files_checked == 0 and not outcome.issues
    _same(outcome, first.result.outcomes[engine])
    _same(outcome, cached.result.outcomes[engine])
    # Nothing of it in the cache either.
    for path in cache.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


@pytest.mark.real
@pytest.mark.parametrize("engine", ["mypy", "pyright", "tsc", "ty", "pyrefly", "basedpyright"])
def test_a_link_added_after_the_cache_was_filled_is_answered_as_cold(
    tmp_path: Path, engine: str
) -> None:
    """Found by the real-world tier (click, issue 37): the cache filled
    before a link out of the root appeared; the cold check then withheld
    Pyright's diagnostics (its walk read the link) while the cached check
    served the record kept before the link, ok with its issues."""
    _require(engine)
    root, outside = _project(tmp_path, engine)
    lang = ENGINE_LANG[engine]
    (root / "src" / f"bad.{lang.suffix}").write_text(
        'n: int = "text"\n' if lang is PY else 'export const n: number = "text";\n'
    )
    time.sleep(2.1)  # past the settle window (answers.SETTLE_NS): the fill keeps its records
    cache = tmp_path / "cache"
    before = _check(root, cache=cache).result.outcomes[engine]
    assert before.status == "ok" and before.issues, before
    # Beside the project's files, as the tier placed it (a new directory
    # holding the link, as `_link` makes, changes what the cache is keyed by).
    (outside / f"secret.{lang.suffix}").write_text(lang.secret)
    (root / "src" / f"config.{lang.suffix}").symlink_to(outside / f"secret.{lang.suffix}")
    cold = _check(root, cache=None).result.outcomes[engine]
    cached = _check(root, cache=cache).result.outcomes[engine]
    _same(cold, cached)


WARM = ("eslint", "mypy", "pyright", "tsc", "ty", "basedpyright")


@pytest.mark.real
@pytest.mark.parametrize("engine", WARM)
def test_kept_warm_engines_answer_as_cold_around_a_link(tmp_path: Path, engine: str) -> None:
    """A kept-warm worker's answer passes the same edge as a cold run's."""
    _require(engine)
    root, outside = _project(tmp_path, engine)
    _link(root, outside, "file", ENGINE_LANG[engine])
    cold = _check(root, cache=None)

    async def warm_checks() -> list[CheckRun]:
        pool = WarmPool(4 << 30, Path(tempfile.mkdtemp(prefix="outside-warm-")))
        try:
            runs = []
            for _ in range(2):
                empty = Path(tempfile.mkdtemp(prefix="outside-cache-"))
                request = RunRequest(root, load_config(root), Scope(), cache_dir=empty)
                runs.append(await run_check(request, Context(warm=pool)))
            return runs
        finally:
            await pool.close()

    for run in asyncio.run(warm_checks()):
        assert SECRET not in _said(run)
        _same(cold.result.outcomes[engine], run.result.outcomes[engine])
    assert os.path.islink(root / "src" / "deep" / "er" / f"config.{ENGINE_LANG[engine].suffix}")


IMPORTS = {
    "tsc": ("ts", 'import { KEY } from "./config";\nexport const n = KEY.missing;\n',
            f'export const KEY = "{SECRET}" as const;\n'),
    "mypy": ("py", "from config import KEY\n\nn: int = KEY\n",
             f'from typing import Literal\n\nKEY: Literal["{SECRET}"] = "{SECRET}"\n'),
}  # fmt: skip


@pytest.mark.real
@pytest.mark.parametrize("engine", sorted(IMPORTS))
def test_a_program_importing_a_link_out_of_the_root_is_withheld(
    tmp_path: Path, engine: str
) -> None:
    """A project file that imports a linked file makes the engine read it
    whatever it is told; its diagnostics on the importer would quote the
    linked file's types, so none is reported. A control without the link
    quotes the secret on the importer."""
    _require(engine)
    ext, importer, module = IMPORTS[engine]
    control_root, _ = _project(tmp_path / "control", engine)
    (control_root / "src" / f"config.{ext}").write_text(module)
    (control_root / "src" / f"main.{ext}").write_text(importer)
    control = _check(control_root, cache=None)
    assert any(SECRET in i.message and i.file == f"src/main.{ext}" for i in control.result.issues)
    root, outside = _project(tmp_path / "linked", engine)
    (outside / f"secret.{ext}").write_text(module)
    (root / "src" / f"config.{ext}").symlink_to(outside / f"secret.{ext}")
    (root / "src" / f"main.{ext}").write_text(importer)
    cache = tmp_path / "cache"
    for run in (_check(root, cache=None), _check(root, cache=cache), _check(root, cache=cache)):
        assert SECRET not in _said(run)
        outcome = run.result.outcomes[engine]
        assert outcome.status == "error" and not outcome.issues
        assert outcome.coverage_gap is not None and f"src/config.{ext}" in outcome.coverage_gap
    for path in [*cache.rglob("*"), *(root / ".signalint").rglob("*")]:
        if path.is_file() and not path.is_symlink():
            assert SECRET.encode() not in path.read_bytes(), path


def test_wrappers_exclude_the_links_after_the_users_own_patterns(tmp_path: Path) -> None:
    """tsc's `include` globs follow links: every wrapper excludes the links
    out of the root, after the user's `exclude` (against its own config)
    or tsc's defaults."""
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "tsconfig.json").write_text('{"exclude": ["gen"]}\n')
    (tmp_path / "tsconfig.json").write_text('{"extends": "./base/tsconfig.json"}\n')
    (tmp_path / "plain.json").write_text('{"compilerOptions": {"outDir": "out"}}\n')
    outside = ("src/config.ts", "src/linked/")
    links = [str(tmp_path / "src" / "config.ts"), str(tmp_path / "src" / "linked")]
    defaults = ("node_modules", "bower_components", "jspm_packages", "out")
    for config, kept in (
        ("tsconfig.json", [str(tmp_path / "base" / "gen")]),
        ("plain.json", [str(tmp_path / name) for name in defaults]),
    ):
        plan = plan_build(tmp_path, config, tmp_path / ".signalint", 7, outside)
        wrapper = json.loads(plan.contents[plan.root_wrapper])
        assert wrapper["exclude"] == [*kept, *links]
    # Without links, a user's own `exclude` is inherited as written.
    plan = plan_build(tmp_path, "tsconfig.json", tmp_path / ".signalint", 7)
    assert "exclude" not in json.loads(plan.contents[plan.root_wrapper])


@pytest.mark.real
def test_build_mode_wrappers_leave_links_out(tmp_path: Path) -> None:
    """A config with `references` (tsc -b on wrappers) leaves the link out
    and checks the rest, cold and cached alike."""
    _require("tsc")
    root, outside = _project(tmp_path, "tsc")
    (root / "lib").mkdir()
    (root / "lib" / "tsconfig.json").write_text(
        '{"compilerOptions": {"composite": true, "strict": true}, "include": ["."]}\n'
    )
    (root / "lib" / "index.ts").write_text("export const n: number = 'text';\n")
    (root / "tsconfig.json").write_text('{"files": [], "references": [{"path": "./lib"}]}\n')
    without = _check(root, cache=None).result.outcomes["tsc"]
    assert without.status == "ok" and [i.file for i in without.issues] == ["lib/index.ts"]
    (outside / "secret.ts").write_text(JS_SECRET)
    (root / "lib" / "config.ts").symlink_to(outside / "secret.ts")
    cache = tmp_path / "cache"
    for run in (_check(root, cache=None), _check(root, cache=cache), _check(root, cache=cache)):
        assert SECRET not in _said(run)
        outcome = run.result.outcomes["tsc"]
        assert outcome.message is not None and "lib/config.ts" in outcome.message
        _same(without, outcome)


@pytest.mark.real
def test_typescript_5_kept_warm_serves_the_excluding_wrapper(tmp_path: Path) -> None:
    """TypeScript 5's worker answers for the wrapper that leaves links
    out, as a cold run; a link added later restarts it (the wrapper's
    links are part of its state)."""
    from tests.typescripts import install_typescript, typescript

    typescript(5)
    root, outside = _project(tmp_path, "tsc")
    install_typescript(root, 5)
    (root / "src" / "main.ts").write_text("export const a: number = 'text';\n")
    (outside / "secret.ts").write_text(JS_SECRET)
    (root / "src" / "config.ts").symlink_to(outside / "secret.ts")

    async def warm_checks() -> list[CheckRun]:
        pool = WarmPool(4 << 30, Path(tempfile.mkdtemp(prefix="outside-warm-")))
        try:
            runs = []
            for step in range(3):
                if step == 2:
                    (root / "src" / "other.ts").symlink_to(outside / "secret.ts")
                empty = Path(tempfile.mkdtemp(prefix="outside-cache-"))
                request = RunRequest(root, load_config(root), Scope(), cache_dir=empty)
                runs.append(await run_check(request, Context(warm=pool)))
            return runs
        finally:
            await pool.close()

    runs = asyncio.run(warm_checks())
    for number, run in enumerate(runs):
        outcome = run.result.outcomes["tsc"]
        assert SECRET not in _said(run)
        assert outcome.served == "warm", (number, outcome)
        assert [(i.file, i.rule) for i in outcome.issues] == [("src/main.ts", "TS2322")]
    cold = _check(root, cache=None).result.outcomes["tsc"]
    _same(cold, runs[-1].result.outcomes["tsc"])
    assert cold.message is not None and "src/other.ts" in cold.message


@pytest.mark.real
def test_a_warm_check_of_some_files_answers_whole_while_links_exist(tmp_path: Path) -> None:
    """A kept-warm worker may answer a check of some files for those files
    alone, which reads no program; while links out of the root exist the
    whole answer is asked for, so an importer of one is withheld as cold."""
    from tests.typescripts import install_typescript, typescript

    typescript(5)
    root, outside = _project(tmp_path, "tsc")
    install_typescript(root, 5)
    _, importer, module = IMPORTS["tsc"]
    (outside / "secret.ts").write_text(module)
    (root / "src" / "config.ts").symlink_to(outside / "secret.ts")
    (root / "src" / "main.ts").write_text(importer)
    (root / "src" / "other.ts").write_text("export const o: number = 1;\n")

    def request(cache: Path | None) -> RunRequest:
        scope = Scope(("src/other.ts",))
        config = load_config(root)
        return RunRequest(
            root, config, scope, use_cache=cache is not None, cache_dir=cache, files_only=True
        )

    async def warm_checks() -> list[CheckRun]:
        pool = WarmPool(4 << 30, Path(tempfile.mkdtemp(prefix="outside-warm-")))
        try:
            runs = []
            for _ in range(2):
                empty = Path(tempfile.mkdtemp(prefix="outside-cache-"))
                runs.append(await run_check(request(empty), Context(warm=pool)))
            return runs
        finally:
            await pool.close()

    cold = asyncio.run(run_check(request(None))).result.outcomes["tsc"]
    assert cold.status == "error" and cold.coverage_gap is not None
    for run in asyncio.run(warm_checks()):
        outcome = run.result.outcomes["tsc"]
        assert SECRET not in _said(run) and not outcome.scoped
        _same(cold, outcome)
