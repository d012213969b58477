"""ESLint's JSON report (`eslint --format json`, or `json-with-metadata`) -> `Batch`.

An array of `{filePath (absolute), messages: [{ruleId, severity 1|2,
message, line, column, endLine, endColumn, fix?, fatal?}]}`; positions are
1-based UTF-16 already. `json-with-metadata` wraps it as `{results,
metadata: {rulesMeta}}`, whose `docs.url` becomes the docs URL. A file with
no message is named, so its earlier diagnostics are cleared.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from signalint.ingest import Batch
from signalint.ingest.common import Entry, Maker, expect, load, number


def _docs(report: Any) -> dict[str, str]:
    meta = report.get("metadata") if isinstance(report, dict) else None
    rules = meta.get("rulesMeta") if isinstance(meta, dict) else None
    if not isinstance(rules, dict):
        return {}
    urls = {}
    for rule, info in rules.items():
        docs = info.get("docs") if isinstance(info, dict) else None
        if isinstance(docs, dict) and isinstance(docs.get("url"), str):
            urls[str(rule)] = docs["url"]
    return urls


def parse(text: str, root: Path, base: Path | None = None) -> Batch:
    report = load(text, "ESLint")
    docs = _docs(report)
    results = report.get("results") if isinstance(report, dict) else report
    results = expect(results, list, "report", "a JSON array (eslint --format json)")
    maker = Maker("eslint", root, base)
    for index, raw in enumerate(results):
        where = f"[{index}]"
        result = expect(raw, dict, where, "a result object {filePath, messages}")
        file = maker.file(result.get("filePath"), f"{where}.filePath")
        messages = expect(result.get("messages", []), list, f"{where}.messages", "an array")
        for inner, item in enumerate(messages):
            at = f"{where}.messages[{inner}]"
            message = expect(item, dict, at, "a message object")
            rule = message.get("ruleId") or ("parse-error" if message.get("fatal") else "eslint")
            end = None
            if message.get("endLine") is not None:
                end = (
                    number(message["endLine"], f"{at}.endLine"),
                    number(message.get("endColumn"), f"{at}.endColumn", 1),
                )
            maker.add(
                Entry(
                    file,
                    number(message.get("line"), f"{at}.line", 1),
                    number(message.get("column"), f"{at}.column", 1),
                    str(rule),
                    "error" if message.get("severity") == 2 else "warning",
                    str(message.get("message") or ""),
                    end=end,
                    fixable=isinstance(message.get("fix"), dict),
                    docs_url=docs.get(str(rule)),
                )
            )
    return maker.batch()
