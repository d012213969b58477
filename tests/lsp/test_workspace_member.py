"""`signalint lsp` on a member of an npm workspace (issue 38, found on remeda).

The member (`packages/x`) takes its packages from the workspace root's
`node_modules` (hoisted, as npm installs a workspace) and its compiler
options from the root's `tsconfig.base.json`. Its unsaved buffers are
checked in the language server's shadow copy, which must resolve them as
the project does: the buffer's diagnostics equal `signalint check
--no-cache` of the same content on disk, with no "Cannot find module" the
disk does not have. ESLint's rule here resolves each import from the linted
file as Node does (like eslint-plugin-import's `no-unresolved`), so ESLint
sees the copy's resolution too. An engine that fails on a buffer (ESLint,
its config typed broken unsaved) is named in the buffer's notice as
failed, its reason shown, never silently left out. A Python member of a
uv workspace takes Ruff's settings from the workspace's `pyproject.toml`
(Ruff finds them walking up): its buffer too.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.conftest import require_engine
from tests.lsp.harness import Editor, cli_keys, notice_of

pytestmark = pytest.mark.real

FILE = "src/a.ts"
ESLINT_CONFIG = "eslint.config.js"

_RULE = """\
// Resolves each import from the linted file, as Node would.
const { createRequire } = require("node:module");
module.exports = {
  rules: {
    "no-unresolved": {
      meta: { type: "problem", schema: [] },
      create(context) {
        const resolve = createRequire(context.filename).resolve;
        return {
          ImportDeclaration(node) {
            const name = node.source.value;
            if (name.startsWith(".")) return;
            try {
              resolve(name);
            } catch {
              context.report({ node: node.source, message: `cannot resolve '${name}'` });
            }
          },
        };
      },
    },
  },
};
"""

_ESLINT_CONFIG = """\
import resolves from "eslint-plugin-resolves";

export default [
  {
    files: ["**/*.ts"],
    plugins: { resolves },
    rules: { "resolves/no-unresolved": "error", "no-unused-vars": "error" },
  },
];
"""

_SOURCE = """\
import { answer } from "hoisted";
import { missing } from "not-installed";

export const doubled = answer * 2 + missing;
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _workspace(where: Path) -> Path:
    """An npm workspace whose member `packages/x` is the checked project."""
    top = where / "ws"
    options = {"strict": True, "module": "esnext", "moduleResolution": "bundler", "noEmit": True}
    _write(
        top,
        {
            "package.json": json.dumps({"private": True, "workspaces": ["packages/*"]}),
            "package-lock.json": json.dumps({"lockfileVersion": 3}),
            "tsconfig.base.json": json.dumps({"compilerOptions": options}),
            "node_modules/hoisted/package.json": json.dumps(
                {"name": "hoisted", "main": "index.js", "types": "index.d.ts"}
            ),
            "node_modules/hoisted/index.js": "exports.answer = 42;\n",
            "node_modules/hoisted/index.d.ts": "export declare const answer: number;\n",
            "node_modules/eslint-plugin-resolves/package.json": json.dumps(
                {"name": "eslint-plugin-resolves", "main": "index.js"}
            ),
            "node_modules/eslint-plugin-resolves/index.js": _RULE,
        },
    )
    member = top / "packages" / "x"
    engines = {"oxlint": False, "biome": False, "tsc": True, "eslint": True}
    _write(
        member,
        {
            "package.json": json.dumps({"name": "x", "type": "module"}),
            "tsconfig.json": json.dumps(
                {"extends": "../../tsconfig.base.json", "include": ["src"]}
            ),
            ESLINT_CONFIG: _ESLINT_CONFIG,
            "signalint.config.json": json.dumps({"engines": engines}),
            FILE: _SOURCE,
        },
    )
    return member


async def _typed(root: Path, file: str, text: str) -> Editor:
    """A session on `root` after its first check, `file` opened and `text`
    typed in it unsaved."""
    editor = Editor(root)
    await editor.start()
    await editor.settle(first=True)
    editor.open(file)
    await editor.settle()
    editor.edit(file, text)
    return editor


@pytest.fixture
def engines() -> None:
    require_engine("tsc")
    require_engine("eslint")


@pytest.mark.usefixtures("engines")
def test_a_member_s_unsaved_buffer_resolves_hoisted_packages_as_on_disk(tmp_path: Path) -> None:
    member = _workspace(tmp_path / "edited")
    twin = _workspace(tmp_path / "twin")  # the buffer written to disk, for the cold check
    text = _SOURCE + "export const loud = answer.toUpperCase();\n"

    async def session() -> None:
        editor = await _typed(member, FILE, text)
        uri = editor.uri(FILE)
        await editor.until_true(
            lambda: editor.published_versions.get(uri) == 2 and not editor.pending(FILE)
        )
        await editor.settle()
        assert editor.notice(FILE) == [], editor.messages  # every engine saw the buffer
        assert (member / FILE).read_text() == _SOURCE  # nothing written in the project
        (twin / FILE).write_text(text)
        expected = cli_keys(twin, FILE)
        assert editor.keys(FILE) == expected
        # tsc and ESLint saw the buffer, resolving as on disk: the new type
        # error is there, and only the package that is not installed is
        # unresolved, by each of them.
        messages = [key[3] for key in expected]
        assert any("toUpperCase" in m for m in messages), messages
        assert not any("hoisted" in m for m in messages), messages
        assert sum("not-installed" in m for m in messages) == 2, messages
        assert not editor.messages  # no engine failed
        await editor.stop()

    asyncio.run(session())


@pytest.mark.usefixtures("engines")
def test_an_engine_failing_on_a_buffer_is_named_as_failed(tmp_path: Path) -> None:
    member = _workspace(tmp_path)
    broken = _ESLINT_CONFIG + "export const = ;\n"

    async def session() -> None:
        editor = await _typed(member, ESLINT_CONFIG, broken)

        def failed() -> list[str]:
            found = editor.published.get(editor.uri(ESLINT_CONFIG), [])
            return notice_of(found).get("failed", [])

        await editor.until(ESLINT_CONFIG, unsaved=True)
        await editor.until_true(lambda: failed() == ["eslint"])
        assert "eslint" in editor.notice(ESLINT_CONFIG)
        assert any(m.startswith("signalint: eslint failed") for m in editor.messages)

        # Typed back as on disk: ESLint answers for the buffer again.
        editor.edit(ESLINT_CONFIG, _ESLINT_CONFIG)
        await editor.until(ESLINT_CONFIG, unsaved=False)
        assert failed() == []
        assert editor.keys(FILE) == cli_keys(member, FILE)
        await editor.stop()

    asyncio.run(session())


def _python_workspace(where: Path) -> Path:
    """A uv workspace whose member `packages/p` takes Ruff's settings from
    the workspace's `pyproject.toml` (Ruff finds them walking up)."""
    top = where / "ws"
    member = top / "packages" / "p"
    settings = (
        '[tool.uv.workspace]\nmembers = ["packages/*"]\n\n[tool.ruff.lint]\nselect = ["T20", "F"]\n'
    )
    engines = dict.fromkeys(("oxlint", "tsc", "biome", "eslint", "mypy", "pyright"), False)
    _write(top, {"pyproject.toml": settings, "uv.lock": ""})
    _write(
        member,
        {
            "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n',
            "signalint.config.json": json.dumps({"engines": {**engines, "ruff": True}}),
            "pkg/__init__.py": "",
            "pkg/app.py": "import os\n",
        },
    )
    return member


def test_a_python_member_s_buffer_takes_the_workspace_s_settings(tmp_path: Path) -> None:
    require_engine("ruff")
    member = _python_workspace(tmp_path / "edited")
    twin = _python_workspace(tmp_path / "twin")
    file = "pkg/app.py"
    text = 'import os\n\nprint("hi")\n'

    async def session() -> None:
        editor = await _typed(member, file, text)
        await editor.until(file, unsaved=False)
        (twin / file).write_text(text)
        expected = cli_keys(twin, file)
        assert editor.keys(file) == expected
        assert any("`print` found" in key[3] for key in expected), expected  # T201
        await editor.stop()

    asyncio.run(session())
