"""The last step of scripts/setup: prove the demo check really ran every engine.

`signalint check` exits 1 both when it finds issues and when an engine failed
or is missing, so its exit code alone cannot tell a working set-up from a
broken one. This gate runs the check on the demo project (default
examples/demo) with `--format json --no-cache` (so every engine really runs,
nothing comes from an earlier result) and passes only when:

- the check exits 1 with status `issues_found` and at least one issue;
- every engine the project's signalint.config.json enables is in the
  answer with status `ok` and checked at least one file.

Otherwise it names each engine that failed or is missing, with the reason the
check gave, and exits 1. Usage: `python scripts/demo_gate.py [PROJECT]`, with
the Python of the environment Signalint is installed in.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from signalint.process import Command, run_blocking

DEMO = Path(__file__).resolve().parent.parent / "examples" / "demo"
CHECK_TIMEOUT_S = 600.0


def enabled_engines(project: Path) -> list[str]:
    """The engines the project's signalint.config.json turns on."""
    config = json.loads((project / "signalint.config.json").read_text(encoding="utf-8"))
    return [name for name, on in config.get("engines", {}).items() if on is True]


def problems(exit_code: int | None, stdout: str, expected: list[str]) -> list[str]:
    """Why the demo check does not prove a working set-up (empty: it does)."""
    try:
        answer = json.loads(stdout)
    except ValueError:
        return [f"the check printed no JSON answer (exit code {exit_code})"]
    if not isinstance(answer, dict):
        return [f"the check's answer is not a JSON object (exit code {exit_code})"]
    found: list[str] = []
    engines = answer.get("engines")
    engines = engines if isinstance(engines, dict) else {}
    for name in expected:
        entry = engines.get(name)
        if not isinstance(entry, dict):
            found.append(f"{name}: not in the check's answer (it did not run)")
            continue
        status = entry.get("status")
        if status != "ok":
            reason = entry.get("message") or "no reason given"
            found.append(f"{name}: {status}: {reason}")
        elif not entry.get("filesChecked"):
            found.append(f"{name}: ok but checked no file")
    if found:
        return found  # the failed engines explain the status
    if answer.get("status") != "issues_found" or not answer.get("totalIssues"):
        found.append(
            f"expected the demo's deliberate issues (status issues_found), got status "
            f"{answer.get('status')!r} with {answer.get('totalIssues')} issues"
        )
    if exit_code != 1 and not found:
        found.append(f"expected exit code 1 (issues found), got {exit_code}")
    return found


def main(argv: list[str]) -> int:
    project = Path(argv[0]).resolve() if argv else DEMO
    signalint = Path(sys.executable).parent / "signalint"
    expected = enabled_engines(project)
    command = Command(
        argv=(str(signalint), "check", "--no-cache", "--format", "json"),
        cwd=project,
        timeout_s=CHECK_TIMEOUT_S,
    )
    result = run_blocking(command)
    if result.missing or result.start_error:
        print(f"demo gate FAILED: cannot start {signalint}", file=sys.stderr)
        return 1
    if not result.finished:
        print(
            f"demo gate FAILED: the check did not finish in {CHECK_TIMEOUT_S:g} s", file=sys.stderr
        )
        return 1
    found = problems(result.exit_code, result.stdout, expected)
    if found:
        print("demo gate FAILED: the set-up is not working:", file=sys.stderr)
        for line in found:
            print(f"  {line}", file=sys.stderr)
        if result.stderr.strip():
            print(result.stderr.rstrip(), file=sys.stderr)
        return 1
    print(
        f"demo gate passed: {', '.join(expected)} ran ok; "
        f"the demo's deliberate issues were found (exit code 1, as expected)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
