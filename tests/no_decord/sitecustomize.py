"""Put on PYTHONPATH by a test: in this interpreter, importing a video decoder fails as it does
where none is installed (``ModuleNotFoundError`` naming the module)."""

import importlib.abc
import importlib.machinery
import sys

HIDDEN = ("decord", "torchcodec")


class _Missing(importlib.abc.Loader):
    def create_module(self, spec):
        raise ModuleNotFoundError(f"No module named {spec.name!r}", name=spec.name)

    def exec_module(self, module):  # never reached
        pass


class _NoVideoDecoder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            return importlib.machinery.ModuleSpec(name, _Missing())
        return None


sys.meta_path.insert(0, _NoVideoDecoder())
