"""The advertised output schemas say exactly what the payload types say.

Builders are type-checked against `signalint.payloads` (mypy checks every
key); here each advertised schema is held to the same types: a top-level
answer declares every key of its type (plus the shared refusal keys) and
requires the type's required keys; a nested object requires exactly the
keys its type always carries and declares no key the type lacks.
"""

from __future__ import annotations

from typing import Any

import pytest

from signalint import payloads
from signalint.pipeline.report import COMPACT_KEYS
from signalint.server import outputs
from signalint.server.schemas import Schema

REFUSAL_KEYS = set(outputs.ERROR_PROPERTIES)


def keys(shape: Any) -> set[str]:
    return set(shape.__required_keys__) | set(shape.__optional_keys__)


def required(shape: Any) -> set[str]:
    return set(shape.__required_keys__)


def test_the_check_schema_is_the_check_payload_type() -> None:
    assert set(outputs.CHECK_PROPERTIES) == keys(payloads.CheckPayload)
    assert set(outputs.CHECK_REQUIRED) == required(payloads.CheckPayload)


@pytest.mark.parametrize("compact", [False, True], ids=["full", "compact"])
def test_check_answers_declare_the_payload_keys_and_the_refusal_keys(compact: bool) -> None:
    schema = outputs.check_output(compact=compact)
    expected = keys(payloads.CheckPayload)
    if compact:
        expected = {COMPACT_KEYS.get(k, k) for k in expected if k != "projectRoot"}
    assert set(schema["properties"]) == expected | keys(payloads.Refusal)
    success, refused = schema["anyOf"]
    wanted = required(payloads.CheckPayload)
    if compact:
        wanted = {COMPACT_KEYS.get(k, k) for k in wanted if k != "projectRoot"}
    assert set(success["required"]) == wanted
    assert set(refused["required"]) == required(payloads.Refusal)


def test_refusals_are_the_refusal_type() -> None:
    assert set(outputs.CHECK_ERROR_PROPERTIES) == keys(payloads.Refusal)
    assert set(outputs.ERROR_REQUIRED) == required(payloads.Refusal)
    assert keys(payloads.Refusal) >= REFUSAL_KEYS


@pytest.mark.parametrize(
    ("schema", "shape"),
    [
        (outputs.SNAPSHOT_OUTPUT, payloads.SnapshotSummary),
        (outputs.DETAIL_OUTPUT, payloads.DetailAnswer),
        (outputs.LIST_OUTPUT, payloads.IssuePage),
        (outputs.DELTA_OUTPUT, payloads.Delta),
        (outputs.LOOP_STATUS_OUTPUT, payloads.LoopStatus),
        (outputs.PING_OUTPUT, payloads.Pong),
    ],
    ids=["snapshot", "detail", "list", "delta", "loop-status", "ping"],
)
def test_each_lookup_answer_schema_is_its_type(schema: Schema, shape: Any) -> None:
    assert set(schema["properties"]) == keys(shape) | REFUSAL_KEYS
    success, refused = schema["anyOf"]
    assert set(success["required"]) == required(shape)
    assert set(refused["required"]) == required(payloads.Refusal)


@pytest.mark.parametrize(
    ("schema", "shape"),
    [
        (outputs.ENGINE_STATUS, payloads.EngineEntry),
        (outputs.ENGINE_STATUS["properties"]["failure"], payloads.FailureEntry),
        (outputs.CLUSTER, payloads.ClusterEntry),
        (outputs.FLAT, payloads.FlatEntry),
        (outputs.DETAIL, payloads.IssueDetail),
        (outputs.LOOP_ENTRY, payloads.LoopEntry),
        (outputs.CHURN_ENTRY, payloads.ChurnEntry),
        (outputs.DELTA_ENTRY, payloads.IssueEntry),
        (outputs.DELTA_SUMMARY, payloads.UnobservedSummary),
        (outputs.DELTA_PROPERTIES["counts"], payloads.DeltaCounts),
    ],
    ids=[
        "engine", "failure", "cluster", "flat", "detail", "loop", "churn", "delta-entry",
        "unobserved", "counts",
    ],
)  # fmt: skip
def test_each_nested_object_requires_what_its_type_always_carries(
    schema: Schema, shape: Any
) -> None:
    assert schema["type"] == "object"
    assert set(schema["required"]) == required(shape)
    assert set(schema.get("properties", {})) <= keys(shape)


def test_nested_objects_sit_where_their_types_say() -> None:
    check = outputs.CHECK_PROPERTIES
    assert check["engines"]["additionalProperties"] is outputs.ENGINE_STATUS
    assert check["clusters"]["items"] is outputs.CLUSTER
    assert check["remainingIssues"]["items"] is outputs.FLAT
    assert check["loopWarning"] is outputs.LOOP_ENTRY
    assert check["fileRuleChurnWarning"] is outputs.CHURN_ENTRY
    assert outputs.DELTA_PROPERTIES["introduced"]["items"] is outputs.DELTA_ENTRY
    assert outputs.DELTA_PROPERTIES["unobserved"] is outputs.DELTA_SUMMARY


@pytest.mark.parametrize("compact", [False, True], ids=["full", "compact"])
def test_file_checks_carry_the_dependents_block(compact: bool) -> None:
    for schema in (
        outputs.files_output(compact=compact),
        outputs.after_edit_output(compact=compact),
    ):
        assert schema["properties"]["dependents"] is outputs.DEPENDENTS
    assert "dependents" not in outputs.check_output(compact=compact)["properties"]
    # An object, its keys in the README and the type (the tool list's budget).
    assert outputs.DEPENDENTS == {"type": "object"}
    assert required(payloads.DependentsBlock) == {
        "total", "broken", "moved", "repaired", "fileCount", "issues"
    }  # fmt: skip
