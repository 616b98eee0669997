"""CaptionQA's task table and the names its modules share: the data's variable and hub repository,
the caption prompts (the task families), the reader's settings. A leaf: the record
(``__init__.py``), the hooks, the task files and the parts read it, and it imports none of them.
"""

from lmms_comparative.record import ScoringCall

ROOT_VARIABLE = "CAPTIONQA_ROOT"
HUB_REPO = "Borise/CaptionQA"

# The task table: each caption prompt (prompts.py; Table 3's row groups) is a family, a group of one
# task per domain (scoring.DOMAINS, qa.py's splits); the QA-on-image family has the same domains.
# The hooks (hooks.py), the task files (tasks.py), the captions reader (predictions.py) and the
# record (__init__.py) read the tasks from here.
PROMPTS = ("simple", "short", "long", "taxonomy")
IMAGE = "image"  # the QA-on-image family: the model answers from the images


def task_name(family: str, domain: str = "") -> str:
    """A family's group (``captionqa_simple``), or its task of one domain (``captionqa_simple_natural``);
    with no family, a domain's task as the template's ``process_results`` names it (``captionqa_natural``)."""
    return "_".join(part for part in ("captionqa", family, domain) if part)


# qa.py: EVAL_MODEL, temperature=0.0, --max-tokens default 4. qa.py runs that open model itself
# (vLLM); here it is a server of the user's, by default where `vllm serve` listens (port 8000): no
# public API serves it, so api.openai.com (the other LLMs' default) would not do.
READER = ScoringCall.llm(
    tuple(f"{task_name(p)}_*" for p in PROMPTS),  # not captionqa_image (the model answers)
    "the CaptionQA reader",
    "CAPTIONQA_READER",
    {"model": "Qwen/Qwen2.5-72B-Instruct", "temperature": 0.0, "max_tokens": 4, "base_url": "http://localhost:8000/v1"},
)
