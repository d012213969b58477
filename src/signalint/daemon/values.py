"""The values a daemon's `check` exchanges: a `CheckRequest` in, a
`service.Checked` out (docs/architecture.md, "The daemon").

Both travel as pickles (protocol 5) inside a `daemon.wire` message,
base64-encoded: the two ends run the same code (the client's stamp of the
installed sources must be the daemon's, or the daemon answers `stale`), the
socket is private (mode 0600, both ends check the peer's uid), so the
values are whole and exact, with nothing to keep in step between an
encoder and a decoder. What does not travel is what belongs to the asking
process: the request's progress sink (the daemon sends progress frames
instead) and its `locate` function: the client turns its user paths into
project-relative targets itself (`targets.targets_of`, refusals raised
where they are asked), and the daemon locates those from the root.
"""

from __future__ import annotations

import base64
import copyreg
import dataclasses
import pickle
import types
from typing import Any

from signalint.model import UnpickledIssues
from signalint.pipeline.request import CheckRequest, no_progress
from signalint.pipeline.targets import targets_of
from signalint.service.check_service import Checked


def read_only(mapping: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    """A read-only view of `mapping` (how a pickled `MappingProxyType` is rebuilt)."""
    return types.MappingProxyType(mapping)


def _mapping_proxy(value: types.MappingProxyType[Any, Any]) -> tuple[Any, tuple[Any, ...]]:
    return read_only, (dict(value),)


# The configuration keeps read-only mappings (`types.MappingProxyType`),
# which pickle does not know: they travel as the dict they show.
copyreg.pickle(types.MappingProxyType, _mapping_proxy)


# The answers this process reads share the issues equal to the last one's
# (`model.UnpickledIssues`).
_ISSUES = UnpickledIssues()


class BadValue(Exception):
    """A value on the wire that is not what was expected (the reason is the message)."""


def _pack(value: object) -> str:
    return base64.b64encode(pickle.dumps(value, protocol=5)).decode("ascii")


def _unpack(text: object, expected: type[Any]) -> Any:
    if not isinstance(text, str):
        raise BadValue(f"expected a packed {expected.__name__}, got {type(text).__name__}")
    try:
        value = pickle.loads(base64.b64decode(text.encode("ascii"), validate=True))
    except Exception as exc:  # a damaged value: any error of the unpickler
        raise BadValue(f"not a packed {expected.__name__}: {exc}") from None
    if not isinstance(value, expected):
        raise BadValue(f"expected a {expected.__name__}, got {type(value).__name__}")
    return value


def portable(request: CheckRequest) -> CheckRequest:
    """`request` as the daemon can run it: its paths located here (raises
    `PathRefused` with the index of a refused one, as in-process), no
    progress sink and no `locate` function."""
    paths: tuple[str, ...] = tuple(request.paths)
    if paths and not request.packages and request.changed is None:
        paths = tuple(targets_of(paths, request.locator))
    return dataclasses.replace(request, paths=paths, locate=None, progress=no_progress)


def pack_request(request: CheckRequest) -> str:
    """The wire form of a `portable` request."""
    return _pack(request)


def unpack_request(text: object) -> CheckRequest:
    request: CheckRequest = _unpack(text, CheckRequest)
    return request


def pack_answer(checked: Checked) -> str:
    return _pack(checked)


def unpack_answer(text: object) -> Checked:
    with _ISSUES.reading():
        checked: Checked = _unpack(text, Checked)
    return checked


def pack_error(exc: Exception) -> str:
    """An exception the check raised, for the client to raise as in-process
    (`PathRefused`, `GitError`, `WorkspaceError`, ...); one that does not
    survive the trip travels as a `RuntimeError` naming it."""
    try:
        text = _pack(exc)
        pickle.loads(base64.b64decode(text))
    except Exception:
        return _pack(RuntimeError(f"{type(exc).__name__}: {exc}"))
    return text


def unpack_error(text: object) -> Exception:
    error: Exception = _unpack(text, Exception)
    return error
