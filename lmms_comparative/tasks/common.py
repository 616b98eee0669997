"""Hook helpers shared by every benchmark."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from PIL import Image

from lmms_comparative.data.errors import DataError


def load_images(doc: dict[str, Any], fields: Iterable[str]) -> list[Image.Image]:
    """Open the image files that ``doc`` names in ``fields``, as RGB, in that order."""
    fields = list(fields)
    return load_image_paths([doc[f] for f in fields], doc.get("item_id", "?"), fields)


def load_image_paths(paths: Iterable[str], doc_id: str, names: Iterable[str] | None = None) -> list[Image.Image]:
    """Open image files as RGB, in order; a missing or undecodable file raises DataError naming
    the doc, the image and the path."""
    paths = list(paths)
    names = list(names) if names is not None else [f"image {i + 1}" for i in range(len(paths))]
    images = []
    for name, path in zip(names, paths):
        try:
            with Image.open(path) as handle:
                images.append(handle.convert("RGB"))
        except (OSError, ValueError) as exc:
            raise DataError(f"doc {doc_id}: cannot read {name} at {path} ({exc}).") from exc
    return images


def response_text(results: list) -> str:
    """The model's answer text from lmms-eval's ``results`` (a string, or an object with ``.text``)."""
    response = results[0] if results else ""
    return response if isinstance(response, str) else str(getattr(response, "text", response))


def _filter_base():
    from lmms_eval.api.filter import Filter

    return Filter


class KeepAllResponses(_filter_base()):
    """An lmms-eval filter that keeps every response of a doc (lmms-eval's default keeps the
    first), so that with ``--repeats K`` process_results sees all K."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)

    def apply(self, resps, docs):
        return [list(r) for r in resps]


def docs_hook(name: str, load: Callable[[], Any]):
    """A ``process_docs`` for lmms-eval that ignores the one-row placeholder the YAML loads and
    returns the benchmark's real docs (a list of dicts or a Dataset) from ``load``: lmms-eval has
    no hook for data found through an environment variable."""

    def process_docs(_placeholder):
        from datasets import Dataset

        docs = load()
        return docs if isinstance(docs, Dataset) else Dataset.from_list(docs)

    process_docs.__name__ = f"process_docs_{name}"
    return process_docs
