"""MLLM-CompBench prompts: paper appendix B.2, Table 7 (verbatim), and the release README's SoccerNet question."""

LEFT_RIGHT = "If you choose the first image, return Left, and if you choose the second image, return Right. Please only return either Left or Right without any other words, spaces, or punctuation."
# Table 7's wording for Gemini1.0-pro, which answered "Left" to everything with the one above.
FIRST_SECOND = "If you choose the first image, return First, and if you choose the second image, return Second. Please only return either First or Second without any other words, spaces, or punctuation."
CARS_QUESTION = "Based on these images, which car is newer in terms of its model year or release year? Note that this question refers solely to the year each car was first introduced or manufactured, not its current condition or usage."
EXISTENCE = (
    "What is the most obvious difference between the two images? Choose from the following options. If there is no obvious difference, choose None. Options: None, {options}. Please only return one of the options without any other words. "
)
# SoccerNet: the closed question of the release README ("SoccerNet has the following keys"), the
# one CompBenchReview soccer_label_eval.py asked GPT-4V; it is scored automatically. (The paper's
# Table 7 question ends at "Which frame happens first?" and was scored by human evaluators.)
SOCCER = "These are two frames related to {action} in a soccer match. Which frame happens first? Please only return one option from (Left, Right, None) without any other words. If these two frames are exactly the same, select None. Otherwise, choose Left if the first frame happens first and select Right if the second frame happens first."
QUANTITY = (
    "If the second image has more, return Right. If the first image has more, return Left. If both images have the same number, return Same. Please only return either Left or Right or Same without any other words, spaces, or punctuation."
)
QBENCH = "{question} Options: {options}"

# ---- Two-stage reasoning (paper §5.3, Table 3 left) ------------------------------------------------
# The authors' prompts, github RaptorMai/CompBenchReview ``MB_eval.py``, ``celebA_eval.py`` and
# ``depth_eval.py`` (``decompose=True``), verbatim, their spacing and spelling included; stage 1 asks
# each image on its own. MagicBrush's stage 2 is a text-only call with both descriptions; CelebA's and
# NYU-Depth's stage 2 is no prompt but a comparison of the two numbers (``scoring.two_stage_side``).
# ``{options}`` is the record's ``Modified_option`` string in the pre-release files (the release
# stores a list: we join it with ", ").
TWO_STAGE_MAGICBRUSH_1 = """
                        Please describe the image as detailed as possible based on the following options: {options}.
                        The description should include the objects in the options and their properties or features in adjectives, such as color, size, state, etc.
                        """
TWO_STAGE_MAGICBRUSH_2 = (
    "These are descriptions for two images. Left images: {first}. Right image: {second}. Based on the descriptions, What is the most obvious difference between two images?"
    "Choose from the following options. If there is no obvious difference, choose None. Options: None,{options}.Please only return one of the options without any other words."
)
TWO_STAGE_CELEBA_1 = "Which person smiles more? Please rate the smile from 0 to 10. 0 means no smile and 10 means smile the most Please only return a number without any other words and punctuation."
TWO_STAGE_DEPTH_1 = "How far is the {noun} from the camera that takes this photo? Please only return a number in feets without any other words and punctuation.If you can not see any {noun}, return inf."
