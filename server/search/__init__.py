"""Search and replace across a project's files (``git grep`` finds, Python places and replaces)."""
