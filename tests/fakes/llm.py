"""A tiny Hugging Face-format language model, made here with no download.

A randomly initialised Qwen2 (vocab 512, hidden 64, 2 layers) and a byte-level BPE tokenizer
trained on local ASCII text, saved as a model folder that ``llmexport`` accepts. The tokenizer
is ASCII-only (no ``initial_alphabet``), so the random model's tokens always decode to text.
"""

from dataclasses import dataclass
from pathlib import Path

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CORPUS = (
    "The quick brown fox jumps over the lazy dog. MNN runs models on phones and boards. "
    "A small language model answers a prompt one token at a time. Hello, how are you today? "
    "Convert, quantize, inspect, compare and benchmark a model before it ships to a device. "
)


def build_tokenizer(folder: Path) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIAL, show_progress=False)
    tokenizer.train_from_iterator([CORPUS] * 50, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>",
        bos_token=None,
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(folder)


def build_model(folder: Path, *, seed: int = 0, architecture: str = "qwen2") -> Path:
    """Writes config, weights and tokenizer into ``folder`` and returns it."""
    import torch
    from transformers import (
        LlamaConfig,
        LlamaForCausalLM,
        Qwen2Config,
        Qwen2ForCausalLM,
        Qwen3Config,
        Qwen3ForCausalLM,
    )

    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    common = dict(
        vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
        bos_token_id=0, eos_token_id=2, tie_word_embeddings=False,
    )
    if architecture == "llama":
        model = LlamaForCausalLM(LlamaConfig(**common))
    elif architecture == "qwen3":
        model = Qwen3ForCausalLM(Qwen3Config(**common, head_dim=16))
    else:
        model = Qwen2ForCausalLM(Qwen2Config(**common))
    model.save_pretrained(folder)
    build_tokenizer(folder)
    return folder


@dataclass(frozen=True)
class Llms:
    source: Path
    q16: Path
    q4: Path


def export(source: Path, output: Path, bits: int) -> Path:
    """Exports through the real model-tools worker, as the workbench does."""
    from server.modeltools.runner import Limits, WorkerSpec, run_worker

    output.mkdir(parents=True)
    args = {"model": str(source), "output": str(output), "quant_bit": bits}
    outcome = run_worker(WorkerSpec("llm-export", args, output.parent / f"run-{output.name}",
                                    Limits(timeout_s=600)))
    assert outcome.status == "succeeded", outcome.error
    return output


def build_exports(folder: Path) -> Llms:
    source = build_model(folder / "tiny-qwen2")
    return Llms(source, export(source, folder / "q16", 16), export(source, folder / "q4", 4))
