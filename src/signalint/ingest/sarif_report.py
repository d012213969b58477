"""SARIF 2.1.0 (CodeQL, Semgrep, Ruff, ESLint's SARIF formatter, ...) -> `Batch`.

Each run's `results[]`: `ruleId` (or the rule at `ruleIndex`), `level`
("error", "warning", "note", "none"; when absent, the rule's
`defaultConfiguration.level`, else "warning"), `message.text` and the first
`locations[].physicalLocation`: `artifactLocation.uri` (relative to its
`uriBaseId` in `originalUriBaseIds`, else to where the tool ran; or the
artifact at `index`) and `region` with 1-based `startLine`/`startColumn`
and the end. Columns count UTF-16 code units unless the run's `columnKind`
is "unicodeCodePoints". Only `error` is an error. Results whose `kind` is
not "fail" (passes, not applicable) and results with no file location
(about the whole project) are not diagnostics of a file and are skipped.
The source is the tool's driver name when every run has the same one.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from signalint.ingest import Batch, ReportError
from signalint.ingest.common import Entry, Maker, expect, load, number

_NAME = re.compile(r"[^A-Za-z0-9._@/+-]+")


def _driver(run: dict[str, Any]) -> dict[str, Any]:
    tool = run.get("tool")
    driver = tool.get("driver") if isinstance(tool, dict) else None
    return driver if isinstance(driver, dict) else {}


def _rules(driver: dict[str, Any]) -> list[dict[str, Any]]:
    rules = driver.get("rules")
    return [r if isinstance(r, dict) else {} for r in rules] if isinstance(rules, list) else []


def _uri(location: dict[str, Any], run: dict[str, Any], where: str) -> str:
    artifact = location.get("artifactLocation")
    artifact = artifact if isinstance(artifact, dict) else {}
    if "uri" not in artifact and isinstance(artifact.get("index"), int):
        artifacts = run.get("artifacts")
        if isinstance(artifacts, list) and 0 <= artifact["index"] < len(artifacts):
            found = artifacts[artifact["index"]]
            if isinstance(found, dict) and isinstance(found.get("location"), dict):
                artifact = found["location"]
    uri = artifact.get("uri")
    if not isinstance(uri, str) or not uri:
        raise ReportError(f"{where}.artifactLocation.uri", "expected a URI")
    bases = run.get("originalUriBaseIds")
    base_id = artifact.get("uriBaseId")
    if (
        isinstance(bases, dict)
        and isinstance(base_id, str)
        and isinstance(bases.get(base_id), dict)
    ):
        base = bases[base_id].get("uri")
        if isinstance(base, str) and base:
            uri = urljoin(base if base.endswith("/") else base + "/", uri)
    return uri


def parse(text: str, root: Path, base: Path | None = None) -> Batch:
    report = expect(load(text, "SARIF"), dict, "report", "a SARIF log object")
    version = report.get("version")
    if version != "2.1.0":
        raise ReportError("version", f"expected SARIF 2.1.0, got {version!r:.40}")
    runs = expect(report.get("runs"), list, "runs", "an array")
    names = {str(_driver(r).get("name") or "sarif") for r in runs if isinstance(r, dict)}
    label = _NAME.sub("-", names.pop()).strip("-")[:64].lower() if len(names) == 1 else "sarif"
    maker = Maker(label or "sarif", root, base)
    for run_index, raw_run in enumerate(runs):
        run = expect(raw_run, dict, f"runs[{run_index}]", "a run object")
        rules = _rules(_driver(run))
        code_points = run.get("columnKind") == "unicodeCodePoints"
        results = expect(run.get("results") or [], list, f"runs[{run_index}].results", "an array")
        for index, raw in enumerate(results):
            where = f"runs[{run_index}].results[{index}]"
            result = expect(raw, dict, where, "a result object")
            if result.get("kind", "fail") != "fail":
                continue
            locations = result.get("locations")
            physical = None
            if isinstance(locations, list) and locations and isinstance(locations[0], dict):
                physical = locations[0].get("physicalLocation")
            if not isinstance(physical, dict):
                continue
            file = maker.file(_uri(physical, run, f"{where}.locations[0].physicalLocation"), where)
            region = physical.get("region")
            region = region if isinstance(region, dict) else {}
            at = f"{where}.locations[0].physicalLocation.region"
            line = number(region.get("startLine"), f"{at}.startLine", 1)
            col = number(region.get("startColumn"), f"{at}.startColumn", 1)
            end = None
            if region.get("endLine") is not None or region.get("endColumn") is not None:
                end = (
                    number(region.get("endLine"), f"{at}.endLine", line),
                    number(region.get("endColumn"), f"{at}.endColumn", 1),
                )
            if code_points:
                col = maker.places.codepoint_col(file, line, col)
                if end is not None:
                    end = (end[0], maker.places.codepoint_col(file, *end))
            rule_index = result.get("ruleIndex")
            rule_meta: dict[str, Any] = {}
            if isinstance(rule_index, int) and 0 <= rule_index < len(rules):
                rule_meta = rules[rule_index]
            rule = str(result.get("ruleId") or rule_meta.get("id") or label)
            if not rule_meta:
                rule_meta = next((r for r in rules if r.get("id") == rule), {})
            level = result.get("level")
            if level is None:
                default = rule_meta.get("defaultConfiguration")
                level = default.get("level") if isinstance(default, dict) else None
            message = result.get("message")
            text_value = message.get("text") if isinstance(message, dict) else None
            help_uri = rule_meta.get("helpUri")
            maker.add(
                Entry(
                    file,
                    line,
                    col,
                    rule,
                    "error" if level == "error" else "warning",
                    str(text_value or rule),
                    end=end,
                    fixable=bool(result.get("fixes")),
                    docs_url=help_uri if isinstance(help_uri, str) else None,
                )
            )
    return maker.batch()
