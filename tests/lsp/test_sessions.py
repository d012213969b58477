"""`signalint lsp` driven by pygls's client: open, edit unsaved, save, close.

Every published set is compared, with multiplicity, with `signalint check
--no-cache` of the same content on disk: the saved states with the project
itself; an unsaved buffer with a twin of the project where the buffer is
written and only the engines that check a buffer are enabled (tsc and
Pyright among them; mypy answers on save, and the buffer's diagnostics
name it).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from tests.conftest import require_engine
from tests.lsp.harness import SIGNALINT, Editor, as_keys, cli_keys, notice_of

pytestmark = pytest.mark.real

DEMO_FILES = ("src/cart.ts", "src/legacy.js", "src/user.ts")


def _twin(root: Path, tmp_path: Path, engines: dict[str, bool]) -> Path:
    twin = tmp_path / "twin" / root.name
    shutil.copytree(root, twin, ignore=shutil.ignore_patterns(".signalint"))
    config = json.loads((twin / "signalint.config.json").read_text())
    config["engines"] = engines
    (twin / "signalint.config.json").write_text(json.dumps(config))
    return twin


def test_demo_open_edit_save_close(demo_project: Path, tmp_path: Path) -> None:
    root = demo_project
    twin = _twin(root, tmp_path, {"oxlint": True, "tsc": True, "biome": True, "eslint": True})
    file = "src/user.ts"

    async def session() -> None:
        editor = Editor(root)
        await editor.start(progress=True)
        await editor.settle(first=True)
        assert editor.progress[0] == "begin" and editor.progress[-1] == "end", editor.progress
        for each in DEMO_FILES:
            assert editor.keys(each) == cli_keys(root, each), each
        assert sum(editor.keys(f).total() for f in DEMO_FILES) > 0

        editor.open(file)
        await editor.settle()
        assert editor.keys(file) == cli_keys(root, file)

        before = (root / file).read_text()
        text = before + "\nvar zz = 1;\nlet q: number = 'x' == 'y' ? 1 : 2;\n"
        text += 'export const typed: number = "not a number";\n'
        editor.edit(file, text)
        await editor.until(file, unsaved=False)
        assert (root / file).read_text() == before  # nothing written in the project
        (twin / file).write_text(text)
        expected = cli_keys(twin, file)
        assert editor.keys(file) == expected
        # tsc saw the buffer: the type error typed unsaved is published.
        new = expected - cli_keys(root, file)
        assert any(k[1] == ("tsc",) and "not assignable" in k[3] for k in new), new
        assert editor.notice(file) == []

        editor.save(file, text)
        await editor.until(file, unsaved=False)
        assert editor.notice(file) == []
        for each in DEMO_FILES:
            assert editor.keys(each) == cli_keys(root, each), each

        editor.close(file)
        await editor.settle()
        assert editor.keys(file) == cli_keys(root, file)

        issue_id = next(iter(editor.keys(file)))[0]
        shown = subprocess.run(
            [str(SIGNALINT), "show", issue_id], cwd=root, capture_output=True, text=True,
            timeout=60, check=False,
        )  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        assert issue_id in shown.stdout
        assert not editor.messages  # no engine failed
        await editor.stop()

    asyncio.run(session())


def _python_project(root: Path) -> None:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "app.py").write_text(
        "import os\n\n\ndef total(items: list[int]) -> int:\n    return sum(items) + 'x'\n"
    )
    (root / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "0"\n')
    engines = {name: False for name in ("oxlint", "tsc", "biome", "eslint", "pyright")}
    engines.update(ruff=True, mypy=True, pyright=True)
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))


LINES = (
    "import sys\n",
    "x: int = 'a'\n",
    "def f():\n    return undefined_name\n",
    "y = 1 ;\n",
    "from os import *\n",
    "\n",
)


@pytest.mark.usefixtures("real_engines")
def test_python_edits_equal_cold_checks(tmp_path: Path) -> None:
    """A differential over edit sequences (D23): the unsaved buffer's
    diagnostics equal Ruff's and Pyright's cold check of that content
    (mypy named as not having seen it), and after a save
    every engine's equal the cold check of the project."""
    require_engine("pyright")
    root = tmp_path / "py"
    _python_project(root)
    twin = _twin(root, tmp_path, {"ruff": True, "pyright": True})
    file = "pkg/app.py"
    loop = asyncio.new_event_loop()
    editor = Editor(root)
    loop.run_until_complete(editor.start())
    loop.run_until_complete(editor.settle(first=True))
    assert editor.keys(file) == cli_keys(root, file)
    editor.open(file)
    base = (root / file).read_text()
    final: list[str] = []

    @settings(
        max_examples=4,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(
        st.lists(
            st.tuples(st.sampled_from(LINES), st.integers(min_value=0, max_value=8)),
            min_size=1,
            max_size=3,
        )
    )
    def edits(sequence: list[tuple[str, int]]) -> None:
        lines = base.splitlines(keepends=True)
        for snippet, at in sequence:
            lines.insert(min(at, len(lines)), snippet)
            editor.edit(file, "".join(lines))  # each a keystroke; only the last counts
        text = "".join(lines)
        loop.run_until_complete(editor.until(file, unsaved=True))
        (twin / file).write_text(text)
        expected = cli_keys(twin, file)
        assert editor.keys(file) == expected, text
        assert any("pyright" in key[1] for key in expected), expected
        assert editor.notice(file) == ["mypy"]
        final[:] = [text]

    edits()
    editor.save(file, final[0])
    loop.run_until_complete(editor.until(file, unsaved=False))
    assert editor.notice(file) == []
    assert editor.keys(file) == cli_keys(root, file)
    editor.close(file)
    loop.run_until_complete(editor.stop())
    loop.close()


def test_basedpyright_checks_an_unsaved_buffer_and_its_dependents(tmp_path: Path) -> None:
    """basedpyright answers a keystroke as Pyright does (Pyright's warm
    driver given basedpyright's adapter, in the shadow copy): the buffer's
    diagnostics equal the cold check of that content, with no notice (no
    engine left that answers on save); the importer its unsaved change
    breaks is published before the save, equal to the cold check after it."""
    require_engine("basedpyright")
    root = tmp_path / "bp"
    (root / "pkg").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    lib = "import os\n\n\ndef scale(value: int) -> int:\n    return value * 2\n"
    (root / "pkg" / "lib.py").write_text(lib)
    app = "import sys\n\nfrom pkg.lib import scale\n\nsize: int = scale(2)\n"
    (root / "pkg" / "app.py").write_text(app)  # Ruff's unused import: published at first
    (root / "pyproject.toml").write_text(
        '[project]\nname = "pkg"\nversion = "0"\n\n[tool.basedpyright]\n'
        'typeCheckingMode = "standard"\n'
    )
    engines = dict.fromkeys(("oxlint", "tsc", "biome", "eslint", "mypy", "pyright"), False)
    engines.update(ruff=True, basedpyright=True)
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    twin = _twin(root, tmp_path, engines)
    file, dependent = "pkg/lib.py", "pkg/app.py"
    text = "import os\n\n\ndef scale(value: int) -> str:\n    return value * 2\n"

    async def session() -> None:
        editor = Editor(root)
        await editor.start()
        await editor.settle(first=True)
        on_disk = cli_keys(root, dependent)
        assert editor.keys(dependent) == on_disk
        editor.open(file)
        await editor.until(file, unsaved=False)
        editor.edit(file, text)
        await editor.until(file, unsaved=False)
        (twin / file).write_text(text)
        first, *rest = editor.publications(file, 2)
        assert notice_of(first) == {"unseen": ["basedpyright"], "pending": ["basedpyright"]}
        assert rest and notice_of(rest[-1]) == {}
        expected = cli_keys(twin, file)
        assert editor.keys(file) == expected
        assert any(k[1] == ("basedpyright",) for k in expected), expected  # it saw the buffer

        expected = cli_keys(twin, dependent)
        assert any(k[1] == ("basedpyright",) for k in expected) and expected != on_disk
        await editor.until_true(lambda: editor.keys(dependent) == expected)
        assert (root / file).read_text() == lib  # nothing written in the project

        editor.save(file, text)
        await editor.until(file, unsaved=False)
        await editor.settle()
        assert editor.keys(dependent) == cli_keys(root, dependent) == expected
        assert not editor.messages
        await editor.stop()

    asyncio.run(session())


def test_code_actions_apply_the_engines_safe_fixes(demo_project: Path, tmp_path: Path) -> None:
    """`source.fixAll.signalint` on a buffer gives the text `signalint fix`
    writes for the same file; each fixable diagnostic offers its engines' quickfix."""
    root = demo_project
    twin = tmp_path / "twin" / "demo"
    shutil.copytree(root, twin, ignore=shutil.ignore_patterns(".signalint"))
    file = "src/legacy.js"

    async def session() -> str:
        editor = Editor(root)
        await editor.start()
        await editor.settle(first=True)
        editor.open(file)
        await editor.until(file, unsaved=False)
        diagnostics = editor.published[editor.uri(file)]
        fixable = [d for d in diagnostics if isinstance(d.data, dict) and d.data["fixable"]]
        assert fixable
        actions = await editor.client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(editor.uri(file)),
                types.Range(types.Position(0, 0), types.Position(0, 0)),
                types.CodeActionContext(diagnostics=diagnostics),
            )
        )
        assert actions is not None
        kinds = [a.kind for a in actions if isinstance(a, types.CodeAction)]
        assert types.CodeActionKind.QuickFix in kinds
        assert kinds.count("source.fixAll.signalint") == 1
        every = next(a for a in actions if isinstance(a, types.CodeAction) and a.kind != "quickfix")
        resolved = await editor.client.code_action_resolve_async(every)
        assert resolved.edit is not None and resolved.edit.document_changes
        change = resolved.edit.document_changes[0]
        assert isinstance(change, types.TextDocumentEdit)
        (edit,) = change.edits
        assert isinstance(edit, types.TextEdit)
        await editor.stop()
        return edit.new_text

    fixed = asyncio.run(session())
    assert (root / file).read_text() != fixed  # the project is not written
    done = subprocess.run(
        [str(SIGNALINT), "fix", file], cwd=twin, capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert (twin / file).read_text() == fixed


def test_a_check_publishes_only_what_changed(tmp_path: Path) -> None:
    """After a save, the files whose diagnostics the check left as they
    were are not sent again; the saved file's new ones are, equal to the
    cold check."""
    require_engine("ruff")
    root = tmp_path / "p"
    root.mkdir()
    (root / ".git").mkdir()
    engines = dict.fromkeys(("oxlint", "tsc", "biome", "eslint", "mypy", "pyright"), False)
    (root / "signalint.config.json").write_text(json.dumps({"engines": {**engines, "ruff": True}}))
    (root / "a.py").write_text("import os\n")
    (root / "b.py").write_text("import sys\n")

    async def session() -> None:
        editor = Editor(root)
        await editor.start()
        await editor.settle(first=True)
        a, b = editor.uri("a.py"), editor.uri("b.py")
        assert editor.counts[a] == editor.counts[b] == 1
        editor.save("b.py", "import sys\nimport json\n")
        await asyncio.wait_for(editor.changed.wait(), timeout=120)
        await editor.settle()
        assert editor.counts[b] == 2 and editor.keys("b.py") == cli_keys(root, "b.py")
        assert editor.counts[a] == 1 and editor.keys("a.py") == cli_keys(root, "a.py")
        await editor.stop()

    asyncio.run(session())


def test_a_pull_answers_after_the_check_its_change_or_save_scheduled(tmp_path: Path) -> None:
    """A pull sent right after a change gets that buffer's answer, not the
    one pushed before the change; a pull after a save whose answer equals
    the buffer's (so nothing is pushed again) answers once the disk check
    has (found by the real-world tier: it waited for a push that the save
    of an unchanged answer never sends)."""
    require_engine("ruff")
    root = tmp_path / "p"
    root.mkdir()
    (root / ".git").mkdir()
    engines = dict.fromkeys(("oxlint", "tsc", "biome", "eslint", "mypy", "pyright"), False)
    (root / "signalint.config.json").write_text(json.dumps({"engines": {**engines, "ruff": True}}))
    (root / "a.py").write_text("import os\n")
    twin = _twin(root, tmp_path, {**engines, "ruff": True})

    async def session() -> None:
        editor = Editor(root)
        await editor.start()
        await editor.settle(first=True)
        editor.open("a.py")
        assert editor.pulled_keys(await editor.pull("a.py")) == cli_keys(root, "a.py")
        text = "import os\nimport sys\n"
        editor.edit("a.py", text)
        buffer = editor.pulled_keys(await editor.pull("a.py"))  # no wait for a push
        (twin / "a.py").write_text(text)
        assert buffer == cli_keys(twin, "a.py") and buffer.total() == 2, buffer
        await editor.settle()
        pushed = editor.counts[editor.uri("a.py")]
        editor.save("a.py", text)
        saved = editor.pulled_keys(await editor.pull("a.py"))
        assert saved == cli_keys(root, "a.py") == buffer
        await editor.settle()
        assert editor.counts[editor.uri("a.py")] == pushed  # the same answer is not sent again
        await editor.stop()

    asyncio.run(session())


def test_a_keystroke_publishes_the_linters_first_then_the_type_checker_then_dependents(
    demo_project: Path, tmp_path: Path
) -> None:
    """An unsaved change of an exported type: the linters' answer is
    published first, its notice naming tsc as still checking (never their
    diagnostics beside the older tsc ones); then every engine's, equal to
    the cold check of that content; then the importer the change breaks,
    before any save, equal to the cold check of the project after the save."""
    root = demo_project
    dependent = "src/order.ts"
    (root / dependent).write_text(
        'import type { Item } from "./cart";\n\n'
        "export function cost(item: Item): number {\n  return item.price;\n}\n"
    )
    linters = {"oxlint": True, "tsc": False, "biome": True, "eslint": True}
    twin_linters = _twin(root, tmp_path / "linters", linters)
    twin = _twin(root, tmp_path / "all", {**linters, "tsc": True})
    file = "src/cart.ts"
    before = (root / file).read_text()
    text = before.replace("price: number;", "price: string;") + "\nvar zz = 1;\n"
    assert text != before + "\nvar zz = 1;\n"

    async def session() -> None:
        editor = Editor(root)
        await editor.start()
        await editor.settle(first=True)
        on_disk = cli_keys(root, dependent)
        assert editor.keys(dependent) == on_disk
        assert not any(k[1] == ("tsc",) for k in on_disk), on_disk

        editor.open(file)
        await editor.until(file, unsaved=False)
        editor.edit(file, text)
        await editor.until(file, unsaved=False)
        (twin_linters / file).write_text(text)
        (twin / file).write_text(text)
        first, *rest = editor.publications(file, 2)
        assert notice_of(first) == {"unseen": ["tsc"], "pending": ["tsc"]}
        assert as_keys(first) == cli_keys(twin_linters, file)
        assert rest and notice_of(rest[-1]) == {}
        assert as_keys(rest[-1]) == cli_keys(twin, file)

        # The importer, from the buffer's program, before any save.
        expected = cli_keys(twin, dependent)
        broken = [k for k in expected if k[1] == ("tsc",) and "not assignable" in k[3]]
        assert broken, expected
        await editor.until_true(lambda: editor.keys(dependent) == expected)
        assert editor.notice(dependent) == []
        assert (root / file).read_text() == before  # nothing written in the project

        editor.save(file, text)
        await editor.until(file, unsaved=False)
        await editor.settle()
        assert editor.keys(dependent) == cli_keys(root, dependent) == expected
        assert editor.keys(file) == cli_keys(root, file)
        assert not editor.messages
        await editor.stop()

    asyncio.run(session())
