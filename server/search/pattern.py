"""One query, two engines: the ``git grep`` arguments that find candidate lines fast, and the
Python pattern that places every match on them (columns in characters) and replaces it.

Plain text is searched with ``-F``; regular expressions with ``-P`` (Perl syntax, which Python's
``re`` shares for everything people type into a search box). Git only narrows the lines down:
the Python pattern has the last word, so the two never disagree in what is shown or replaced.
The Python side runs in a worker process (``server/search/matching.py``, ``worker.py``).
"""

import re

from server.search.matching import Query, compile_pattern
from server.search.models import SearchQuery

# Never worth searching, like the file tree hides them; .gitignore covers the rest.
EXCLUDED = ("**/node_modules/**", "**/__pycache__/**", ".venv/**")


def as_query(query: SearchQuery) -> Query:
    return Query(query.q, query.regex, query.case, query.word)


def compile_query(query: SearchQuery) -> re.Pattern[str]:
    """The query's Python pattern; a bad one is a ``422 bad_regex``."""
    return compile_pattern(as_query(query))


def pathspecs(glob: str) -> list[str]:
    """``*.py, !tests/**`` → git pathspecs; a pattern without a slash matches at any depth."""
    specs = []
    for raw in (part.strip() for part in glob.split(",")):
        if not raw:
            continue
        exclude = raw.startswith("!")
        pattern = raw[1:] if exclude else raw
        if "/" not in pattern:
            pattern = f"**/{pattern}"
        specs.append(f":({'exclude,' if exclude else ''}glob){pattern}")
    return specs + [f":(exclude,glob){pattern}" for pattern in EXCLUDED]


def grep_args(query: SearchQuery) -> list[str]:
    """``git grep`` options and pattern for the query (the caller adds the output format)."""
    args = ["-I"]  # binaries are skipped
    args.append("-P" if query.regex else "-F")
    if not query.case:
        args.append("-i")
    if query.word:
        args.append("-w")
    return [*args, "-e", query.q, "--", *pathspecs(query.glob)]
