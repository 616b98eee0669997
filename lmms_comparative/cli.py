"""``lmms-comparative``: the package's own commands.

lmms-comparative include-path          print the folder to pass to lmms-eval --include_path
lmms-comparative fixture BENCHMARK DIR
                                       write a small generated dataset in a benchmark's official
                                       layout ({benchmarks})
lmms-comparative demo [--output DIR]   the offline default run: {demo},
                                       the real lmms-eval CLI, the random_choice and pixel_diff baselines,
                                       each run verified, then the report (a second demo into DIR
                                       replaces what the first one wrote)
lmms-comparative report RESULTS_DIR [RESULTS_DIR ...] -o OUT
                                       OUT/index.html (open it: each run's headline scores, B
                                       against A, the papers' tables, charts and every item) and
                                       the same tables as Markdown, JSON, CSV and PNG
lmms-comparative score BENCHMARK FILE [FILE ...] -o RESULTS_DIR [--tasks T,...] [--format F]
                                       predictions made elsewhere (published replies, a captions
                                       file, another harness's files, samples logs) scored by the
                                       tasks' own hooks in an lmms-eval run: results JSON and
                                       samples logs as a model's run writes them
lmms-comparative verify RESULTS_DIR   a verdict per task: every recorded item once in the samples,
                                       the metrics re-scored from the samples, the data at hand
                                       the recorded data (exit 0 only if all hold)
lmms-comparative export RESULTS_DIR -o OUT [--dataset-id NAME=OWNER/REPO] [--push MODEL_REPO]
                                       the scores as the hub's .eval_results/*.yaml files, one
                                       per benchmark and protocol variant (a pull request with
                                       --push)
lmms-comparative compare RUN_A RUN_B [-o OUT]
                                       is B better than A: per task, group and category, B - A
                                       with a paired bootstrap interval, exact McNemar or
                                       permutation p-values (Holm-adjusted), the flips, the
                                       smallest detectable difference; OUT/compare.json
{own}"""

from __future__ import annotations

import argparse
import contextlib
import glob
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from lmms_comparative import yaml_dir
from lmms_comparative.registry import BENCHMARKS, BY_NAME
from lmms_comparative.switches import OURS_ONLY


def find_results(output_path: str | Path) -> Path:
    """The newest ``*_results.json`` that lmms-eval wrote under ``output_path``."""
    found = sorted(
        glob.glob(os.path.join(str(output_path), "**", "*_results.json"), recursive=True), key=os.path.getmtime
    )
    if not found:
        raise FileNotFoundError(f"lmms-eval wrote no *_results.json under {output_path}")
    return Path(found[-1])


def percent(share) -> str:
    """A share in percent as the README and the report write it (0.25 -> ``25%``, 0.3556 -> ``35.6%``); ``-`` for no number."""
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
    output = Path(output or "demo_output").resolve()
    removed = clear_previous_demo(output)
    if removed:
        print(f"replacing the earlier demo in {output} ({len(removed)} files it wrote removed)")
    before = _files(output)
    try:
        return _demo_runs(output, seed, before)
    finally:
        if output.is_dir():
            record_demo(output, before)  # what this demo wrote, for the next one to replace


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
            f"\nnote: kept {len(earlier)} earlier results file(s) under {output / 'results'} that this demo did not write, and left them out of the report: "
            + ", ".join(earlier[:4])
            + (" ..." if len(earlier) > 4 else "")
        )
    print(
        f"\nreport: {report.parent / 'index.html'} (open it in a browser: both baselines' scores, B against A, the tables, charts and every pair)"
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


_INDENT = " " * 39  # where the usage text's descriptions start


def demo_label() -> str:
    """What the demo runs on: the first record's demo data that offers one."""
    return next((d.label for b in BENCHMARKS if (d := b.demo_part()) is not None), "no data")


def usage() -> str:
    """The usage text: the package's commands (this module's docstring) with the benchmarks' names,
    the demo's data and each benchmark's own commands filled in from their records."""
    demo = demo_label()
    own = ""
    for benchmark in BENCHMARKS:
        for command in benchmark.command_parts():
            head = f"lmms-comparative {command.name} {command.synopsis}".rstrip()
            body = textwrap.fill(command.usage or command.help, 96, initial_indent=_INDENT, subsequent_indent=_INDENT)
            own += f"{head}\n{body}\n"
    return (__doc__ or "").format(benchmarks=", ".join(BY_NAME), demo=demo, own=own)


def main(argv: list[str] | None = None) -> int:
    """Runs one ``lmms-comparative`` command from ``argv`` (None: the process's arguments); returns its exit status. Arguments
    the parser does not know are an error, except for ``score``, which passes them on to its lmms-eval run."""
    parser = argparse.ArgumentParser(
        prog="lmms-comparative",
        description=usage(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("include-path", help="print the task folder for lmms-eval --include_path")
    fx = sub.add_parser("fixture", help="write a small generated dataset in a benchmark's official layout")
    fx.add_argument("benchmark", choices=sorted(BY_NAME))
    fx.add_argument("directory")
    dm = sub.add_parser(
        "demo",
        help=f"offline run on {demo_label()} with the two bundled baselines, random_choice and pixel_diff "
        "(a second demo replaces the first)",
    )
    dm.add_argument("--output", default=None, help="folder for the data and results (default: ./demo_output)")
    dm.add_argument("--seed", type=int, default=0)
    rp = sub.add_parser("report", help="the papers' tables and charts from lmms-eval results directories")
    rp.add_argument(
        "results_dirs",
        nargs="+",
        help="lmms-eval --output_path folders (one or several models), or *_results.json files",
    )
    rp.add_argument(
        "-o",
        "--output",
        default="report",
        help="folder for report.md, report.json, tables/*.csv, the PNG charts and index.html",
    )
    rp.add_argument(
        "--paper-rows",
        choices=("all", "matched", "none"),
        default="all",
        help="the papers' model rows to show beside the runs: all, only those of the models the runs matched, or none (ranks and reproduction checks are shown either way)",
    )
    rp.add_argument(
        "--alias",
        action="append",
        default=[],
        metavar="PAPER_MODEL=MODEL_ID",
        help="treat runs of MODEL_ID (a pretrained= or model_version= value) as the paper's PAPER_MODEL for the reproduction check (repeatable)",
    )
    rp.add_argument(
        "--aliases",
        default=None,
        metavar="FILE",
        help="a JSON file {paper model name: [model ids]} extending the bundled alias tables",
    )
    rp.add_argument(
        "--no-html", action="store_true", help="skip index.html and its item browser (thumbnails of every image)"
    )
    rp.add_argument(
        "--data-root",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder the item browser may read images from, besides the *_ROOT variables set and the hub cache (repeatable)",
    )
    own = {}  # the benchmarks' own commands (their records' ``commands``)
    for benchmark in BENCHMARKS:
        for command in benchmark.command_parts():
            command.arguments(sub.add_parser(command.name, help=command.help))
            own[command.name] = command
    sc = sub.add_parser(
        "score", help="score prediction files made elsewhere through an lmms-eval run (results JSON and samples logs)"
    )
    sc.add_argument("benchmark", choices=sorted(BY_NAME))
    sc.add_argument("files", nargs="+", help="prediction files (or folders of lmms-eval samples logs)")
    sc.add_argument(
        "-o",
        "--output",
        required=True,
        help="the --output_path of the run (results JSON, samples logs, the replay file)",
    )
    sc.add_argument("--format", default=None, help="the files' format (default: detected); see the benchmark's README")
    sc.add_argument(
        "--tasks",
        default="",
        help="the tasks the predictions were made for (comma-separated), where the files do not say",
    )
    sc.add_argument(
        "--family",
        default=None,
        help="the task family the replies were made in, where the files do not say (a benchmark's families: "
        + "; ".join(
            f"{b.name}: {', '.join(b.task_families[:3])}{', ...' if len(b.task_families) > 3 else ''}"
            for b in BENCHMARKS
        )
        + ")",
    )
    sc.add_argument(
        "--model-name",
        default="",
        help="the name the report gives the run (e.g. the paper's model whose replies these are)",
    )
    sc.add_argument(
        "--with-images",
        action="store_true",
        help="check the data's image files as a model's run does (by default a scoring run never opens them)",
    )
    vf = sub.add_parser(
        "verify",
        help="check that every number of ours in a results folder follows from its samples (rows, item sets, re-scored metrics, skips, data)",
    )
    vf.add_argument(
        "results_dir", help="an lmms-eval --output_path (or one *_results.json) of a run with --log_samples"
    )
    cp = sub.add_parser(
        "compare",
        help="compare two runs of the same tasks unit by unit (paired bootstrap, exact McNemar or permutation test, Holm, flips)",
    )
    cp.add_argument("run_a", help="the --output_path folder of run A (a model run or a score run)")
    cp.add_argument("run_b", help="the --output_path folder of run B")
    cp.add_argument("-o", "--output", default=None, help="folder to write compare.json into")
    cp.add_argument(
        "--unverified",
        action="store_true",
        help="compare even when a run's verify verdict is FAIL (its numbers do not follow from its samples)",
    )
    xp = sub.add_parser(
        "export",
        help="write a run's scores as the hub's .eval_results/*.yaml files (and open a pull request with --push)",
    )
    xp.add_argument("results_dirs", nargs="+", help="lmms-eval --output_path folders of the run(s) to export")
    xp.add_argument("-o", "--output", required=True, help="the folder to write .eval_results/ into")
    xp.add_argument(
        "--dataset-id",
        action="append",
        default=[],
        metavar="NAME=OWNER/REPO",
        help="the hub dataset of a benchmark without a hub release ("
        + ", ".join(b.name for b in BENCHMARKS if not b.hub_repo)
        + "), or another one",
    )
    xp.add_argument("--source-url", help="where the evaluation can be seen (e.g. the results folder's hub repository)")
    xp.add_argument("--source-name", help="the source's display name")
    xp.add_argument("--source-user", help="the HF user or org to attribute the source to")
    xp.add_argument(
        "--push", metavar="MODEL_REPO", help="open a pull request adding the files to this hub model repository"
    )
    xp.add_argument(
        "--allow-subset",
        action="store_true",
        help="also export values whose items are not the release's (a --limit, a fixture, skipped items), with notes saying N of M items and where the data came from",
    )
    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "score":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")

    if args.command == "include-path":
        print(yaml_dir())
        return 0
    if args.command == "fixture":
        benchmark = BY_NAME[args.benchmark]
        root = benchmark.build_fixture(args.directory)
        print(f"{benchmark.root_variable}={Path(root).resolve()}")  # absolute: the variable is read from other folders
        return 0
    if args.command == "report":
        import warnings

        from lmms_comparative.data import untrusted
        from lmms_comparative.report import Aliases, ReportError, write_report

        # matplotlib warns of a label's glyph it cannot draw with the character itself (an ESC of a
        # folder's category name would reach the terminal raw); the chart draws a box in its place.
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font")

        notes: list[str] = []
        try:
            path = write_report(
                args.results_dirs,
                args.output,
                paper_rows=args.paper_rows,
                aliases=Aliases.from_options(args.alias, args.aliases),
                with_html=not args.no_html,
                notes=notes,
                data_roots=[Path(d) for d in args.data_root],
            )
        except ReportError as exc:  # bad input: one line naming the file, no traceback
            print(f"lmms-comparative report: error: {untrusted.printable(str(exc), lines=False)}", file=sys.stderr)
            return 2
        for note in notes:
            print(f"lmms-comparative report: {untrusted.printable(note, lines=False)}", file=sys.stderr)
        if not args.no_html:
            print(f"report: {path.parent / 'index.html'} (open it in a browser)")
        print(f"{'        ' if not args.no_html else 'report: '}{path}")
        # A results file passed over is a run missing from the report: exit 1 (the report of the others is written).
        return 1 if any(n.startswith("passed over: ") for n in notes) else 0
    if args.command == "score":
        from lmms_comparative.data import untrusted
        from lmms_comparative.data.replies import Options, PredictionsError
        from lmms_comparative.rescoring.run import score

        options = Options(tuple(t for t in args.tasks.split(",") if t), args.family)
        try:
            return score(
                BY_NAME[args.benchmark],
                [Path(f) for f in args.files],
                args.format,
                options,
                Path(args.output),
                args.model_name,
                args.with_images,
                extra,
            )
        except PredictionsError as exc:  # the replay file not written: a link or a pipe stands where it goes
            print(f"lmms-comparative score: error: {untrusted.printable(str(exc), lines=False)}", file=sys.stderr)
            return 1
    if args.command == "compare":
        from lmms_comparative.report.compare import main as compare

        return compare(args.run_a, args.run_b, args.output, args.unverified)
    if args.command == "export":
        from lmms_comparative.export import main as export

        return export(
            args.results_dirs,
            args.output,
            args.dataset_id,
            args.source_url,
            args.source_name,
            args.source_user,
            args.push,
            args.allow_subset,
        )
    if args.command == "verify":
        from lmms_comparative.verify import verify

        return verify(args.results_dir)
    if args.command in own:
        return own[args.command].run(args)
    return demo(args.output, args.seed)


if __name__ == "__main__":
    sys.exit(main())
