"""Each person's keyboard shortcuts: the keys they gave the web UI's commands (docs/ide.md)."""
