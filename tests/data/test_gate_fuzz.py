"""The gate fuzzed (hypothesis): a PASS run's results JSON, samples lines and file names mutated
as a stranger might (values of other types, integers of thousands of digits, NaN, unclosed strings,
deep nesting, controls and glob specials in names, a FIFO, links out of the folder), each copy
beside the untouched run, and for every example:

- no command raises: ``verify`` (its re-score replaced by a stand-in: the lmms-eval run it would
  start reads only our own copies of the bytes the gate let through, and takes seconds), ``report``
  (Markdown, JSON, tables, charts) and ``compare`` of the honest run with the mutated one;
- nothing runs: a group name carrying a task YAML path never reaches a re-score (the stand-in
  records every ``--tasks`` it is asked for, each must be an installed task);
- nothing outside the output folder changes (a file outside, linked from the folder, keeps its bytes);
- the honest run is still checked and shown.

Examples are derandomised (the same ones on every machine) and bounded (``EXAMPLES``) so that the
suite stays fast: about 40 s for 40 examples on one core.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmms_comparative.registry import of_task
from lmms_comparative.report.compare import main as compare
from lmms_comparative.verify import rescore as rs
from lmms_comparative.verify import verify

EXAMPLES = 40
SPECIALS = "[]*?{}!^$\\/.,;:'\"` \t\n\x00\x07\x1b\x9b\u202e\u2028\ufeff"

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(SPECIALS), max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
# Where a value goes in the results JSON: the sections every command reads, and the record.
places = st.sampled_from(
    [
        ("results",),
        ("results", "subtlebench_sp"),
        ("results", "subtlebench_sp", "accuracy,none"),
        ("groups",),
        ("group_subtasks",),
        ("group_subtasks", "subtlebench_sp,evil.yaml"),
        ("configs",),
        ("config",),
        ("config", "model_args"),
        ("versions", "subtlebench_sp"),
        ("n-samples", "subtlebench_sp"),
        ("lmms_comparative",),
        ("lmms_comparative", "tasks"),
        ("lmms_comparative", "tasks", "subtlebench_sp"),
        ("lmms_comparative", "tasks", "subtlebench_sp", "items"),
        ("lmms_comparative", "tasks", "subtlebench_sp", "benchmark"),
        ("lmms_comparative", "tasks", "subtlebench_zz/../../outside"),
    ]
)
raw_texts = st.sampled_from(
    ["[" * 70 + '"' + '\\"' * 3000, "[" * 5000, '{"results": {', "1" * 5000, "\xff\xfe", "", "[1]", "null", "NaN"]
)


@st.composite
def mutations(draw):
    """One mutation of a run folder: (kind, arguments)."""
    kind = draw(st.sampled_from(["value", "raw_results", "line", "raw_line", "rename", "fifo", "link"]))
    if kind == "value":
        return kind, (draw(places), draw(json_values))
    if kind == "raw_results":
        return kind, (draw(raw_texts),)
    if kind == "line":
        return kind, (draw(st.integers(0, 3)), draw(json_values))
    if kind == "raw_line":
        return kind, (draw(st.integers(0, 3)), draw(raw_texts))
    if kind == "rename":
        return kind, (
            draw(
                st.text(
                    alphabet=st.sampled_from(SPECIALS.replace("/", "").replace("\x00", "") + "0123abc_"),
                    min_size=1,
                    max_size=12,
                )
            ),
            draw(st.booleans()),
        )
    return kind, (draw(st.sampled_from(["results", "samples"])),)


def _apply(folder: Path, mutation, outside: Path) -> None:
    kind, args = mutation
    results_file = next(p for p in folder.iterdir() if p.name.endswith("_results.json"))
    samples = sorted(p for p in folder.iterdir() if "_samples_" in p.name)
    if kind == "value":
        place, value = args
        document = json.loads(results_file.read_text())
        target = document
        for key in place[:-1]:
            target = target.setdefault(key, {}) if isinstance(target, dict) else {}
        if isinstance(target, dict):
            target[place[-1]] = value
        results_file.write_text(json.dumps(document))
    elif kind == "raw_results":
        results_file.write_text(args[0], encoding="utf-8", errors="surrogateescape")
    elif kind in ("line", "raw_line"):
        number, value = args
        lines = samples[0].read_text().splitlines()
        lines[number % len(lines)] = json.dumps(value) if kind == "line" else value
        samples[0].write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogateescape")
    elif kind == "rename":
        date, every = args
        old = results_file.name[: -len("_results.json")]
        for path in [results_file, *samples] if every else samples[:1]:
            path.rename(folder / (date + path.name[len(old) :]))
    elif kind == "fifo":
        target = results_file if args[0] == "results" else samples[0]
        target.unlink()
        os.mkfifo(target)
    else:
        target = results_file if args[0] == "results" else samples[0]
        target.unlink()
        os.symlink(outside, target)


@pytest.mark.e2e
def test_mutated_runs_never_raise_run_nothing_write_nothing_outside_and_the_honest_run_is_shown(
    subtlebench_pass_run, subtlebench_root, tmp_path, monkeypatch
):
    monkeypatch.setenv("SUBTLEBENCH_ROOT", str(subtlebench_root))
    outside = tmp_path / "outside.json"
    outside.write_text('{"the maintainer": "own file"}')
    asked: list[str] = []

    def stand_in(jobs, run, results, scratch, answers, runner=None):  # the re-score's lmms-eval run, not started
        asked.extend(t for tasks in jobs.values() for t in tasks)
        return {name: (None, {}, "not re-scored in the fuzz test") for name in jobs}

    monkeypatch.setattr(rs, "rescore_all", stand_in)
    counter = {"examples": 0}

    @settings(
        max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(mutation=mutations())
    def holds(mutation):
        counter["examples"] += 1
        work = tmp_path / f"example_{counter['examples']}"
        root = work / "submission"
        shutil.copytree(subtlebench_pass_run, root / "honest", ignore=shutil.ignore_patterns("*_verify.json"))
        shutil.copytree(subtlebench_pass_run, root / "mutated", ignore=shutil.ignore_patterns("*_verify.json"))
        _apply(root / "mutated", mutation, outside)
        out = io.StringIO()
        with contextlib.redirect_stderr(io.StringIO()):
            status = verify(root, out=out)
        text = out.getvalue()
        assert status in (0, 1, 2)
        honest = text.split(str(root / "honest"), 1)[1].split("\n/", 1)[0]
        assert "subtlebench_sp" in honest and "BAD FILE" not in honest, text
        assert all(of_task(t) is not None or t in ("subtlebench_at", "subtlebench_sp") for t in asked), asked

        from lmms_comparative.report import write_report

        notes: list[str] = []
        report = write_report([str(root)], work / "report", with_html=False, notes=notes)
        assert "random_choice" in report.read_text()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            mutated = next(
                (str(p.parent) for p in (root / "mutated").iterdir() if p.name.endswith("_results.json")),
                str(root / "mutated"),
            )
            assert compare([str(root / "honest"), mutated], None, unverified=True) in (0, 1, 2)
        assert outside.read_text() == '{"the maintainer": "own file"}'
        shutil.rmtree(work)

    holds()
    print(f"{counter['examples']} examples")
    assert counter["examples"] >= EXAMPLES // 2
