"""Advertised output schemas accept every field the payload builders can send (D16).

These are pure checks of the schemas themselves: payloads are built by the
same functions the server uses, then given the optional fields other parts
of the pipeline add (coverage, deduplication), and validated in both key
styles.
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from signalint.formats.commands import command_words
from signalint.pipeline.cluster import cluster
from signalint.pipeline.report import Additions, check_payload, issue_detail
from signalint.server import outputs
from signalint.server.words import tool_words

from ..factories import issue, result


def _validate(schema: dict[str, Any], value: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    Draft202012Validator(schema).validate(value)


@pytest.mark.parametrize("compact", [False, True], ids=["full", "compact"])
def test_check_schema_accepts_coverage_fields_on_engines_and_payload(compact: bool) -> None:
    checked = result([issue()], engines={"oxlint": "ok", "tsc": "error"})
    payload = dict(
        check_payload(checked, cluster(checked.issues), compact=compact, words=tool_words)
    )
    payload["engines"]["oxlint"]["filesChecked"] = 12
    payload["engines"]["tsc"]["filesChecked"] = 3
    payload["engines"]["tsc"]["coverageGap"] = "referenced project packages/b was not built"
    payload["coverageWarning"] = "tsc covered 0 of the requested files"
    _validate(outputs.check_output(compact=compact), payload)
    _validate(outputs.after_edit_output(compact=compact), payload)


@pytest.mark.parametrize("compact", [False, True], ids=["full", "compact"])
def test_check_schema_rejects_unknown_top_level_keys_and_engine_statuses(compact: bool) -> None:
    checked = result([issue()])
    schema = outputs.check_output(compact=compact)
    payload = dict(
        check_payload(checked, cluster(checked.issues), compact=compact, words=tool_words)
    )
    _validate(schema, payload)
    with pytest.raises(Exception, match="Additional properties"):
        _validate(schema, {**payload, "coverage": "partial"})
    payload["engines"]["oxlint"]["status"] = "skipped"
    with pytest.raises(Exception, match="is not one of"):
        _validate(schema, payload)


def test_issue_detail_schema_accepts_also_reported_by() -> None:
    detail = issue_detail(issue(), "ab12")
    detail["alsoReportedBy"] = ["eslint"]
    _validate(outputs.DETAIL_OUTPUT, {"issues": [detail]})
    _validate(outputs.LIST_OUTPUT, {"checkId": "c0", "total": 1, "issues": [detail]})


# Every situation a check answer can be in: (issues, engine statuses, filtered out).
SITUATIONS: dict[str, tuple[int, dict[str, Any], int | None]] = {
    "clean": (0, {"oxlint": "ok"}, None),
    "issues": (3, {"oxlint": "ok"}, None),
    "omitted": (101, {"oxlint": "ok"}, None),
    "filtered": (1, {"oxlint": "ok"}, 2),
    "filtered-none": (1, {"oxlint": "ok"}, 0),
    "engine-error": (1, {"oxlint": "ok", "tsc": "error"}, None),
    "nothing-checked": (0, {"oxlint": "disabled"}, None),
}


@pytest.mark.parametrize("front_end", [tool_words, command_words], ids=["mcp", "cli"])
@pytest.mark.parametrize("compact", [False, True], ids=["full", "compact"])
@pytest.mark.parametrize("situation", list(SITUATIONS))
def test_every_check_answer_has_a_next_step_and_one_filtered_count(
    situation: str, compact: bool, front_end: Any
) -> None:
    count, engines, filtered_out = SITUATIONS[situation]
    found = [issue(f"src/f{n:03}.ts", rule=f"r{n}") for n in range(count)]
    checked = result(found, engines=engines)
    payload = dict(
        check_payload(
            checked,
            cluster(found),
            compact=compact,
            added=Additions(filtered_out=filtered_out),
            words=front_end,
        )
    )
    # The advertised schemas require it, so a validating client would refuse an answer without.
    _validate(outputs.check_output(compact=compact), payload)
    step = payload["nextStep"]
    assert isinstance(step, str) and step.endswith(".")
    vocabulary = "signalint " if front_end is command_words else "get_issue_detail"
    if situation in {"issues", "omitted", "filtered-none"}:
        assert vocabulary in step
    filtered = [key for key in payload if key.startswith("filteredOut")]
    assert filtered == (
        [] if filtered_out is None else ["filteredOut" if compact else "filteredOutIssueCount"]
    )


def test_the_schemas_require_next_step_in_every_check_answer() -> None:
    for compact in (False, True):
        payload = dict(
            check_payload(result([issue()]), cluster([issue()]), compact=compact, words=tool_words)
        )
        del payload["nextStep"]
        with pytest.raises(Exception, match="nextStep"):
            _validate(outputs.check_output(compact=compact), payload)


def test_the_tool_list_does_not_enumerate_the_engines() -> None:
    """Every engine added would grow the tool list for every connection (its
    byte budget: test_catalog_size.py): descriptions refer to the engines
    without listing them (one named as an example is fine)."""
    import json
    import re

    from signalint.engines.registry import ENGINES
    from signalint.server.catalog import TOOLS

    fields = ("name", "title", "description", "input_schema", "output_schema")
    blob = json.dumps([[getattr(tool, f) for f in fields] for tool in TOOLS.values()], default=str)
    names = "|".join(re.escape(name) for name in ENGINES)
    listed = re.search(rf"\b(?:{names}),\s*(?:{names})\b", blob)
    assert listed is None, listed.group(0) if listed else ""
