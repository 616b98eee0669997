"""What a run with no ``*_ROOT`` set fetches from the hub, against what its split needs.

    python bench/hub_fetch.py [--per-category 4]

For SubtleBench, CaptionQA and VLM²-Bench, builds a repository laid out as the real one (the
package's fixture builders: SubtleBench's JSON lines with full-URL image fields and val images
beside the test ones, CaptionQA's parquet shards with their configs and an extra upload, VLM²'s
zip), serves it from the tests' local hub on 127.0.0.1 (``HF_ENDPOINT``; the real
``huggingface_hub`` and ``datasets`` code runs), and calls the benchmark's loader three times, each
in a fresh process with one Hugging Face cache: online, online again, and with
``HF_HUB_OFFLINE=1``. Prints, per benchmark: the repository's files and bytes, what the test split
needs, what was fetched (files, bytes) and the requests of each of the three runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from helpers.fake_hub import FakeHub, Repo, hub_env  # noqa: E402 - the tests' local hub

LOADERS = {
    "subtlebench": (
        "KRAFTON/VLM-SubtleBench",
        "from lmms_comparative.benchmarks.subtlebench import data; print(data.root('test'))",
    ),
    "captionqa": ("Borise/CaptionQA", "from lmms_comparative.benchmarks.captionqa import data; print(data.root())"),
    "vlm2bench": (
        "Sterzhang/vlm2-bench",
        "from lmms_comparative.benchmarks.vlm2bench.fetch import hub_source; print(hub_source())",
    ),
}


def build(bench: str, dest: Path, per_category: int) -> tuple[Path, list[str]]:
    """The repository folder and the repository paths a test-split run needs."""
    if bench == "subtlebench":
        from lmms_comparative.benchmarks.subtlebench.fixture import build as build_subtlebench

        repo = build_subtlebench(dest / "repo", per_category=per_category, val_per_category=per_category)
        (repo / "README.md").write_text("# VLM-SubtleBench (generated)\n")
        needed = ["data/test.jsonl"]
        for line in (repo / "data" / "test.jsonl").read_text().splitlines():
            record = json.loads(line)
            needed += [record[f].split("/resolve/main/", 1)[1] for f in ("image_1", "image_2")]
        return repo, sorted(set(needed))
    if bench == "captionqa":
        from lmms_comparative.benchmarks.captionqa.fixture import build as build_captionqa

        repo = build_captionqa(dest / "repo", per_domain=per_category)
        # The dataset card (its configs name the data files) and every split's parquet: the image
        # tasks' option order walks "all", the domain splits give the docs.
        return repo, sorted(["README.md", *(p.relative_to(repo).as_posix() for p in (repo / "data").glob("*.parquet"))])
    from lmms_comparative.benchmarks.vlm2bench.fixture import build as build_vlm2bench
    from lmms_comparative.benchmarks.vlm2bench.fixture import write_zip

    repo = dest / "repo"
    repo.mkdir()
    write_zip(build_vlm2bench(dest / "release"), repo / "vlm2-bench_dataset.zip")
    (repo / "README.md").write_text("# VLM2-Bench (generated)\n")
    return repo, ["vlm2-bench_dataset.zip"]


def measure(bench: str, per_category: int) -> dict:
    name, code = LOADERS[bench]
    with tempfile.TemporaryDirectory(prefix=f"hub_fetch_{bench}_") as tmp:
        repo, needed = build(bench, Path(tmp), per_category)
        size = lambda paths: sum((repo / p).stat().st_size for p in paths)  # noqa: E731
        runs = []
        with FakeHub({name: Repo(repo)}) as hub:
            env = {
                **{k: v for k, v in os.environ.items() if not k.endswith("_ROOT") and k != "HF_TOKEN"},
                **hub_env(hub, Path(tmp) / "home"),
            }
            for label, extra in (
                ("first run", {}),
                ("second run", {}),
                ("offline", {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}),
            ):
                before, got_before = len(hub.requests), len(hub.resolved())
                proc = subprocess.run(
                    [sys.executable, "-c", code], env={**env, **extra}, capture_output=True, text=True, timeout=600
                )
                if proc.returncode != 0:
                    raise SystemExit(f"{bench} ({label}) failed:\n{proc.stderr[-3000:]}")
                fetched = hub.resolved()[got_before:]
                runs.append(
                    {
                        "run": label,
                        "requests": len(hub.requests) - before,
                        "files": len(fetched),
                        "bytes": size(fetched),
                        "fetched": fetched,
                    }
                )
        files = Repo(repo).files()
        first = set(runs[0]["fetched"])
        return {
            "benchmark": bench,
            "repo": {"files": len(files), "bytes": size(files)},
            "needed": {"files": len(needed), "bytes": size(needed)},
            "runs": [{k: v for k, v in r.items() if k != "fetched"} for r in runs],
            "fetched_but_not_needed": sorted(first - set(needed)),
            "needed_but_not_fetched": sorted(set(needed) - first),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--per-category",
        type=int,
        default=4,
        help="SubtleBench items per type (test and val); CaptionQA image sets per domain",
    )
    parser.add_argument("--benchmarks", nargs="+", choices=sorted(LOADERS), default=list(LOADERS))
    args = parser.parse_args()
    rows = [measure(bench, args.per_category) for bench in args.benchmarks]
    print(
        f"{'benchmark':<12} {'repo':>18} {'split needs':>18} {'1st run fetched':>18}  requests (1st / 2nd "
        "/ offline)  other files fetched"
    )
    for row in rows:
        pair = lambda d: f"{d['files']} files, {d['bytes']:,} B"  # noqa: E731
        first = row["runs"][0]
        extra = ", ".join(row["fetched_but_not_needed"]) or "none"
        print(
            f"{row['benchmark']:<12} {pair(row['repo']):>18} {pair(row['needed']):>18} {pair(first):>18}  "
            f"{' / '.join(str(r['requests']) for r in row['runs']):<30} {extra}"
        )
        if row["needed_but_not_fetched"]:
            print(f"  NOT fetched though the split needs them: {row['needed_but_not_fetched']}")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
