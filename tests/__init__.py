"""The test suite.

The Alibaba Cloud credential chain reads this once, when it is first imported, and would otherwise
ask the ECS metadata address off this host: it must be set before any test module imports the
server.
"""

import os

os.environ["ALIBABA_CLOUD_ECS_METADATA_DISABLED"] = "true"

# The MNN hub is a market source out of the box (docs/market.md, "The MNN hub"): in tests it is
# a closed port on this machine, so listing the market tries it, finds it offline at once, and
# never reaches the internet.
os.environ["MNNWB_MARKET_MNN_HUB_URL"] = "http://127.0.0.1:9"
