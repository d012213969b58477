from __future__ import annotations

from pathlib import Path

from signalint.engines.adapter_paths import configs_upward, extends_chain, load_jsonc, project_path
from signalint.engines.positions import SourceText


def test_project_path_relativizes_and_drops_node_modules(tmp_path: Path) -> None:
    assert project_path(tmp_path, "src/a.ts") == "src/a.ts"
    assert project_path(tmp_path, str(tmp_path / "src" / "b.ts")) == "src/b.ts"
    assert project_path(tmp_path, "./src/../src/c.ts") == "src/c.ts"
    assert project_path(tmp_path, "packages/x/node_modules/y/index.d.ts") is None
    assert project_path(tmp_path, "../sibling/a.ts") == "../sibling/a.ts"
    assert project_path(tmp_path, "") is None


def test_jsonc_comments_and_trailing_commas_outside_strings(tmp_path: Path) -> None:
    config = tmp_path / "c.json"
    config.write_text('{\n  // note\n  "a": "//kept, }", /* x */ "b": [1, 2, // z\n  ],\n}\n')
    assert load_jsonc(config) == {"a": "//kept, }", "b": [1, 2]}
    config.write_text("{ broken")
    assert load_jsonc(config) is None


def test_configs_upward_and_extends_chain_stay_inside_the_root(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "biome.json").write_text("{}")
    (tmp_path / "a" / "biome.json").write_text('{"extends": ["./shared.json", "pkg/config"]}')
    (tmp_path / "a" / "shared.json").write_text('{"extends": "../../outside.json"}')
    found = configs_upward(tmp_path, "a/b/file.ts", ("biome.json", "biome.jsonc"))
    assert found == ["a/biome.json", "biome.json"]
    assert extends_chain(tmp_path, found) == ["a/biome.json", "biome.json", "a/shared.json"]


def test_source_text_converts_offsets_and_code_points_to_utf16(tmp_path: Path) -> None:
    (tmp_path / "f.js").write_text('x\nconst s = "é😀"; y;\n', encoding="utf-8")
    text = SourceText(tmp_path, "f.js")
    y_offset = len('x\nconst s = "é😀"; '.encode())
    assert text.offset_to_position(y_offset) == (2, 18)  # é is 1 unit, 😀 is 2
    assert text.codepoint_to_utf16(2, 17) == 18
    assert SourceText(tmp_path, "gone.js").offset_to_position(3) is None
    assert SourceText(tmp_path, "gone.js").codepoint_to_utf16(1, 5) == 5
