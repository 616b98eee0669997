"""ViDi prompts, from the paper's appendix B (granular, global) and E (few-shot), and the judge
prompt of its appendix G (precision, with its worked example verbatim). The recall prompt is ours:
the paper reports recall without printing its prompt, so it mirrors the precision prompt and its
example. The PDF conversion split some guideline lines and interleaved line numbers; the text
below is the prompts' own wording, one guideline per line."""

_GUIDELINES = """Identify the main subject/object of the change;
Describe its location relative to other objects or within the image (e.g., using directional terms and nearby reference points);
State what has specifically changed (e.g., color variation, quantity difference, presence/absence, or text modification);
Describe both versions of what has changed, separated by the word "or" (e.g., "red or blue", "5 or 7", or "facing up or looking down")."""

GRANULAR = f"""Describe one single difference between the two images.
Use one sentence that adheres to the following guidelines:
{_GUIDELINES}
Present the difference on a single individual English sentence, without any additional context. Do not reference explicitly which image shows which version of the change/subject/object."""

GLOBAL = f"""List all the differences between the two images.
For each difference, use one sentence that adheres to the following guidelines:
{_GUIDELINES}
Present each difference as a single individual English sentence, without any additional context. Do not reference explicitly which image shows which version of the change/subject/object."""

FEWSHOT = """Consider the following list of differences between these two images:
{examples}
Describe one missing difference between the two images.
Use one sentence that adheres to the following guidelines:
""" + _GUIDELINES + """
Present the difference as a single individual English sentence, without any additional context.
Do not reference explicitly which image shows which version of the change/subject/object."""

_JUDGE_HEAD = """You are an expert evaluator tasked with assessing the accuracy of a model-generated response that describes differences between two images.
You will compare the model's response against a human-annotated reference and evaluate its {measure}.

Task Input:
1. **Reference Differences (Human Annotation)**: A list of sentences describing the true differences between the two images.
2. **Model-Generated Differences**: A list of sentences produced by the model, describing the differences it identified.

Evaluation Criteria:
"""

# Appendix G's worked example, verbatim (its typos and the lone opening quote of the output
# included; only the conversion's "- " before "1." dropped, as in the Task Input above). The
# recall prompt shows the same input.
EXAMPLE_INPUT = """Example Input:
1. **Reference Differences (Human Annotation)**:
- "A tree in the background is missing a branch."
- "A red car is present in the top or it is missing."
- "The size of the cloud on the left side of the image is larger."
2. **Model-Generated Differences**:
"The sky has a larger cloud in one image."
"The branch of the tree is missing."
"There is a small red vehicle in the top or it is absent."
"The tree has fewer leaves.\""""

PRECISION_EXAMPLE_OUTPUT = """Example Output:
"
Precision Evaluation Report:
- Total Model-Generated Differences: 4
- Correctly Identified Differences: 2
- Precision Score: 0.5
- Final Assessment: Only half of the model-generated differences were accurate. Each response was adequatlly described in detailed but included hallucinated differences. The response was not exessicely redundant."""

# Ours, mirroring the paper's verdict above (two of the four sentences right: the branch and the
# red car; the cloud sentence misses "on the left side"), seen from the references.
RECALL_EXAMPLE_OUTPUT = """Example Output:
"
Recall Evaluation Report:
- Total Reference Differences: 3
- Reference Differences Found: 2
- Recall Score: 0.67
- Final Assessment: Two of the three reference differences were found (the missing branch and the red car). The larger cloud on the left side was not described precisely enough to count."""

JUDGE_PRECISION = _JUDGE_HEAD.format(measure="precision") + """- **Precision:** Does each model-generated sentence describe a real difference found in the references?
- Score: 1 (Correct) / 0 (Incorrect) per sentence
- Final Precision Score: [0-1] float value (Correctly identified differences / Total model-generated differences)

Output Format:
Return your evaluation in the following structured format:
Precision Evaluation Report:
- Total Model-Generated Differences: X
- Correctly Identified Differences: Y
- Precision Score: Y/X
- Final Assessment: [Short summary highlighting strengths and areas for improvement. Appropriate level of detail and no unnecessary repetition?]

""" + EXAMPLE_INPUT + "\n\n" + PRECISION_EXAMPLE_OUTPUT + """

YOUR TASK:
Evaluate the following answers based on the criteria above.
1. **Reference Differences (Human Annotation):** {references}
2. **Model-Generated Differences:** {predictions}"""

JUDGE_RECALL = _JUDGE_HEAD.format(measure="recall") + """- **Recall:** Is each reference difference described by at least one model-generated sentence?
- Score: 1 (Found) / 0 (Missed) per reference sentence
- Final Recall Score: [0-1] float value (Reference differences found / Total reference differences)

Output Format:
Return your evaluation in the following structured format:
Recall Evaluation Report:
- Total Reference Differences: X
- Reference Differences Found: Y
- Recall Score: Y/X
- Final Assessment: [Short summary highlighting strengths and areas for improvement.]

""" + EXAMPLE_INPUT + "\n\n" + RECALL_EXAMPLE_OUTPUT + """

YOUR TASK:
Evaluate the following answers based on the criteria above.
1. **Reference Differences (Human Annotation):** {references}
2. **Model-Generated Differences:** {predictions}"""
