"""The ``pai-dlc`` job backend (docs/pai-dlc.md): jobs run on an Alibaba Cloud PAI-DLC cluster.

``settings.py`` keeps the server's DLC settings, ``submit.py`` checks a job before its row exists
(code committed, pushed and known as a code source), ``runner.py`` submits, cancels and pulls
artifacts, and ``watch.py`` follows a running job. The SDK client they use is ``server/training/cloud/``.
"""
