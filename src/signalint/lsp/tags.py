"""Which rules mark code the engine calls unnecessary or deprecated (LSP `tags`).

Engines say so by the rule they report under: TypeScript's "declared but
never read" codes carry `reportsUnnecessary`, its deprecation codes
`reportsDeprecated`; the linters name their unused-code and deprecation
rules. A rule is matched by its last segment (`eslint(no-unused-vars)`,
`@typescript-eslint/no-unused-vars` and `no-unused-vars` alike; Biome's
`lint/correctness/noUnusedImports` by `noUnusedImports`).
"""

from __future__ import annotations

import re
from typing import Final

from lsprotocol import types

_UNNECESSARY: Final = frozenset(
    {
        # TypeScript (reportsUnnecessary)
        "TS6133", "TS6138", "TS6192", "TS6196", "TS6198", "TS6199", "TS6205", "TS7027",
        "TS7028",
        # ESLint, typescript-eslint, Oxlint
        "no-unused-vars", "no-unused-labels", "no-unreachable", "no-unused-private-class-members",
        "no-useless-escape", "no-unused-expressions",
        # Biome
        "noUnusedVariables", "noUnusedImports", "noUnreachable", "noUnusedLabels",
        "noUnusedPrivateClassMembers", "noUnusedFunctionParameters",
        # Ruff
        "F401", "F841", "F811", "ARG001", "ARG002", "ARG003", "ARG004", "ARG005", "RUF100",
        # Pyright
        "reportUnusedImport", "reportUnusedVariable", "reportUnusedClass",
        "reportUnusedFunction", "reportUnnecessaryTypeIgnoreComment",
        "reportUnnecessaryCast", "reportUnnecessaryIsInstance",
        # mypy
        "unused-ignore", "redundant-cast", "unreachable",
    }
)  # fmt: skip

_DEPRECATED: Final = frozenset(
    {
        "TS6385", "TS6387",
        "no-deprecated", "deprecation", "import-x/no-deprecated",
        "reportDeprecated", "deprecated",
        "UP035", "noDeprecatedImports",
    }
)  # fmt: skip

_SEGMENT = re.compile(r"[^/()]+")


def _last(rule: str) -> str:
    parts = _SEGMENT.findall(rule)
    return parts[-1] if parts else rule


def tags_of(engine: str, rule: str) -> list[types.DiagnosticTag]:
    """The LSP tags of a diagnostic of `engine` under `rule` (empty: none)."""
    del engine  # the rule names are distinct across engines
    names = {rule, _last(rule)}
    found: list[types.DiagnosticTag] = []
    if names & _UNNECESSARY:
        found.append(types.DiagnosticTag.Unnecessary)
    if names & _DEPRECATED:
        found.append(types.DiagnosticTag.Deprecated)
    return found


__all__ = ["tags_of"]
