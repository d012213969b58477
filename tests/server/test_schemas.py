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

from signalint.cluster import cluster
from signalint.report import check_payload, issue_detail
from signalint.server import outputs

from ..factories import issue, result


def _validate(schema: dict[str, Any], value: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    Draft202012Validator(schema).validate(value)


@pytest.mark.parametrize("compact", [False, True], ids=["full", "compact"])
def test_check_schema_accepts_coverage_fields_on_engines_and_payload(compact: bool) -> None:
    checked = result([issue()], engines={"oxlint": "ok", "tsc": "error"})
    payload = dict(check_payload(checked, cluster(checked.issues), compact=compact))
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
    payload = dict(check_payload(checked, cluster(checked.issues), compact=compact))
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
