"""The json format is exactly the report payload, pretty-printed."""

from __future__ import annotations

import json

import pytest

from signalint import formats
from signalint.formats import json_format
from signalint.formats.commands import command_words
from signalint.pipeline.cluster import cluster
from signalint.pipeline.report import check_payload

from .builders import mixed_issues, result


def test_json_is_the_payload_with_two_space_indent() -> None:
    check = result(mixed_issues())
    clustering = cluster(check.issues)
    output = json_format.render(check, clustering)
    assert json.loads(output) == check_payload(check, clustering, words=command_words)
    assert output.startswith('{\n  "schemaVersion": "1.4",\n')
    assert "ünïcode" in output


def test_compact_option_reaches_the_payload() -> None:
    check = result(mixed_issues())
    loaded = json.loads(json_format.render(check, cluster(check.issues), compact=True))
    assert loaded["v"] == "1.4" and "projectRoot" not in loaded


def test_dispatch_by_name_and_unknown_names() -> None:
    check = result(mixed_issues())
    clustering = cluster(check.issues)
    assert formats.render("json", check, clustering) == json_format.render(check, clustering)
    assert formats.FORMATS == ("json", "text", "github", "sarif")
    with pytest.raises(ValueError, match="unknown format"):
        formats.render("xml", check, clustering)
