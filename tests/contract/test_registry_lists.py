"""What lists the benchmarks outside the registry is checked against it: the README's task table
names every registered benchmark, links its README and covers each of its task families."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from lmms_comparative.registry import BENCHMARKS

README = Path(__file__).resolve().parents[2] / "README.md"


def _expand(token: str) -> list[str]:
    """``a_{b,c}`` -> ``a_b``, ``a_c`` (every brace group)."""
    parts = re.split(r"(\{[^}]*\})", token)
    choices = [p[1:-1].split(",") if p.startswith("{") else [p] for p in parts]
    return ["".join(c) for c in itertools.product(*choices)]


def _pattern(name: str) -> re.Pattern:
    """A table name as a pattern: ``<relativity>`` and ``*`` stand for any name part."""
    return re.compile(re.sub(r"<[^>]*>|\\\*", "[a-z0-9_]+", re.escape(name)))


def task_table_rows() -> dict[str, str]:
    """The README task table's rows by the README they link (benchmarks/<name>/README.md)."""
    rows = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        found = re.match(r"\| \[[^\]]+\]\(lmms_comparative/benchmarks/([a-z0-9]+)/README\.md\) \|(.*)\|$", line)
        if found:
            rows[found.group(1)] = found.group(2)
    return rows


def test_the_readme_task_table_covers_every_registered_benchmark_and_family():
    rows = task_table_rows()
    assert set(rows) == {b.name for b in BENCHMARKS}, "the README's task table and the registry differ"
    for benchmark in BENCHMARKS:
        names = [n for token in re.findall(r"`([^`]+)`", rows[benchmark.name]) for n in _expand(token)]
        patterns = [_pattern(n) for n in names]
        missing = [f for f in benchmark.task_families if not any(p.fullmatch(f) for p in patterns)]
        assert not missing, f"README task table, {benchmark.name}: no entry for {missing}"


def test_the_table_check_catches_a_missing_family():
    names = _expand("captionqa_{simple,short}") + ["compbench_<relativity>"]
    assert names == ["captionqa_simple", "captionqa_short", "compbench_<relativity>"]
    assert _pattern("compbench_<relativity>").fullmatch("compbench_attribute")
    assert not any(_pattern(n).fullmatch("captionqa_long") for n in names)


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "adding-a-benchmark.md"
TOYS = [Path(__file__).resolve().parent / name for name in ("toymcq", "toyjudge")]


def test_the_guides_code_is_the_toys_code():
    """Every Python and YAML block of docs/adding-a-benchmark.md is an excerpt of the toy
    benchmarks' files, which the contract tests run: the guide cannot show code that does not work."""
    text = GUIDE.read_text(encoding="utf-8")
    for language, suffix, at_least in (("python", "py", 6), ("yaml", "yaml", 1)):
        blocks = re.findall(rf"```{language}\n(.*?)```", text, re.S)
        toys = "\n".join(p.read_text(encoding="utf-8") for toy in TOYS for p in sorted(toy.rglob(f"*.{suffix}")))
        assert len(blocks) >= at_least, language
        for block in blocks:
            assert block.strip() in toys, block


PACKAGE = Path(__file__).resolve().parents[2] / "lmms_comparative"
MAX_MODULE_LINES = 400
MAX_README_BYTES = 12 * 1024


def _over_400_lines(root: Path) -> dict[str, int]:
    """The Python files under ``root`` longer than MAX_MODULE_LINES, with their lengths."""
    return {
        str(p.relative_to(root)): n
        for p in root.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }


def test_no_package_module_is_over_400_lines():
    long = _over_400_lines(PACKAGE)
    assert not long, f"split these modules (at most {MAX_MODULE_LINES} lines): {long}"


TESTS = Path(__file__).resolve().parents[1]


def test_no_test_module_is_over_400_lines():
    long = _over_400_lines(TESTS)
    assert not long, f"split these test modules (at most {MAX_MODULE_LINES} lines): {long}"


def test_the_readme_stays_short():
    size = len(README.read_bytes())
    assert size <= MAX_README_BYTES, f"README.md is {size} bytes (at most {MAX_README_BYTES}): move detail to docs/"


def test_the_settings_pages_name_every_llm_prefix_and_data_variable():
    """docs/settings.md and docs/engine.md list the judges' and readers' prefixes and the data
    variables by hand: each registered benchmark's must be there (a new benchmark's were not)."""
    docs = Path(__file__).resolve().parents[2] / "docs"
    settings, engine = ((docs / name).read_text(encoding="utf-8") for name in ("settings.md", "engine.md"))
    for benchmark in BENCHMARKS:
        assert f"`{benchmark.root_variable}`" in settings, benchmark.root_variable
        for prefix in benchmark.llm_prefixes():
            assert f"`{prefix}`" in settings and f"`{prefix}`" in engine, prefix
