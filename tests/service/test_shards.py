"""CI shards: `check --shard I/N` divides a check, `signalint merge` puts it back together.

The real tier checks three small projects with the pinned engines, whole
and in shards: examples/demo (Oxlint, Biome, ESLint per file, tsc on the
program), a Python project written here (Ruff per file, mypy and Pyright
on the program) and the pnpm workspace fixture (tsc per package). Every
run is `--no-cache`, so the whole check and its shards are measured alike.
The quick tier checks the division itself, the argument errors and
`merge`'s refusals on hand-built shard outputs.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from signalint import ids
from signalint.cli.main import main
from signalint.formats import json_format, sarif
from signalint.model import EngineOutcome, Failure, Issue
from signalint.pipeline.check_run import CheckRun
from signalint.pipeline.cluster import cluster
from signalint.pipeline.shards import Shard, ShardError, bucket, divide, parse
from signalint.pipeline.workspaces import Package
from signalint.service.shard_join import combine
from signalint.service.shard_report import block, issue_record, read_issue
from tests import factories
from tests.conftest import DEMO, require_engine
from tests.helpers import git

FIXTURES = Path(__file__).parents[1] / "fixtures"
SCHEMA = json.loads((FIXTURES / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

Run = Callable[..., tuple[int, str, str]]


def _validator() -> Any:
    return jsonschema.validators.validator_for(SCHEMA)(SCHEMA)


@pytest.fixture
def run_cli(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Run:
    # `merge` keeps its check in the project of the working directory: a
    # temporary one unless the test enters a project.
    monkeypatch.chdir(tmp_path)

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def _commit(root: Path) -> Path:
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fixture")
    return Path(os.path.realpath(root))


def _demo(tmp_path: Path) -> Path:
    for name in ("oxlint", "tsc", "biome", "eslint"):
        require_engine(name)
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".signalint", "node_modules"))
    return _commit(root)


def _python(tmp_path: Path) -> Path:
    for name in ("ruff", "mypy", "pyright"):
        require_engine(name)
    root = tmp_path / "py"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "shardy"\nversion = "0"\n\n[tool.mypy]\nstrict = true\n\n'
        "[tool.signalint]\nengines = { ruff = true, mypy = true, pyright = true }\n"
    )
    (root / "pkg" / "__init__.py").write_text("")
    for n in range(1, 8):
        # Ruff: unused imports; mypy and Pyright: a wrong return type, and a
        # call across modules so the program is one program.
        other = f"from pkg.m{n - 1} import f{n - 1}\n" if n > 1 else ""
        (root / "pkg" / f"m{n}.py").write_text(
            f"import os\nimport sys\n{other}\n\ndef f{n}(x: int) -> str:\n    return x + {n}\n"
        )
    (root / "tool.py").write_text("import json\n\nprint(undefined_name)\n")
    return _commit(root)


def _workspace(tmp_path: Path) -> Path:
    require_engine("tsc")
    root = tmp_path / "ws"
    shutil.copytree(FIXTURES / "workspace-pnpm", root)
    for dependent in ("app", "util"):
        link = root / "packages" / dependent / "node_modules" / "@ws" / "core"
        link.parent.mkdir(parents=True)
        link.symlink_to("../../../core", target_is_directory=True)
    (root / ".gitignore").write_text("node_modules/\n.signalint/\n")
    # Files outside every package are divided by hash, beside the packages.
    (root / "scripts").mkdir()
    (root / "scripts" / "tool.ts").write_text("export const n: number = 1;\n")
    return _commit(root)


PROJECTS = {"demo": _demo, "python": _python, "workspace": _workspace}


@pytest.fixture(params=sorted(PROJECTS))
def project(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    run_cli: Run,  # first: its change of directory must not undo this one's
) -> Iterator[Path]:
    for name in ("SIGNALINT_STATE_DIR", "SIGNALINT_MONOREPO_MODE", "SIGNALINT_COMPACT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    root = PROJECTS[request.param](tmp_path)
    monkeypatch.chdir(root)
    yield root


def _check(run_cli: Run, *args: str) -> tuple[int, str]:
    code, out, err = run_cli("check", "--no-cache", *args)
    assert code in (0, 1), err
    return code, out


def _shards(run_cli: Run, n: int, form: str, tmp: Path) -> list[Path]:
    paths = []
    for i in range(1, n + 1):
        _, out = _check(run_cli, "--shard", f"{i}/{n}", "--format", form)
        path = tmp / f"shard-{i}-of-{n}.{form}"
        path.write_text(out)
        paths.append(path)
    return paths


def _without_check_id(payload: dict[str, Any]) -> dict[str, Any]:
    """A JSON check payload without what is new in every check (its id)."""
    check_id = payload.pop("checkId")
    payload["nextStep"] = payload["nextStep"].replace(check_id, "<checkId>")
    return payload


def _without_run_ids(log: dict[str, Any]) -> dict[str, Any]:
    for run in log["runs"]:
        run["properties"].pop("signalintCheckId")
    return log


def _all_issues_of(run_cli: Run, *args: str) -> tuple[Counter[str], dict[str, Any]]:
    """Every issue of the whole check (its SARIF log lists them all) by id, and the log."""
    _, out = _check(run_cli, *args, "--format", "sarif")
    log = json.loads(out)
    ids = Counter(
        r["partialFingerprints"][sarif.FINGERPRINT_KEY]
        for run in log["runs"]
        for r in run["results"]
    )
    return ids, log


@pytest.mark.real
@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_shards_report_every_issue_of_the_whole_check_exactly_once(
    project: Path, run_cli: Run, tmp_path: Path, n: int
) -> None:
    whole, log = _all_issues_of(run_cli)
    assert whole, "the fixture has issues to divide"
    shards = [json.loads(p.read_text()) for p in _shards(run_cli, n, "json", tmp_path)]
    together: Counter[str] = Counter()
    records: dict[str, dict[str, Any]] = {}
    for shard in shards:
        for record in shard["shard"]["issues"]:
            together[record["issueId"]] += 1
            records[record["issueId"]] = record
    assert together == whole
    # The records are the whole check's issues, field for field.
    for run in log["runs"]:
        for result in run["results"]:
            record = records[result["partialFingerprints"][sarif.FINGERPRINT_KEY]]
            place = result["locations"][0]["physicalLocation"]
            assert (record["engine"], record["rule"], record["message"]) == (
                run["tool"]["driver"]["name"],
                result["ruleId"],
                result["message"]["text"],
            )
            assert record["line"] == place["region"]["startLine"]
    # Each engine's files are divided, none checked twice; each program
    # (or package program) runs in one shard.
    _, out = _check(run_cli, "--format", "json")
    engines = json.loads(out)["engines"]
    for name, entry in engines.items():
        checked = [s["engines"][name]["filesChecked"] for s in shards]
        assert sum(checked) == entry["filesChecked"], name
    if n > 1:
        busy = [s for s in shards if s["shard"]["filesInScope"]]
        assert len(busy) > 1, "the work is divided, not left in one shard"


@pytest.mark.real
@pytest.mark.parametrize("form", ["json", "sarif"])
def test_merging_the_shards_gives_the_whole_checks_output(
    project: Path, run_cli: Run, tmp_path: Path, form: str
) -> None:
    code, whole = _check(run_cli, "--format", form)
    paths = _shards(run_cli, 3, form, tmp_path)
    merged_code, out, err = run_cli("merge", *(str(p) for p in reversed(paths)))
    assert merged_code == code, err
    merged, expected = json.loads(out), json.loads(whole)
    if form == "json":
        assert _without_check_id(merged) == _without_check_id(expected)
        return
    assert _without_run_ids(merged) == _without_run_ids(expected)
    validator = _validator()
    validator.validate(merged)
    # Every run of every shard has its own automation id, and the merged
    # log's ids are the whole check's.
    ids = [
        run["automationDetails"]["id"]
        for path in paths
        for run in json.loads(path.read_text())["runs"]
    ]
    assert len(ids) == len(set(ids))
    assert all("/shard-" in i for i in ids)
    merged_ids = [run["automationDetails"]["id"] for run in merged["runs"]]
    assert len(merged_ids) == len(set(merged_ids))
    for path in paths:
        validator.validate(json.loads(path.read_text()))


@pytest.mark.real
@pytest.mark.parametrize("scope", ["paths", "changed"])
def test_shards_divide_exactly_what_the_same_scoped_check_covers(
    tmp_path: Path, run_cli: Run, monkeypatch: pytest.MonkeyPatch, scope: str
) -> None:
    root = _demo(tmp_path)
    monkeypatch.chdir(root)
    if scope == "changed":
        with (root / "src" / "legacy.js").open("a") as handle:
            handle.write("\nvar again = 1;\n")
        args = ["--changed"]
    else:
        args = ["src/cart.ts", "src/legacy.js"]
    whole, _ = _all_issues_of(run_cli, *args)
    _, out = _check(run_cli, *args)
    expected = json.loads(out)
    if scope == "paths":
        # tsc reports its whole program: the summed filtered-out count is tested too.
        assert expected["filteredOutIssueCount"] > 0
    paths = []
    together: Counter[str] = Counter()
    for i in (1, 2):
        _, shard = _check(run_cli, *args, "--shard", f"{i}/2")
        paths.append(tmp_path / f"{i}.json")
        paths[-1].write_text(shard)
        together.update(r["issueId"] for r in json.loads(shard)["shard"]["issues"])
    assert together == whole
    code, merged, err = run_cli("merge", *map(str, paths))
    assert code == 1, err
    assert _without_check_id(json.loads(merged)) == _without_check_id(expected)


@pytest.mark.real
@pytest.mark.parametrize("form", ["json", "sarif"])
@pytest.mark.parametrize("change", ["demo", "packages", "outside packages"])
def test_shards_compared_with_a_revision_merge_into_the_whole_checks_answer(
    tmp_path: Path, run_cli: Run, monkeypatch: pytest.MonkeyPatch, form: str, change: str
) -> None:
    root = PROJECTS["demo" if change == "demo" else "workspace"](tmp_path)
    monkeypatch.chdir(root)
    # New issues in two files, beside the ones already committed. In the
    # workspace a change inside packages is checked at the revision for
    # the packages it can affect; one outside every package affects all.
    edits = {
        "demo": ("src/user.ts", "src/cart.ts"),
        "packages": ("packages/util/src/index.ts", "packages/app/src/main.ts"),
        "outside packages": ("packages/util/src/index.ts", "scripts/tool.ts"),
    }[change]
    for name in edits:
        with (root / name).open("a") as handle:
            handle.write('export const late: string = 1 == 1 ? 1 : "b";\n')
    args = ("--new-from-rev", "HEAD", "--format", form)
    code, whole = _check(run_cli, *args)
    expected = json.loads(whole)
    paths = []
    for i in (1, 2, 3):
        _, out = _check(run_cli, *args, "--shard", f"{i}/3")
        paths.append(tmp_path / f"{i}.{form}")
        paths[-1].write_text(out)
    merged_code, out, err = run_cli("merge", *map(str, paths))
    assert merged_code == code, err
    merged = json.loads(out)
    if form == "json":
        assert expected["baseline"]["new"] > 0 and expected["baseline"]["unchanged"] > 0
        assert _without_check_id(merged) == _without_check_id(expected)
    else:
        states = Counter(r.get("baselineState") for run in expected["runs"] for r in run["results"])
        assert states["new"] > 0 and states["unchanged"] > 0
        assert _without_run_ids(merged) == _without_run_ids(expected)


def test_merge_refuses_shards_compared_with_different_revisions(
    tmp_path: Path, run_cli: Run
) -> None:
    issues = _some_issues()
    one = json.loads(_shard_output(issues[:3], 1, 2))
    two = json.loads(_shard_output(issues[3:], 2, 2))
    for data, commit in ((one, "a" * 40), (two, "b" * 40)):
        data["shard"]["baseline"] = {"rev": "HEAD", "commit": commit, "mergeBase": False}
        data["shard"]["unchangedIssueIds"] = []
        data["shard"]["elsewhereStates"] = {}
    first = _write(tmp_path, "one.json", json.dumps(one))
    code, _, err = run_cli("merge", first, _write(tmp_path, "two.json", json.dumps(two)))
    assert code == 2 and "two.json" in err and "b" * 40 in err
    del two["shard"]["baseline"]
    code, _, err = run_cli("merge", first, _write(tmp_path, "plain.json", json.dumps(two)))
    assert code == 2 and "one.json was checked against a revision" in err


@pytest.mark.real
def test_merge_writes_the_report_to_a_file_in_compact_keys(
    tmp_path: Path, run_cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(_demo(tmp_path))
    _, whole = _check(run_cli, "--compact")
    paths = []
    for i in (1, 2):
        _, out = _check(run_cli, "--compact", "--shard", f"{i}/2")
        paths.append(tmp_path / f"{i}.json")
        paths[-1].write_text(out)
    target = tmp_path / "merged.json"
    code, out, err = run_cli("merge", "--format", "json", "--output", str(target), *map(str, paths))
    assert code == 1 and out == "", err
    merged = json.loads(target.read_text())
    assert "projectRoot" not in merged and "v" in merged
    assert _without_check_id(merged) == _without_check_id(json.loads(whole))


# Quick tier: the division, the argument errors, the refusals.


@pytest.mark.parametrize("text", ["0/3", "3/2", "a/b", "1/0", "1", "-1/2", "1/2/3", ""])
def test_a_bad_shard_is_refused_naming_the_option_and_what_it_accepts(
    demo_copy: Path, run_cli: Run, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.chdir(demo_copy)
    code, out, err = run_cli("check", "--shard", text)
    assert code == 2 and out == ""
    assert "'--shard'" in err
    assert "1 <= I <= N" in err and repr(text) in err
    with pytest.raises(ShardError):
        parse(text)


def _paths(count: int) -> list[str]:
    return [f"src/dir{n % 7}/file{n}.ts" for n in range(count)]


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_every_file_and_package_belongs_to_exactly_one_shard(n: int) -> None:
    packages = [Package(f"p{k}", f"packages/p{k}") for k in range(4)]
    packages.append(Package("nested", "packages/p1/nested"))
    files = _paths(200) + [f"packages/p{k % 4}/f{k}.ts" for k in range(40)]
    files += ["packages/p1/nested/a.ts", "packages/p1/nested/b.ts"]
    divisions = [divide(Shard(i, n), packages, files) for i in range(1, n + 1)]
    for path in files:
        owners = [d.shard.index for d in divisions if d.owns_file(path)]
        assert len(owners) == 1, path
        package = next(
            (
                p
                for p in sorted(packages, key=lambda p: -len(p.path))
                if path.startswith(p.path + "/")
            ),
            None,
        )
        if package is not None:  # a package's files go with it
            assert divisions[owners[0] - 1].owns_package(package)
    for package in packages:
        assert sum(d.owns_package(package) for d in divisions) == 1
    for engine in ("tsc", "mypy", "pyright"):
        assert sum(d.owns_program(engine, ".") for d in divisions) == 1
    # The same inputs, in another order, divide the same way.
    again = [divide(Shard(i, n), packages[::-1], files[::-1]) for i in range(1, n + 1)]
    assert [d.packages for d in again] == [d.packages for d in divisions]


def test_packages_are_dealt_so_no_shard_gets_two_while_another_has_none() -> None:
    packages = [Package(f"p{k}", f"p{k}") for k in range(3)]
    files = [f"p{k}/f{j}.ts" for k in range(3) for j in range(k + 1)]
    owned = [divide(Shard(i, 3), packages, files).packages for i in (1, 2, 3)]
    assert sorted(len(o) for o in owned) == [1, 1, 1]


def test_the_file_hash_spreads_files_over_every_shard() -> None:
    spread = Counter(bucket(f"file:{p}", 4) for p in _paths(400))
    assert set(spread) == {1, 2, 3, 4}
    assert min(spread.values()) > 50


def _shard_output(
    issues: Sequence[Issue],
    i: int,
    n: int,
    *,
    form: str = "json",
    targets: tuple[str, ...] = (".",),
    engines: Sequence[str] = ("oxlint",),
    elsewhere: Sequence[Issue] = (),
) -> str:
    """A hand-built shard output, as `check --shard i/n` writes it."""
    outcomes = {e: EngineOutcome(e, "ok", files_checked=len(issues)) for e in engines}
    result = dataclasses.replace(
        factories.result(issues),
        outcomes=outcomes,
        files_in_scope=len(issues),
        whole_project=False,  # as a shard's result is
    )
    run = CheckRun(
        result,
        0,
        len(issues),
        shard=Shard(i, n),
        parts=frozenset(engines),
        elsewhere=tuple(elsewhere),
    )
    shard = block(run, targets, None, None, with_issues=form == "json")
    if form == "sarif":
        return sarif.render(result, shard=shard)
    payload = json.loads(json_format.render(result, cluster(result.issues)))
    return json_format.dump({**payload, "shard": shard})


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _some_issues() -> list[Issue]:
    return [factories.issue(f"src/f{k}.ts", line=k + 1) for k in range(6)]


@pytest.mark.parametrize("form", ["json", "sarif"])
def test_merge_of_hand_built_shards_equals_the_whole_result(
    tmp_path: Path, run_cli: Run, form: str
) -> None:
    issues = _some_issues()
    parts = [issues[:2], issues[2:3], issues[3:]]
    paths = [
        _write(tmp_path, f"{i}.{form}", _shard_output(part, i, 3, form=form))
        for i, part in enumerate(parts, start=1)
    ]
    code, out, err = run_cli("merge", *paths)
    assert code == 1, err
    merged = json.loads(out)
    # The whole check these shards divide: every issue, the files summed.
    whole = dataclasses.replace(
        factories.result(issues),
        outcomes={"oxlint": EngineOutcome("oxlint", "ok", files_checked=len(issues))},
        fingerprint=ids.fingerprint(i.issue_id for i in issues),
        files_in_scope=len(issues),
    )
    if form == "json":
        expected = json.loads(json_format.render(whole, cluster(whole.issues)))
        assert _without_check_id(merged) == _without_check_id(expected)
    else:
        expected = json.loads(sarif.render(whole))
        assert _without_run_ids(merged) == _without_run_ids(expected)
        assert merged["runs"][0]["automationDetails"]["id"] == "signalint/oxlint/"
        _validator().validate(merged)


def test_merge_refuses_inputs_that_are_not_the_shards_of_one_check(
    tmp_path: Path, run_cli: Run
) -> None:
    issues = _some_issues()
    one = _write(tmp_path, "one.json", _shard_output(issues[:3], 1, 2))
    two = _write(tmp_path, "two.json", _shard_output(issues[3:], 2, 2))
    cases: list[tuple[list[str], list[str]]] = [
        ([one], ["shard 2 of 2 is missing"]),
        ([one, one, two], ["one.json", "both shard 1 of 2"]),
        (
            [one, _write(tmp_path, "three.json", _shard_output(issues, 2, 3))],
            ["three.json", "of 3"],
        ),
        (
            [one, _write(tmp_path, "s.sarif", _shard_output(issues[3:], 2, 2, form="sarif"))],
            ["s.sarif", "one format"],
        ),
        (
            [one, _write(tmp_path, "x.json", '{"hello": 1}')],
            ["x.json", "not a Signalint check output"],
        ),
        ([one, _write(tmp_path, "t.txt", "src/a.ts:1:1 oops\n")], ["t.txt", "not JSON"]),
        ([one, str(tmp_path / "absent.json")], ["absent.json", "cannot be read"]),
        (
            [
                one,
                _write(
                    tmp_path,
                    "whole.json",
                    json_format.render(factories.result(issues), cluster(issues)),
                ),
            ],
            ["whole.json", "whole check, not of a shard"],
        ),
        (
            [
                one,
                _write(tmp_path, "other.json", _shard_output(issues[3:], 2, 2, targets=("src",))),
            ],
            ["other.json", "other paths"],
        ),
        (
            [
                one,
                _write(tmp_path, "eng.json", _shard_output(issues[3:], 2, 2, engines=("biome",))),
            ],
            ["eng.json", "other engines"],
        ),
        (["--format", "sarif", one, two], ["one.json", "not sarif"]),
    ]
    for args, words in cases:
        code, out, err = run_cli("merge", *args)
        assert code == 2 and out == "", (args, err)
        for word in words:
            assert word in err, (args, err)


def test_merge_refuses_a_shard_block_with_a_forged_issue(tmp_path: Path, run_cli: Run) -> None:
    issues = _some_issues()
    data = json.loads(_shard_output(issues[:3], 1, 2))
    data["shard"]["issues"][0]["line"] += 1
    forged = _write(tmp_path, "forged.json", json.dumps(data))
    two = _write(tmp_path, "two.json", _shard_output(issues[3:], 2, 2))
    code, _, err = run_cli("merge", forged, two)
    assert code == 2
    assert "forged.json" in err and "shard.issues[0].issueId" in err


def test_a_shard_record_keeps_every_field_of_its_issue() -> None:
    full = factories.issue(
        end_line=4,
        end_col=2,
        docs_url="https://x",
        help="h",
        fixable=True,
        also_reported_by=("eslint",),
    )
    again = read_issue(issue_record(full), "issue")
    assert again == full and again.also_reported_by == ("eslint",)


def test_an_issue_only_another_shards_program_reported_is_merged_once(
    tmp_path: Path, run_cli: Run
) -> None:
    issues = _some_issues()
    # Shard 2's program reported issues[0] and issues[5] in files shard 1
    # owns; shard 1 reported issues[0] itself, issues[5] it did not.
    one = _write(tmp_path, "1.json", _shard_output(issues[:3], 1, 2))
    two = _write(
        tmp_path,
        "2.json",
        _shard_output(issues[3:5], 2, 2, elsewhere=[issues[0], issues[5]]),
    )
    code, out, err = run_cli("merge", one, two)
    assert code == 1, err
    merged = json.loads(out)
    assert merged["totalIssues"] == len(issues)
    expected = ids.fingerprint(i.issue_id for i in issues)
    assert merged["fingerprint"] == expected


@pytest.mark.real
def test_merge_sums_what_the_shared_store_did_for_each_shard(
    tmp_path: Path, run_cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(_demo(tmp_path / "checkout"))
    store = tmp_path / "store"
    store.mkdir()
    monkeypatch.setenv("SIGNALINT_REMOTE_CACHE", store.as_uri().replace("file:", "fs:", 1))
    monkeypatch.setenv("SIGNALINT_REMOTE_CACHE_KEY", "k" * 40)
    paths, counts = [], Counter[str]()
    for i in (1, 2):
        code, out, err = run_cli("check", "--shard", f"{i}/2")
        assert code in (0, 1), err
        shard = json.loads(out)
        assert shard["remoteCache"] == shard["shard"]["remoteCache"]
        counts.update(shard["remoteCache"])
        paths.append(tmp_path / f"{i}.json")
        paths[-1].write_text(out)
    assert counts["writes"] > 0, "the shards wrote to the shared store"
    _, out, err = run_cli("merge", *map(str, paths))
    merged = json.loads(out)
    assert merged["remoteCache"] == {key: counts[key] for key in merged["remoteCache"]}
    assert set(merged["remoteCache"]) == set(counts)


def test_an_engines_outcome_is_combined_from_the_shards_where_it_had_work() -> None:
    ok = EngineOutcome("tsc", "ok", files_checked=3, cache_hits=1, cache_misses=2)
    idle = EngineOutcome("tsc", "ok", message="its program is checked by shard 1 of 2")
    missing = EngineOutcome(
        "tsc", "disabled", message="not installed", failure=Failure("missing", "install it")
    )
    failed = EngineOutcome("tsc", "error", message="timed out", files_checked=1)
    # Only the shards with work count: an idle shard's outcome is not the engine's.
    assert combine("tsc", [idle, ok], [False, True]) == ok
    summed = combine("tsc", [ok, ok], [True, True])
    assert (summed.status, summed.files_checked, summed.cache_hits, summed.cache_misses) == (
        "ok",
        6,
        2,
        4,
    )
    assert combine("tsc", [ok, failed], [True, True]).status == "error"
    assert combine("tsc", [ok, failed], [True, True]).message == "timed out"
    both_missing = combine("tsc", [missing, missing], [True, True])
    assert (both_missing.status, both_missing.message) == ("disabled", "not installed")
    assert both_missing.failure == missing.failure
    # Ran in one shard, missing in the other: not a full check.
    assert combine("tsc", [ok, missing], [True, True]).status == "error"
    # No shard had work: every shard says the same, the first one stands.
    assert combine("tsc", [idle, idle], [False, False]) == idle


def test_merge_reads_one_shard_from_stdin(
    tmp_path: Path, run_cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    issues = _some_issues()
    one = _write(tmp_path, "1.json", _shard_output(issues[:2], 1, 2))
    monkeypatch.setattr("sys.stdin", io.StringIO(_shard_output(issues[2:], 2, 2)))
    code, out, err = run_cli("merge", one, "-")
    assert code == 1, err
    assert json.loads(out)["totalIssues"] == len(issues)


def test_files_and_programs_land_where_docs_ci_md_says() -> None:
    def h(key: str, n: int) -> int:
        return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") % n + 1

    for n in (2, 3, 7):
        divisions = [divide(Shard(i, n), (), ()) for i in range(1, n + 1)]
        for path in _paths(50):
            assert [d.shard.index for d in divisions if d.owns_file(path)] == [h(f"file:{path}", n)]
        for engine in ("tsc", "mypy"):
            owner = [d.shard.index for d in divisions if d.owns_program(engine, ".")]
            assert owner == [h(f"program:{engine}:.", n)]
