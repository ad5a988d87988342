"""Playground projects (docs/playground.md): a folder with ``app.mnnplayground`` whose Python code
uses MNN and the playground kit (``import MNNCV``), run here or on a device, its kit calls streamed
as JSON lines. No server imports: the device agent runs it too."""
