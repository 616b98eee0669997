"""CaptionQA's own command: ``lmms-comparative captionqa-export RESULTS_DIR -o captions.json``, the
{id: caption} file the CaptionQA authors score on their private set, from a run's samples logs.

The samples logs may be a stranger's (docs/security.md): each is read as a regular file with no
link followed, bounded, line by line (``data/jsonl.py``), and the captions file is written through
``untrusted.write_file``; a file that is refused is one line, exit 1."""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys

from lmms_comparative.record import Command

SAMPLES = "*_samples_captionqa_*.jsonl"  # lmms-eval's name for a CaptionQA task's samples log


class ExportError(ValueError):
    """A samples log that cannot be read, or a captions file that is not written: one line."""


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results_dir", help="an lmms-eval --output_path of a run with --log_samples")
    parser.add_argument("-o", "--output", required=True)


def captions_of(samples_files: list[str]) -> dict[str, str]:
    """``{id: caption}`` from lmms-eval samples logs of CaptionQA tasks: the format the authors
    accept for scoring on their private full set (README of the official repository). A caption
    that failed or is blank is left out; a log that is not JSON lines of objects is an ``ExportError``."""
    from lmms_comparative.data.jsonl import json_lines

    captions: dict[str, str] = {}
    for path in samples_files:
        for row in json_lines(path, ExportError, "samples log"):
            sample = row.get("score")
            if not isinstance(sample, dict):
                sample = {}
            caption = sample.get("caption")
            if (
                isinstance(sample.get("id"), str)
                and not sample.get("caption_failed")
                and isinstance(caption, str)
                and caption.strip()
            ):
                captions[sample["id"]] = caption
    return captions


def _export(args: argparse.Namespace) -> int:
    from lmms_comparative.data import gate, untrusted

    found, passed = gate.files_matching(args.results_dir, SAMPLES)  # no link followed, regular files only
    # A samples log passed over (a link, a pipe) would leave its captions out of the file: an error;
    # anything else passed over is a note.
    missed = [path for path, _ in passed if fnmatch.fnmatchcase(path.name, SAMPLES)]
    for path, why in passed:
        label = "error: " if path in missed else ""
        print(
            f"lmms-comparative captionqa-export: {label}{untrusted.printable(f'{path}: {why}', lines=False)}",
            file=sys.stderr,
        )
    if missed:
        return 1
    files = [str(f) for f in found]
    if not files:
        print(
            f"no CaptionQA samples logs ({SAMPLES}) under {untrusted.printable(args.results_dir, lines=False)}; run "
            "with --log_samples",
            file=sys.stderr,
        )
        return 1
    try:
        captions = captions_of(files)
        try:
            untrusted.write_file(args.output, json.dumps(captions, indent=2, ensure_ascii=False) + "\n")
        except untrusted.Unsafe as exc:
            raise ExportError(f"{args.output}: {exc}") from None
        except OSError as exc:
            raise ExportError(f"{args.output}: not written ({exc.strerror or exc})") from None
    except ExportError as exc:
        print(
            f"lmms-comparative captionqa-export: error: {untrusted.printable(str(exc), lines=False)}", file=sys.stderr
        )
        return 1
    print(
        f"{len(captions)} captions from {len(files)} samples log(s) -> {untrusted.printable(args.output, lines=False)}"
    )
    return 0


COMMANDS = (
    Command(
        "captionqa-export",
        "write {id: caption} JSON from CaptionQA samples logs",
        _arguments,
        _export,
        synopsis="RESULTS_DIR -o captions.json",
        usage="{id: caption} from CaptionQA samples logs (the format the CaptionQA authors score on their private set)",
    ),
)
