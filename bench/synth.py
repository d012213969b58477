"""Generate a synthetic strict TypeScript project for benchmarks.

Each file imports the previous one and carries a few type errors and unused
variables, so every engine has real work and real diagnostics.
"""

from __future__ import annotations

import json
from pathlib import Path

TEMPLATE = """import {{ value{prev} }} from "./file{prev:05d}";

export const value{index}: number = value{prev} + {index};

export function compute{index}(input: number): string {{
  const unusedLocal{index} = input * 2;
  let result: number = "not a number";
  result = input + value{index};
  return result;
}}
"""

FIRST = """export const value0: number = 0;

export function compute0(input: number): number {
  const unusedLocal0 = input;
  return input;
}
"""


def generate(root: Path, files: int) -> Path:
    """Write a project of `files` TypeScript files under `root` and return it."""
    src = root / "src"
    src.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(json.dumps({"name": "synth", "private": True}) + "\n")
    (root / "tsconfig.json").write_text(
        json.dumps(
            {
                "compilerOptions": {
                    "target": "ES2022",
                    "module": "ESNext",
                    "moduleResolution": "Bundler",
                    "strict": True,
                    "noUnusedLocals": True,
                    "skipLibCheck": True,
                    "noEmit": True,
                    "types": [],
                },
                "include": ["src"],
            },
            indent=2,
        )
        + "\n"
    )
    (root / ".oxlintrc.json").write_text('{"rules": {"no-unused-vars": "error"}}\n')
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": True, "tsc": True, "biome": False, "eslint": False}})
        + "\n"
    )
    (src / "file00000.ts").write_text(FIRST)
    for index in range(1, files):
        (src / f"file{index:05d}.ts").write_text(TEMPLATE.format(index=index, prev=index - 1))
    return root
