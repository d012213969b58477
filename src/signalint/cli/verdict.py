"""How `check` (and `merge`) turn an answer into an exit code, and `--quiet`.

The default is the reference's: 0 clean, 1 issues found or anything that
failed or was not checked (`CheckResult.status`). The options change only
what issues count, never that a failure fails:

- `--fail-on-priority N`: issues count when a returned cluster or flat
  record has priority <= N.
- `--max-warnings N` (ESLint's meaning): errors count, and warnings count
  once there are more than N of them.
- `--exit-zero`: issues never count (Ruff's meaning).
- `--quiet` (`errors_only`): the answer keeps only errors, so warnings are
  neither shown nor counted.

An engine that failed, or anything not checked (`nothing_checked`, a
coverage warning), exits 1 whatever the options: a job must not pass on a
check that did not happen.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from signalint import ids
from signalint.model import CheckResult
from signalint.pipeline.cluster import Clustering, cluster
from signalint.pipeline.report import fails_priority


@dataclass(frozen=True, slots=True)
class Verdict:
    """The exit options of one command (module docstring)."""

    fail_on_priority: int | None = None
    max_warnings: int | None = None
    exit_zero: bool = False

    def code(self, result: CheckResult, clustering: Clustering) -> int:
        """The exit code for `result` (what the answer reports) and its clustering."""
        if result.status == "error":
            return 1
        if self.exit_zero:
            return 0
        issues = result.issues
        if self.fail_on_priority is not None:
            failed = fails_priority(clustering, self.fail_on_priority)
        elif self.max_warnings is not None:
            failed = any(i.severity == "error" for i in issues)
        else:
            failed = bool(issues)
        if self.max_warnings is not None:
            warnings = sum(1 for i in issues if i.severity == "warning")
            failed = failed or warnings > self.max_warnings
        return 1 if failed else 0

    def too_many_warnings(self, result: CheckResult) -> str | None:
        """Why `--max-warnings` fails `result`, for stderr; None when it does not."""
        if self.max_warnings is None or self.exit_zero or result.status == "error":
            return None
        warnings = sum(1 for i in result.issues if i.severity == "warning")
        if warnings <= self.max_warnings:
            return None
        noun = "warning" if warnings == 1 else "warnings"
        return f"{warnings} {noun}, more than --max-warnings {self.max_warnings}"


def errors_only(result: CheckResult, clustering: Clustering) -> tuple[CheckResult, Clustering]:
    """`result` keeping only its errors (`--quiet`), and their clustering
    (`clustering` when it has no warning). The check id stays: it names the
    kept check, which holds every issue."""
    errors = tuple(i for i in result.issues if i.severity == "error")
    if len(errors) == len(result.issues):
        return result, clustering
    narrowed = dataclasses.replace(
        result, issues=errors, fingerprint=ids.fingerprint(i.issue_id for i in errors)
    )
    return narrowed, cluster(errors)


__all__ = ["Verdict", "errors_only"]
