"""Data helpers every benchmark's loader shares: item checks, JSON lines, data roots. Each
benchmark's own loader lives in its folder (``lmms_comparative/benchmarks/<name>/data.py``)."""

from lmms_comparative.failures import DataError

__all__ = ["DataError"]
