"""The build side: what ``pandoc --filter pandoc-citeledger`` does to a document.

One walk finds the citations (``citations``), the judge decides each (``citeledger.judge``),
``render/`` writes them per output family. Offline by construction: nothing here imports
``citeledger.retrieve`` or ``citeledger.verify`` (tests/test_architecture.py).
"""
