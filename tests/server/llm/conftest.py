"""The tiny exported language models come from the session fixture ``llms`` in tests/plugin/resources.py."""
