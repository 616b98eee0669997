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
lmms-comparative compare RUN_A RUN_B [RUN ...] [-o OUT]
                                       is B better than A (every pair, given more runs): per task,
                                       group and category, B - A
                                       with a paired bootstrap interval, exact McNemar or
                                       permutation p-values (Holm-adjusted), the flips, the
                                       smallest detectable difference; OUT/compare.json
lmms-comparative leaderboard RESULTS_DIR [RESULTS_DIR ...] [-o OUT] [--verified-only]
                                       the runs ranked per benchmark headline, with a rank range
                                       from Holm-adjusted paired tests of every pair (ties
                                       marked); OUT/leaderboard.json, .csv and a LaTeX table
{own}"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from lmms_comparative import yaml_dir
from lmms_comparative.demo import demo, demo_label
from lmms_comparative.registry import BENCHMARKS, BY_NAME

_INDENT = " " * 39  # where the usage text's descriptions start


def usage() -> str:
    """The usage text: the package's commands (this module's docstring) with the benchmarks' names,
    the demo's data and each benchmark's own commands filled in from their records."""
    own = ""
    for benchmark in BENCHMARKS:
        for command in benchmark.command_parts():
            head = f"lmms-comparative {command.name} {command.synopsis}".rstrip()
            body = textwrap.fill(command.usage or command.help, 96, initial_indent=_INDENT, subsequent_indent=_INDENT)
            own += f"{head}\n{body}\n"
    return (__doc__ or "").format(benchmarks=", ".join(BY_NAME), demo=demo_label(), own=own)


def main(argv: list[str] | None = None) -> int:
    """Runs one ``lmms-comparative`` command from ``argv`` (None: the process's arguments); returns
    its exit status. Arguments the parser does not know are an error, except for ``score``, which
    passes them on to its lmms-eval run."""
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
        help="the papers' model rows to show beside the runs: all, only those of the models the runs matched, "
        "or none (ranks and reproduction checks are shown either way)",
    )
    rp.add_argument(
        "--alias",
        action="append",
        default=[],
        metavar="PAPER_MODEL=MODEL_ID",
        help="treat runs of MODEL_ID (a pretrained= or model_version= value) as the paper's PAPER_MODEL "
        "for the reproduction check (repeatable)",
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
        "--verified-only",
        action="store_true",
        help="leave out of the ranking every run without a current PASS of verify made on this machine",
    )
    rp.add_argument(
        "--data-root",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder the item browser may read images from, besides the *_ROOT variables set and the hub cache "
        "(repeatable)",
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
        help="check that every number of ours in a results folder follows from its samples "
        "(rows, item sets, re-scored metrics, skips, data)",
    )
    vf.add_argument(
        "results_dir", help="an lmms-eval --output_path (or one *_results.json) of a run with --log_samples"
    )
    cp = sub.add_parser(
        "compare",
        help="compare two runs of the same tasks unit by unit "
        "(paired bootstrap, exact McNemar or permutation test, Holm, flips)",
    )
    cp.add_argument("run_a", help="the --output_path folder of run A (a model run or a score run)")
    cp.add_argument("run_b", help="the --output_path folder of run B")
    cp.add_argument("more", nargs="*", help="more runs' folders: every pair of runs is compared once")
    cp.add_argument("-o", "--output", default=None, help="folder to write compare.json into")
    cp.add_argument(
        "--unverified",
        action="store_true",
        help="compare even when a run's verify verdict is FAIL (its numbers do not follow from its samples)",
    )
    lb = sub.add_parser(
        "leaderboard",
        help="rank runs per benchmark headline, with rank ranges from Holm-adjusted paired tests of every pair",
    )
    lb.add_argument(
        "results_dirs", nargs="+", help="lmms-eval --output_path folders of the runs (or one folder of many)"
    )
    lb.add_argument("-o", "--output", default=None, help="folder to write leaderboard.json, .csv and .tex into")
    lb.add_argument(
        "--verified-only",
        action="store_true",
        help="leave out every run without a current PASS of verify made on this machine",
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
        help="also export values whose items are not the release's (a --limit, a fixture, skipped items), "
        "with notes saying N of M items and where the data came from",
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
                verified_only=args.verified_only,
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

        return compare([args.run_a, args.run_b, *args.more], args.output, args.unverified)
    if args.command == "leaderboard":
        from lmms_comparative.report.leaderboard import main as leaderboard

        return leaderboard(args.results_dirs, args.output, args.verified_only)
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
