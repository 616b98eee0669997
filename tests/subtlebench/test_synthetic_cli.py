"""``lmms-comparative synthetic --types``: a comma-separated list, checked against the generator's types."""

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
