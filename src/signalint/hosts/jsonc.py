"""A JSONC span editor: change one value of a settings file and nothing else.

Hosts keep their settings in JSON with comments and trailing commas (VS
Code, Zed, Cursor, Claude Code's and Gemini CLI's settings). Rewriting such
a file through `json.loads`/`json.dumps` would drop the comments, the
trailing commas, the key order and the user's formatting (D11). This module
parses the text into a tree of spans instead, and every edit splices new
text into the original at one place:

- `set_member(text, path, value)` replaces the value at an object path, or
  inserts the missing members (with the file's indentation, newline style
  and trailing-comma habit) at the end of the innermost existing object;
- `append_item(text, path, value)` adds an element at the end of an array.

`parse` reads strict JSON plus `//` and `/* */` comments and trailing
commas; anything else raises `JsoncError` with the 1-based line and column,
so a malformed file is refused, never overwritten. `loads` gives the plain
Python value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from signalint.errors import SignalintError

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None}


class JsoncError(SignalintError):
    """The text is not JSON (with comments): `line` and `column` are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        self.reason = message
        self.line = line
        self.column = column
        super().__init__(f"line {line} column {column}: {message}")


@dataclass
class Node:
    """A value's span `text[start:end]`; objects have `members`, arrays `items`."""

    kind: str  # "object" | "array" | "scalar"
    start: int
    end: int
    members: list[tuple[str, Node]] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)
    scalar: Any = None

    def member(self, key: str) -> Node | None:
        """The value of the last member named `key` (JSON parsers keep the last)."""
        found = None
        for name, value in self.members:
            if name == key:
                found = value
        return found


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, message: str, pos: int | None = None) -> JsoncError:
        at = self.pos if pos is None else pos
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return JsoncError(message, line, column)

    def skip(self) -> None:
        """Skip whitespace and comments."""
        text, n = self.text, len(self.text)
        while self.pos < n:
            c = text[self.pos]
            if c in " \t\r\n\ufeff":
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("unterminated /* comment")
                self.pos = end + 2
            else:
                return

    def value(self) -> Node:
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of file, expected a value")
        c = self.text[self.pos]
        if c == "{":
            return self.object()
        if c == "[":
            return self.array()
        if c == '"':
            start = self.pos
            decoded = self.string()  # advances self.pos past the closing quote
            return Node("scalar", start, self.pos, scalar=decoded)
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, self.pos):
                start = self.pos
                self.pos += len(word)
                return Node("scalar", start, self.pos, scalar=literal)
        match = _NUMBER.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            return Node("scalar", match.start(), self.pos, scalar=json.loads(match.group()))
        raise self.fail(f"unexpected character {c!r}, expected a value")

    def string(self) -> str:
        start = self.pos
        i = start + 1
        text = self.text
        while i < len(text):
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if c == '"':
                self.pos = i + 1
                try:
                    decoded = json.loads(text[start : i + 1])
                except ValueError as exc:
                    raise self.fail(f"invalid string: {exc}", start) from None
                assert isinstance(decoded, str)
                return decoded
            if c == "\n":
                break
            i += 1
        raise self.fail("unterminated string", start)

    def object(self) -> Node:
        node = Node("object", self.pos, self.pos)
        self.pos += 1
        while True:
            self.skip()
            if self.pos >= len(self.text):
                raise self.fail("unexpected end of file inside an object")
            if self.text[self.pos] == "}":
                self.pos += 1
                node.end = self.pos
                return node
            if self.text[self.pos] != '"':
                raise self.fail("expected a quoted key or '}'")
            key = self.string()
            self.skip()
            if self.pos >= len(self.text) or self.text[self.pos] != ":":
                raise self.fail("expected ':' after the key")
            self.pos += 1
            node.members.append((key, self.value()))
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
            elif self.pos < len(self.text) and self.text[self.pos] != "}":
                raise self.fail("expected ',' or '}' after the value")

    def array(self) -> Node:
        node = Node("array", self.pos, self.pos)
        self.pos += 1
        while True:
            self.skip()
            if self.pos >= len(self.text):
                raise self.fail("unexpected end of file inside an array")
            if self.text[self.pos] == "]":
                self.pos += 1
                node.end = self.pos
                return node
            node.items.append(self.value())
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
            elif self.pos < len(self.text) and self.text[self.pos] != "]":
                raise self.fail("expected ',' or ']' after the value")


def parse(text: str) -> Node:
    """The span tree of `text`; raises `JsoncError` (line, column) when malformed."""
    parser = _Parser(text)
    root = parser.value()
    parser.skip()
    if parser.pos != len(text):
        raise parser.fail("unexpected text after the top-level value")
    return root


def to_python(node: Node) -> Any:
    if node.kind == "object":
        return {key: to_python(value) for key, value in node.members}
    if node.kind == "array":
        return [to_python(item) for item in node.items]
    return node.scalar


def loads(text: str) -> Any:
    """The Python value of JSONC `text` (an empty file reads as `{}`)."""
    if not text.strip():
        return {}
    return to_python(parse(text))


# --- editing -----------------------------------------------------------------


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    match = re.match(r"[ \t]*", text[line_start:])
    return match.group() if match else ""


def _unit(text: str, root: Node) -> str:
    """The file's indentation step, from its first indented member (default 2 spaces)."""
    for _key, value in root.members:
        key_pos = text.rfind('"', 0, text.rfind('"', 0, value.start))
        indent = _line_indent(text, value.start)
        base = _line_indent(text, root.start)
        if indent.startswith(base) and len(indent) > len(base) and key_pos >= 0:
            return indent[len(base) :]
    return "  "


def dumps(value: Any, indent: str, unit: str, newline: str) -> str:
    """`value` as JSON whose continuation lines start at `indent`."""
    text = json.dumps(value, indent=unit, ensure_ascii=False)
    return text.replace("\n", newline + indent)


def _multiline(text: str, node: Node) -> bool:
    return "\n" in text[node.start : node.end]


def _after_value(text: str, end: int) -> tuple[int, bool]:
    """Position after `end` past blanks/comments on the same line, and whether a
    comma follows the value (a trailing comma or a separator)."""
    parser = _Parser(text)
    parser.pos = end
    parser.skip()
    has_comma = parser.pos < len(text) and text[parser.pos] == ","
    return parser.pos, has_comma


def _insert_last(
    text: str, container: Node, last_end: int | None, prefix: str, value: Any, unit: str
) -> str:
    """Insert `prefix + value` (a member `"key": ` prefix, or "" for an item) as
    the container's last entry; `last_end` is where the current last entry ends."""
    newline = _newline(text)
    close = container.end - 1
    if not _multiline(text, container):
        # One-line container: `{"a": 1}` -> `{"a": 1, "b": 2}`, written compactly.
        body = prefix + json.dumps(value, ensure_ascii=False)
        if last_end is None:
            return text[: container.start + 1] + body + text[close:]
        sep_pos, has_comma = _after_value(text, last_end)
        insert_at = sep_pos + 1 if has_comma else last_end
        lead = " " if has_comma else ", "
        return text[:insert_at] + lead + body + ("," if has_comma else "") + text[insert_at:]
    if last_end is None:  # empty multi-line container
        outer = _line_indent(text, container.start)
        inner = outer + unit
        body = prefix + dumps(value, inner, unit, newline)
        middle = text[container.start + 1 : close].strip(" \t\r\n")
        lead = newline + inner + middle if middle else ""
        opened = text[: container.start + 1] + lead + newline + inner + body
        return opened + newline + outer + text[close:]
    indent = _line_indent(text, last_end)
    body = prefix + dumps(value, indent, unit, newline)
    sep_pos, has_comma = _after_value(text, last_end)
    if has_comma:
        # A trailing comma stays the file's habit: the new entry gets one too.
        head, rest, tail = text[: sep_pos + 1], text[sep_pos + 1 :], ","
    else:
        head, rest, tail = text[:last_end] + ",", text[last_end:], ""
    # A comment that ends the last entry's line stays on that line.
    line_end = rest.find("\n")
    segment = rest if line_end < 0 else rest[:line_end]
    stripped = segment.strip()
    closed = segment.find("*/") + 2 if stripped.startswith("/*") else 0
    if not stripped or stripped.startswith("//") or (closed >= 2 and not segment[closed:].strip()):
        cut = len(segment.rstrip("\r"))
        head, rest = head + rest[:cut], rest[cut:]
    return head + newline + indent + body + tail + rest


def _resolve(root: Node, path: Sequence[str]) -> tuple[Node, int]:
    """The deepest existing object on `path` and how many keys it consumed."""
    node = root
    depth = 0
    for key in path:
        child = node.member(key)
        if child is None or child.kind != "object":
            break
        node = child
        depth += 1
        if depth == len(path):
            break
    return node, depth


def set_member(text: str, path: Sequence[str], value: Any) -> str:
    """`text` with the value at object `path` set to `value`, all else kept.

    Intermediate objects that are missing are created; a non-object on the
    way is a `JsoncError` naming the key (we never replace a user's value of
    another type silently). An empty text becomes a new document.
    """
    if not path:
        raise ValueError("path must name at least one key")
    if not text.strip():
        nested: Any = value
        for key in reversed(path):
            nested = {key: nested}
        return json.dumps(nested, indent=2, ensure_ascii=False) + "\n"
    root = parse(text)
    if root.kind != "object":
        raise JsoncError("the top-level value is not an object", 1, 1)
    unit = _unit(text, root)
    newline = _newline(text)
    node = root
    for depth, key in enumerate(path):
        child = node.member(key)
        if child is None:
            nested = value
            for inner in reversed(path[depth + 1 :]):
                nested = {inner: nested}
            last = node.members[-1][1].end if node.members else None
            indent = (
                _line_indent(text, node.members[-1][1].start)
                if node.members
                else _line_indent(text, node.start) + unit
            )
            prefix = f"{json.dumps(key, ensure_ascii=False)}: "
            return _insert_last(text, node, last, prefix, nested, unit)
        if depth == len(path) - 1:
            indent = _line_indent(text, child.start)
            return text[: child.start] + dumps(value, indent, unit, newline) + text[child.end :]
        if child.kind != "object":
            dotted = ".".join(path[: depth + 1])
            raise JsoncError(f"{dotted} is not an object", *_position(text, child.start))
        node = child
    raise AssertionError("unreachable")


def append_item(text: str, path: Sequence[str], value: Any) -> str:
    """`text` with `value` appended to the array at object `path` (created if missing)."""
    if not text.strip():
        return set_member(text, path, [value])
    root = parse(text)
    node: Node | None = root
    for key in path:
        node = node.member(key) if node is not None and node.kind == "object" else None
    if node is None:
        return set_member(text, path, [value])
    if node.kind != "array":
        raise JsoncError(f"{'.'.join(path)} is not an array", *_position(text, node.start))
    unit = _unit(text, root)
    last = node.items[-1].end if node.items else None
    return _insert_last(text, node, last, "", value, unit)


def replace_node(text: str, node: Node, value: Any) -> str:
    """`text` with `node`'s span replaced by `value`, indented where it stands."""
    root = parse(text)
    unit = _unit(text, root)
    indent = _line_indent(text, node.start)
    return text[: node.start] + dumps(value, indent, unit, _newline(text)) + text[node.end :]


def find(root: Node, path: Sequence[str]) -> Node | None:
    node: Node | None = root
    for key in path:
        if node is None or node.kind != "object":
            return None
        node = node.member(key)
    return node


def _position(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


__all__ = [
    "JsoncError",
    "Node",
    "append_item",
    "dumps",
    "find",
    "loads",
    "parse",
    "replace_node",
    "set_member",
    "to_python",
]
