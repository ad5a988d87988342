"""MNN-LLM: export a Hugging Face-format model folder, chat with it, benchmark it."""
