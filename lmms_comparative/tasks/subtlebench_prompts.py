"""VLM-SubtleBench prompts, verbatim from the official repository.

Source: github krafton-ai/VLM-SubtleBench, src/vlm_subtlebench/prompts/multiple_choice_evaluator.py
(the paper prints the same text as Figures 8 and 9). The official module names the paper's
"standard prompt" (Figure 8, answer letter only) ``no_reasoning`` and the paper's "reasoning
prompt" (Figure 9) ``standard``; we use the paper's names.
"""

_BASE_GUIDELINES = """Guidelines:
- Unless specified in the options, the difference is described in terms of the second image relative to the first."""

# Official MULTIPLE_CHOICE_NO_REASONING_SYSTEM_PROMPT; paper Figure 8 ("Standard prompt").
STANDARD_SYSTEM = f"""You are a helpful assistant that answers multiple-choice questions about differences between two images.
Your task is to carefully analyze both images and identify the main difference between them.

{_BASE_GUIDELINES}
- Respond **only** with the answer letter (A, B, C, D, etc.). Do not provide any reasoning or explanation."""

# Official MULTIPLE_CHOICE_SYSTEM_PROMPT; paper Figure 9 ("Reasoning prompt").
REASONING_SYSTEM = f"""You are a helpful assistant that answers multiple-choice questions about differences between two images.
Your task is to carefully analyze both images and identify the main difference between them.

{_BASE_GUIDELINES}
- Respond **only** in the following format. The answer should be a single letter.

### Reasoning
[explanation of the key visual difference between the two images]

### Answer
[answer (single letter)]"""

SYSTEM_PROMPTS = {"standard": STANDARD_SYSTEM, "reasoning": REASONING_SYSTEM}


def user_prompt(question: str, options_text: str) -> str:
    """The two-image user turn (official ``_get_user_prompt`` without a preamble)."""
    return (
        f"Question: {question}\n"
        "\n"
        "Carefully examine the images and choose the best description of the key visual difference.\n"
        f"\nOptions:\n{options_text}"
    )


# Paper Figure 16 ("Captioning prompt"); official prompts/free_form_evaluator.py
# get_image_comparison_system_prompt_simple and get_image_comparison_user_prompt.
CAPTION_SYSTEM = """You are an expert at visual analysis and image comparison. Compare the two images and briefly describe what's different between them.

Keep your response concise and direct. Use simple phrases like "In the first image, X, however in the second image, Y" or "X appeared in the second image" or "In the first image, X is relatively Y". Avoid detailed explanations or structured lists."""
CAPTION_USER = "Describe the differences between the two images"

# Paper appendix B.3 (LLM-as-a-judge, after Lin et al., 2025).
CAPTION_JUDGE = 'Reference caption: "{reference}" Candidate caption: "{candidate}" Does the candidate caption match the reference caption? Answer Yes or No.'
