"""Remote algorithm catalogs an admin configures with ``MNNWB_MARKET_SOURCES`` (docs/market.md)."""
