"""Every tool argument is bounded (D25), and a refusal names the field and the limit.

Pure checks of `catalog.INPUTS` and `arguments.validate`; the real server
refuses the same way (tests/server/test_limits.py). The diagnostics inside
publishDiagnostics params, and the fields that take several types (`code`,
`source`, `relatedInformation`), are bounded by `ingest.lsp`
(tests/ingest/test_lsp.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from signalint.ingest import (
    MAX_BATCH,
    MAX_MESSAGE_CHARS,
    MAX_RELATED,
    MAX_URI_CHARS,
)
from signalint.server.arguments import ArgumentError, validate
from signalint.server.catalog import INPUTS
from signalint.server.schemas import MAX_PATH_CHARS

# Where an open object (other properties accepted unread) is expected.
OPEN_PLACES = ("ingest_diagnostics.diagnostics[]",)


def nodes(schema: dict[str, Any], where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    yield where, schema
    for key, child in schema.get("properties", {}).items():
        yield from nodes(child, f"{where}.{key}")
    if "items" in schema:
        yield from nodes(schema["items"], f"{where}[]")


def test_every_string_and_array_of_every_tools_input_has_a_bound() -> None:
    seen = 0
    for tool, schema in INPUTS.items():
        for where, node in nodes(schema, tool):
            kind = node.get("type")
            # One type per node: some hosts' models refuse a list of types, or none.
            assert isinstance(kind, str), f"{where}: type {kind!r}"
            kinds = [kind]
            if "string" in kinds:
                assert isinstance(node.get("maxLength"), int), f"{where}: string without maxLength"
            if "array" in kinds:
                assert isinstance(node.get("maxItems"), int), f"{where}: array without maxItems"
                assert "items" in node, f"{where}: array without items"
            if "object" in kinds and node.get("additionalProperties") is not False:
                assert node.get("additionalProperties") is True, where
                assert where.startswith(OPEN_PLACES), f"{where}: open object"
            seen += 1
    assert seen > 70


def refusal(tool: str, arguments: dict[str, Any]) -> ArgumentError:
    with pytest.raises(ArgumentError) as caught:
        validate(INPUTS[tool], arguments)
    return caught.value


def diagnostic(**fields: Any) -> dict[str, Any]:
    base = {"file": "a.ts", "range": {"start": {"line": 0, "character": 0}}, "message": "m"}
    return {**base, **fields}


LONG_URI = "file:///" + "u" * MAX_URI_CHARS
OVER: list[tuple[dict[str, Any], str, str]] = [
    (
        {"diagnostics": [diagnostic(), diagnostic(message="x" * (MAX_MESSAGE_CHARS + 1))]},
        "diagnostics[1].message",
        f"longer than {MAX_MESSAGE_CHARS} characters ({MAX_MESSAGE_CHARS + 1} given)",
    ),
    (
        {"diagnostics": [diagnostic(file="f" * (MAX_PATH_CHARS + 1))]},
        "diagnostics[0].file",
        f"longer than {MAX_PATH_CHARS}",
    ),
    ({"diagnostics": [{"uri": LONG_URI, "diagnostics": []}]}, "diagnostics[0].uri", "longer than"),
    (
        {"diagnostics": [{"uri": "file:///a.ts", "diagnostics": [diagnostic()] * (MAX_BATCH + 1)}]},
        "diagnostics[0].diagnostics",
        f"at most {MAX_BATCH} are accepted",
    ),
    ({"diagnostics": [diagnostic(message=7)]}, "diagnostics[0].message", "got a number"),
    ({"format": "z" * 1000, "report": "[]"}, "format", "longer than 20"),
    ({"serverName": "n" * 101}, "serverName", "longer than 100"),
    ({"files": ["p" * (MAX_PATH_CHARS + 1)]}, "files[0]", "longer than"),
]


@pytest.mark.parametrize(("arguments", "field", "words"), OVER)
def test_an_over_limit_ingest_field_is_refused_naming_its_path_and_limit(
    arguments: dict[str, Any], field: str, words: str
) -> None:
    refused = refusal("ingest_diagnostics", arguments)
    assert (refused.field, words in refused.message) == (field, True), refused


def test_fields_at_their_limits_and_fields_not_read_are_accepted() -> None:
    at_limit = diagnostic(
        message="x" * MAX_MESSAGE_CHARS,
        code={"value": 2322, "target": "https://example.com"},
        source="ts",
        severity="error",
        codeDescription=None,
        relatedInformation=[{"message": "r", "location": {"uri": "file:///a.ts"}}] * MAX_RELATED,
        tags=[1, 2],
        data={"anything": ["goes"]},
    )
    publish = {"uri": "file:///a.ts", "version": 3, "diagnostics": [at_limit]}
    validate(INPUTS["ingest_diagnostics"], {"diagnostics": [at_limit, publish]})


def test_a_refused_enum_value_is_quoted_short() -> None:
    refused = refusal("list_issues", {"checkId": "c", "severity": "fatal" * 3})
    assert refused.message.startswith('expected one of "error", "warning", got "fatal')
    refused = refusal("list_issues", {"checkId": "c", "limit": -1})
    assert refused.message == "must be between 1 and 500, got -1"
