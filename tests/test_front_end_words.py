"""Front-end words stay at the front ends: no core module names an MCP tool.

Core modules advise with `steps.Step` values and each front end words
them (`server.words` names tools, `formats.commands` names commands). This
reads every string literal and comment of `src/signalint` outside the
server package and fails on any tool name of the server's catalog. Only a
module whose text names a tool anywhere (a superset of its strings and
comments) is parsed and tokenized: the others cannot name one.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from signalint.server.catalog import TOOLS

SOURCE = Path(__file__).resolve().parents[1] / "src" / "signalint"
SERVER = SOURCE / "server"


def _texts(text: str) -> list[tuple[int, str]]:
    """(line, text) of every string constant (docstrings and f-string parts
    included) and every comment of the module `text`."""
    found = [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            found.append((token.start[0], token.string))
    return found


def test_the_catalog_has_the_tools_this_test_looks_for() -> None:
    assert {"list_issues", "get_issue_detail", "check_project", "ping"} <= set(TOOLS)


def test_no_module_outside_the_server_names_an_mcp_tool() -> None:
    named = re.compile(r"\b(" + "|".join(map(re.escape, TOOLS)) + r")\b")
    modules = [p for p in sorted(SOURCE.rglob("*.py")) if SERVER not in p.parents]
    assert len(modules) > 50  # the walk found the package
    texts = {path: path.read_text(encoding="utf-8") for path in modules}
    found = [
        f"{path.relative_to(SOURCE)}:{line}: {match.group(1)}"
        for path, module in texts.items()
        if named.search(module)
        for line, text in _texts(module)
        for match in named.finditer(text)
    ]
    assert found == []
