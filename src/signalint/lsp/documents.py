"""The documents a client has open, and which of them Signalint checks.

A document is checked when its URI names a file the CLI would check: a
`file:` path inside the project root (after symlinks), not ignored by the
project's settings, not a link out of the root; `targets.from_root` decides,
with the settings, as it does for every front end. Any other document is
left alone: no diagnostics, no message (an editor opens many files outside
the project). A buffer is "dirty" from its first change until it is saved
or closed.

`MAX_DOCUMENT_CHARS` bounds one document's text: a change that would make
it longer is refused by name (the server answers it with a message), the
document closed to Signalint until it is opened again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from signalint.lsp.convert import path_of
from signalint.pipeline.targets import from_root
from signalint.project.paths import PathRefused
from signalint.settings.config import Config

# lsp.maxDocumentChars: the longest text of one open document.
MAX_DOCUMENT_CHARS: Final = 8 * 1024 * 1024


class DocumentTooLarge(ValueError):
    """A document whose text would pass `MAX_DOCUMENT_CHARS`."""

    def __init__(self, uri: str, chars: int) -> None:
        super().__init__(
            f"{uri}: {chars} characters exceed the limit lsp.maxDocumentChars "
            f"({MAX_DOCUMENT_CHARS}); Signalint leaves this document unchecked"
        )


@dataclass(slots=True)
class Document:
    """One open document that Signalint checks."""

    uri: str
    file: str  # project-relative
    version: int | None
    text: str
    dirty: bool = False
    lines: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lines = self.text.splitlines()

    def set_text(self, text: str, version: int | None) -> None:
        self.text = text
        self.version = version
        self.lines = text.splitlines()


def project_file(root: Path, config: Config, uri: str) -> str | None:
    """The project-relative file `uri` names when the CLI would check it, else None."""
    path = path_of(uri)
    if path is None:
        return None
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(root) or real == root:
        return None
    relative = path.relative_to(root) if path.is_relative_to(root) else real.relative_to(root)
    try:
        return from_root(root, config)(relative.as_posix())
    except PathRefused:
        return None


def check_size(uri: str, text: str) -> None:
    """Raise `DocumentTooLarge` when `text` passes the limit."""
    if len(text) > MAX_DOCUMENT_CHARS:
        raise DocumentTooLarge(uri, len(text))


__all__ = ["MAX_DOCUMENT_CHARS", "Document", "DocumentTooLarge", "check_size", "project_file"]
