"""The chat API's model process: ``python -m server.llm.chat_worker FOLDER THREADS [embedding]``.

The shared worker of ``device_bridge/llm/worker.py`` (its JSON-lines protocol is described
there), sealed like the export worker first: no sockets, no pip, no child processes.
"""

import sys

from device_bridge.llm import worker
from server.llm import guard

if __name__ == "__main__":
    sys.exit(worker.main(sys.argv[1:], seal=guard.seal))
