"""Pure parts of the incremental layer: tsc config chains, issue round trips."""

from __future__ import annotations

from pathlib import Path

from signalint.cache.issue_codec import dump_issues, load_issues
from signalint.engines.registry import ENGINES
from signalint.engines.resolve import package_version
from signalint.engines.tsc.program import config_chain as _tsc_configs
from signalint.model import Issue


def test_tsc_chain_follows_local_extends_and_references(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "base.json").write_text('{"compilerOptions": {"strict": true}}')
    (tmp_path / "pkg" / "tsconfig.json").write_text('{"extends": "../base.json"}')
    (tmp_path / "tsconfig.json").write_text(
        '{"files": [], // a solution root\n "references": [{"path": "./pkg"}]}'
    )
    assert _tsc_configs(tmp_path, "tsconfig.json") == [
        "tsconfig.json",
        "pkg/tsconfig.json",
        "base.json",
    ]


def test_tsc_chain_is_unprovable_with_package_extends_or_unreadable_configs(
    tmp_path: Path,
) -> None:
    (tmp_path / "tsconfig.json").write_text('{"extends": "@tsconfig/strictest"}')
    assert _tsc_configs(tmp_path, "tsconfig.json") is None
    (tmp_path / "tsconfig.json").write_text('{"extends": "./base.json"}')
    (tmp_path / "base.json").write_text("{ not json")
    assert _tsc_configs(tmp_path, "tsconfig.json") is None
    (tmp_path / "tsconfig.json").write_text('{"references": [{"path": "./sub"}]}')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "tsconfig.json").write_text('{"extends": "some-package/tsconfig"}')
    assert _tsc_configs(tmp_path, "tsconfig.json") is None


def test_cached_issues_round_trip_with_their_ids() -> None:
    issues = [
        Issue("tsc", "src/a.ts", 3, 7, "TS2322", "error", "Type 'x'\n  is wrong", end_line=3),
        Issue(
            "oxlint",
            "src/b.js",
            1,
            1,
            "eslint(no-debugger)",
            "warning",
            "m",
            fixable=True,
            docs_url="https://example.invalid/rule",
            help="remove it",
        ),
    ]
    restored = load_issues(dump_issues(issues))
    assert restored == issues
    assert [i.issue_id for i in restored] == [i.issue_id for i in issues]


def test_package_version_reads_the_owning_manifest(tmp_path: Path) -> None:
    bin_dir = tmp_path / "node_modules" / "oxlint" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "oxlint").write_text("#!/bin/sh\n")
    (bin_dir.parent / "package.json").write_text('{"name": "oxlint", "version": "1.94.0"}')
    oxlint, eslint = ENGINES["oxlint"].spec.provision, ENGINES["eslint"].spec.provision
    assert package_version(str(bin_dir / "oxlint"), oxlint) == "1.94.0"
    assert package_version(str(bin_dir / "oxlint"), eslint) is None
