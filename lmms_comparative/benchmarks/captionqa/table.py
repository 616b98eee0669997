"""CaptionQA: a caption, then a text-only reader answers the image's questions from it alone.

The facts of the record (``__init__.py`` adds the parts): what the parts themselves read.
"""

from lmms_comparative.benchmarks.captionqa.scoring import DOMAINS
from lmms_comparative.data.replies import ItemKey
from lmms_comparative.record import Benchmark, ScoringCall

# The task table: each caption prompt (prompts.py; Table 3's row groups) is a family, a group of one
# task per domain (scoring.DOMAINS, qa.py's splits); the QA-on-image family has the same domains.
# The hooks (hooks.py), the task files (tasks.py), the captions reader (predictions.py) and the
# record below read the tasks from here.
PROMPTS = ("simple", "short", "long", "taxonomy")
IMAGE = "image"  # the QA-on-image family: the model answers from the images


def task_name(family: str, domain: str = "") -> str:
    """A family's group (``captionqa_simple``), or its task of one domain (``captionqa_simple_natural``);
    with no family, a domain's task as the template's ``process_results`` names it (``captionqa_natural``)."""
    return "_".join(part for part in ("captionqa", family, domain) if part)


# qa.py: EVAL_MODEL, temperature=0.0, --max-tokens default 4. qa.py runs that open model itself
# (vLLM); here it is a server of the user's, by default where `vllm serve` listens (port 8000): no
# public API serves it, so api.openai.com (the other LLMs' default) would not do.
READER = ScoringCall(
    tuple(f"{task_name(p)}_*" for p in PROMPTS),  # not captionqa_image (the model answers)
    "llm",
    "the CaptionQA reader",
    "CAPTIONQA_READER",
    {"model": "Qwen/Qwen2.5-72B-Instruct", "temperature": 0.0, "max_tokens": 4, "base_url": "http://localhost:8000/v1"},
)


FACTS = Benchmark(
    name="captionqa",
    title="CaptionQA",
    root_variable="CAPTIONQA_ROOT",
    hub_repo="Borise/CaptionQA",
    task_families=(*(task_name(p) for p in PROMPTS), task_name(IMAGE)),
    answer_spaces=("letters",),
    scoring_calls=(READER,),
    exports=tuple(
        (
            prompt,
            f"table3_{prompt}",
            tuple((c, task_name(prompt) if c == "overall" else task_name(prompt, c)) for c in ("overall", *DOMAINS)),
        )
        for prompt in PROMPTS
    ),
    smoke_task=task_name("simple", "natural"),  # one small task: what the tests that touch every benchmark run
    item_key=ItemKey(("id",)),
    side_logs=("reader",),  # the reader's answer to every question (reader_pass.py)
)
