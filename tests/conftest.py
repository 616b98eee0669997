"""Session fixtures shared by every test folder; shared helper code is in tests/helpers."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import build_roots

from lmms_comparative.benchmarks.subtlebench.fixture import build as build_subtlebench


@pytest.fixture(scope="session")
def hf_home(tmp_path_factory) -> Path:
    """An isolated, offline Hugging Face cache for every subprocess of the session."""
    return tmp_path_factory.mktemp("hf_home")


@pytest.fixture(scope="session")
def subtlebench_root(tmp_path_factory) -> Path:
    return build_subtlebench(tmp_path_factory.mktemp("subtlebench"), per_category=4)


@pytest.fixture(scope="session")
def fixture_roots(tmp_path_factory) -> dict[str, Path]:
    """The five benchmarks' default fixtures, keyed by root variable (built once per session)."""
    return build_roots(tmp_path_factory.mktemp("five"))
