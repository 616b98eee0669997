"""CaptionQA prompts (github bronyayang/CaptionQA): the caption prompts (caption_prompt.py and
caption.py) and the reader's (qa.py)."""

from __future__ import annotations

from typing import Sequence

# caption_prompt.py: CAPTION_PROMPTS, verbatim.
CAPTION_PROMPTS = {
    "simple": "Describe this image in detail.",
    "short": "Write a very short caption for the given image.",
    "long": "Write a very long and detailed caption describing the given image as comprehensively as possible.",
}

# caption_prompt.py _create_default_taxonomy_prompt: first line. The paper (§3, supplementary §9)
# words it "Skip any aspect that does not apply."; the official code, which produced the
# published numbers, says what follows.
TAXONOMY_HEADER = "Describe this image from the following perspectives. Skip if no information applies to the specific aspect.\n"


def taxonomy_prompt(taxonomy: dict) -> str:
    """The Taxonomy-Hinted prompt (caption.py --prompt TAXONOMY_DEFAULT): one ``- Top -> Sub`` line
    per taxonomy node, a third level as ``- Top -> Sub -> Item``, examples as ``(e.g., a, b)``."""
    lines = [TAXONOMY_HEADER]
    for top, subs in taxonomy.items():
        if not isinstance(subs, dict):
            lines.append(f"- {top}")
            continue
        for sub, items in subs.items():
            if isinstance(items, dict):
                for item, details in items.items():
                    lines.append(f"- {top} -> {sub} -> {item}" + _examples(details))
            else:
                lines.append(f"- {top} -> {sub}" + _examples(items))
    return "\n".join(lines)


def _examples(values) -> str:
    return f" (e.g., {', '.join(str(v) for v in values)})" if isinstance(values, list) and values else ""


def caption_prompt(name: str, n_images: int, taxonomy: dict | None = None) -> str:
    """The captioning instruction for an image set of ``n_images``.

    caption.py: entries with several images get "You are viewing N related images. " in front
    (its MULTIVIEW prompt does not exist in CAPTION_PROMPTS, so this branch is the one taken).
    """
    if name == "taxonomy":
        if taxonomy is None:
            raise ValueError("the taxonomy prompt needs the domain's taxonomy")
        text = taxonomy_prompt(taxonomy)
    elif name in CAPTION_PROMPTS:
        text = CAPTION_PROMPTS[name]
    else:
        raise ValueError(f"unknown CaptionQA caption prompt {name!r}; choose one of {sorted([*CAPTION_PROMPTS, 'taxonomy'])}")
    return f"You are viewing {n_images} related images. {text}" if n_images > 1 else text


# ---- the reader (qa.py) ---------------------------------------------------------------------------

# qa.py: system_prompt of the reader call
READER_SYSTEM_PROMPT = "You are given a caption describing an image, and a question about the image. Answer with a SINGLE LETTER (A, B, C, ...), no explanation."


def build_qa_prompt(caption: str, question: str, options: Sequence[str]) -> str:
    """qa.py ``build_caption_qa_prompt`` (the reader's user turn)."""
    lines = "\n".join(f"{chr(65 + i)}. {opt}" for i, opt in enumerate(options))
    return f"Caption:\n{caption}\n\nQuestion:\n{question}\n\nOptions:\n{lines}\n\nAnswer:"
