"""Tool-argument checking against the advertised input schemas.

The schemas in `schemas.INPUTS` use a small JSON Schema subset (closed
objects, strings, integers, string arrays, enums, length and size bounds);
this module enforces exactly that subset, so what is advertised is what is
accepted. A refusal names the offending field, because the caller is
usually a model that will fix its call from the message alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from signalint.server.schemas import Schema


class ArgumentError(ValueError):
    """An argument that does not match the tool's input schema."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "null"


def _check(schema: Schema, value: object, field: str) -> None:
    kind = schema.get("type")
    if kind == "string":
        if not isinstance(value, str):
            raise ArgumentError(field, f"expected a string, got {_describe(value)}")
        if len(value) < schema.get("minLength", 0):
            raise ArgumentError(field, "must not be empty")
        if len(value) > schema.get("maxLength", len(value)):
            raise ArgumentError(field, f"longer than {schema['maxLength']} characters")
        if "enum" in schema and value not in schema["enum"]:
            choices = ", ".join(json.dumps(c) for c in schema["enum"])
            raise ArgumentError(field, f"expected one of {choices}, got {json.dumps(value)}")
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise ArgumentError(field, f"expected true or false, got {_describe(value)}")
    elif kind == "integer":
        # bool is an int in Python; JSON `true` is not a number.
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentError(field, f"expected an integer, got {_describe(value)}")
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            raise ArgumentError(field, f"must be between {low} and {high}, got {value}")
    elif kind == "array":
        if not isinstance(value, list):
            raise ArgumentError(field, f"expected an array, got {_describe(value)}")
        if len(value) < schema.get("minItems", 0):
            raise ArgumentError(field, f"needs at least {schema['minItems']} item(s)")
        if len(value) > schema.get("maxItems", len(value)):
            raise ArgumentError(
                field, f"has {len(value)} items; at most {schema['maxItems']} are accepted"
            )
        for index, item in enumerate(value):
            _check(schema["items"], item, f"{field}[{index}]")
    elif kind == "object":
        if not isinstance(value, Mapping):
            raise ArgumentError(field, f"expected an object, got {_describe(value)}")
        validate(schema, value, prefix=f"{field}.")
    else:  # pragma: no cover - schemas.py uses only the kinds above
        raise AssertionError(f"unsupported schema type {kind!r}")


def validate(schema: Schema, arguments: Mapping[str, Any], *, prefix: str = "") -> None:
    """Raise `ArgumentError` unless `arguments` matches the closed object `schema`."""
    properties: dict[str, Schema] = schema.get("properties", {})
    if schema.get("additionalProperties") is True:
        return  # an open object (an LSP diagnostic): its reader checks its fields
    for key in arguments:
        if key not in properties:
            accepted = ", ".join(properties) or "none"
            raise ArgumentError(
                f"{prefix}{key}", f"unknown argument; accepted arguments: {accepted}"
            )
    for key in schema.get("required", []):
        if key not in arguments:
            raise ArgumentError(f"{prefix}{key}", "this argument is required")
    for key, value in arguments.items():
        _check(properties[key], value, f"{prefix}{key}")
