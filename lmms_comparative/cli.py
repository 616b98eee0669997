"""``lmms-comparative``: the package's own commands.

    lmms-comparative include-path          print the folder to pass to lmms-eval --include_path
    lmms-comparative fixture subtlebench DIR
                                           write a small generated dataset in the official layout
    lmms-comparative demo [--output DIR]   the offline default run: generated SubtleBench data,
                                           the real lmms-eval CLI, the random_choice baseline
    lmms-comparative captionqa-export RESULTS_DIR -o captions.json
                                           {id: caption} from CaptionQA samples logs (the format
                                           the CaptionQA authors score on their private set)
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
from pathlib import Path

from lmms_comparative import yaml_dir

FIXTURES = {
    "subtlebench": ("SUBTLEBENCH_ROOT", "build_subtlebench"),
    "captionqa": ("CAPTIONQA_ROOT", "build_captionqa"),
    "compbench": ("COMPBENCH_ROOT", "build_compbench"),
    "vidi": ("VIDI_ROOT", "build_vidi"),
    "vlm2bench": ("VLM2BENCH_ROOT", "build_vlm2bench"),
}


def _build_fixture(name: str, directory: str) -> Path:
    from lmms_comparative.data import fixtures

    return getattr(fixtures, FIXTURES[name][1])(directory)


def find_results(output_path: str | Path) -> Path:
    """The newest ``*_results.json`` that lmms-eval wrote under ``output_path``."""
    found = sorted(glob.glob(os.path.join(str(output_path), "**", "*_results.json"), recursive=True), key=os.path.getmtime)
    if not found:
        raise FileNotFoundError(f"lmms-eval wrote no *_results.json under {output_path}")
    return Path(found[-1])


def _print_summary(results: dict, tasks: list[str]) -> None:
    table = {**results.get("results", {}), **results.get("groups", {})}
    print(f"{'task':<20} {'n':>5} {'accuracy':>9} {'chance':>7}")
    for name in tasks:
        row = table.get(name, {})
        acc, chance = row.get("accuracy,none"), row.get("chance,none")
        n = row.get("counts,none", {}).get("n", row.get("samples", ""))
        if isinstance(acc, float):
            print(f"{name:<20} {n:>5} {acc:>9.3f} {chance:>7.3f}")


def demo(output: str | None, seed: int) -> int:
    output = Path(output or "demo_output").resolve()
    data_root = output / "subtlebench_data"
    _build_fixture("subtlebench", str(data_root))
    env = dict(os.environ, SUBTLEBENCH_ROOT=str(data_root), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    cmd = [
        sys.executable, "-m", "lmms_eval",
        "--model", "random_choice", "--model_args", f"seed={seed}",
        "--tasks", "subtlebench",
        "--output_path", str(output / "results"), "--log_samples",
        "--verbosity", "WARNING",
    ]  # fmt: skip
    print("$ SUBTLEBENCH_ROOT=" + str(data_root) + " " + " ".join(cmd[2:]).replace("lmms_eval", "lmms-eval", 1), flush=True)
    proc = subprocess.run(cmd, env=env)
    try:
        path = find_results(output / "results")
    except FileNotFoundError as exc:
        print(f"demo failed: {exc} (lmms-eval exited {proc.returncode})", file=sys.stderr)
        return 1
    results = json.loads(path.read_text())
    print(f"\nresults: {path}")
    _print_summary(results, ["subtlebench"] + [f"subtlebench_{k}" for k in ("at", "st", "em", "tm", "sp", "ex", "qn", "ql", "vp", "ac")])
    return 0 if "subtlebench" in results.get("groups", {}) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lmms-comparative", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("include-path", help="print the task folder for lmms-eval --include_path")
    fx = sub.add_parser("fixture", help="write a small generated dataset in a benchmark's official layout")
    fx.add_argument("benchmark", choices=sorted(FIXTURES))
    fx.add_argument("directory")
    dm = sub.add_parser("demo", help="offline run of the SubtleBench tasks on generated data with the random_choice baseline")
    dm.add_argument("--output", default=None, help="folder for the data and results (default: ./demo_output)")
    dm.add_argument("--seed", type=int, default=0)
    ex = sub.add_parser("captionqa-export", help="write {id: caption} JSON from CaptionQA samples logs")
    ex.add_argument("results_dir", help="an lmms-eval --output_path of a run with --log_samples")
    ex.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)

    if args.command == "include-path":
        print(yaml_dir())
        return 0
    if args.command == "fixture":
        root = _build_fixture(args.benchmark, args.directory)
        print(f"{FIXTURES[args.benchmark][0]}={root}")
        return 0
    if args.command == "captionqa-export":
        from lmms_comparative.tasks.captionqa import export_captions

        files = sorted(glob.glob(os.path.join(args.results_dir, "**", "*_samples_captionqa_*.jsonl"), recursive=True))
        if not files:
            print(f"no CaptionQA samples logs (*_samples_captionqa_*.jsonl) under {args.results_dir}; run with --log_samples", file=sys.stderr)
            return 1
        captions = export_captions(files)
        Path(args.output).write_text(json.dumps(captions, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{len(captions)} captions from {len(files)} samples log(s) -> {args.output}")
        return 0
    return demo(args.output, args.seed)


if __name__ == "__main__":
    sys.exit(main())
