"""What installing the plugin costs a process that imports lmms-eval's models, side by side.

    python bench/entry_point.py [--runs 5]

lmms-eval loads every ``lmms_eval.models`` entry point when ``lmms_eval.models`` is first imported,
so whatever our entry point imports, every script, UI or server that imports lmms-eval's models
pays. Each run starts fresh Python processes, alternating the two variants:

- **plain**: the plugin's entry point filtered out of ``importlib.metadata.entry_points``, which is
  what lmms-eval sees in an environment without the plugin (nothing else differs);
- **plugin**: the environment as installed.

and measures, for each variant:

- ``import lmms_eval.models``: seconds, modules in ``sys.modules`` afterwards, and whether torch,
  transformers or datasets were imported;
- ``lmms-eval models`` (the CLI subcommand that lists model backends): wall seconds of the process.

It prints min / median / max over ``--runs`` and the plugin's added time and modules (median),
beside the target (+0.2 s and +50 modules).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_SECONDS, TARGET_MODULES = 0.2, 50
HEAVY = ("torch", "transformers", "datasets")

# What lmms-eval sees in an environment without the plugin (shared with the tests).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.plain_lmms_eval import HIDE_PLUGIN as _PLAIN  # noqa: E402

_IMPORT = """
import json, sys, time
start = time.perf_counter()
import lmms_eval.models
seconds = time.perf_counter() - start
from lmms_eval.models import MODEL_REGISTRY_V2
print(json.dumps({"seconds": seconds, "modules": len(sys.modules), "heavy": sorted(m for m in %r if m in sys.modules),
                  "ours": "random_choice" in MODEL_REGISTRY_V2.list_canonical_model_ids()}))
""" % (HEAVY,)

_CLI = """
import sys
sys.argv = ["lmms-eval", "models"]
from lmms_eval.cli.dispatch import main
main()
"""


def _import_run(plain: bool) -> dict:
    code = (_PLAIN if plain else "") + _IMPORT
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cli_run(plain: bool) -> float:
    code = (_PLAIN if plain else "") + _CLI
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return time.perf_counter() - start


def _spread(values: list[float], digits: int = 2) -> str:
    return " / ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    imports: dict[str, list[dict]] = {"plain": [], "plugin": []}
    clis: dict[str, list[float]] = {"plain": [], "plugin": []}
    _import_run(True), _import_run(False)  # warm the file cache for both
    for _ in range(args.runs):
        for name in ("plain", "plugin"):
            imports[name].append(_import_run(name == "plain"))
            clis[name].append(_cli_run(name == "plain"))
    print(f"{args.runs} runs each, alternating; min / median / max\n")
    print(
        f"{'variant':8} {'import lmms_eval.models (s)':>30} {'modules':>18} {'heavy imported':>22} "
        f"{'lmms-eval models (s)':>24}"
    )
    for name in ("plain", "plugin"):
        runs = imports[name]
        heavy = sorted({m for r in runs for m in r["heavy"]}) or ["none"]
        print(
            f"{name:8} {_spread([r['seconds'] for r in runs]):>30} "
            f"{_spread([r['modules'] for r in runs], 0):>18} {','.join(heavy):>22} "
            f"{_spread(clis[name]):>24}"
        )
    added_s = statistics.median(r["seconds"] for r in imports["plugin"]) - statistics.median(
        r["seconds"] for r in imports["plain"]
    )
    added_m = statistics.median(r["modules"] for r in imports["plugin"]) - statistics.median(
        r["modules"] for r in imports["plain"]
    )
    cli_ratio = statistics.median(clis["plugin"]) / statistics.median(clis["plain"])
    print(
        f"\nplugin adds {added_s:+.3f} s and {added_m:+.0f} modules to import lmms_eval.models (target: "
        f"within +{TARGET_SECONDS} s, +{TARGET_MODULES} modules): "
        f"{'met' if added_s <= TARGET_SECONDS and added_m <= TARGET_MODULES else 'MISSED'}"
    )
    print(f"lmms-eval models: plugin / plain = {cli_ratio:.2f}x (median)")
    print(
        f"our models in lmms-eval's registry: plain {imports['plain'][0]['ours']}, plugin "
        f"{imports['plugin'][0]['ours']}"
    )


if __name__ == "__main__":
    main()
