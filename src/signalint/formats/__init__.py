"""Output formats for a completed check (D13): json, text, github, sarif.

Every writer module exposes `render(result, clustering, **opts) -> str`,
returning the whole document ending in a newline. Modules are imported on
demand so that a command which prints nothing (e.g. `--version`) never
pays for them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from signalint.model import CheckResult
    from signalint.pipeline.cluster import Clustering

FORMAT_MODULES: dict[str, str] = {
    "json": "signalint.formats.json_format",
    "text": "signalint.formats.text",
    "github": "signalint.formats.github",
    "sarif": "signalint.formats.sarif",
}
FORMATS: tuple[str, ...] = tuple(FORMAT_MODULES)


def render(name: str, result: CheckResult, clustering: Clustering, **opts: Any) -> str:
    """Render with the writer called `name`; unknown names raise ValueError.

    Options each writer does not understand raise TypeError, so pass only
    what the chosen format documents.
    """
    try:
        module_name = FORMAT_MODULES[name]
    except KeyError:
        raise ValueError(f"unknown format {name!r}; expected one of {', '.join(FORMATS)}") from None
    writer = import_module(module_name)
    text: str = writer.render(result, clustering, **opts)
    return text
