"""Memory from the real code: the job's training step traced on PyTorch ``meta`` tensors (issue 23).

- ``protocol``: the request and result the worker speaks (JSON over stdin/stdout);
- ``request``: a build's job as a request, or a refusal naming why it cannot be traced;
- ``runner``: the worker run in a subprocess with a time and a memory limit, progress and cancellation;
- ``cache``: results kept across restarts, keyed by the request and the library versions;
- ``worker/``: the tracer itself, the only code that imports torch (the ``trace`` extra).

This ``__init__`` imports nothing: ``python -m configurator.trace.worker`` runs it first, in a Python that may
have nothing but the extra, and the window must not pay for the tracer until it is used.
"""
