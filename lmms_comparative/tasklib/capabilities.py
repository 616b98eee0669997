"""What the model under test can take as input, for tasks that need more than images.

lmms-eval 0.7.3 has no capability flag on its models: a video reaches a simple model as a file path
in ``doc_to_visual`` and a chat model as a ``{"type": "video"}`` message part, and a model without a
video path either crashes deep inside its preprocessing or answers without having seen the video.
So a video task asks here first. A model class may declare ``supports_video = True/False``; without
the declaration, a class counts as video-capable when the source of some class in its hierarchy
(outside lmms-eval's abstract base) handles video at all. That errs on the side of letting a run
go ahead: it only rejects models whose code never mentions video.

A model that does take video still needs a video decoder on this machine. lmms-eval's local video
models (Qwen2-VL, Qwen2.5-VL, LLaVA-OneVision, ...) import ``decord`` without declaring it, and its
``openai`` model samples frames through ``qwen_vl_utils``, which reads with torchcodec or decord and
otherwise falls back to ``torchvision.io.read_video``, gone from current torchvision. Neither
failure shows before the first video request, and lmms-eval then aborts the whole invocation. So
the check also asks for a decoder and names the extra that installs one.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import re
import sys

from lmms_comparative.failures import ModelCapabilityError

__all__ = [
    "ModelCapabilityError",
    "class_runs_rounds",
    "class_supports_video",
    "require_model_dependencies",
    "require_multi_round",
    "require_video_input",
]

_MENTIONS_VIDEO = re.compile(r"video|\.mp4", re.IGNORECASE)
_ASSUME_VIDEO = "LMMS_COMPARATIVE_ASSUME_VIDEO"
VIDEO_DECODERS = ("decord", "torchcodec")  # what lmms-eval's video models and qwen_vl_utils read with
VIDEO_EXTRA = 'pip install -c constraints.txt -e ".[video]"'  # in the clone: the package is not on PyPI


def _module_mentions_video(cls: type) -> bool:
    module = sys.modules.get(cls.__module__)
    try:
        source = inspect.getsource(module) if module is not None else ""
    except (OSError, TypeError):  # compiled or built in: cannot tell, assume it can
        return True
    return bool(_MENTIONS_VIDEO.search(source))


def class_supports_video(cls: type) -> bool:
    """Whether an lmms-eval model class takes video input: its ``supports_video`` attribute, else
    whether its own modules handle video."""
    declared = getattr(cls, "supports_video", None)
    if isinstance(declared, bool):
        return declared
    own = [c for c in cls.__mro__ if c is not object and not c.__module__.startswith("lmms_eval.api")]
    return any(_module_mentions_video(c) for c in own)


def _model_classes(model) -> list[type]:
    """The classes lmms-eval may build for ``--model`` (chat and simple variants); [] if unknown."""
    if model is None:
        return []
    if not isinstance(model, str):
        return [type(model)]
    from lmms_eval.models import MODEL_REGISTRY_V2  # get_model() would log a failed import as an error

    classes = []
    for force_simple in (False, True):
        try:
            cls = MODEL_REGISTRY_V2.get_model_class(model, force_simple=force_simple)
        except Exception:  # unknown name or a missing optional dependency: lmms-eval reports it
            continue
        if cls not in classes:
            classes.append(cls)
    return classes


def require_model_dependencies(model) -> None:
    """Raise a clear error before anything loads when lmms-eval cannot import its class for
    ``--model`` because a video decoder is missing: its Qwen-VL and LLaVA classes import decord at
    module level without lmms-eval declaring it, and lmms-eval would report only the import error
    once the model is being built. Pass for any other outcome (lmms-eval reports those itself)."""
    if not isinstance(model, str) or not model:
        return
    from lmms_eval.models import MODEL_REGISTRY_V2

    missing = set()
    for force_simple in (False, True):
        try:
            MODEL_REGISTRY_V2.get_model_class(model, force_simple=force_simple)
            return  # one variant imports: lmms-eval can build the model
        except ModuleNotFoundError as exc:
            if exc.name in VIDEO_DECODERS:
                missing.add(exc.name)
        except Exception:  # noqa: BLE001 - unknown names and other failures are lmms-eval's to report
            continue
    if missing:
        raise ModelCapabilityError(
            f"lmms-eval model {model!r} imports {', '.join(sorted(missing))} (a video decoder), which lmms-eval does "
            f"not declare and this environment lacks. Install it from the lmms-comparative clone with: {VIDEO_EXTRA}"
        )


def frames_sampled(model, model_args: dict | None = None) -> int | None:
    """How many frames the run's model samples from every video, where that is a fixed count: the
    ``max_frames_num`` of its class (lmms-eval's ``openai`` model: 10), or the one in
    ``model_args``. None when the model samples by frame rate (``video_fps``) or has no such
    setting. lmms-eval's ``openai`` model hands that count to qwen_vl_utils, which refuses a video
    with fewer frames, and the whole run ends there."""
    model_args = model_args or {}
    try:
        if float(model_args.get("video_fps") or 0) > 0:
            return None
    except (TypeError, ValueError):
        return None
    for cls in _model_classes(model):
        for klass in cls.__mro__:
            try:
                param = inspect.signature(getattr(klass, "__init__")).parameters.get("max_frames_num")
            except (TypeError, ValueError):
                continue
            if param is not None:
                value = model_args.get("max_frames_num", param.default)
                try:
                    return int(value) if value is not inspect.Parameter.empty else None
                except (TypeError, ValueError):
                    return None
    return None


def video_decoder_available() -> bool:
    """Whether a video decoder that lmms-eval's model classes use (decord, torchcodec) is installed here."""
    return any(importlib.util.find_spec(name) is not None for name in VIDEO_DECODERS)


def require_video_input(task: str, model, instead: str = "") -> None:
    """Raise a clear error if the run's model cannot take video input, or if nothing on this
    machine can decode the video for it; pass when the model is unknown. ``instead``: what the
    benchmark advises to run without video (a sentence, given by its hooks)."""
    if os.environ.get(_ASSUME_VIDEO, "").strip() not in ("", "0"):
        return
    classes = _model_classes(model)
    if not classes:
        return
    if any(class_supports_video(c) for c in classes):
        # A class that declares supports_video brings its own decoding; the others are
        # lmms-eval's, which decode with decord (directly or through qwen_vl_utils).
        declared = any(getattr(c, "supports_video", None) is True for c in classes)
        if not declared and not video_decoder_available():
            raise ModelCapabilityError(
                f"{task} gives the model a video, and lmms-eval model {model!r} decodes video files with "
                "decord (or torchcodec), which is not installed. Install the video extra from the lmms-comparative "
                f"clone: {VIDEO_EXTRA} "
                f"(it adds decord){', or ' + instead if instead else ''}. "
                f"If this model does not decode the file itself, set {_ASSUME_VIDEO}=1."
            )
        return
    names = ", ".join(f"{c.__module__}.{c.__qualname__}" for c in classes)
    raise ModelCapabilityError(
        f"{task} gives the model a video, and lmms-eval model {model!r} ({names}) has no video input. "
        f"Run {task} with a video-capable model (for example qwen2_5_vl, llava_onevision, or openai "
        f"against a server that takes video){', or ' + instead if instead else ''}. If this model does take video, "
        f"set {_ASSUME_VIDEO}=1."
    )


def check() -> str | None:
    """None if lmms-eval's model registry resolves a name to its chat and simple classes the way
    ``_model_classes`` asks (``get_model_class(name, force_simple=...)``), else why not."""
    import inspect

    from lmms_eval.models import MODEL_REGISTRY_V2

    params = inspect.signature(MODEL_REGISTRY_V2.get_model_class).parameters
    return None if "force_simple" in params else "MODEL_REGISTRY_V2.get_model_class has no force_simple parameter"


# ---- several rounds per item ---------------------------------------------------------------------


def class_runs_rounds(cls: type) -> bool:
    """Whether a model class implements lmms-eval's ``generate_until_multi_round`` (the base class
    and many model classes raise ``NotImplementedError``)."""
    method = getattr(cls, "generate_until_multi_round", None)
    if method is None:
        return False
    try:
        source = inspect.getsource(method)
    except (OSError, TypeError):  # compiled: cannot tell, let it run
        return True
    return "NotImplementedError" not in source


def require_multi_round(model, task: str) -> None:
    """Raise a clear error before any request when ``--model`` cannot run a multi-step task's
    rounds, naming the wrapper that can (``--model multiround --model_args inner=<model>,...``)."""
    classes = _model_classes(model)
    if not classes or class_runs_rounds(classes[0]):
        return
    name = model if isinstance(model, str) else type(model).__name__
    raise ModelCapabilityError(
        f"{task} asks each item in several rounds (lmms-eval's generate_until_multi_round), which --model {name} does "
        "not implement. "
        "Run it through lmms-comparative's wrapper, which sends each round to your model: --model multiround "
        f"--model_args inner={name},<your model_args>"
    )
