"""verify of url sources on a loopback HTTP server, against a bare httpx loop on the same pages.

A threaded HTTP/1.1 server on 127.0.0.1 (an ephemeral port; nothing leaves the machine) serves
N text pages of ~6 KB, optionally answering each request after a delay (``--latency``, 50 ms
by default for the second pass). The real CLI, ``citeledger verify --yes --allow-private``, runs
on a ledger of N url sources on it; then a bare loop in this process GETs the same N pages with
one ``httpx.AsyncClient`` and the same per-host concurrency as verify (its default, 2) and reads
each body. Both are timed in the same run, and the figure is the ratio of their throughputs
(target ≥ 0.7×). Run: ``.venv/bin/python bench/bench_verify_http.py [--pages N] [--latency S]``.

The verify side is a whole CLI process (interpreter start, imports, the ledger's parse, the
extraction workers' start) while the bare loop runs in this already-started process, so a
second line prints the ratio with verify's fixed cost taken out: the wall of a one-page verify
on the same server, subtracted from the N-page wall. The first line stays the target's figure.

``--cpu`` also prints where the N-page verify's CPU went, process by process (read from
``/proc`` while it runs, Linux only): verify's own process, its receipt writer, the extraction
workers, the forkserver, and this process's loopback server. On 2 cores the wall cannot be
less than about their sum over 2, which is what bounds the ratio when every part is busy.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from citeledger.ledger import load_ledger
from citeledger.retrieve import RetrieveConfig

LOOPBACK = "127.0.0.1"


def page(i: int) -> bytes:
    filler = " ".join(f"word{i}x{j}" for j in range(700))
    text = f"Page {i}. {filler[:3000]} The passage number {i} is here. {filler[3000:6000]}\n"
    return text.encode()


class Pages(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real server
    disable_nagle_algorithm = True  # headers and body are two writes: no delayed-ACK stall
    latency = 0.0

    def do_GET(self) -> None:
        try:
            i = int(self.path.rsplit("/", 1)[-1].removeprefix("page").removesuffix(".txt"))
        except ValueError:
            self.send_error(404)
            return
        if self.latency:
            time.sleep(self.latency)
        body = page(i)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def server(latency: float) -> Iterator[str]:
    handler = type("Handler", (Pages,), {"latency": latency})
    httpd = ThreadingHTTPServer((LOOPBACK, 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{LOOPBACK}:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def run_verify(base: str, n: int, cpu: dict[str, float] | None = None) -> tuple[float, int]:
    """Wall seconds of one real verify of n url sources, and the found receipts it wrote;
    with ``cpu``, filled with each role's CPU seconds (``cpu_split``)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        lines = ["citeledger: 1", "sources:"]
        for i in range(n):
            lines += [f"  s{i}:", f"    url: {base}/page{i}.txt", "    quotes:"]
            lines += [f"      - text: The passage number {i} is here."]
        ledger = folder / "citeledger.yaml"
        ledger.write_text("\n".join(lines) + "\n", "utf-8")
        start = time.perf_counter()
        before = time.process_time()  # this process: the loopback server's threads
        proc = subprocess.Popen(
            [sys.executable, "-m", "citeledger.cli", "verify", "--yes", "--allow-private"],
            cwd=folder,
            stdout=subprocess.DEVNULL,
        )
        seen: dict[int, tuple[str, float]] = {}
        while proc.poll() is None:
            if cpu is not None:
                seen.update(_tree_cpu(proc.pid))
            time.sleep(0.05)
        wall = time.perf_counter() - start
        if proc.returncode:
            raise subprocess.CalledProcessError(proc.returncode, proc.args)
        if cpu is not None:
            cpu["loopback server (this process, and this poll)"] = time.process_time() - before
            for role, seconds in seen.values():
                cpu[role] = cpu.get(role, 0.0) + seconds
        led = load_ledger(ledger)
        latest = [q.latest for s in led.sources.values() for q in s.quotes]
        found = sum(1 for r in latest if r is not None and r.outcome == "found")
    return wall, found


def _tree_cpu(root: int) -> dict[int, tuple[str, float]]:
    """Each live process under ``root`` (itself included): its role and CPU seconds so far."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[int, tuple[str, float]] = {}
    todo = [(root, "verify's own process")]
    while todo:
        pid, role = todo.pop()
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            kids = " ".join(
                (t / "children").read_text() for t in Path(f"/proc/{pid}/task").iterdir()
            ).split()
        except OSError:  # ended meanwhile: its last reading stands
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        found[pid] = (role, (int(fields[11]) + int(fields[12])) / tick)
        for kid in map(int, kids):
            todo.append((kid, _role(role, kid)))
    return found


def _role(parent: str, pid: int) -> str:
    """What a child of a process in ``parent``'s role is (its command line tells)."""
    if parent == "forkserver":  # its children share its command line
        return "extraction workers"
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "other"
    if b"forkserver" in command:
        return "forkserver"
    if b"resource_tracker" in command:
        return "other"
    return "receipt writer" if parent == "verify's own process" else "other"


async def bare(base: str, n: int, per_host: int) -> float:
    """GET every page with one client and ``per_host`` requests in flight; wall seconds."""
    gate = asyncio.Semaphore(per_host)

    async def one(client: httpx.AsyncClient, i: int) -> None:
        async with gate:
            response = await client.get(f"{base}/page{i}.txt")
            response.raise_for_status()
            await response.aread()

    start = time.perf_counter()
    async with httpx.AsyncClient(trust_env=False) as client:
        await asyncio.gather(*(one(client, i) for i in range(n)))
    return time.perf_counter() - start


def compare(n: int, latency: float, show_cpu: bool = False) -> None:
    per_host = RetrieveConfig().per_host_concurrency
    cpu: dict[str, float] | None = {} if show_cpu else None
    with server(latency) as base:
        wall, found = run_verify(base, n, cpu)
        loop = asyncio.run(bare(base, n, per_host))
        fixed = min(run_verify(base, 1)[0] for _ in range(2))
    label = f"{n} pages, {latency * 1000:.0f} ms latency, {per_host} per host"
    print(f"verify, {label}: {wall:.2f} s ({n / wall:.0f} pages/s, {found} found)")
    print(f"bare httpx loop, {label}: {loop:.2f} s ({n / loop:.0f} pages/s)")
    print(f"throughput ratio verify / bare httpx: {loop / wall:.2f}x")
    per_page = max(wall - fixed, 1e-9)
    print(
        f"  without verify's fixed cost (a 1-page verify: {fixed:.2f} s): "
        f"{loop / per_page:.2f}x (second figure; not the target's)"
    )
    if cpu:
        total = sum(cpu.values())
        print(f"  CPU of the {n}-page verify: {total:.2f} s in all, {total / 2:.2f} s over 2 cores")
        for role, seconds in sorted(cpu.items(), key=lambda kv: -kv[1]):
            print(f"    {role}: {seconds:.2f} s ({seconds / n * 1000:.2f} ms a page)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds, second pass")
    parser.add_argument("--cpu", action="store_true", help="print each process's CPU (Linux)")
    args = parser.parse_args()
    compare(args.pages, 0.0, args.cpu)
    if args.latency:
        compare(args.pages, args.latency, args.cpu)


if __name__ == "__main__":
    main()
