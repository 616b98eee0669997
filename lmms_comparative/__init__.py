"""lmms-comparative: fine-grained, multi-image perception benchmarks as lmms-eval tasks."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"


def yaml_dir() -> str:
    """The folder that holds every benchmark's task YAMLs (``benchmarks/<name>/yaml/``): what
    ``lmms-eval --include_path`` takes (lmms-eval walks it recursively)."""
    return str(Path(__file__).resolve().parent / "benchmarks")
