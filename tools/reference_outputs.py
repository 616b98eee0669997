"""Build the MLLM-CompBench reference outputs (the authors' published replies) from their repository.

    python tools/reference_outputs.py build DIR                   # fetch the pinned commit, write DIR, check
    python tools/reference_outputs.py build DIR --repo PATH|URL   # from a clone you have (or another URL)
    python tools/reference_outputs.py check DIR                   # only compare DIR with the hash list
    python tools/reference_outputs.py write-sums DIR              # the hash list from DIR (maintainers)

The tests that rescore the published replies into the paper's cells (tests/compbench/) read these
files from ``LMMS_COMPARATIVE_REFERENCE_OUTPUTS`` (default: ``reference_outputs`` in the ``shared``
folder beside the checkout) and skip without them. The replies are not in this repository: their
repository (github.com/RaptorMai/CompBenchReview) has no license file, so each contributor builds
them from it. ``build`` fetches that repository at the commit pinned in the manifest (one shallow
``git fetch``, about 75 MB) into a temporary folder, or reads ``--repo`` when it is a local git
repository holding that commit, and writes::

    DIR/manifest.json                 one entry per reply file: paper cell, counts, sources, check
    DIR/compbench/items/<COL>.jsonl   the authors' test split of each Table 2 column, in file order
    DIR/compbench/<model>_<COL>.jsonl one line per test item: the stored reply joined to it

Every file written is then compared with the sha256 list committed beside this script
(``reference_outputs.sha256``); a difference is one line naming the file, and the exit status is 1.

How a file is made (the rules the manifest's counts were taken with):

- items: the records of ``source.test_split_file`` in order; ``idx`` is the position. Fields:
  ``column``, ``kind``, ``idx``, the images (``image_1``/``image_2``: the record's ``image_1``/
  ``image_2``, ``left``/``right`` for SoccerNet, ``path_input``/``path_output`` for MagicBrush;
  ``image`` for Q-Bench2), ``question`` and ``type`` when the record has them, SoccerNet's
  ``action``, and ``gt`` (the record's ``answer``; ``Answeer`` for MagicBrush, ``Answer`` for
  Spot-the-diff).
- replies: the records of every ``source.result_files`` (a JSON list or JSON lines; non-objects
  dropped), in order, keyed on (image 1, image 2, question, answer) in the fields above, without
  the question when a record has none. In image paths ``\\`` is read as ``/`` and
  ``att_cls_images/...`` as ``cub_200_2011/att_cls_images/...`` (part of the CUB results has
  Windows paths or lacks the folder). Two records with one key: the later one counts. Each test
  item takes the record of its key; an item without one is an error. ``reply`` is the record's
  ``<m>_answer`` (``ANSWER_FIELD``), verbatim; where it is an object (an API error) ``reply`` is
  null and ``api_error`` holds its JSON text cut to 300 characters. A record with
  ``gemini_summary_answer`` (Gemini's SoccerNet files) gives that as ``reply`` and its
  ``gemini_answer`` as ``raw_reply``. ``options`` come from the test item: MagicBrush and
  Spot-the-diff its ``Modified_option`` split on ``,`` and stripped, empty parts kept; Q-Bench2 its
  ``option``.
- JSON lines are written in UTF-8 with compact separators; ``manifest.json`` is the committed
  ``reference_outputs_manifest.json`` written with an indent of 1.

``write-sums DIR`` rewrites the hash list from a folder (how it was first made, from the folder the
manifest's counts were checked on); a change of the rules goes with a new list in the same commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "reference_outputs_manifest.json"
SUMS = HERE / "reference_outputs.sha256"
VARIABLE = "LMMS_COMPARATIVE_REFERENCE_OUTPUTS"

# The field that holds the model's reply in the authors' result records, per manifest model. SUMMARY
# is (reply, raw_reply) where a record has the first: Gemini's SoccerNet files hold its own text and
# a GPT summary of it to Left/Right, which is what the authors scored.
ANSWER_FIELD = {
    "gpt4v": "gpt_answer",
    "gpt4v-two-stage": "gpt_decompose_answer",
    "gemini1.0pro": "gemini_answer",
    "llava1.6-34b": "llava_answer",
    "llava1.6-34b-finetuned": "llava_answer",
    "vila1.5-40b": "vila_answer",
}
SUMMARY = ("gemini_summary_answer", "gemini_answer")
API_ERROR_CHARS = 300
CUB_FOLDER, CUB_IMAGES = "cub_200_2011", "att_cls_images"

# The shapes of the authors' records: the field a shape is told by, its two image fields and its
# answer field. Order matters (a Spot-the-diff record also has image_1).
SHAPES = (
    ("left", ("left", "right"), "answer"),
    ("path_input", ("path_input", "path_output"), "Answeer"),
    ("image", ("image", "image"), "answer"),
    ("Answer", ("image_1", "image_2"), "Answer"),
    ("image_1", ("image_1", "image_2"), "answer"),
)


class BuildError(Exception):
    """A source that cannot give the files: one line for the user."""


def _shape(record: dict, where: str) -> tuple[tuple[str, str], str]:
    for marker, images, answer in SHAPES:
        if marker in record:
            return images, answer
    raise BuildError(f"{where}: a record without any image field the builder knows: {sorted(record)}")


def _path(path: str) -> str:
    """An image path as the test split writes it: part of the CUB results has Windows separators,
    part lacks the dataset's folder."""
    path = path.replace("\\", "/")
    return f"{CUB_FOLDER}/{path}" if path.startswith(f"{CUB_IMAGES}/") else path


def join_key(record: dict, where: str) -> tuple:
    """What a test item and its result record share (the authors' join rule)."""
    (first, second), answer = _shape(record, where)
    images = tuple(_path(record[f]) for f in (first, second))
    question = (record["question"],) if "question" in record else ()
    return images + question + (record[answer],)


def item_line(column: str, kind: str, idx: int, record: dict, where: str) -> dict:
    (first, second), answer = _shape(record, where)
    line: dict = {"column": column, "kind": kind, "idx": idx}
    if first == second:
        line["image"] = record[first]
    else:
        line["image_1"], line["image_2"] = record[first], record[second]
    for field in ("question", "action", "type"):
        if field in record:
            line[field] = record[field]
    line["gt"] = record[answer]
    return line


def options_of(record: dict, kind: str) -> list[str] | None:
    if kind == "qbench":
        return list(record["option"])
    if kind == "options":
        return [part.strip() for part in record["Modified_option"].split(",")]  # "a, b, " gives "" too
    return None


def reply_line(column: str, kind: str, idx: int, item: dict, result: dict, model: str, where: str) -> dict:
    (_, answer), options = _shape(item, where), options_of(item, kind)
    line: dict = {"column": column, "idx": idx}
    if options is not None:
        line["options"] = options
    line["gt"] = item[answer]
    field, raw = (SUMMARY[0], SUMMARY[1]) if SUMMARY[0] in result else (ANSWER_FIELD.get(model), None)
    if field is None:
        raise BuildError(f"{where}: model {model!r} has no reply field in ANSWER_FIELD")
    if field not in result:
        raise BuildError(f"{where}: item {idx}'s record has no {field!r}")
    reply = result[field]
    if isinstance(reply, dict):
        line["reply"], line["api_error"] = None, json.dumps(reply)[:API_ERROR_CHARS]
    else:
        line["reply"] = reply
    if raw is not None:
        line["raw_reply"] = result[raw]
    return line


def _records(text: str, where: str) -> list[dict]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        try:
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as err:
            raise BuildError(f"{where}: neither JSON nor JSON lines ({err})") from None
    if isinstance(data, dict):  # JSON lines with one line
        data = [data]
    if not isinstance(data, list):
        raise BuildError(f"{where}: expected a list of records, found {type(data).__name__}")
    return [r for r in data if isinstance(r, dict)]


def _jsonl(lines: list[dict]) -> bytes:
    return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines).encode("utf-8")


class Source:
    """Files of one commit of a git repository (local, or fetched from a URL into a temporary folder)."""

    def __init__(self, repo: str, commit: str, scratch: Path):
        self.commit = commit
        local = Path(repo).expanduser()
        if local.exists():
            self.git_dir = local if (local / "HEAD").is_file() else local / ".git"  # bare, or a work tree's
            if self._git("cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
                raise BuildError(
                    f"{repo}: not a git repository holding commit {commit} (in a clone: git fetch origin {commit})"
                )
            return
        self.git_dir = scratch / "source.git"
        self._git("init", "--quiet", "--bare")
        proc = self._git("fetch", "--quiet", "--depth", "1", "--no-tags", repo, commit)
        if proc.returncode != 0:
            said = " ".join(proc.stderr.decode(errors="replace").split())[-300:]
            raise BuildError(
                f"could not fetch commit {commit} of {repo} (is the network reachable?): git says: {said}. "
                "Clone it where you can and pass --repo PATH"
            )

    def _git(self, *args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}  # a wrong URL fails instead of asking for a password
        return subprocess.run(["git", f"--git-dir={self.git_dir}", *args], capture_output=True, check=False, env=env)

    def read(self, path: str) -> str:
        proc = self._git("cat-file", "blob", f"{self.commit}:{path}")
        if proc.returncode != 0:
            raise BuildError(
                f"{path}: not readable at commit {self.commit} "
                f"({' '.join(proc.stderr.decode(errors='replace').split())})"
            )
        return proc.stdout.decode("utf-8")


def build_files(cells: list[dict], source: Source) -> dict[str, bytes]:
    """Every reply file of the manifest and every column's items file, by path under the output folder."""
    files: dict[str, bytes] = {}
    items: dict[str, list[dict]] = {}
    for cell in cells:
        column, kind, src = cell["column"], cell["kind"], cell["source"]
        if column not in items:
            split = src["test_split_file"]
            items[column] = [r for r in _records(source.read(split), split) if r]
            files[f"compbench/items/{column}.jsonl"] = _jsonl(
                [item_line(column, kind, i, r, split) for i, r in enumerate(items[column])]
            )
        by_key: dict[tuple, dict] = {}
        for path in src["result_files"]:
            for record in _records(source.read(path), path):
                by_key[join_key(record, path)] = record
        lines = []
        for idx, item in enumerate(items[column]):
            result = by_key.get(join_key(item, src["test_split_file"]))
            if result is None:
                raise BuildError(
                    f"{cell['file']}: test item {idx} of {src['test_split_file']} has no record in "
                    f"{', '.join(src['result_files'])}"
                )
            lines.append(reply_line(column, kind, idx, item, result, cell["model"], cell["file"]))
        files[cell["file"]] = _jsonl(lines)
    return files


def manifest_bytes(manifest: dict) -> bytes:
    return json.dumps(manifest, indent=1, ensure_ascii=False).encode("utf-8")


def read_sums(path: Path) -> dict[str, str]:
    """``sha256sum`` lines (``HASH  PATH``), so that ``sha256sum -c`` in the built folder works too."""
    sums = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            sums[name.lstrip("*")] = digest
    return sums


def differences(out: Path, sums: dict[str, str]) -> list[str]:
    """One line per file of the list that is absent from ``out`` or whose sha256 differs."""
    lines = []
    for name, digest in sorted(sums.items()):
        path = out / name
        if not path.is_file():
            lines.append(f"missing: {path}")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            lines.append(f"differs from the committed sha256: {path}")
    return lines


def build(out: Path, repo: str | None, manifest_path: Path = MANIFEST, sums_path: Path = SUMS) -> list[str]:
    """Write the files into ``out``; the lines of ``differences`` (empty: every hash matched)."""
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    cells = manifest["cells"]
    origins = {(c["source"]["repository"], c["source"]["commit"]) for c in cells}
    if len(origins) != 1:
        raise BuildError(
            f"{manifest_path}: the cells name {len(origins)} repositories or commits; the builder reads one"
        )
    repository, commit = origins.pop()
    with tempfile.TemporaryDirectory(prefix="reference-outputs-") as scratch:
        files = build_files(cells, Source(repo or f"https://{repository}.git", commit, Path(scratch)))
    files["manifest.json"] = manifest_bytes(manifest)
    for name, data in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    return differences(out, read_sums(sums_path))


def write_sums(folder: Path, sums_path: Path = SUMS) -> int:
    """The list from a folder whose files are trusted (how the committed list was made)."""
    names = sorted(
        ["manifest.json"] + [p.relative_to(folder).as_posix() for p in (folder / "compbench").rglob("*.jsonl")]
    )
    sums_path.write_text(
        "".join(f"{hashlib.sha256((folder / n).read_bytes()).hexdigest()}  {n}\n" for n in names), encoding="utf-8"
    )
    return len(names)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("build", help="fetch the authors' repository at the pinned commit and write DIR")
    run.add_argument("dir", type=Path)
    run.add_argument(
        "--repo",
        help="a local git repository holding the commit, or a URL to fetch it from (default: the manifest's "
        "repository, over https)",
    )
    commands.add_parser("check", help="compare DIR's files with the committed sha256 list").add_argument(
        "dir", type=Path
    )
    commands.add_parser(
        "write-sums", help="write the sha256 list from DIR (a folder already checked by other means)"
    ).add_argument("dir", type=Path)
    args = parser.parse_args(argv)
    if args.command == "write-sums":
        print(f"{write_sums(args.dir)} hashes written to {SUMS.name}")
        return 0
    try:
        lines = build(args.dir, args.repo) if args.command == "build" else differences(args.dir, read_sums(SUMS))
    except BuildError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    total = len(read_sums(SUMS))
    for line in lines:
        print(line)
    print(f"{total - len(lines)} of {total} files match the committed sha256 list ({args.dir})")
    if not lines and args.command == "build":
        print(f"tests read them with: export {VARIABLE}={args.dir.resolve()}")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
