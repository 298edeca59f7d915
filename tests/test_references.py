"""citeproc formats a citation from the ledger's data, never from a document's competing entry."""

from __future__ import annotations

from citeledger.build.references import add_references, to_meta
from citeledger.model import Identifier, Judgement, Quote, Source, State


def _j(key: str, state: State = State.CHECKED, **csl: object) -> Judgement:
    source = Source(key, Identifier("doi", "10.1000/real"), dict(csl), (Quote("q w e r"),))
    return Judgement(key, state, (), source=source)


def _ids(meta: dict) -> list[str]:
    return [item["c"]["id"]["c"] for item in meta["references"]["c"]]


def test_ledger_entry_replaces_the_documents_own() -> None:
    fake = to_meta({"id": "k", "title": "Fabricated", "DOI": "10.1038/fake"})
    other = to_meta({"id": "other", "title": "Unrelated"})
    meta = {"references": {"t": "MetaList", "c": [fake, other]}}
    assert add_references(meta, [_j("k", title="The real title")]) == 1
    assert sorted(_ids(meta)) == ["k", "other"]
    k = next(i for i in meta["references"]["c"] if i["c"]["id"]["c"] == "k")["c"]
    assert k["title"]["c"] == "The real title" and k["DOI"]["c"] == "10.1000/real"


def test_restricted_sources_never_reach_the_bibliography() -> None:
    meta: dict = {}
    assert add_references(meta, [_j("secret", State.RESTRICTED, title="Secret memo")]) == 0
    assert "references" not in meta


def test_an_address_field_that_is_not_the_identifier_is_left_out() -> None:
    """A ``file:`` source checked against the writer's file must not be shown in the reference
    list with a DOI naming some work the check never saw; a ``URL:`` beside a ``doi:`` neither."""
    on_file = Source(
        "f",
        Identifier("file", "copy.pdf"),
        {"title": "A paper", "DOI": "10.1038/nature12373", "URL": "https://elsewhere.example/"},
        (Quote("q w e r"),),
    )
    on_doi = Source("d", Identifier("doi", "10.1000/real"), {"URL": "https://other.example/"}, ())
    meta: dict = {}
    warnings: list[str] = []
    judged = [Judgement(s.key, State.CHECKED, (), source=s) for s in (on_file, on_doi)]
    assert add_references(meta, judged, warnings) == 2
    f, d = (item["c"] for item in meta["references"]["c"])
    assert "DOI" not in f and "URL" not in f and f["title"]["c"] == "A paper"
    assert d["DOI"]["c"] == "10.1000/real" and "URL" not in d
    assert len(warnings) == 1 and "@f" in warnings[0] and "10.1038/nature12373" in warnings[0]
