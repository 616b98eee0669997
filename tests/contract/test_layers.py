"""The package imports downward only: no circle of files, none of parts (tools/import_graph.py).
Function-level imports count: they are dependencies too, only later ones."""

from __future__ import annotations

from pathlib import Path

from helpers import load_module

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    return load_module(ROOT / "tools" / "import_graph.py")


def test_the_package_has_no_circle_of_files_or_parts():
    """Read with any lookup by name (``import_module``) as an arrow: none is left, no circle, no
    arrow up a layer (kit -> benchmark or driver, benchmark -> driver), and the registry imports
    the benchmark packages and the kit's record only."""
    found = _tool().measure(ROOT)
    assert found["circles of files"] == [] and found["circles of parts"] == [], found[
        "arrows that close a circle of parts"
    ]
    assert found["arrows up a layer"] == [] and found["files the registry imports"] == []
    assert found["lookups by name"] == 0  # every arrow is an import statement that grep and the graph see
    floors = found["floors"]
    # The registry is the floor of every driver that reads a benchmark's record; the benchmarks stand on the kit.
    for part in ("harness", "report", "verify", "preflight", "rescoring", "cli"):
        assert floors[part] > floors["registry"], (part, floors)
    for part in ("tasklib", "reportlib", "record", "data", "judges", "metrics"):
        assert floors[part] < floors["benchmarks"] < floors["registry"], (part, floors)


def _tree(root: Path, files: dict[str, str]) -> Path:
    """``root`` with a package ``lmms_comparative`` of ``files`` (path: text) written under it."""
    for name, text in files.items():
        path = root / "lmms_comparative" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _honest_and_forged(tmp_path: Path, files: dict[str, str], forgery: dict[str, str]) -> tuple[dict, dict]:
    """The tool's measures of a tree of ``files`` (``tmp_path/honest``) and of the same tree with
    ``forgery``'s files written over them (``tmp_path/forged``); its exit status fails the forged
    tree alone."""
    tool = _tool()
    honest = tool.measure(_tree(tmp_path / "honest", files))
    forged = tool.measure(_tree(tmp_path / "forged", {**files, **forgery}))
    assert tool.main(["--root", str(tmp_path / "forged")]) == 1 and tool.main(["--root", str(tmp_path / "honest")]) == 0
    return honest, forged


def test_a_function_level_import_that_runs_back_up_is_found(tmp_path):
    files = {
        "__init__.py": "",
        "registry.py": "X = 1\n",
        "report/__init__.py": "from lmms_comparative.registry import X\n",
        "report/runs.py": "from . import cells\n",
        "report/cells.py": "def f():\n    return 1\n",
    }
    # The same tree, with one import inside a function from the registry up to the report.
    honest, forged = _honest_and_forged(
        tmp_path,
        files,
        {
            "registry.py": "X = 1\n\ndef g():\n    from lmms_comparative.report import runs\n    return runs\n",
            "report/cells.py": "from .runs import *\n",
        },
    )
    assert honest["circles of files"] == [] and honest["circles of parts"] == []
    assert honest["floors"] == {"report": 2, "registry": 1}
    assert forged["imports inside functions"] == 1
    assert forged["circles of parts"] == [["registry", "report"]]
    assert ["lmms_comparative.report.cells", "lmms_comparative.report.runs"] in forged["circles of files"]
    assert any(
        a.startswith("registry -> report: lmms_comparative.registry -> lmms_comparative.report.runs")
        for a in forged["arrows that close a circle of parts"]
    )


def test_a_lookup_by_name_is_an_arrow(tmp_path):
    """A benchmark's report reached by ``benchmark.part("report", ...)`` (the registry's lookups
    before the parts were typed) from a kit module that the benchmark's report imports: a circle
    read with the lookups, none without; the typed call (``report_part().section``) draws none."""
    files = {
        "__init__.py": "",
        "reportlib/__init__.py": "",
        "reportlib/cells.py": "def table(rows, benchmark=None):\n    return benchmark.report_part().section(rows)\n",
        "benchmarks/__init__.py": "",
        "benchmarks/toy/__init__.py": "BENCHMARK = None\n",
        "benchmarks/toy/report.py": "from lmms_comparative.reportlib.cells import table\n",
    }
    forged_cells = "def table(rows, benchmark=None):\n    return benchmark.part('report', 'section')(rows)\n"
    honest, forged = _honest_and_forged(tmp_path, files, {"reportlib/cells.py": forged_cells})
    assert honest["circles of files"] == [] and honest["arrows up a layer"] == [] and honest["lookups by name"] == 0
    assert forged["lookups by name"] == 1
    assert ["lmms_comparative.benchmarks.toy.report", "lmms_comparative.reportlib.cells"] in forged["circles of files"]
    assert "lmms_comparative.reportlib.cells -> lmms_comparative.benchmarks.toy.report" in forged["arrows up a layer"]
    assert _tool().measure(tmp_path / "forged", with_lookups=False)["circles of files"] == []


def test_the_guides_drawing_of_the_import_graph_is_the_codes():
    """docs/adding-a-benchmark.md draws the parts (``tools/import_graph.py --mermaid``): the drawing
    in the guide is what the tool draws from the code today."""
    tool = _tool()
    drawn = tool.mermaid(tool.measure(ROOT))
    guide = (ROOT / "docs" / "adding-a-benchmark.md").read_text(encoding="utf-8")
    block = guide.split("<!-- import-graph -->\n```mermaid\n", 1)[1].split("```\n<!-- /import-graph -->", 1)[0]
    assert block == drawn, "run python tools/import_graph.py --mermaid and paste it into the guide"
