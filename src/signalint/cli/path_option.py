"""The type of every option that takes a file or folder path."""

from __future__ import annotations

from typing import Any

import click


class PathOption(click.Path):
    """click's `Path` for a file or folder option, refusing a value with a
    NUL byte as a usage error that names the option (click's own type
    hands it to `os.stat`, which raises `ValueError`: an internal error)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and "\0" in value:
            self.fail("a path cannot contain a NUL byte", param, ctx)
        return super().convert(value, param, ctx)
