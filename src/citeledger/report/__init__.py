"""Reports of a judged document: ``check``, the audit section, coverage, the JSON summary.

Offline, like the build: never imports ``citeledger.retrieve``.
"""
