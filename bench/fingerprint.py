"""The data fingerprint, side by side: the previous one (images and videos by path and size), the
content fingerprint with an empty hash cache, and again with the cache filled.

    python bench/fingerprint.py [--images 6500] [--runs 3] [--dir DIR]

Writes a folder shaped like VLM-SubtleBench's release (``data/test.jsonl``, one record per pair,
and ``--images`` JPEG files of 60-400 kB, the range of the release's images, spread evenly; the
release has about 26,000 images: the default is a quarter of them, about 1.5 GB) into a
temporary folder (``--dir``: under that folder, e.g. on another disk). The files' mtimes are put an
hour back: the cache keeps no hash of a file changed in the last 2 s. Then, in each run:

- old: the fingerprint as it was before content hashing (copied below: records and tables by
  content, every other file by path and size);
- cold: ``provenance.fingerprint`` with an empty hash cache, on ``HASH_WORKERS`` threads; the
  files' pages are in the OS page cache (they were just written or read);
- cold, 1 thread: the same on one thread;
- cold, from disk: the same, after each file's pages were dropped from the page cache
  (``posix_fadvise(DONTNEED)``, this folder's files only; where the kernel ignores it, this row
  reads from memory like "cold");
- warm: ``provenance.fingerprint`` again on the cache the cold run filled (a later run on the same
  data): it must hash no file.

All content fingerprints must be equal. Prints each variant's time and MB/s (the folder's bytes over
the time), min / median / max over the runs, the ratios to the old fingerprint (within each run),
and the first-run cost per GB and at the release's size (26,000 images of the same mean size),
extrapolated linearly from the measured MB/s.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from data_scale import SUBTLEBENCH_IMAGE_KB, noise_jpegs  # noqa: E402 - the release's image sizes, as data_scale writes them

from lmms_comparative import provenance  # noqa: E402
from lmms_comparative.provenance import data_fingerprint  # noqa: E402 - where fingerprint looks up the names patched below

RELEASE_IMAGES = 26_000  # VLM-SubtleBench's images, test and val
_OLD_CONTENT_SUFFIXES = {".json", ".jsonl", ".tsv", ".csv", ".parquet", ".txt", ".yaml", ".yml", ".xlsx", ".zip"}


def old_fingerprint(folder: Path) -> str:
    """The fingerprint before content hashing (lmms_comparative/provenance.py at 6de99d4)."""
    folder = str(folder)
    lines = []
    for base, dirs, files in os.walk(folder, followlinks=True):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(base, name)
            try:
                size = os.stat(path).st_size
            except OSError:
                continue
            line = f"{os.path.relpath(path, folder).replace(os.sep, '/')}\t{size}"
            if os.path.splitext(name)[1].lower() in _OLD_CONTENT_SUFFIXES:
                line += "\t" + provenance.file_sha256(path)
            lines.append(line)
    return hashlib.sha256("\n".join(sorted(lines)).encode("utf-8")).hexdigest()


def build(root: Path, images: int) -> int:
    """The folder (module docstring); returns its bytes."""
    photos = noise_jpegs(24, *SUBTLEBENCH_IMAGE_KB)
    (root / "data").mkdir(parents=True)
    (root / "images").mkdir()
    with open(root / "data" / "test.jsonl", "w", encoding="utf-8") as handle:
        for i in range(images // 2):
            handle.write(
                json.dumps(
                    {
                        "item_id": f"{i:05d}",
                        "image_1": f"images/{2 * i:05d}.jpg",
                        "image_2": f"images/{2 * i + 1:05d}.jpg",
                        "answer": "A",
                    }
                )
                + "\n"
            )
    for k in range(images):
        (root / "images" / f"{k:05d}.jpg").write_bytes(photos[k % len(photos)])
    past = time.time_ns() - 3600 * 10**9
    total = 0
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(past, past))
            total += path.stat().st_size
    return total


def evict(root: Path) -> None:
    """Drop this folder's files from the page cache (after syncing them: dirty pages stay)."""
    os.sync()
    for path in root.rglob("*"):
        if path.is_file():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def timed(fn) -> tuple[float, str]:
    provenance.reset()  # no fingerprint remembered in this process
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def spread(values: list[float], fmt: str = "{:.2f}") -> str:
    return " / ".join(fmt.format(v) for v in (min(values), statistics.median(values), max(values)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=RELEASE_IMAGES // 4)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--dir",
        default=None,
        help="the folder to write the data and the caches under (default: the system's temporary folder)",
    )
    args = parser.parse_args()

    hashed = []
    real = data_fingerprint.file_sha256
    data_fingerprint.file_sha256 = lambda path: hashed.append(path) or real(path)
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
        root = Path(scratch) / "subtlebench"
        start = time.perf_counter()
        total = build(root, args.images)
        files = sum(1 for p in root.rglob("*") if p.is_file())
        print(
            f"{files} files, {total / 1e9:.2f} GB (mean {total / files / 1e3:.0f} kB) written in "
            f"{time.perf_counter() - start:.1f} s; {provenance.HASH_WORKERS} hashing threads, "
            f"{os.cpu_count()} CPUs"
        )
        times: dict[str, list[float]] = {
            name: [] for name in ("old", "cold", "cold, 1 thread", "cold, from disk", "warm")
        }
        for run in range(args.runs):
            caches = [Path(scratch) / f"cache_{run}_{k}" for k in range(3)]
            seconds, _ = timed(lambda: old_fingerprint(root))
            times["old"].append(seconds)
            os.environ["XDG_CACHE_HOME"] = str(caches[0])
            seconds, cold = timed(lambda: provenance.fingerprint(root))
            times["cold"].append(seconds)
            hashed.clear()
            seconds, warm = timed(lambda: provenance.fingerprint(root))
            times["warm"].append(seconds)
            if hashed:
                print(f"the warm run hashed {len(hashed)} files", file=sys.stderr)
                return 1
            os.environ["XDG_CACHE_HOME"] = str(caches[1])
            workers, data_fingerprint.HASH_WORKERS = data_fingerprint.HASH_WORKERS, 1
            seconds, single = timed(lambda: provenance.fingerprint(root))
            data_fingerprint.HASH_WORKERS = workers
            times["cold, 1 thread"].append(seconds)
            os.environ["XDG_CACHE_HOME"] = str(caches[2])
            evict(root)
            seconds, from_disk = timed(lambda: provenance.fingerprint(root))
            times["cold, from disk"].append(seconds)
            if len({cold, warm, single, from_disk}) != 1:
                print("the content fingerprints differ", file=sys.stderr)
                return 1
            print(f"run {run + 1}: " + ", ".join(f"{name} {values[-1]:.2f} s" for name, values in times.items()))
    mb = total / 1e6
    print(
        f"\n{'variant':18s} {'s (min / median / max)':26s} {'MB/s (median)':>14s} {'x old (min / median / max)':>28s}"
    )
    for name, values in times.items():
        ratios = [v / o for v, o in zip(values, times["old"])]
        print(f"{name:18s} {spread(values):26s} {mb / statistics.median(values):14.0f} {spread(ratios):>28s}")
    release_gb = RELEASE_IMAGES * total / files / 1e9
    print(
        "\nper GB, first run (extrapolated from the medians): "
        f"{statistics.median(times['cold']) * 1e3 / mb:.2f} s from the page cache, "
        f"{statistics.median(times['cold, from disk']) * 1e3 / mb:.2f} s from disk"
    )
    print(
        f"the release ({RELEASE_IMAGES:,} images, {release_gb:.1f} GB at this mean size), first run: "
        f"{statistics.median(times['cold']) * release_gb * 1e3 / mb:.1f} s from the page cache, "
        f"{statistics.median(times['cold, from disk']) * release_gb * 1e3 / mb:.1f} s from disk; later "
        f"runs {statistics.median(times['warm']) * RELEASE_IMAGES / files:.2f} s (old: "
        f"{statistics.median(times['old']) * RELEASE_IMAGES / files:.2f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
