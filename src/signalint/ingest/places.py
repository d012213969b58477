"""Where an ingested diagnostic is: its file through path containment, its position clamped.

Paths come from models and from other tools' reports, so they are
untrusted: every one goes through `project.paths.safe_relative` (no escapes, no
symlinks out of the root, no NUL, no leading dash). Accepted spellings are
project-relative paths, `file://` URIs and (for tool reports, which print
them) absolute paths inside the root. A file that no longer exists may
still be named to clear it, but never one outside the root.

Positions end as the model's: 1-based lines, 1-based UTF-16 columns,
clamped to the file's text when it can be read (a language server may
speak of a line the file no longer has).
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from urllib.parse import unquote, urlsplit

from signalint.engines.positions import SourceText
from signalint.ingest import ReportError
from signalint.project.paths import PathRefused, safe_relative


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2 if not text.isascii() else len(text)


class Places:
    """Resolves the files and positions of one batch (cached per file).

    `absolute` allows absolute paths inside the root (tool reports);
    without it only project-relative paths and `file://` URIs are accepted
    (what the MCP tools accept elsewhere). `base` is the directory relative
    paths start from (default: the root).
    """

    def __init__(self, root: Path, *, absolute: bool = False, base: Path | None = None) -> None:
        self.root = root
        self.absolute = absolute
        # Relative paths of a tool's report are relative to where it ran
        # (the CLI's working directory); None: to the root.
        self.base = None if base is None or Path(base) == Path(root) else Path(base)
        self._real_root = os.path.realpath(root)
        self._files: dict[tuple[str, bool], str] = {}
        self._texts: dict[str, SourceText] = {}
        self._line_cache: dict[str, list[str] | None] = {}

    def file(self, value: object, where: str, *, must_exist: bool = True) -> str:
        """The project-relative path of `value`, or `ReportError` naming `where`."""
        if not isinstance(value, str) or not value:
            raise ReportError(where, "expected a non-empty path or file:// URI")
        key = (value, must_exist)
        found = self._files.get(key)
        if found is None:
            found = self._files[key] = self._locate(value, where, must_exist)
        return found

    def _locate(self, value: str, where: str, must_exist: bool) -> str:
        path = value
        from_uri = False
        if "://" in value[:16] or value.startswith(("file:", "untitled:")):
            path, from_uri = self._uri_path(value, where), True
        elif self.base is not None and not os.path.isabs(path):
            path, from_uri = os.path.join(self.base, path), True
        if os.path.isabs(path):
            if not (from_uri or self.absolute):
                raise ReportError(
                    where,
                    "absolute paths are not accepted; give a project-relative path "
                    "or a file:// URI",
                )
            path = self._inside(path, value, where)
        try:
            return safe_relative(self.root, path)
        except PathRefused as exc:
            if must_exist or exc.reason != "no such file or directory":
                raise ReportError(where, f"path {value[:200]!r} refused: {exc.reason}") from exc
            # Naming a deleted file clears it; containment was checked lexically
            # (safe_relative refused escapes before it looked for the file).
            return posixpath.normpath(path)

    def _uri_path(self, value: str, where: str) -> str:
        parts = urlsplit(value)
        if parts.scheme.lower() != "file":
            raise ReportError(where, f"only file:// URIs are accepted, got {parts.scheme!r}:")
        if parts.netloc not in ("", "localhost"):
            raise ReportError(where, f"a file:// URI on host {parts.netloc!r} is not local")
        path = unquote(parts.path)
        if "\0" in path:
            raise ReportError(where, "the URI contains a NUL character")
        return path

    def _inside(self, path: str, value: str, where: str) -> str:
        """An absolute path as a project-relative one, if it is inside the root."""
        norm = posixpath.normpath(path)
        for base in (str(self.root), self._real_root):
            if norm == base:
                return "."
            if norm.startswith(base.rstrip("/") + "/"):
                return norm[len(base.rstrip("/")) + 1 :]
        real = os.path.realpath(norm)
        if real.startswith(self._real_root.rstrip("/") + "/"):
            return real[len(self._real_root.rstrip("/")) + 1 :]
        raise ReportError(where, f"path {value[:200]!r} refused: it is outside the project root")

    def text(self, file: str) -> SourceText:
        found = self._texts.get(file)
        if found is None:
            found = self._texts[file] = SourceText(self.root, file)
        return found

    def _lines(self, file: str) -> list[str] | None:
        if file not in self._line_cache:
            self._line_cache[file] = self.text(file).lines()
        return self._line_cache[file]

    def clamp(self, file: str, line: int, col: int) -> tuple[int, int]:
        """1-based (line, UTF-16 column) kept inside the file's text when it is readable."""
        line = line if line > 1 else 1
        col = col if col > 1 else 1
        lines = self._lines(file)
        if lines:
            if line > len(lines):
                line = len(lines)
            text = lines[line - 1]
            # A line's UTF-16 length is at least its length in code points, so
            # only a column past that needs the exact width.
            if col > len(text) + 1:
                width = _utf16_len(text.rstrip("\r")) + 1
                if col > width:
                    col = width
        return line, col

    def span(
        self, file: str, start: tuple[int, int], end: tuple[int, int] | None
    ) -> tuple[int, int, int | None, int | None]:
        """`clamp` of a 1-based start and optional end; an end before the start is the start."""
        line, col = self.clamp(file, *start)
        if end is None:
            return line, col, None, None
        end_line, end_col = self.clamp(file, *end)
        if (end_line, end_col) < (line, col):
            end_line, end_col = line, col
        return line, col, end_line, end_col

    def codepoint_col(self, file: str, line: int, col: int) -> int:
        """A 1-based code-point column on `line` as a 1-based UTF-16 column."""
        return self.text(file).codepoint_to_utf16(line, col)


__all__ = ["Places"]
