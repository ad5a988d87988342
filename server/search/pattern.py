"""One query, two engines: the ``git grep`` arguments that find candidate lines fast, and the
Python pattern that places every match on them (columns in characters) and replaces it.

Plain text is searched with ``-F``; regular expressions with ``-P`` (Perl syntax, which Python's
``re`` shares for everything people type into a search box). Git only narrows the lines down:
the Python pattern has the last word, so the two never disagree in what is shown or replaced.
"""

import re
from collections.abc import Callable

from server.core.errors import Invalid
from server.search.models import SearchQuery

# Never worth searching, like the file tree hides them; .gitignore covers the rest.
EXCLUDED = ("**/node_modules/**", "**/__pycache__/**", ".venv/**")
_DOLLAR_GROUP = re.compile(r"\$(\d+|&)")


def compile_query(query: SearchQuery) -> re.Pattern[str]:
    body = query.q if query.regex else re.escape(query.q)
    if query.word:
        body = rf"(?<!\w)(?:{body})(?!\w)"
    try:
        return re.compile(body, 0 if query.case else re.IGNORECASE)
    except re.error as exc:
        raise Invalid(f"not a valid regular expression: {exc}", code="bad_regex") from exc


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


def replacer(query: SearchQuery, replacement: str) -> Callable[[re.Match[str]], str]:
    """Plain text replaces literally; a regex replacement may use ``$1``/``\\1`` and ``$&``."""
    if not query.regex:
        return lambda _match: replacement
    template = _DOLLAR_GROUP.sub(lambda m: r"\g<0>" if m[1] == "&" else rf"\g<{m[1]}>", replacement)

    def expand(match: re.Match[str]) -> str:
        try:
            return match.expand(template)
        except (re.error, IndexError) as exc:
            raise Invalid(f"bad replacement: {exc}", code="bad_replacement") from exc

    return expand
