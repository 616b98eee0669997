"""The offline demo (``lmms-comparative demo``): the demo data of the first record that offers one,
each bundled baseline run through the real lmms-eval CLI, each run verified, the results table and
the report. The files a demo wrote are listed in a manifest in its output folder, so that the next
demo there replaces them instead of adding its runs to the report."""

from __future__ import annotations

import contextlib
import glob
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from lmms_comparative.registry import BENCHMARKS
from lmms_comparative.switches import OURS_ONLY


def find_results(output_path: str | Path) -> Path:
    """The newest ``*_results.json`` that lmms-eval wrote under ``output_path``."""
    found = sorted(
        glob.glob(os.path.join(str(output_path), "**", "*_results.json"), recursive=True), key=os.path.getmtime
    )
    if not found:
        raise FileNotFoundError(f"lmms-eval wrote no *_results.json under {output_path}")
    return Path(found[-1])


def percent(share: object) -> str:
    """A share in percent as the README and the report write it (0.25 -> ``25%``, 0.3556 ->
    ``35.6%``); ``-`` for no number."""
    if not isinstance(share, (int, float)) or isinstance(share, bool):
        return "-"
    return f"{100 * share:.1f}".removesuffix(".0") + "%"


def _print_table(runs: dict[str, dict], tasks: list[str]) -> None:
    """One row per task: n, chance, then each model's accuracy, in percent."""
    models = list(runs)
    print(f"{'task':<16} {'n':>4} {'chance':>7} " + " ".join(f"{m:>13}" for m in models))
    for task in tasks:
        rows = [runs[m].get("results", {}).get(task, {}) for m in models]
        n = rows[0].get("counts,none", {}).get("n", "")
        chance = rows[0].get("chance,none")
        accs = " ".join(f"{percent(r.get('accuracy,none')):>13}" for r in rows)
        print(f"{task:<16} {n:>4} {percent(chance):>7} {accs}")


@contextlib.contextmanager
def _environment(values: dict[str, str]):
    """``os.environ`` with ``values`` within the block, as it was after it."""
    kept = dict(os.environ)
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(kept)


def verify_summary(folder: Path, env: dict[str, str]) -> tuple[bool, str]:
    """``verify`` (in this process) on a demo run's folder under the demo's environment: whether
    every task and group passed, and one line saying so (or the first verdict that did not pass)."""
    from lmms_comparative.verify import verify

    printed = io.StringIO()
    with _environment(env):
        status = verify(folder, out=printed)
    lines = [line.strip() for line in printed.getvalue().splitlines() if line.startswith("  ") and line.strip()]
    if status == 0:
        return (
            True,
            f"PASS ({sum(line.startswith('PASS ') for line in lines)} tasks and groups re-scored from the samples)",
        )
    problems = (
        [line for line in lines if not line.startswith("PASS ")]
        or printed.getvalue().strip().splitlines()[-1:]
        or ["nothing checked"]
    )
    return False, f"NOT PASS (exit {status}): {problems[0]} (lmms-comparative verify {folder} shows every verdict)"


# 45 pairs per type: enough for a 3x3 difficulty grid per type in the report.
DEMO_PER_TYPE = 45
BASELINES = ("random_choice", "pixel_diff")
# The files a demo wrote into its --output folder (relative paths): the next demo there removes
# them first, so that it replaces the earlier one instead of adding its runs to the report.
DEMO_MANIFEST = ".lmms_comparative_demo.json"


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    """{path relative to ``folder``: (mtime_ns, size)} of every file under it."""
    found = {}
    for path in folder.rglob("*") if folder.is_dir() else ():
        if path.is_file() and not path.is_symlink():
            stat = path.stat()
            found[path.relative_to(folder).as_posix()] = (stat.st_mtime_ns, stat.st_size)
    return found


def clear_previous_demo(output: Path) -> list[str]:
    """Remove what the previous demo into ``output`` wrote (its manifest lists the files), and the
    folders that leaves empty; nothing else. Returns the paths removed."""
    manifest = output / DEMO_MANIFEST
    try:
        listed = json.loads(manifest.read_text(encoding="utf-8")).get("files") or []
    except (OSError, ValueError, AttributeError):
        return []
    removed = []
    for rel in listed:
        path = output / rel
        if ".." in Path(rel).parts or Path(rel).is_absolute() or not path.is_file():
            continue  # only files inside the folder, as the demo wrote them
        path.unlink()
        removed.append(rel)
        for parent in path.parents:  # the folders the demo made, once empty
            if parent == output or output not in parent.parents:
                break
            try:
                parent.rmdir()
            except OSError:
                break
    manifest.unlink()
    return removed


def record_demo(output: Path, before: dict[str, tuple[int, int]]) -> None:
    """List in the manifest every file under ``output`` that is new or changed since ``before``."""
    from lmms_comparative.data import untrusted

    written = sorted(rel for rel, stat in _files(output).items() if rel != DEMO_MANIFEST and before.get(rel) != stat)
    untrusted.write_file(output / DEMO_MANIFEST, json.dumps({"files": written}, indent=1) + "\n")


def demo(output: str | None, seed: int) -> int:
    """The demo data (of the first record that offers one), then each bundled baseline through the
    real lmms-eval CLI; a demo into the same folder replaces the previous one (``clear_previous_demo``)."""
    folder = Path(output or "demo_output").resolve()
    removed = clear_previous_demo(folder)
    if removed:
        print(f"replacing the earlier demo in {folder} ({len(removed)} files it wrote removed)")
    before = _files(folder)
    try:
        return _demo_runs(folder, seed, before)
    finally:
        if folder.is_dir():
            record_demo(folder, before)  # what this demo wrote, for the next one to replace


def _demo_runs(output: Path, seed: int, before: dict[str, tuple[int, int]]) -> int:
    benchmark, data = next(
        (b, demo) for b in BENCHMARKS if (demo := b.demo_part()) is not None
    )  # the first record that offers demo data
    tasks = list(data.tasks())
    data_root = output / data.folder
    data.generate(data_root, DEMO_PER_TYPE, seed)
    # Our tasks only: lmms-eval's own ~2,000 task files need not be indexed (about 9 s a run here).
    env = dict(
        os.environ,
        **{benchmark.root_variable: str(data_root)},
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        **{OURS_ONLY: "1"},
    )
    runs, paths = {}, []
    for model in BASELINES:
        cmd = [
            sys.executable, "-m", "lmms_eval",
            "--model", model, "--model_args", f"seed={seed}",
            "--tasks", ",".join(tasks),
            "--output_path", str(output / "results" / model), "--log_samples",
            "--verbosity", "WARNING",
        ]  # fmt: skip
        print(f"$ {benchmark.root_variable}={data_root} {OURS_ONLY}=1 lmms-eval " + " ".join(cmd[3:]), flush=True)
        proc = subprocess.run(cmd, env=env)
        try:
            path = find_results(output / "results" / model)
            if path.relative_to(output).as_posix() in before:
                raise FileNotFoundError(f"lmms-eval wrote no new *_results.json under {output / 'results' / model}")
        except FileNotFoundError as exc:
            print(f"demo failed: {exc} (lmms-eval exited {proc.returncode})", file=sys.stderr)
            return 1
        runs[model] = json.loads(path.read_text())
        paths.append(str(path))
        print(f"results: {path}")
    print()
    _print_table(runs, tasks)
    # Each run verified before the report, which then shows verify's verdict instead of "not verified".
    print()
    verified = True
    for model in BASELINES:
        ok, line = verify_summary(output / "results" / model, env)
        verified &= ok
        print(f"verify results/{model}: {line}", flush=True)
    from lmms_comparative.report import write_report

    # This demo's runs only: results that were there before (an older demo's, which kept no
    # manifest, or anyone else's) stay where they are, out of the report.
    report = write_report(paths, output / "report", data_roots=[data_root])  # the synthetic pairs' images are shown
    earlier = sorted(p for p in before if p.startswith("results/") and p.endswith("_results.json"))
    if earlier:
        print(
            f"\nnote: kept {len(earlier)} earlier results file(s) under {output / 'results'} that this demo did not "
            "write, and left them out of the report: " + ", ".join(earlier[:4]) + (" ..." if len(earlier) > 4 else "")
        )
    print(
        f"\nreport: {report.parent / 'index.html'} (open it in a browser: both baselines' scores, B against A, "
        "the tables, charts and every pair)"
    )
    print(f"        {report} (the same tables in Markdown: image-order check, difficulty heatmaps)")
    print(
        "\nThese were generated pairs, not the released benchmark. Next: your own model on the real items, e.g.\n"
        "  lmms-eval --model qwen2_5_vl --model_args pretrained=Qwen/Qwen2.5-VL-7B-Instruct "
        f"--tasks {benchmark.name} --output_path results/ --log_samples\n"
        f"(the data is fetched from the hub on first use, or set {benchmark.root_variable}), "
        "then lmms-comparative report results/ -o report/"
    )
    return 0 if verified and all(t in run.get("results", {}) for run in runs.values() for t in tasks) else 1


def demo_label() -> str:
    """What the demo runs on: the first record's demo data that offers one."""
    return next((d.label for b in BENCHMARKS if (d := b.demo_part()) is not None), "no data")
