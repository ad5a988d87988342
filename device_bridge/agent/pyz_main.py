"""The ``__main__.py`` of ``agent.pyz``: refuse an old Python in words, then start the launcher.

Kept free of newer syntax so that Python 3.6+ can run it far enough to say what is wrong.
"""

import sys

if sys.version_info < (3, 11):  # noqa: UP036 - this line runs on any Python
    sys.exit("mnnwb-agent: the agent needs Python 3.11 or newer; this is Python "
             + sys.version.split()[0])

from device_bridge.agent.launcher import main  # noqa: E402 - only once the version is known

sys.exit(main())
