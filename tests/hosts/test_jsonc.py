"""The JSONC span editor: one value changes, every other byte stays (D11)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from signalint.hosts import jsonc

SETTINGS = """\
{
    // editor settings, hand-written
    "editor.fontSize": 14, /* big */
    "mcpServers": {
        "other": {"command": "x"}, // keep me
    },
}
"""


def test_adding_a_server_keeps_comments_trailing_commas_and_order() -> None:
    out = jsonc.set_member(SETTINGS, ["mcpServers", "signalint"], {"command": "/bin/s"})
    assert out.startswith(SETTINGS.split('        "other"')[0])
    assert '"other": {"command": "x"}, // keep me\n' in out
    assert "/* big */" in out
    # The file's trailing-comma habit is kept for the new member too.
    assert '        "signalint": {\n            "command": "/bin/s"\n        },\n    },\n}' in out
    assert jsonc.loads(out)["mcpServers"] == {
        "other": {"command": "x"},
        "signalint": {"command": "/bin/s"},
    }


def test_replacing_a_value_touches_only_its_span() -> None:
    text = '{\n  "a": [1, 2], // list\n  "b": {"old": true}\n}\n'
    out = jsonc.set_member(text, ["b"], {"new": 1})
    assert out.startswith('{\n  "a": [1, 2], // list\n')
    assert jsonc.loads(out) == {"a": [1, 2], "b": {"new": 1}}


def test_a_missing_parent_object_is_created_at_the_end_of_the_document() -> None:
    out = jsonc.set_member(SETTINGS, ["context_servers", "signalint"], {"command": "c"})
    assert jsonc.loads(out)["context_servers"] == {"signalint": {"command": "c"}}
    assert out.index('"mcpServers"') < out.index('"context_servers"')


def test_one_line_objects_stay_on_one_line() -> None:
    assert jsonc.set_member('{"a": 1}', ["b"], {"c": 2}) == '{"a": 1, "b": {"c": 2}}'
    assert jsonc.set_member("{}", ["b"], 2) == '{"b": 2}'


def test_crlf_files_get_crlf_lines() -> None:
    text = '{\r\n  "a": 1\r\n}\r\n'
    out = jsonc.set_member(text, ["b"], {"c": 2})
    assert "\n" not in out.replace("\r\n", "")
    assert jsonc.loads(out) == {"a": 1, "b": {"c": 2}}


def test_appending_to_an_array_keeps_the_existing_items() -> None:
    text = '{\n  "hooks": {\n    "Stop": [\n      {"x": 1} // mine\n    ]\n  }\n}\n'
    out = jsonc.append_item(text, ["hooks", "Stop"], {"y": 2})
    assert '{"x": 1}, // mine\n' in out
    assert jsonc.loads(out) == {"hooks": {"Stop": [{"x": 1}, {"y": 2}]}}


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('{\n  "a": 1\n  "b": 2\n}', 3, 3),
        ('{\n  "a": [1,, 2]\n}', 2, 11),
        ("{\n  /* open\n", 2, 3),
        ('{"a": tru}', 1, 7),
    ],
)
def test_malformed_text_is_refused_with_its_line_and_column(
    text: str, line: int, column: int
) -> None:
    with pytest.raises(jsonc.JsoncError) as caught:
        jsonc.parse(text)
    assert (caught.value.line, caught.value.column) == (line, column)


def test_a_non_object_on_the_path_is_refused_not_replaced() -> None:
    with pytest.raises(jsonc.JsoncError, match="mcpServers is not an object"):
        jsonc.set_member('{"mcpServers": []}', ["mcpServers", "signalint"], {})


keys = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)


@given(
    st.dictionaries(keys, values, max_size=4),
    st.lists(keys, min_size=1, max_size=3),
    values,
    st.sampled_from([None, 2, 4, "\t"]),
)
def test_setting_a_member_equals_setting_it_in_the_parsed_value(
    doc: dict[str, Any], path: list[str], value: Any, indent: int | str | None
) -> None:
    text = json.dumps(doc, indent=indent)
    expected = json.loads(text)
    node = expected
    for key in path[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    node[path[-1]] = value
    try:
        out = jsonc.set_member(text, path, value)
    except jsonc.JsoncError:
        return  # a non-object on the way is refused, never silently replaced
    assert json.loads(out) == expected
    assert jsonc.loads(out) == expected


def test_replacing_a_string_value_replaces_all_of_it() -> None:
    out = jsonc.set_member('{"a": "old", // keep\n "b": 1}', ["a"], "new")
    assert out == '{"a": "new", // keep\n "b": 1}'


def test_replacing_or_following_a_string_value_keeps_the_document_valid() -> None:
    # Found by the property test: a string value's span must end after its quote.
    assert jsonc.set_member('{"": ""}', ["0"], None) == '{"": "", "0": null}'
    assert jsonc.set_member('{"a": "x"}', ["a"], 1) == '{"a": 1}'
    multi = '{\n  "theme": "One Dark" // last\n}\n'
    out = jsonc.set_member(multi, ["context_servers"], {})
    assert out == '{\n  "theme": "One Dark", // last\n  "context_servers": {}\n}\n'


def decorate(text: str) -> str:
    """`text` (indented JSON) with a comment after every line and trailing commas."""
    lines = text.split("\n")
    out: list[str] = []
    for n, line in enumerate(lines):
        following = lines[n + 1].strip() if n + 1 < len(lines) else ""
        if following[:1] in ("}", "]") and line.rstrip()[-1:] not in ("{", "[", ","):
            line += ","
        out.append(line + " // note")
    return "\n".join(out) + "\n"


@given(
    st.dictionaries(keys, values, min_size=1, max_size=4),
    st.lists(keys, min_size=1, max_size=3),
    values,
    st.sampled_from([2, 4, "\t"]),
)
def test_comments_and_trailing_commas_survive_any_edit(
    doc: dict[str, Any], path: list[str], value: Any, indent: int | str
) -> None:
    text = decorate(json.dumps(doc, indent=indent))
    assert jsonc.loads(text) == doc
    try:
        out = jsonc.set_member(text, path, value)
    except jsonc.JsoncError:
        return
    expected = json.loads(json.dumps(doc))
    node = expected
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    assert jsonc.loads(out) == expected
    replaced = jsonc.find(jsonc.parse(text), path)
    lost = text[replaced.start : replaced.end].count("// note") if replaced else 0
    assert out.count("// note") == text.count("// note") - lost


@given(
    st.dictionaries(keys, values, min_size=1, max_size=4),
    st.lists(keys, min_size=1, max_size=2),
    values,
    st.sampled_from([None, 2, "\t"]),
    st.booleans(),
)
def test_appending_equals_appending_to_the_parsed_list(
    doc: dict[str, Any], path: list[str], item: Any, indent: int | str | None, decorated: bool
) -> None:
    text = json.dumps(doc, indent=indent)
    if decorated and indent is not None:
        text = decorate(text)
    try:
        out = jsonc.append_item(text, path, item)
    except jsonc.JsoncError:
        return  # something other than a list (or an object on the way) is refused
    expected = json.loads(json.dumps(doc))
    node = expected
    for key in path[:-1]:
        node = node.setdefault(key, {})
    current = node.get(path[-1])
    node[path[-1]] = [*current, item] if isinstance(current, list) else [item]
    assert jsonc.loads(out) == expected


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "a": 1 /* c */ }\n',
        '{\n  "a": 1 /* c */\n}\n',
        '{\n  "a": 1 /* c\n  more */\n}\n',
        '{\n  "a": "s" // c\n}\n',
    ],
)
def test_block_comments_after_the_last_member_never_swallow_the_brace(text: str) -> None:
    out = jsonc.set_member(text, ["b"], 2)
    assert jsonc.loads(out) == {**jsonc.loads(text), "b": 2}
    assert out.count("/*") == text.count("/*") and out.count("//") == text.count("//")
