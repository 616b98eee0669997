"""lmms-comparative: fine-grained, multi-image perception benchmarks as lmms-eval tasks."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"


def yaml_dir() -> str:
    """The folder of our task YAMLs: what ``lmms-eval --include_path`` takes."""
    return str(Path(__file__).resolve().parent / "yaml")
