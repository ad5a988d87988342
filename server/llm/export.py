"""``llm-export`` in the model-tools worker: a Hugging Face-format folder → an MNN-LLM folder.

Runs ``llmexport``'s own ``main`` in this (already isolated) worker process, sealed by
``guard.seal()``. The 0.0.5 wheel imports its helpers as a top-level ``utils`` package, so its own
folder goes first on ``sys.path``; it appends converter output to ``.export.log`` in the current
folder, which is the run's folder here.

``llmexport`` passes ``trust_remote_code=True`` to every transformers call it makes. Unless the
server passed ``trust_remote_code`` (an administrator allowed a model's own code), the worker
refuses a folder holding such code and fences off the rest of the run (``_fence``), so that flag
finds nothing to run.
"""

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from server.llm import guard
from server.llm.prepare import remote_code, remote_code_refusal
from server.modeltools.errors import ToolFailed
from server.modeltools.progress import report
from server.modeltools.schemas import LlmExportArgs

PRODUCED = ("config.json", "llm_config.json", "llm.mnn", "llm.mnn.weight")
LEFTOVERS = ("llm.mnn.json", "onnx")
EMBEDDING_NAMES = ("bge", "gte", "qwen3-embedding")


def supported_types(exporter: Any) -> list[str]:
    from utils.model_mapper import ModelMapper

    return sorted(ModelMapper().mapper)


def _check_source(folder: Path) -> dict[str, Any]:
    config = folder / "config.json"
    if not config.is_file():
        raise ToolFailed(f"{folder.name} has no config.json: not a Hugging Face-format model folder")
    try:
        meta = json.loads(config.read_text())
    except ValueError as exc:
        raise ToolFailed(f"config.json is not valid JSON: {exc}") from None
    if not any((folder / name).exists() for name in ("tokenizer.json", "tokenizer.model", "vocab.json")):
        raise ToolFailed(f"{folder.name} has no tokenizer (tokenizer.json, tokenizer.model or vocab.json)")
    return meta


def _fence(source: Path) -> None:
    """From now on, compile or run no Python from the model folder, nor from transformers'
    copies of a model's modules (``transformers_modules``), the only way it runs a model's code."""
    root = os.path.join(os.path.realpath(source), "")
    copies = f"{os.sep}transformers_modules{os.sep}"

    def refuse(event: str, args: tuple[Any, ...]) -> None:
        if event == "exec":
            name = getattr(args[0], "co_filename", "")
        elif event == "compile":
            name = args[1]
        else:
            return
        name = os.fsdecode(name) if isinstance(name, str | bytes) else ""
        if name.startswith(root) or copies in name:
            raise guard.Refused(f"{name} is the model's own code, which this server does not run")

    sys.addaudithook(refuse)


def _keep_out_model_code(source: Path) -> None:
    """Refuse a folder holding code of its own (it may have changed since the server looked),
    then fence off any that appears later."""
    found = remote_code(source)
    if found:
        raise ToolFailed(remote_code_refusal(source.name, found).detail)
    _fence(source)


def _exporter() -> Any:
    spec = importlib.util.find_spec("llmexport")
    if spec is None or spec.origin is None:
        raise ToolFailed("llmexport is not installed: pip install 'mnn-workbench[llm]'")
    sys.path.insert(0, str(Path(spec.origin).parent))
    sys.modules.pop("llmexport", None)
    import llmexport  # the wheel's llmexport.py, now top-level

    return llmexport


def _argv(args: LlmExportArgs, source: Path, output: Path) -> list[str]:
    argv = ["llmexport", "--path", str(source), "--export", "mnn", "--dst_path", str(output),
            "--quant_bit", str(args.quant_bit), "--quant_block", str(args.quant_block)]
    if args.lm_quant_bit:
        argv += ["--lm_quant_bit", str(args.lm_quant_bit)]
    return argv


def _sizes(output: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in sorted(output.iterdir()) if p.is_file()}


def run(args: LlmExportArgs) -> dict[str, Any]:
    source, output = Path(args.model), Path(args.output or "")
    meta = _check_source(source)
    if not args.trust_remote_code:
        _keep_out_model_code(source)
    if args.embedding != any(n in source.name.lower() for n in EMBEDDING_NAMES):
        # llmexport decides "embedding model" by the folder's name alone.
        raise ToolFailed("llmexport exports a folder as an embedding model exactly when its name "
                         f"contains one of {', '.join(EMBEDDING_NAMES)}; rename the folder or set "
                         "`embedding` to match")
    guard.seal()
    exporter = _exporter()
    model_type = meta.get("model_type", "?")
    known = supported_types(exporter)
    if model_type not in known:
        raise ToolFailed(f"model type {model_type!r} is not supported by llmexport; supported: "
                         + ", ".join(known))
    report(0.1, "exporting")
    sys.argv = _argv(args, source, output)
    exporter.main()
    for name in LEFTOVERS:
        leftover = output / name
        shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink(missing_ok=True)
    missing = [name for name in PRODUCED if not (output / name).is_file()]
    if missing:
        raise ToolFailed(f"llmexport finished without {', '.join(missing)}; see the run's log")
    report(0.95, "measuring")
    return _result(args, meta, output)


def _result(args: LlmExportArgs, meta: dict[str, Any], output: Path) -> dict[str, Any]:
    sizes = _sizes(output)
    return {
        "output": str(output),
        "model_type": meta.get("model_type"),
        "parameters": _parameters(meta),
        "files": sizes,
        "total_bytes": sum(sizes.values()),
        "options": {"quant_bit": args.quant_bit, "quant_block": args.quant_block,
                    "lm_quant_bit": args.lm_quant_bit or args.quant_bit, "embedding": args.embedding},
    }


def _parameters(meta: dict[str, Any]) -> int | None:
    """Parameters from the config's shapes (decoder-only transformer with gated MLP)."""
    try:
        vocab, hidden = int(meta["vocab_size"]), int(meta["hidden_size"])
        layers, inter = int(meta["num_hidden_layers"]), int(meta["intermediate_size"])
        heads = int(meta["num_attention_heads"])
        kv = int(meta.get("num_key_value_heads", heads))
    except (KeyError, TypeError, ValueError):
        return None
    head_dim = int(meta.get("head_dim") or hidden // heads)
    attention = hidden * head_dim * (heads * 2 + kv * 2)
    per_layer = attention + 3 * hidden * inter + 2 * hidden
    tied = meta.get("tie_word_embeddings", False)
    return vocab * hidden * (1 if tied else 2) + layers * per_layer + hidden
