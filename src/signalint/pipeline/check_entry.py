"""The pipeline's one entry for a front end's request (`check`).

The check service hands a `CheckRequest` to `check` and gets one
`Answered` back; the pipeline's stages are called from here, in order:
the request validated once (`request.resolve`: the revision, the
workspace and package names, the targets), the run of what it resolved
to with the request's progress (`check_run.run_check`: plan, tasks,
assembly), and, for a request with `since`, the same check at that
revision and the issues divided against it (`at_revision.new_since`).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from signalint.cache.context import Context
from signalint.pipeline.at_revision import NewSince, new_since
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.request import CheckRequest, RunRequest, resolve


@dataclass(frozen=True, slots=True)
class Answered:
    """What the pipeline answers a front end's `CheckRequest` (`check`):
    what the request resolved to (`selected`), the run, the revision its
    `since` names and the comparison with it (`compared`; both None
    without one), and how long that comparison took (`compared_s`: the
    check's latency leaves it out)."""

    selected: RunRequest
    run: CheckRun
    revision: str | None = None
    compared: NewSince | None = None
    compared_s: float = 0.0


async def check(request: CheckRequest, context: Context) -> Answered:
    """Answer `request` with `context`'s memory (module docstring)."""
    selected, revision = await resolve(request)
    async with request.progress(request.config.enabled_engines) as report:
        run = await run_check(dataclasses.replace(selected, progress=report), context)
    since = request.since
    if since is None:
        return Answered(selected, run)
    assert revision is not None  # `resolve` names the revision of every `since`
    started = time.monotonic()
    compared = await new_since(selected, run, revision, since.option, context)
    return Answered(selected, run, revision, compared, time.monotonic() - started)


__all__ = ["Answered", "check"]
