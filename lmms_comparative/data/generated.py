"""Data this package made up, told apart from a copy of a release: ``lmms-comparative fixture``
(``Benchmark.build_fixture``) and ``lmms-comparative synthetic`` (``subtlebench/synthetic.py``)
leave a marker file at the data root, beside the official layout; the provenance record of a run on
that root carries it (``tasks.<task>.data.generated``), and ``subsets.subset_of`` and the report
read it there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

from lmms_comparative.data import untrusted

MARKER = ".lmms_comparative_generated.json"
FIXTURE, SYNTHETIC = "fixture", "synthetic"
# What made the data, as the report and the export notes name it.
MAKERS = {
    FIXTURE: "lmms-comparative fixture (a small test copy in the release's layout)",
    SYNTHETIC: "lmms-comparative synthetic (the paper's synthetic difference types, generated here)",
}


def mark(root: str | Path, kind: str, benchmark: str, **details) -> Path:
    """Write the marker at ``root``: what made the data (``kind``: fixture or synthetic), for which
    benchmark, and ``details`` (sizes, the seed). No timestamp: the same data, the same fingerprint."""
    if kind not in MAKERS:
        raise ValueError(f"unknown kind of generated data {kind!r}: {', '.join(MAKERS)}")
    path = Path(root) / MARKER
    untrusted.write_file(
        path, json.dumps({"generated": kind, "benchmark": benchmark, **details}, sort_keys=True) + "\n"
    )
    return path


def read(root: str | Path | None) -> dict | None:
    """The marker at ``root`` ({"generated": kind, "benchmark", ...}), or None (no marker, or not
    one this package wrote)."""
    if not root:
        return None
    try:
        found = json.loads((Path(root) / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and found.get("generated") in MAKERS else None


def maker(generated: dict | None) -> str | None:
    """Who made the data a record's ``generated`` entry describes, in words; None for a release copy."""
    if not isinstance(generated, dict):
        return None
    # A marker's maker is any JSON value: one that is none of ``MAKERS``' names is this package's.
    return MAKERS.get(cast(str, generated.get("generated")), f"this package ({generated.get('generated')})")
