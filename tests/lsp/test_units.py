"""The language server's parts without engines: the front's `initialize`
answer against pygls's own, diagnostics' fields and positions, tags."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from signalint.lsp import convert, front
from signalint.lsp.backend import buffer_engines, unseen_engines
from signalint.lsp.latest import Latest
from signalint.lsp.server import make_server
from signalint.lsp.tags import tags_of
from signalint.model import Issue
from signalint.settings.config import load_config

CLIENTS: list[dict[str, Any]] = [
    {},
    {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
    {"general": {"positionEncodings": ["utf-32"]}},
    {
        "textDocument": {"synchronization": {"willSave": True, "didSave": True}},
        "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}},
        "window": {"workDoneProgress": True},
    },
]


class _Capture:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data.partition(b"\r\n\r\n")[2]))

    def close(self) -> None:
        pass


def _without_false(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_false(v) for k, v in value.items() if v is not False}
    return value


@pytest.mark.parametrize("capabilities", CLIENTS)
def test_the_front_answers_initialize_as_pygls_does(capabilities: dict[str, Any]) -> None:
    server, _ = make_server()
    capture = _Capture()
    server.protocol.set_writer(capture)
    params = {"capabilities": capabilities, "rootUri": "file:///nowhere"}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    server.protocol.handle_message(json.loads(body, object_hook=server.protocol.structure_message))
    answered = [m for m in capture.sent if m.get("id") == 1]
    assert len(answered) == 1
    assert _without_false(answered[0]["result"]) == _without_false(front.answer(params))


def _issue(**changes: Any) -> Issue:
    fields: dict[str, Any] = dict(
        engine="eslint", file="src/a.ts", line=2, col=5, rule="no-unused-vars",
        severity="warning", message="'x' is unused", end_line=2, end_col=6,
        docs_url="https://eslint.org/docs/latest/rules/no-unused-vars",
    )  # fmt: skip
    fields.update(changes)
    return Issue(**fields)


def test_a_merged_issue_names_every_engine_and_its_id() -> None:
    issue = _issue().merged("warning", ("oxlint", "biome"), fixable=True)
    d = convert.diagnostic(issue, "file:///p/src/a.ts")
    assert d.source == "eslint, oxlint, biome"
    assert d.code == "no-unused-vars"
    assert d.code_description is not None
    assert d.code_description.href == issue.docs_url
    assert d.severity == types.DiagnosticSeverity.Warning
    assert d.tags == [types.DiagnosticTag.Unnecessary]
    assert [r.message.split()[0] for r in d.related_information or ()] == ["oxlint", "biome"]
    assert d.data == {"issueId": issue.issue_id, "engines": ["eslint", "oxlint", "biome"],
                      "fixable": True}  # fmt: skip


def test_columns_count_units_of_the_agreed_encoding() -> None:
    lines = ["", "const 😀é = 1; x"]
    issue = _issue(col=16, end_col=17)  # the "x" after an emoji and an accent
    assert convert.diagnostic(issue, "u", lines, "utf-16").range.start.character == 16
    assert convert.diagnostic(issue, "u", lines, "utf-32").range.start.character == 15
    assert convert.diagnostic(issue, "u", lines, "utf-8").range.start.character == 19


def test_tags_by_rule() -> None:
    assert tags_of("tsc", "TS6133") == [types.DiagnosticTag.Unnecessary]
    assert tags_of("pyright", "reportDeprecated") == [types.DiagnosticTag.Deprecated]
    assert tags_of("oxlint", "eslint(no-unused-vars)") == [types.DiagnosticTag.Unnecessary]
    assert tags_of("tsc", "TS2322") == []


def test_unseen_notice_names_the_engines() -> None:
    notice = convert.unseen_notice(["mypy"])
    assert notice.data == {"unseen": ["mypy"]}
    assert notice.message.startswith("mypy has not seen this unsaved buffer: its diagnostics")


def test_unseen_notice_names_an_engine_that_failed_on_the_buffer() -> None:
    notice = convert.unseen_notice(["tsc", "mypy", "eslint"], pending=["tsc"], failed=["eslint"])
    assert notice.data == {
        "unseen": ["tsc", "mypy", "eslint"],
        "pending": ["tsc"],
        "failed": ["eslint"],
    }
    assert notice.message == (
        "tsc has not seen this unsaved buffer: its diagnostics follow shortly; "
        "eslint failed on this unsaved buffer: its diagnostics come when it is saved; "
        "mypy has not seen this unsaved buffer: its diagnostics come when it is saved"
    )


def test_buffer_engines_take_tsc_and_pyright_not_mypy(tmp_path: Path) -> None:
    engines = dict.fromkeys(("oxlint", "tsc", "biome", "eslint", "ruff", "mypy", "pyright"), True)
    (tmp_path / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    config = load_config(tmp_path)
    python = buffer_engines(config, "python")
    assert "pyright" in python and "ruff" in python
    assert "mypy" not in python and "tsc" not in python
    javascript = buffer_engines(config, "javascript")
    assert "tsc" in javascript and "pyright" not in javascript
    assert unseen_engines(config, "python") == ("mypy",)
    assert unseen_engines(config, "javascript") == ()
    assert not set(buffer_engines(config, None)) & {"tsc", "mypy", "pyright"}


def test_a_component_buffer_names_its_checker_as_not_having_seen_it(tmp_path: Path) -> None:
    """A `.vue`/`.svelte`/`.astro` buffer is JavaScript's: its checker,
    which checks only saved files, is named by the buffer's notice (the
    component checkers replace tsc)."""
    from signalint.lsp.server import _language

    engines = {"oxlint": True, "tsc": True, "vue-tsc": True}
    (tmp_path / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    config = load_config(tmp_path)
    for file in ("src/App.vue", "src/Card.svelte", "src/pages/index.astro"):
        assert _language(file) == "javascript"
    assert unseen_engines(config, _language("src/App.vue")) == ("vue-tsc",)
    assert "tsc" not in buffer_engines(config, _language("src/App.vue"))


def test_idle_waits_for_the_work_that_replaced_the_work_it_waited_for() -> None:
    """A pull waits for its file's check; a newer change replacing that check
    while the pull waits is waited for too, and other keys are not."""
    done: list[str] = []

    async def scenario() -> None:
        latest = Latest(0.05)

        def work(name: str, seconds: float) -> Any:
            async def run() -> None:
                await asyncio.sleep(seconds)
                done.append(name)

            return run

        latest.schedule("a", work("first", 0.2))
        latest.schedule("b", work("other", 5.0))
        waiting = asyncio.create_task(latest.idle("a"))
        await asyncio.sleep(0.1)
        latest.schedule("a", work("second", 0.2))  # cancels "first"
        await asyncio.wait_for(waiting, timeout=2)
        assert done == ["second"]
        await latest.cancel_all()
        await asyncio.wait_for(latest.idle(), timeout=1)  # nothing left

    asyncio.run(scenario())
