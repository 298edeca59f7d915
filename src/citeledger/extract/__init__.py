"""Extraction: a retrieved body's bytes → the text of the work, with its page map.

Pure: no network, no file writes (tests/test_architecture.py). ``dispatch`` picks the
extractor by what the bytes are (``citeledger.sniff``).
"""
