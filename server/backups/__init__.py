"""Hot exit: each person's unsaved edits, kept on the server until saved or dropped (docs/ide.md)."""
