"""The plan of a retrieval run, stated before anything is sent: hosts, requests, what leaves.

Rule 13 of the design seeds: retrieval is an explicit outward act, bounded, and its scope is said
before it runs. ``plan`` computes it from the identifiers alone — no DNS lookup, no connection —
so ``verify --dry-run`` can print it and ``verify`` can ask before fetching. It must never touch
the network, and what ``describe`` says is sent must be exactly what ``fetch_all`` sends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from citeledger.errors import RetrievalError
from citeledger.model import Identifier

from .address import ALLOW_FIX, parse_ip, refusal
from .config import RetrieveConfig
from .outcome import FetchRequest
from .providers import METADATA
from .registry import provider_for


@dataclass(frozen=True)
class PlannedCall:
    identifier: Identifier
    url: str
    host: str
    purpose: str  # "text" | "metadata"
    what: str
    may_follow: str | None = None  # one more request its answer may lead to (a DOI's full text)


@dataclass(frozen=True)
class Plan:
    calls: tuple[PlannedCall, ...]
    local: tuple[Identifier, ...]  # file: identifiers, read from disk
    invalid: tuple[tuple[Identifier, str], ...]  # not sent: malformed or unknown kind
    refused: tuple[tuple[Identifier, str], ...]  # not sent: literal internal address
    user_agent: str
    allow_private: bool
    max_attempts: int
    max_redirects: int
    host_intervals: Mapping[str, float] = field(default_factory=dict)
    # sources read from the writer's local copy (identifier, path): nothing sent for them
    local_copies: tuple[tuple[Identifier, str], ...] = ()
    sends_only_identifiers: bool = True  # by construction: FetchRequest cannot carry prose

    @property
    def request_count(self) -> int:
        """Requests known before anything is sent (``followups`` more may come)."""
        return len(self.calls)

    @property
    def followups(self) -> int:
        """At most this many more requests: a DOI's full text, on a host known only after."""
        return sum(1 for c in self.calls if c.may_follow is not None)

    def hosts(self) -> dict[str, int]:
        """Host → number of requests, in the order hosts first appear."""
        counts: dict[str, int] = {}
        for call in self.calls:
            counts[call.host] = counts.get(call.host, 0) + 1
        return counts

    def describe(self, *, list_requests: bool = True) -> str:
        lines: list[str] = []
        hosts = self.hosts()
        n, h = self.request_count, len(hosts)
        lines.append(
            f"Retrieval plan: {n} request{'s' if n != 1 else ''} to {h} "
            f"host{'s' if h != 1 else ''} (before redirects)."
        )
        width = max((len(x) for x in hosts), default=0)
        for host, count in hosts.items():
            line = f"  {host.ljust(width)}  {count} request{'s' if count != 1 else ''}"
            interval = self.host_intervals.get(host)
            if interval and count > 1:
                line += f", one every {interval:g} s (at least {interval * (count - 1):g} s)"
            lines.append(line)
        lines.append(
            "Sent: only the identifiers, as the request URLs"
            + (" below" if list_requests and self.calls else "")
            + f", with User-Agent {self.user_agent!r}, Accept and Accept-Encoding"
            " (and If-None-Match / If-Modified-Since when rechecking)."
        )
        lines.append("Never sent: your quotes, notes or document text.")
        if self.calls:
            lines.append(
                f"Redirects (up to {self.max_redirects} per request) may lead to other hosts, "
                "e.g. a DOI to its publisher; each hop is checked and recorded in the receipt. "
                f"A server that asks to retry gets at most {self.max_attempts} attempts."
            )
        if self.followups:
            k = self.followups
            lines.append(
                f"Full text: a DOI may lead to one more request for the full text, on the "
                f"publisher's host (up to {k} more request{'s' if k != 1 else ''} in all): "
                "when its landing page links the work's PDF or HTML text (citation_pdf_url, "
                "citation_fulltext_html_url, a PDF alternate link), that link is fetched, "
                "checked like any hop, and becomes the evidence; if it fails, the landing page "
                "is kept, with the reason. That URL is the publisher's, taken from its page; "
                "nothing of yours is added to it."
            )
        if self.allow_private:
            lines.append("Private, loopback and link-local addresses: ALLOWED (--allow-private).")
        else:
            lines.append(
                "Private, loopback and link-local addresses are refused, also after DNS "
                "and redirects (--allow-private allows them)."
            )
        if self.local:
            lines.append(
                f"Read from disk, no network: {len(self.local)} "
                f"file{'s' if len(self.local) != 1 else ''}."
            )
        for ident, path in self.local_copies:
            lines.append(f"Read from local copy, no network: {ident} ← {path}")
        for _ident, why in self.invalid:
            lines.append(f"Not retrieved: {why}")
        for ident, why in self.refused:
            lines.append(f"Not retrieved: {ident}: {why}")
        if list_requests and self.calls:
            lines.append("Requests:")
            for call in self.calls:
                lines.append(f"  GET {call.url}  ({call.identifier}: {call.what})")
                if call.may_follow:
                    lines.append(f"    {call.may_follow}")
        return "\n".join(lines)


def plan(
    identifiers: Iterable[Identifier | FetchRequest], config: RetrieveConfig | None = None
) -> Plan:
    """What ``fetch_all`` would send for these identifiers, computed without any I/O."""
    config = config or RetrieveConfig()
    calls: list[PlannedCall] = []
    local: list[Identifier] = []
    invalid: list[tuple[Identifier, str]] = []
    refused: list[tuple[Identifier, str]] = []
    copies: list[tuple[Identifier, str]] = []
    for item in identifiers:
        ident = item.identifier if isinstance(item, FetchRequest) else item
        if isinstance(item, FetchRequest) and item.local_copy is not None:
            copies.append((ident, item.local_copy))  # read from disk: no call at all
            continue
        try:
            provider = provider_for(ident)
            if provider.local:
                local.append(ident)
                continue
            wanted = [
                c
                for c in provider.calls(ident, config)
                if config.fetch_metadata or c.purpose != METADATA
            ]
        except RetrievalError as exc:
            invalid.append((ident, exc.message))
            continue
        blocked = None
        for c in wanted:
            literal = parse_ip(c.host)
            if literal is not None:
                blocked = refusal(c.host, [str(literal)], config.allow_private)
                if blocked is not None:
                    break
        if blocked is not None:
            refused.append((ident, blocked.message + (f" — {ALLOW_FIX}" if blocked.fix else "")))
            continue
        calls.extend(
            PlannedCall(ident, c.url, c.host, c.purpose, c.what, c.may_follow) for c in wanted
        )
    return Plan(
        calls=tuple(calls),
        local=tuple(local),
        invalid=tuple(invalid),
        refused=tuple(refused),
        user_agent=config.user_agent,
        allow_private=config.allow_private,
        max_attempts=config.max_attempts,
        max_redirects=config.max_redirects,
        host_intervals=dict(config.host_intervals),
        local_copies=tuple(copies),
    )
