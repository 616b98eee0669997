"""Test-only hook, put on PYTHONPATH of an lmms-eval subprocess: records what each call of a Qwen-VL
processor receives (the prompt text, and a 16x16 thumbnail of every image and video frame, in
order) to ``$TINY_VLM_RECORD/<pid>.jsonl``. The model class under test is left as it is; this only
watches the point where its inputs reach the processor.

The processor modules are wrapped when they are first imported (transformers loads them lazily), so
starting Python stays as fast as without the hook.
"""

import importlib.abc
import importlib.machinery
import json
import os
import sys

_TARGETS = {
    "transformers.models.qwen2_5_vl.processing_qwen2_5_vl": "Qwen2_5_VLProcessor",
    "transformers.models.qwen2_vl.processing_qwen2_vl": "Qwen2VLProcessor",
}


def thumbnail(image) -> list:
    """16x16 RGB thumbnail of a PIL image, an HWC/CHW array or a CHW tensor, as a flat list."""
    import numpy as np
    from PIL import Image

    if not isinstance(image, Image.Image):
        array = image.detach().cpu().numpy() if hasattr(image, "detach") else np.asarray(image)
        if array.ndim == 3 and array.shape[0] in (1, 3) and array.shape[-1] not in (1, 3):
            array = array.transpose(1, 2, 0)
        if array.dtype != np.uint8:
            array = (
                array.clip(0, 255).astype(np.uint8)
                if array.max() > 1.5
                else (array * 255).clip(0, 255).astype(np.uint8)
            )
        image = Image.fromarray(array)
    return list(image.convert("RGB").resize((16, 16), Image.BILINEAR).tobytes())


def _as_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _frames(video) -> list:
    if isinstance(video, (list, tuple)):
        return list(video)
    return [video[i] for i in range(video.shape[0])]  # (T, C, H, W) tensor or (T, H, W, C) array


def _wrap(cls):
    original = cls.__call__

    def __call__(self, *args, **kwargs):
        images = kwargs.get("images", args[0] if args else None)
        text = kwargs.get("text", args[1] if len(args) > 1 else None)
        record = {
            "processor": cls.__name__,
            "text": _as_list(text),
            "images": [thumbnail(im) for im in _as_list(images)],
            "videos": [[thumbnail(f) for f in _frames(v)] for v in _as_list(kwargs.get("videos"))],
        }
        folder = os.environ["TINY_VLM_RECORD"]
        with open(os.path.join(folder, f"{os.getpid()}.jsonl"), "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        return original(self, *args, **kwargs)

    cls.__call__ = __call__


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in _TARGETS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader_exec = spec.loader.exec_module

        def exec_module(module):
            loader_exec(module)
            _wrap(getattr(module, _TARGETS[name]))

        spec.loader.exec_module = exec_module
        return spec


if os.environ.get("TINY_VLM_RECORD"):
    sys.meta_path.insert(0, _Finder())
