"""Every ``!function`` our task YAMLs name is written out where grep finds it: a ``def`` or a one-line
assignment in the module the YAML names, not a name made through ``globals()`` in a loop."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from lmms_comparative import yaml_dir

FUNCTION = re.compile(r"!function\s+([A-Za-z0-9_.]+)")


def test_every_yaml_function_is_a_def_or_an_assignment_in_its_module():
    named = sorted({m for path in Path(yaml_dir()).rglob("*.yaml") for m in FUNCTION.findall(path.read_text(encoding="utf-8"))})
    assert len(named) > 50
    missing = []
    for dotted in named:
        module_name, _, attr = dotted.rpartition(".")
        module = importlib.import_module(module_name)
        found = getattr(module, attr)
        assert callable(found), dotted
        # Where it is written: the module the YAML names, or (a re-export) where it is defined.
        homes = {module, importlib.import_module(getattr(found, "__module__", module_name) or module_name)}
        if not any(re.search(rf"^(def {attr}\(|{attr} = )", Path(home.__file__).read_text(encoding="utf-8"), re.M) for home in homes):
            missing.append(dotted)
    assert not missing, f"made without a def or an assignment grep can find: {missing}"
    for path in Path(yaml_dir()).parent.rglob("*.py"):
        assert "globals()[" not in path.read_text(encoding="utf-8"), path
