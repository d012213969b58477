"""Preview, apply and discard of full-file fix transactions (reference
"Preview & apply transactions", D9).

A preview stages caller-supplied replacements in memory (at most
`PREVIEW_MAX` of them, each for `PREVIEW_TTL_S` seconds) after checking
every path: project-relative, inside the root, no symlink anywhere on the
way (the deepest existing ancestor of a new file included), not inside
`.git`, `node_modules` or the state directory, and the current content
equal to `originalContent` (an empty `originalContent` for a file that
does not exist creates it). Nothing is written. It answers with the
reference's fields plus a bounded unified diff per file.

`apply` checks everything again (a concurrent writer after the preview
gets `file_drift_detected` and nothing is written) and writes through the
journal (`signalint.kept.fix_journal`), so the files end all-old or all-new even if
the process is killed. Mode bits are kept.

Refusals are `TransactionRefused` with the reference's codes; front ends
render them (the MCP tools, `signalint fix`).
"""

from __future__ import annotations

import difflib
import os
import posixpath
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from signalint import wording
from signalint.errors import SignalintError
from signalint.kept import fix_journal as journal
from signalint.project.ignores import ALWAYS_SKIPPED
from signalint.project.paths import PathRefused, refuse_malformed, safe_relative
from signalint.steps import Step, Words

PREVIEW_MAX: Final = 20
PREVIEW_TTL_S: Final = 15 * 60.0
MAX_PATCHES: Final = 1000
DIFF_FILE_CHARS: Final = 8_000
DIFF_TOTAL_CHARS: Final = 40_000
_GONE_LIMIT: Final = 1000


class TransactionRefused(SignalintError):
    """A preview or apply that will not happen; `code` is the reference's code.

    `field` names the argument at fault; `files` the project files at fault
    (drift); `status` is "stale" for an unknown or expired transaction.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        field: str | None = None,
        files: Sequence[str] = (),
        status: Literal["error", "stale"] = "error",
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.files = list(files)
        self.status = status


@dataclass(frozen=True, slots=True)
class Patch:
    """One full-file replacement, `file` project-relative (normalized)."""

    file: str
    original: str
    patched: str
    description: str | None = None

    @property
    def creates(self) -> bool:
        return self.original == "" and self.patched != ""


@dataclass(frozen=True, slots=True)
class Prepared:
    """A staged transaction."""

    transaction_id: str
    patches: tuple[Patch, ...]
    created_at: float


def new_transaction_id() -> str:
    return "tx-" + secrets.token_hex(8)


# ------------------------------------------------------------------ paths


def locate(root: Path, user_path: str, field: str = "file") -> str:
    """The project-relative form of a file a patch may write, or `TransactionRefused`.

    Existing or not; refused: malformed (empty, NUL, leading '-'), absolute,
    escaping the root, inside .git/node_modules/.signalint, a symlink on any
    component (target or ancestor), an existing ancestor that is no
    directory, or a target that is a directory.
    """
    try:
        refuse_malformed(user_path)
        if os.path.isabs(user_path) or "\\" in user_path:
            raise PathRefused(user_path, "give a path relative to the project root with '/'")
        norm = posixpath.normpath(user_path)
        if norm in (".", "..") or norm.startswith("../"):
            raise PathRefused(user_path, "it escapes the project root or names the root")
        parts = norm.split("/")
        skipped = ALWAYS_SKIPPED.intersection(parts)
        if skipped:
            raise PathRefused(user_path, f"it is inside {sorted(skipped)[0]}, never a fix target")
        real_root = Path(os.path.realpath(root))
        existing = "."
        for depth in range(1, len(parts) + 1):
            prefix = "/".join(parts[:depth])
            full = real_root / prefix
            if full.is_symlink():
                raise PathRefused(
                    user_path, f"{prefix} is a symlink; fixes never write through one"
                )
            if not full.exists():
                break
            existing = prefix
            if depth < len(parts) and not full.is_dir():
                raise PathRefused(user_path, f"{prefix} is not a directory")
        safe_relative(real_root, existing)  # the shared containment check
        if (real_root / norm).is_dir():
            raise PathRefused(user_path, "it is a directory")
        return norm
    except PathRefused as exc:
        raise TransactionRefused("path_refused", f"{field}: {exc}", field=field) from exc


def _current(root: Path, file: str) -> str | None:
    """The UTF-8 text of `file`, None if it does not exist."""
    path = root / file
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "\ufffd" + data.decode("utf-8", "replace")  # never equal to a preview


def drifted(root: Path, patches: Sequence[Patch]) -> list[str]:
    """Files whose current content is not the patch's original content."""
    bad: list[str] = []
    for patch in patches:
        current = _current(root, patch.file)
        expected_missing = patch.original == ""
        if current is None:
            if not expected_missing:
                bad.append(patch.file)
        elif current != patch.original:
            bad.append(patch.file)
    return bad


def _drift_refusal(files: list[str]) -> TransactionRefused:
    shown = ", ".join(files[:10]) + (f" and {len(files) - 10} more" if len(files) > 10 else "")
    return TransactionRefused(
        "file_drift_detected",
        f"Current content differs from originalContent (or is not UTF-8 text) for {shown}; "
        "nothing was written. Read the files again and preview new patches.",
        files=files,
    )


def make_patches(root: Path, raw: Sequence[dict[str, Any]]) -> tuple[Patch, ...]:
    """Validated patches from tool arguments `patches[]` (paths, duplicates, drift)."""
    if not raw:
        raise TransactionRefused("invalid_arguments", "patches: give at least one patch")
    if len(raw) > MAX_PATCHES:
        raise TransactionRefused(
            "invalid_arguments", f"patches: at most {MAX_PATCHES} per transaction", field="patches"
        )
    seen: dict[str, int] = {}
    patches: list[Patch] = []
    for index, item in enumerate(raw):
        field = f"patches[{index}].file"
        file = locate(root, str(item["file"]), field)
        if file in seen:
            raise TransactionRefused(
                "invalid_arguments",
                f"{field}: {file} is already patched by patches[{seen[file]}]; "
                "give one full replacement per file",
                field=field,
            )
        seen[file] = index
        description = item.get("description")
        patches.append(
            Patch(file, str(item["originalContent"]), str(item["patchedContent"]), description)
        )
    bad = drifted(root, patches)
    if bad:
        raise _drift_refusal(bad)
    return tuple(patches)


# ------------------------------------------------------------------ store


class TransactionStore:
    """Staged transactions of one process: the newest `max_count`, each for `ttl_s`.

    Remembers why an id is gone (expired, applied, discarded, rolled back),
    so an apply can say so instead of "unknown".
    """

    def __init__(
        self,
        max_count: int = PREVIEW_MAX,
        ttl_s: float = PREVIEW_TTL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.max_count = max_count
        self.ttl_s = ttl_s
        self._clock = clock
        self._items: OrderedDict[str, Prepared] = OrderedDict()
        self._gone: OrderedDict[str, str] = OrderedDict()

    def _forget(self, transaction_id: str, why: str) -> None:
        self._items.pop(transaction_id, None)
        self._gone[transaction_id] = why
        while len(self._gone) > _GONE_LIMIT:
            self._gone.popitem(last=False)

    def _prune(self) -> None:
        cutoff = self._clock() - self.ttl_s
        for prepared in list(self._items.values()):
            if prepared.created_at <= cutoff:
                self._forget(prepared.transaction_id, "expired")
        while len(self._items) > self.max_count:
            oldest = next(iter(self._items))
            self._forget(oldest, f"evicted (only the newest {self.max_count} previews are kept)")

    def put(self, patches: tuple[Patch, ...]) -> Prepared:
        prepared = Prepared(new_transaction_id(), patches, self._clock())
        self._items[prepared.transaction_id] = prepared
        self._prune()
        return prepared

    def get(self, transaction_id: str, words: Words) -> Prepared:
        """The staged transaction, or a stale `TransactionRefused` saying why not
        (`words` words the step that stages one)."""
        self._prune()
        found = self._items.get(transaction_id)
        if found is not None:
            return found
        why = self._gone.get(transaction_id)
        if why is None:
            raise TransactionRefused(
                "transaction_unknown",
                f"No preview has transactionId {transaction_id[:40]!r} in this process; "
                f"{words(Step('preview'))}.",
                field="transactionId",
                status="stale",
            )
        code = (
            "transaction_expired" if why.startswith(("expired", "evicted")) else "transaction_gone"
        )
        raise TransactionRefused(
            code,
            f"Transaction {transaction_id[:40]!r} was {why}; preview the patches again.",
            field="transactionId",
            status="stale",
        )

    def discard(self, transaction_id: str, why: str = "discarded") -> bool:
        self._prune()
        if transaction_id not in self._items:
            return False
        self._forget(transaction_id, why)
        return True

    def __len__(self) -> int:
        self._prune()
        return len(self._items)


# ------------------------------------------------------------------ preview


def _diff(patch: Patch) -> tuple[str, int, int]:
    """(unified diff, lines added, lines removed) of one patch."""
    old = patch.original.splitlines(keepends=True)
    new = patch.patched.splitlines(keepends=True)
    before = "/dev/null" if patch.creates else f"a/{patch.file}"
    lines = list(difflib.unified_diff(old, new, before, f"b/{patch.file}", n=3))
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)  # fmt: skip
    return text, added, removed


def _cut(text: str, limit: int) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    end = text.rfind("\n", 0, limit)
    return text[: end + 1 if end > 0 else limit], True


def preview_payload(prepared: Prepared, words: Words) -> dict[str, Any]:
    """A preview's answer (reference fields + diffs); `words` words how to apply it."""
    items: list[dict[str, Any]] = []
    budget = DIFF_TOTAL_CHARS
    cut = 0
    total_added = total_removed = 0
    for patch in prepared.patches:
        text, added, removed = _diff(patch)
        total_added += added
        total_removed += removed
        shown, truncated = _cut(text, min(DIFF_FILE_CHARS, max(budget, 0)))
        budget -= len(shown)
        item: dict[str, Any] = {"file": patch.file}
        if patch.description is not None:
            item["description"] = patch.description
        item |= {
            "originalLength": len(patch.original),
            "patchedLength": len(patch.patched),
            "newFile": patch.creates,
            "linesAdded": added,
            "linesRemoved": removed,
            "diff": shown,
        }
        if truncated:
            item["diffTruncated"] = True
            cut += 1
        items.append(item)
    count = len(prepared.patches)
    summary = (
        f"{wording.count(count, 'file')} staged (+{total_added} -{total_removed} "
        f"lines); nothing written. {words(Step('apply'))}"
    )
    payload: dict[str, Any] = {
        "transactionId": prepared.transaction_id,
        "filesCount": count,
        "summary": summary,
        "status": "pending",
        "patchesPreview": items,
        "expiresInSeconds": int(PREVIEW_TTL_S),
    }
    if cut:
        payload["note"] = (
            f"{wording.count(cut, 'diff', 'was cut')} (diffTruncated); apply writes exactly the "
            "patchedContent that was sent."
        )
    return payload


# ------------------------------------------------------------------ apply


def preflight(root: Path, prepared: Prepared) -> None:
    """Check paths and content again, right before writing; raises `TransactionRefused`."""
    for index, patch in enumerate(prepared.patches):
        locate(root, patch.file, f"patches[{index}].file")
    bad = drifted(root, prepared.patches)
    if bad:
        raise _drift_refusal(bad)


def write(root: Path, prepared: Prepared) -> list[str]:
    """Preflight, then write every patch through the journal; the files modified.

    Raises `TransactionRefused`: drift or a refused path (nothing written),
    or `transaction_aborted_and_rolled_back` (a write failed; every file was
    put back) / `transaction_aborted` (a write failed and the undo too: the
    next start of signalint finishes it from the journal).
    """
    preflight(root, prepared)
    writes = []
    for patch in prepared.patches:
        if patch.original == patch.patched:
            continue
        original = None if _current(root, patch.file) is None else patch.original.encode()
        writes.append(journal.Write(patch.file, patch.patched.encode(), original))
    try:
        journal.write_all(root, prepared.transaction_id, writes)
    except journal.Drifted as exc:
        raise _drift_refusal(exc.files) from exc
    except journal.JournalError as exc:
        if exc.undone:
            raise TransactionRefused(
                "transaction_aborted_and_rolled_back",
                f"A write failed ({exc}); every file was put back.",
            ) from exc
        raise TransactionRefused(
            "transaction_aborted",
            f"A write failed ({exc}) and so did the undo; the journal undoes it at the next "
            "start of signalint or signalint-mcp.",
        ) from exc
    return [w.file for w in writes]


__all__ = [
    "PREVIEW_MAX",
    "PREVIEW_TTL_S",
    "Patch",
    "Prepared",
    "TransactionRefused",
    "TransactionStore",
    "drifted",
    "locate",
    "make_patches",
    "preflight",
    "preview_payload",
    "write",
]
