"""MCP handlers of the fix transactions: preview, apply, discard, suggest (D9).

The transaction logic is `signalint.features.transactions` (paths, drift, store,
journal); here are the reference's answer shapes and codes, the baseline
rules of apply, the post-check, and `verify` on a shadow copy.

Apply refusals before any write (`confirm: false`, an unknown or expired
baseline, drift, a refused path) leave the preview staged, as in the
reference; a rolled-back apply and a successful one consume it.
"""

from __future__ import annotations

import time
from typing import Any, Final

from signalint import ids
from signalint.features.transactions import Prepared, TransactionRefused, TransactionStore
from signalint.model import Issue
from signalint.pipeline.snapshot import Snapshot
from signalint.server.check_tools import SendProgress
from signalint.server.payload import Reply
from signalint.server.refusals import ToolRefusal, refusal
from signalint.server.state import ServerState
from signalint.server.words import tool_words
from signalint.wording import count

NO_BASELINE: Final = "No baselineCheckId provided; baseline delta was not requested."
# A check id whose time is this recent is one we made: gone means expired.
_EXPIRED_WINDOW_S: Final = 30 * 24 * 3600.0


def _refused(exc: TransactionRefused, **extra: Any) -> ToolRefusal:
    data: dict[str, Any] = {"status": exc.status, "code": exc.code, "message": exc.message}
    if exc.field is not None:
        data["field"] = exc.field
    if exc.files:
        data["files"] = exc.files
    data.update(extra)
    return ToolRefusal(data, exc.message)  # type: ignore[arg-type]


def _transactions(state: ServerState) -> TransactionStore:
    return state.transactions


async def preview_diagnostic_fix(
    state: ServerState, args: dict[str, Any], send: SendProgress
) -> Reply:
    from signalint.features.transactions import make_patches, preview_payload

    try:
        patches = make_patches(state.root, args["patches"])
    except TransactionRefused as exc:
        raise _refused(exc) from exc
    prepared = _transactions(state).put(patches)
    data = preview_payload(prepared, tool_words)
    if args.get("verify") is True:
        data["verification"] = await verify(state, prepared, send)
    return Reply(data, str(data["summary"]))


async def verify(state: ServerState, prepared: Prepared, send: SendProgress) -> dict[str, Any]:
    """The delta the patch would cause: the files checked now, and in a shadow
    copy of the project with the patch applied (nothing written in the project)."""
    from signalint.daemon import client
    from signalint.engines.registry import engine_cache_dirs
    from signalint.features.delta import compare
    from signalint.pipeline.shadow import shadow_copy
    from signalint.service import check_service as service
    from signalint.settings.config import ConfigError

    files = [p.file for p in prepared.patches]
    existing = [f for f in files if (state.root / f).exists()]
    try:
        config = state.config()
        before = None
        if existing:
            before = await client.check(
                service.CheckRequest(
                    state.root, config, existing, locate=service.from_root(state.root),
                    kind="files",
                ),
                service.Services(state.context), kind="mcp", start=True,
            )  # fmt: skip
        replace = {p.file: p.patched.encode() for p in prepared.patches}
        with shadow_copy(state.root, replace, skip=engine_cache_dirs()) as shadow:
            after = await service.check(
                service.CheckRequest(
                    shadow, config, files, locate=service.from_root(shadow), kind="files",
                    use_cache=False,
                ),
            )  # fmt: skip
    except ConfigError as exc:
        return {"status": "error", "message": f"verification did not run: {exc}"}
    except Exception as exc:  # verification is advisory: the preview stands without it
        from signalint.server.refusals import sanitize

        message = sanitize(str(exc) or type(exc).__name__, state.root)
        return {"status": "error", "message": f"verification did not run: {message}"}
    engines = {n: o.status for n, o in after.result.outcomes.items()}
    result: dict[str, Any] = {"status": "verified", "engines": engines}
    if before is None:
        result["totalIssuesAfter"] = len(after.result.issues)
        result["message"] = "Only new files: every issue they would have is new."
        return result
    delta = compare(before.snapshot, after.snapshot, summarize=True, words=tool_words)
    result["delta"] = {k: v for k, v in delta.items() if k not in ("nextStep",)}
    if any(status != "ok" for status in engines.values()):
        result["message"] = "Some engines did not run ok on the patched copy; see engines."
    return result


def _baseline(state: ServerState, baseline_id: str, prepared: Prepared) -> Any:
    """The retained baseline snapshot, or the reference's refusal (nothing written)."""
    snap = state.snapshot(baseline_id)
    if snap is not None:
        return snap
    made = ids.check_id_time(baseline_id)
    now = time.time()
    expired = made is not None and now - _EXPIRED_WINDOW_S <= made <= now + 60
    code = "baseline_snapshot_expired" if expired else "baseline_check_unknown"
    what = "has expired (snapshots are kept" if expired else "is unknown (no retained check"
    message = (
        f"baselineCheckId {baseline_id[:40]!r} {what}); nothing was written and the preview "
        "is still staged. Run check_project for a fresh baseline and apply again."
    )
    raise ToolRefusal(
        {
            "status": "error",
            "code": code,
            "message": message,
            "field": "baselineCheckId",
            "transactionId": prepared.transaction_id,
            "filesModified": [],
        },  # type: ignore[typeddict-unknown-key]
        message,
    )


async def apply_diagnostic_fix(
    state: ServerState, args: dict[str, Any], send: SendProgress
) -> Reply:
    from signalint.features.transactions import write

    store = _transactions(state)
    tx_id = args["transactionId"]
    try:
        prepared = store.get(tx_id, tool_words)
    except TransactionRefused as exc:
        raise _refused(exc, transactionId=tx_id, filesModified=[]) from exc
    if args["confirm"] is not True:
        message = "confirm is false: nothing was written; the preview stays staged."
        raise ToolRefusal(
            {
                "status": "error",
                "code": "confirmation_required",
                "message": message,
                "field": "confirm",
                "transactionId": tx_id,
                "filesModified": [],
            },  # type: ignore[typeddict-unknown-key]
            message,
        )
    baseline_id = args.get("baselineCheckId")
    baseline = None if baseline_id is None else _baseline(state, baseline_id, prepared)
    try:
        modified = write(state.root, prepared)
    except TransactionRefused as exc:
        if exc.code.startswith("transaction_aborted"):
            store.discard(tx_id, "rolled back")
            status = "rolled_back" if exc.code.endswith("rolled_back") else "error"
            raise _refused(exc, transactionId=tx_id, filesModified=[], status=status) from exc
        raise _refused(exc, transactionId=tx_id, filesModified=[]) from exc
    store.discard(tx_id, "applied")
    data: dict[str, Any] = {"status": "success", "transactionId": tx_id, "filesModified": modified}
    summary = f"Applied patches to {count(len(modified), 'file')}."
    if not modified:
        data["message"] = "Every patch equals the current content: nothing to write."
        return Reply(data, summary)
    data |= await _post_check(state, modified, baseline, send)
    if baseline is None:
        data["message"] = NO_BASELINE
    return Reply(data, summary + " " + str(data.get("message", "")).strip())


async def _post_check(
    state: ServerState, files: list[str], baseline: Any, send: SendProgress
) -> dict[str, Any]:
    from signalint.features.delta import compare
    from signalint.server import check_tools as checking

    try:
        answer = await checking.run(state, files, field="files", kind="files", send=send)
    except ToolRefusal as exc:
        # The writes stand (they are the transaction); the check is separate.
        return {
            "postCheckError": {"code": exc.data["code"], "message": exc.data["message"]},
            "message": "The files were written; the post-check failed: " + str(exc.data["message"]),
        }
    result: dict[str, Any] = {
        "postCheckId": answer.snapshot.check_id,
        "postCheck": {
            "status": answer.full["status"],
            "totalIssues": answer.full["totalIssues"],
        },
    }
    if baseline is not None:
        result["delta"] = compare(baseline, answer.snapshot, summarize=True, words=tool_words)
    return result


async def discard_diagnostic_fix(
    state: ServerState, args: dict[str, Any], send: SendProgress
) -> Reply:
    tx_id = args["transactionId"]
    discarded = _transactions(state).discard(tx_id)
    data = {"transactionId": tx_id, "discarded": discarded}
    return Reply(data, "Preview discarded." if discarded else "No such staged preview.")


async def suggest_fix(state: ServerState, args: dict[str, Any], send: SendProgress) -> Reply:
    from signalint.features.engine_fixes import FixRefused, suggest
    from signalint.features.transactions import preview_payload
    from signalint.pipeline.snapshot import find_references

    issue_ids, cluster_id = args.get("issueIds"), args.get("clusterId")
    if (issue_ids is None) == (cluster_id is None):
        from signalint.server.refusals import field_refusal

        raise field_refusal("issueIds", "give exactly one of issueIds or clusterId")
    snap = state.retained(args["checkId"])
    found = []
    if cluster_id is not None:
        found = find_references(snap, cluster_id=cluster_id)
        if not found:
            raise refusal(
                "stale", f"clusterId {cluster_id[:40]!r} matches nothing in that check",
                status="stale", field="clusterId",
            )  # fmt: skip
    else:
        for index, issue_id in enumerate(issue_ids or []):
            matches = find_references(snap, issue_id=issue_id)
            if not matches:
                raise refusal(
                    "stale", f"issueIds[{index}] {issue_id[:40]!r} matches nothing in that check",
                    status="stale", field=f"issueIds[{index}]",
                )  # fmt: skip
            found.extend(matches)
    try:
        config = state.config()
        suggestion = await suggest(state.root, config, found)
    except FixRefused as exc:
        raise refusal(exc.code, exc.message) from exc
    except TransactionRefused as exc:
        raise _refused(exc) from exc
    if not suggestion.patches:
        data: dict[str, Any] = {
            "status": "no_fix",
            "message": suggestion.explain(),
            "engines": suggestion.engines,
        }
        if suggestion.not_fixable:
            data["notFixable"] = _short(snap, found, suggestion.not_fixable)
        return Reply(data, data["message"])
    prepared = _transactions(state).put(suggestion.patches)
    data = preview_payload(prepared, tool_words)
    data["engines"] = suggestion.engines
    if suggestion.not_fixable:
        data["notFixable"] = _short(snap, found, suggestion.not_fixable)
    return Reply(data, str(data["summary"]))


def _short(snap: Snapshot, issues: list[Issue], full_ids: list[str]) -> list[str]:
    """The ids a reader of the check knows (short ids) of the issues `full_ids`."""
    wanted = set(full_ids)
    return list(dict.fromkeys(snap.short_id(i) for i in issues if i.issue_id in wanted))
