"""The gate (``data/gate.py``, docs/security.md) on the folders of issue "One gate for a stranger's
folder", through the real CLI, each hostile copy beside an untouched copy of the same PASS run
(its honest twin), which must still be checked, shown and PASS:

- a group name carrying task YAML paths (``subtlebench_sp,evil.yaml,sub/evil.yaml``) never reaches
  lmms-eval's ``--tasks``: the folder's Python never runs (verify, score, export);
- a ``[`` in the run's date is a character, not a glob: an unrecorded samples log of the same
  date FAILs as it does under a plain date, and the untouched renamed copy PASSes;
- a results JSON built to make a depth check quadratic, a folder 1,100 levels deep, a FIFO and a
  link to ``/dev/zero`` as results files: one line each, no hang, no ``RecursionError``;
- a record task naming a path (``subtlebench_zz/../../out/private``) opens nothing outside;
- a run with a field of another type (``"config": "x"``, a 4,001-digit metric, ``group_subtasks``
  as a string, a row that is an int) or a samples log of ``{}`` lines is one line in ``report`` and
  ``compare``, and the honest run beside it is still reported.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from helpers import base_env, run_python, run_report, run_score
from helpers.hostile import copy, save
from helpers.verifying import verify

pytestmark = pytest.mark.e2e


def _rename(folder, old: str, new: str) -> None:
    for path in folder.iterdir():
        if path.name.startswith(old + "_"):
            path.rename(folder / (new + path.name[len(old) :]))


def _evil_group(results: dict, marker) -> dict:
    """A group name that starts like ours and carries two task YAML paths after commas."""
    results["group_subtasks"]["subtlebench_sp,evil.yaml,sub/evil.yaml"] = ["subtlebench_sp"]
    return results


def _plant(folder, marker) -> None:
    (folder / "sub").mkdir()
    yaml_text = (
        "task: evil\ndataset_path: json\nprocess_docs: !function pwn.go\noutput_type: generate_until\ndoc_to_text: x\n"
    )
    for where in (folder, folder / "sub"):
        (where / "evil.yaml").write_text(yaml_text)
        (where / "pwn.py").write_text(
            f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\ndef go(docs):\n    return docs\n"
        )


def test_verify_names_paths_depth_and_quadratic_json_each_a_line_beside_the_honest_run(
    subtlebench_pass_run, hf_home, subtlebench_root, tmp_path
):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    root = tmp_path / "submission"
    marker = tmp_path / "PWNED"
    honest_file, _, _ = copy(subtlebench_pass_run, root / "honest")
    # 1. A group name carrying YAML paths, the YAMLs and their Python beside it.
    evil_file, evil, _ = copy(subtlebench_pass_run, root / "evil")
    save(evil_file, _evil_group(evil, marker))
    _plant(root / "evil", marker)
    # 3. A "[" in the date: renamed untouched (PASS) and renamed with a forged unrecorded log (FAIL).
    date = honest_file.name[: -len("_results.json")]
    for name, forged in (("bracket_honest", False), ("bracket_forged", True)):
        _, _, samples = copy(subtlebench_pass_run, root / name)
        if forged:
            rows = [json.loads(line) for line in samples["subtlebench_sp"].read_text().splitlines()]
            samples["subtlebench_sp"].with_name(
                samples["subtlebench_sp"].name.replace("subtlebench_sp", "subtlebench_em")
            ).write_text("".join(json.dumps(r) + "\n" for r in rows))
        _rename(root / name, date, "2026[1]")
    # 5. 65 "[", one '"', then '\"' repeated: a depth check that scans strings by backtracking is quadratic.
    (root / "quadratic").mkdir()
    (root / "quadratic" / "20260101_000000_results.json").write_text("[" * 65 + '"' + '\\"' * 150_000)
    # 6. A folder 1,100 levels deep with a run at its bottom.
    deep = root / "deep"
    deep.mkdir()
    fd = os.open(deep, os.O_RDONLY)  # built by descriptor: the path itself is past PATH_MAX
    try:
        for _ in range(1100):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.close(os.open("20260101_000000_results.json", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    finally:
        os.close(fd)
    # 6. A field of another type.
    typed_file, typed, _ = copy(subtlebench_pass_run, root / "typed")
    typed["config"] = "x"
    save(typed_file, typed)
    # 10. A record task naming a path out of the folder.
    path_file, path_run, _ = copy(subtlebench_pass_run, root / "pathname")
    path_run["lmms_comparative"]["tasks"]["subtlebench_zz/../../out/private"] = path_run["lmms_comparative"]["tasks"][
        "subtlebench_sp"
    ]
    save(path_file, path_run)

    try:
        proc = run_python(["-m", "lmms_comparative", "verify", str(root)], env=env, cwd=root / "evil", timeout=600)
        # report and compare walk the same tree: the deep folder is a line, the honest run is shown.
        reported = run_report(
            str(root / "deep"), str(root / "honest"), "-o", str(tmp_path / "deep_report"), "--no-html"
        )
        compared = run_python(
            ["-m", "lmms_comparative", "compare", str(root / "deep"), str(root / "honest"), "--unverified"], env=env
        )
    finally:  # pytest's own clean-up recurses, and a tree 1,100 deep is past Python's stack
        subprocess.run(["rm", "-rf", str(deep)], check=True)
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:] + proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "RecursionError" not in out, proc.stderr[-3000:]
    assert not marker.exists(), "the folder's Python ran"
    lines = out.splitlines()
    # The honest run, checked once and PASS; the renamed untouched copy too.
    for name in ("honest", "bracket_honest"):
        block = out.split(f"{root / name}", 1)[1].split("\n/", 1)[0]
        assert "PASS       subtlebench_sp" in block and "FAIL" not in block, block
    forged = out.split(f"{root / 'bracket_forged'}", 1)[1].split("\n/", 1)[0]
    assert (
        "FAIL       subtlebench_em: a samples log 2026[1]_samples_subtlebench_em.jsonl that no record entry backs"
        in forged
    ), forged
    evil_block = out.split(f"{root / 'evil'}", 1)[1].split("\n/", 1)[0]
    assert (
        "FAIL       subtlebench_sp,evil.yaml,sub/evil.yaml: not a task or group of the installed package" in evil_block
    ), evil_block
    assert "  BAD FILE   20260101_000000_results.json: not valid JSON" in out, out
    assert any(
        "passed over: a folder 25 levels down, past the 24 a folder of runs needs: not read" in line for line in lines
    ), out[-2000:]
    assert (
        "  BAD FILE   " in out.split(f"{root / 'typed'}", 1)[1].split("\n", 2)[1]
        and "config: input should be a valid dictionary" in out
    )
    path_block = out.split(f"{root / 'pathname'}", 1)[1].split("\n/", 1)[0]
    assert (
        "FAIL       subtlebench_zz/../../out/private: the record names benchmark 'subtlebench', which does not own"
        in path_block
    ), path_block

    assert "Traceback" not in reported.stderr and "past the 24 a folder of runs needs" in reported.stderr, (
        reported.stderr[-2000:]
    )
    assert "random_choice" in (tmp_path / "deep_report" / "report.md").read_text()
    assert "Traceback" not in compared.stderr and "RecursionError" not in compared.stderr, compared.stderr[-2000:]

    # score and export of the evil copy, from inside it: nothing runs, the real tasks are scored.
    scored = run_score("subtlebench", str(root / "evil"), "-o", str(tmp_path / "scored"), env=env)
    assert scored.returncode == 0, scored.stderr[-3000:]
    assert "evil.yaml" not in scored.stderr.split("$ lmms-eval", 1)[1].splitlines()[0]
    assert not marker.exists(), "the folder's Python ran under score"
    exported = run_python(
        ["-m", "lmms_comparative", "export", str(root / "evil"), "-o", str(tmp_path / "exported")],
        env=env,
        cwd=root / "evil",
        timeout=600,
    )
    assert (
        exported.returncode == 1
        and "subtlebench_sp,evil.yaml,sub/evil.yaml: not a task or group of the installed package" in exported.stderr
    ), exported.stderr[-2000:]
    assert not marker.exists(), "the folder's Python ran under export"


def test_a_fifo_and_a_link_to_dev_zero_as_results_files_are_lines_not_hangs(
    subtlebench_pass_run, hf_home, subtlebench_root, tmp_path
):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    results_file, _, _ = copy(subtlebench_pass_run, tmp_path / "fifo")
    date = results_file.name[: -len("_results.json")]
    results_file.unlink()
    os.mkfifo(results_file)
    linked_file, _, _ = copy(subtlebench_pass_run, tmp_path / "zero")
    linked_file.unlink()
    os.symlink("/dev/zero", linked_file)
    for folder in ("fifo", "zero"):
        proc = run_score(
            "subtlebench", str(tmp_path / folder), "-o", str(tmp_path / f"out_{folder}"), env=env, timeout=300
        )
        # The samples logs are still read (they name their tasks); the results JSON beside them is not.
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    proc = verify(tmp_path / "fifo", env)
    assert (
        proc.returncode == 2
        and f"{tmp_path / 'fifo' / (date + '_results.json')}: passed over: not a regular file" in proc.stdout
    ), proc.stdout + proc.stderr[-2000:]
    proc = verify(tmp_path / "zero", env)
    assert (
        proc.returncode == 2
        and f"{tmp_path / 'zero' / (date + '_results.json')}: passed over: a link: not followed" in proc.stdout
    ), proc.stdout + proc.stderr[-2000:]


def test_report_and_compare_of_malformed_runs_name_them_and_show_the_honest_run(subtlebench_pass_run, tmp_path):
    root = tmp_path / "runs"
    honest_file, _, _ = copy(subtlebench_pass_run, root / "honest")
    edits = {
        "digits": lambda r: r["results"]["subtlebench_sp"].__setitem__("accuracy,none", int("9" * 4001)),
        "members": lambda r: r["group_subtasks"].__setitem__("subtlebench", "subtlebench_sp"),
        "introw": lambda r: r["results"].__setitem__("subtlebench_sp", 7),
        "config": lambda r: r.__setitem__("config", "x"),
    }
    for name, edit in edits.items():
        results_file, results, _ = copy(subtlebench_pass_run, root / name)
        edit(results)
        save(results_file, results)
    # A samples log of "{}" lines.
    _, _, samples = copy(subtlebench_pass_run, root / "empty_rows")
    samples["subtlebench_sp"].write_text("{}\n" * 200_000)

    proc = run_report(str(root), "-o", str(tmp_path / "report"), "--no-html")
    assert proc.returncode == 1, proc.stdout + proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    notes = [line for line in proc.stderr.splitlines() if "passed over" in line]
    assert len(notes) == 5, proc.stderr[-3000:]
    assert any("an integer of 4001 digits" in n for n in notes) and any("no integer doc_id" in n for n in notes), notes
    report = (tmp_path / "report" / "report.md").read_text()
    assert "random_choice" in report

    # compare: a malformed run is one line; the honest twin compares.
    proc = run_python(["-m", "lmms_comparative", "compare", str(root / "honest"), str(root / "introw"), "--unverified"])
    assert proc.returncode != 0 and "Traceback" not in proc.stderr and "not an lmms-eval results JSON" in proc.stderr, (
        proc.stderr[-2000:]
    )
    proc = run_python(["-m", "lmms_comparative", "compare", str(root / "honest"), str(honest_file), "--unverified"])
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_disjoint_items_and_control_characters_in_a_name_label_are_lines_not_crashes(subtlebench_pass_run, tmp_path):
    """A run sharing no item with the honest one crashed report and compare (a paired bootstrap over
    no unit); two runs of one model named apart by a model_args holding OSC escapes printed them raw
    through export's and report's lines. Now: one row saying why, and the label escaped."""
    root = tmp_path / "runs"
    copy(subtlebench_pass_run, root / "honest")
    evil_file, evil, samples = copy(subtlebench_pass_run, root / "evil")
    evil["config"]["model_args"] = "x=\x1b]0;PWNED\x07\x1b]52;c;cHduZWQ=\x07"
    save(evil_file, evil)
    for path in samples.values():
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for row in rows:
            for value in row.values():
                if isinstance(value, dict) and "item_id" in value:
                    value["item_id"] = f"{value['item_id']}zz"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    reported = run_report(str(root), "-o", str(tmp_path / "report"))
    assert "Traceback" not in reported.stderr and "\x1b" not in reported.stderr + reported.stdout, reported.stderr[
        -2000:
    ]
    assert "\x1b" not in (tmp_path / "report" / "report.md").read_text()
    compared = run_python(
        ["-m", "lmms_comparative", "compare", str(root / "honest"), str(root / "evil"), "--unverified"]
    )
    assert "Traceback" not in compared.stderr and "\x1b" not in compared.stdout + compared.stderr, compared.stderr[
        -2000:
    ]
    assert "the two runs share no unit (item) of it" in compared.stdout, compared.stdout[-2000:]
    # The honest twin: two untouched copies compare, with a difference per task.
    copy(subtlebench_pass_run, tmp_path / "twin")
    twin = run_python(
        ["-m", "lmms_comparative", "compare", str(root / "honest"), str(tmp_path / "twin"), "--unverified"]
    )
    assert twin.returncode == 0 and "subtlebench_sp" in twin.stdout and "not compared" not in twin.stdout, twin.stdout[
        -2000:
    ]
