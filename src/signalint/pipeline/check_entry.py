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
from typing import TYPE_CHECKING

from signalint import ids
from signalint.cache.context import Context
from signalint.model import CheckResult
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.cluster import Clustering, cluster
from signalint.pipeline.request import CheckRequest, RunRequest, resolve
from signalint.pipeline.snapshot import Snapshot

if TYPE_CHECKING:
    from signalint.pipeline.at_revision import NewSince


@dataclass(frozen=True, slots=True)
class Answered:
    """What the pipeline answers a front end's `CheckRequest` (`check`):
    what the request resolved to (`selected`), the run, its issues
    clustered, the errors its edit broke or moved in other files
    (`dependents`, None when there are none), the revision its `since`
    names and the comparison with it (`compared`; both None without one),
    and how long that comparison took (`compared_s`: the check's latency
    leaves it out)."""

    selected: RunRequest
    run: CheckRun
    clustering: Clustering
    dependents: Snapshot | None = None
    revision: str | None = None
    compared: NewSince | None = None
    compared_s: float = 0.0


async def check(request: CheckRequest, context: Context) -> Answered:
    """Answer `request` with `context`'s memory (module docstring)."""
    selected, revision = await resolve(request)
    async with request.progress(request.config.enabled_engines) as report:
        run = await run_check(dataclasses.replace(selected, progress=report), context)
    issues = run.result.issues
    clustering = context.derived(issues, "clustering", lambda: cluster(issues))
    dependents = _dependents(run)
    since = request.since
    if since is None:
        return Answered(selected, run, clustering, dependents)
    assert revision is not None  # `resolve` names the revision of every `since`
    # Loaded by the requests that compare with a revision only: the others start sooner.
    from signalint.pipeline.at_revision import new_since

    started = time.monotonic()
    compared = await new_since(selected, run, revision, since.option, context)
    elapsed = time.monotonic() - started
    return Answered(selected, run, clustering, dependents, revision, compared, elapsed)


def _dependents(run: CheckRun) -> Snapshot | None:
    """The errors `run`'s edit broke or moved elsewhere (`Ripple.now`) as a
    retained check of their files (whole-program engines' outcomes only,
    nothing filtered out), or None."""
    found = run.ripple.now
    if not found:
        return None
    engines = {issue.engine for issue in found}
    files = tuple(sorted({issue.file for issue in found}))
    result = CheckResult(
        check_id=ids.new_check_id(),
        fingerprint=ids.fingerprint({issue.issue_id: issue for issue in found}),
        project_root=run.result.project_root,
        outcomes={name: o for name, o in run.result.outcomes.items() if name in engines},
        issues=found,
        created_at=time.time(),
        files_in_scope=len(files),
        whole_project=False,
    )
    return Snapshot(result, cluster(found), files, "files")


__all__ = ["Answered", "check"]
