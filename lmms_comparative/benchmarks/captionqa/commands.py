"""CaptionQA's own command: ``lmms-comparative captionqa-export RESULTS_DIR -o captions.json``, the
{id: caption} file the CaptionQA authors score on their private set, from a run's samples logs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lmms_comparative.record import Command


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results_dir", help="an lmms-eval --output_path of a run with --log_samples")
    parser.add_argument("-o", "--output", required=True)


def _export(args: argparse.Namespace) -> int:
    from lmms_comparative.benchmarks.captionqa.hooks import export_captions
    from lmms_comparative.data import untrusted

    found, _links = untrusted.results_files(args.results_dir, "*_samples_captionqa_*.jsonl")  # no link followed
    files = [str(f) for f in found]
    if not files:
        print(f"no CaptionQA samples logs (*_samples_captionqa_*.jsonl) under {args.results_dir}; run with --log_samples", file=sys.stderr)
        return 1
    captions = export_captions(files)
    Path(args.output).write_text(json.dumps(captions, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(captions)} captions from {len(files)} samples log(s) -> {args.output}")
    return 0


COMMANDS = (Command("captionqa-export", "write {id: caption} JSON from CaptionQA samples logs", _arguments, _export),)
