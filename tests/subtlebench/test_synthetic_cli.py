"""``lmms-comparative synthetic --types`` and ``--param``: checked against the generator's types and
factors, a mistake one usage error."""

from __future__ import annotations

from helpers import run_tool


def test_types_take_commas_and_an_unknown_type_is_refused_with_the_choices(tmp_path):
    proc = run_tool("synthetic", str(tmp_path / "ok"), "--types", "attribute,quantity", "--per-type", "1")
    assert proc.returncode == 0, proc.stderr
    made = {p.name for p in (tmp_path / "ok").rglob("*") if p.is_dir()}
    assert any("attribute" in name for name in made) and not any("spatial" in name for name in made)
    for wrong in ("attribute quantity", "atribute"):
        proc = run_tool("synthetic", str(tmp_path / "bad"), "--types", wrong)
        assert proc.returncode == 2
        assert "choose from attribute,existence,quantity,viewpoint,spatial (comma-separated, no spaces)" in proc.stderr
        assert "Traceback" not in proc.stderr and "KeyError" not in proc.stderr


def _one_error_line(stderr: str) -> str:
    """argparse's usage lines, then one error line, and no traceback."""
    assert "Traceback" not in stderr and "ValueError" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and stderr.rstrip().splitlines()[-1] == errors[0], stderr
    return errors[0]


def test_a_misspelt_param_is_one_usage_error_naming_the_known_ones(tmp_path):
    proc = run_tool("synthetic", str(tmp_path / "bad"), "--param", "spatial.translaton=20,40")
    assert proc.returncode == 2
    line = _one_error_line(proc.stderr)
    assert line.startswith(
        "lmms-comparative synthetic: error: argument --param: unknown parameter 'spatial.translaton'; known: "
    )
    assert "spatial.translation" in line and "attribute.brightness_shift" in line
    assert not (tmp_path / "bad").exists()  # refused before anything is written


def test_a_param_that_needs_a_number_refuses_a_word(tmp_path):
    proc = run_tool("synthetic", str(tmp_path / "bad"), "--param", "existence.n_shapes=many")
    assert proc.returncode == 2
    assert _one_error_line(proc.stderr).endswith(
        "argument --param: existence.n_shapes takes a number or a lo,hi range (default "
        "existence.n_shapes=20,30), not 'many'"
    )
    proc = run_tool(
        "synthetic",
        str(tmp_path / "ok"),
        "--per-type",
        "1",
        "--types",
        "spatial",
        "--param",
        "spatial.translation=20,40",
    )
    assert proc.returncode == 0 and "SUBTLEBENCH_ROOT=" in proc.stdout, proc.stderr
