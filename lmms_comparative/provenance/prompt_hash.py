"""The prompt hash of a task (``prompts_sha256``): a sha256 of the text its prompts come from."""

from __future__ import annotations

import hashlib
from pathlib import Path

GENERATED_LINE = b"# Generated from "  # the first line benchmarks/generate.py writes


def prompts_sha256(benchmark_package: str, yaml_path: str | None) -> str:
    """A sha256 of the benchmark's ``prompts.py`` and the task's YAML (with the templates it
    includes from the same folder), the text a task's prompts come from."""
    import importlib.util

    digest = hashlib.sha256()
    spec = importlib.util.find_spec(f"{benchmark_package}.prompts")
    templates = sorted(Path(yaml_path).parent.glob("_*_yaml")) if yaml_path else []
    for path in ([spec.origin] if spec and spec.origin else []) + ([yaml_path] if yaml_path else []) + templates:
        digest.update(_prompt_text(Path(path)))
    return digest.hexdigest()


def _prompt_text(path: Path) -> bytes:
    """A file's bytes without the task file generator's first line (where it comes from, not what it asks)."""
    data = path.read_bytes()
    return data.split(b"\n", 1)[1] if data.startswith(GENERATED_LINE) and b"\n" in data else data
