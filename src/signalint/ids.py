"""Identifiers: issue ids, check ids, fingerprints, summary prefixes (D4).

Pure functions over primitive values, so the model and the cache can share
them without import cycles.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable

SHORT_ID_LENGTH = 12
_SEP = "\x1f"
_WS = re.compile(r"\s+")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")


def normalize_message(message: str) -> str:
    """Collapse all whitespace runs to one space and strip the ends."""
    return _WS.sub(" ", message).strip()


def message_template(message: str) -> str:
    """The normalized message with quoted values replaced by a placeholder.

    Two diagnostics that differ only in the names they quote share a
    template; used for loop signatures and delta matching, never for ids.
    """
    return _QUOTED.sub("'…'", normalize_message(message))


def summarize(message: str, limit: int) -> str:
    """One line of at most `limit` characters, ending in an ellipsis if cut."""
    text = normalize_message(message)
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"


def _digest(*parts: object) -> str:
    return hashlib.sha256(_SEP.join(str(p) for p in parts).encode("utf-8")).hexdigest()


def issue_id(engine: str, file: str, rule: str, line: int, col: int, message: str) -> str:
    """Full 64-hex id over everything that makes a diagnostic distinct."""
    return _digest("issue", engine, file, rule, line, col, normalize_message(message))


def cluster_id(rule: str, severity: str, systemic: bool) -> str:
    """Cluster ids are unique within a check: one cluster per rule."""
    return _digest("cluster", rule, severity, systemic)[:SHORT_ID_LENGTH]


def new_check_id() -> str:
    """A fresh id for every check invocation (D4), 16 hex characters."""
    return secrets.token_hex(8)


def fingerprint(issue_ids: Iterable[str]) -> str:
    """Content hash of a set of diagnostics: equal sets, equal fingerprints."""
    return _digest("fingerprint", *sorted(set(issue_ids)))[:16]


def shorten(full_ids: Iterable[str], minimum: int = SHORT_ID_LENGTH) -> dict[str, str]:
    """Map each distinct full id to its shortest unambiguous prefix.

    Prefixes start at `minimum` characters and are extended only as far as
    needed to tell distinct ids apart (neighbours in sorted order are the
    only possible collisions).
    """
    unique = sorted(set(full_ids))
    result: dict[str, str] = {}
    for index, current in enumerate(unique):
        length = minimum
        for neighbour_index in (index - 1, index + 1):
            if 0 <= neighbour_index < len(unique):
                neighbour = unique[neighbour_index]
                common = 0
                for a, b in zip(current, neighbour, strict=False):
                    if a != b:
                        break
                    common += 1
                length = max(length, common + 1)
        result[current] = current[: min(length, len(current))]
    return result
