"""The evidence store and what a reader opens from it.

``store`` keeps each retrieval as a WARC file named by its body's digest; ``page`` and
``publish`` write the read-only evidence pages; ``links`` the deep links into a source;
``registry``, ``derivation`` and ``signing`` are how a build confirms what the store says.
Never touches the network.
"""
