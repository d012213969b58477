"""Column conversion: every Issue column is a 1-based UTF-16 code-unit column.

tsc and ESLint already count UTF-16 code units (JavaScript string indices),
as do SARIF and LSP by default. Oxlint reports UTF-8 byte offsets and Biome
counts code points, so their columns are converted using the file's text;
when the file cannot be read the engine's own numbers are kept.
"""

from __future__ import annotations

from pathlib import Path


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class SourceText:
    """A project file's text, read lazily once, for column conversion;
    `data`: the text the engine says it read (then the file is not read)."""

    def __init__(self, root: Path, rel_path: str, data: bytes | None = None) -> None:
        self._path = root / rel_path
        self._data: bytes | None = data
        self._loaded = data is not None
        self._lines: list[str] | None = None
        self._ascii: bool | None = None

    def data(self) -> bytes | None:
        if not self._loaded:
            self._loaded = True
            try:
                self._data = self._path.read_bytes()
            except OSError:
                self._data = None
        return self._data

    def lines(self) -> list[str] | None:
        if self._lines is None:
            data = self.data()
            if data is None:
                return None
            self._lines = data.decode("utf-8", errors="replace").split("\n")
        return self._lines

    def offset_to_position(self, offset: int) -> tuple[int, int] | None:
        """1-based (line, UTF-16 column) of a UTF-8 byte offset, if the file is readable."""
        data = self.data()
        if data is None or offset < 0 or offset > len(data):
            return None
        line_start = data.rfind(b"\n", 0, offset) + 1
        line = data.count(b"\n", 0, offset) + 1
        if self._ascii is None:
            self._ascii = data.isascii()
        if self._ascii:  # bytes are code units: no decoding needed
            return line, offset - line_start + 1
        prefix = data[line_start:offset].decode("utf-8", errors="replace")
        return line, _utf16_len(prefix) + 1

    def codepoint_to_utf16(self, line: int, col: int) -> int:
        """Convert a 1-based code-point column on `line` to a UTF-16 column."""
        lines = self.lines()
        if lines is None or line < 1 or line > len(lines) or col < 1:
            return col
        text = lines[line - 1]
        return _utf16_len(text[: col - 1]) + 1 + max(0, col - 1 - len(text))
