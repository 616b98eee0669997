"""lmms-eval's own test suite with and without this package installed, compared test by test.

    python tools/upstream_suite.py LMMS_EVAL_CHECKOUT [-- PYTEST_ARGS ...]

Runs ``pytest test/`` inside a checkout of lmms-eval's repository twice, in this environment: once
as it is (our ``lmms_eval.models`` entry point loaded, so every patch installs as lmms-eval's
modules are imported), once with the entry point hidden from ``importlib.metadata`` (what lmms-eval
sees without the package). The checkout's ``lmms_eval`` is the one imported (pytest puts the
checkout first on the path). It prints the counts of each outcome for both runs and every test
whose outcome differs; it exits 1 if any does. A good guest changes none.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.plain_lmms_eval import HIDE_PLUGIN  # noqa: E402


def _outcomes(junit: Path) -> dict[str, str]:
    found = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        found[name] = "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
    return found


def _run(checkout: Path, plugin: bool, junit: Path, extra: list[str]) -> None:
    args = ["test", "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors", f"--junitxml={junit}", *extra]
    code = ("" if plugin else HIDE_PLUGIN) + f"import sys, pytest\nsys.exit(pytest.main({args!r}))\n"
    subprocess.run([sys.executable, "-c", code], cwd=checkout, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkout", type=Path, help="a checkout of lmms-eval's repository (its test/ folder is run)")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        runs = {}
        for plugin in (False, True):
            junit = Path(scratch) / f"{'with' if plugin else 'without'}.xml"
            _run(args.checkout, plugin, junit, args.pytest_args)
            runs[plugin] = _outcomes(junit)
    for plugin, outcomes in ((False, runs[False]), (True, runs[True])):
        counts = Counter(outcomes.values())
        print(
            f"{'with' if plugin else 'without'} the plugin: {counts['passed']} passed, {counts['failed']} "
            f"failed, {counts['skipped']} skipped ({len(outcomes)} tests)"
        )
    changed = sorted(
        name for name in set(runs[False]) | set(runs[True]) if runs[False].get(name) != runs[True].get(name)
    )
    for name in changed:
        print(f"  {name}: {runs[False].get(name, 'absent')} without, {runs[True].get(name, 'absent')} with")
    print(f"{len(changed)} test(s) change outcome with the plugin installed")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
