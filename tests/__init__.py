"""The test suite.

The Alibaba Cloud credential chain reads this once, when it is first imported, and would otherwise
ask the ECS metadata address off this host: it must be set before any test module imports the
server.
"""

import os

os.environ["ALIBABA_CLOUD_ECS_METADATA_DISABLED"] = "true"
