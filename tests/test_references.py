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
