"""The package's source read as a whole (``ast``, no import, no process): a submitted folder is
listed only by the gate (``data/gate.py``: iteratively, bounded, no link followed, names parsed,
never globbed; docs/security.md). A new listing elsewhere fails here with its file and function,
until it goes through the gate or is added to ``LISTINGS_ALLOWED`` with the folder of ours it lists."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import lmms_comparative

PACKAGE = Path(lmms_comparative.__file__).parent


# Every listing of a folder outside the gate, by (module, function): each lists a folder that is
# ours (the package's YAMLs, a data root the maintainer names, an output folder of ours), never a
# submitted one, which only ``data/gate.py`` lists.
LISTINGS_ALLOWED = {
    (
        "benchmarks/captionqa/data.py",
        "split_files",
    ): "the CaptionQA data root the maintainer names (CAPTIONQA_ROOT), not a submitted folder",
    (
        "benchmarks/captionqa/data.py",
        "_card_splits_cached",
    ): "the CaptionQA data root or hub snapshot the maintainer's run reads",
    (
        "benchmarks/compbench/files.py",
        "_in_folder",
    ): "the MLLM-CompBench data root the maintainer names (COMPBENCH_ROOT)",
    (
        "benchmarks/compbench/files.py",
        "source_files",
    ): "the MLLM-CompBench data root the maintainer names (COMPBENCH_ROOT)",
    ("benchmarks/contract_yaml.py", "configs"): "the package's own generated YAML folder of a benchmark",
    ("benchmarks/contract.py", "unregistered"): "the package's own benchmarks folder, for folders the registry misses",
    (
        "benchmarks/diffspot/data.py",
        "parquet_files",
    ): "the DiffSpot data root or hub snapshot the maintainer's run reads",
    ("benchmarks/generate.py", "folders"): "the package's own benchmarks folder, when generating task YAMLs",
    ("benchmarks/generate.py", "plan"): "the package's own YAML folders, when generating task YAMLs",
    ("benchmarks/vidi/data.py", "load_pairs"): "the ViDi data root the maintainer names (VIDI_ROOT)",
    (
        "benchmarks/vlm2bench/fetch.py",
        "_content_root",
    ): "the VLM2-Bench archive this package unpacked into its own cache",
    (
        "benchmarks/vlm2bench/fixture.py",
        "write_zip",
    ): "the fixture folder this package just wrote, zipped as the release is",
    ("demo.py", "find_results"): "the demo's own output folder, which the demo's lmms-eval run just wrote",
    ("demo.py", "_files"): "the demo's own output folder, to say which files the demo wrote",
    ("data/items.py", "present"): "a benchmark's data root, to find the media an item names",
    ("presentation.py", "our_task_names"): "the package's own YAML folder",
    ("provenance/data_fingerprint.py", "_regular_files"): "a data root, fingerprinted for the results record",
    ("provenance/prompt_hash.py", "prompts_sha256"): "the package's own YAML folder, for the prompt hash",
    ("record.py", "installed_tasks"): "the package's own YAML folder: the installed task index",
    ("report/write.py", "write_report"): "the report's output folder (-o), for links where a report file goes",
    ("rescoring/run.py", "benchmark_groups"): "the package's own YAML folder, for a benchmark's groups",
}
_LISTING = {"glob", "iglob", "rglob", "iterdir", "walk", "scandir", "listdir", "fwalk"}


def listings(source: str) -> list[tuple[int, str]]:
    """(line, enclosing function) of every call that lists a folder (glob, rglob, iterdir, os.walk,
    scandir, listdir)."""
    found = []

    class Finder(ast.NodeVisitor):
        def __init__(self):
            self.stack = ["<module>"]

        def visit_FunctionDef(self, node):  # noqa: N802
            self.stack.append(node.name)
            self.generic_visit(node)
            self.stack.pop()

        visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815

        def visit_Call(self, node):  # noqa: N802
            if isinstance(node.func, ast.Attribute) and node.func.attr in _LISTING:
                found.append((node.lineno, self.stack[-1]))
            self.generic_visit(node)

    Finder().visit(ast.parse(source))
    return found


def test_no_folder_is_listed_outside_the_gate():
    """A submitted folder is listed only by ``data/gate.py`` (iteratively, bounded, no link followed,
    names parsed, never globbed): every other listing is of a folder of ours, each said why."""
    found: dict[tuple[str, str], list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative == "data/gate.py":
            continue
        for line, function in listings(path.read_text(encoding="utf-8")):
            found.setdefault((relative, function), []).append(line)
    bad = [
        f"lmms_comparative/{file}:{lines[0]}: lists a folder (in {function})"
        for (file, function), lines in sorted(found.items())
        if (file, function) not in LISTINGS_ALLOWED
    ]
    assert not bad, (
        "list a submitted folder through lmms_comparative.data.gate (scan, run_of, files_matching), or add a"
        " folder of ours to LISTINGS_ALLOWED with why:\n" + "\n".join(bad)
    )
    assert not [key for key in LISTINGS_ALLOWED if key not in found], (
        "LISTINGS_ALLOWED names listings that are no longer there"
    )


@pytest.mark.parametrize(
    "source",
    [
        "from pathlib import Path\nPath('x').rglob('*_results.json')\n",
        "import glob\nglob.glob('x/*')\n",
        "import os\nfor a, b, c in os.walk('x'):\n    pass\n",
        "def f(p):\n    return list(p.iterdir())\n",
    ],
)
def test_the_listing_check_reports_each_form(source):
    assert len(listings(source)) == 1
    assert listings("from pathlib import Path\nPath('x').read_text()\n") == []
