"""The CSL-JSON vocabulary a ledger source may use: variables, name/date parts, item types.

The ledger feeds citeproc, so its bibliographic fields are CSL-JSON's own names and types.
"""

from __future__ import annotations

CSL_VARIABLES = frozenset(
    [
        "type",
        "title",
        "title-short",
        "author",
        "editor",
        "translator",
        "container-author",
        "issued",
        "accessed",
        "original-date",
        "container-title",
        "container-title-short",
        "collection-title",
        "collection-number",
        "publisher",
        "publisher-place",
        "page",
        "volume",
        "issue",
        "number",
        "edition",
        "chapter-number",
        "genre",
        "medium",
        "language",
        "abstract",
        "note",
        "annote",
        "event",
        "event-place",
        "archive",
        "archive_location",
        "call-number",
        "keyword",
        "citation-key",
        "ISSN",
        "PMID",
        "PMCID",
        "URL",
        "DOI",
        "ISBN",
    ]
)
NAME_VARIABLES = frozenset({"author", "editor", "translator", "container-author"})
DATE_VARIABLES = frozenset({"issued", "accessed", "original-date"})
NUMBER_VARIABLES = frozenset(
    {"collection-number", "volume", "issue", "number", "edition", "chapter-number", "page"}
)
NAME_PARTS = frozenset(
    {"family", "given", "dropping-particle", "non-dropping-particle", "suffix", "literal"}
)
NAME_FLAGS = frozenset({"comma-suffix", "static-ordering", "parse-names"})
DATE_PARTS = frozenset({"date-parts", "season", "circa", "literal", "raw"})
CSL_TYPES = frozenset(
    [
        "article",
        "article-journal",
        "article-magazine",
        "article-newspaper",
        "bill",
        "book",
        "broadcast",
        "chapter",
        "classic",
        "collection",
        "dataset",
        "document",
        "entry",
        "entry-dictionary",
        "entry-encyclopedia",
        "event",
        "figure",
        "graphic",
        "hearing",
        "interview",
        "legal_case",
        "legislation",
        "manuscript",
        "map",
        "motion_picture",
        "musical_score",
        "pamphlet",
        "paper-conference",
        "patent",
        "performance",
        "periodical",
        "personal_communication",
        "post",
        "post-weblog",
        "regulation",
        "report",
        "review",
        "review-book",
        "software",
        "song",
        "speech",
        "standard",
        "thesis",
        "treaty",
        "webpage",
    ]
)
