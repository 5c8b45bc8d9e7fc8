"""Open every page of the built HTML book in headless Chromium, as a reader
would.

Usage: python tools/browser_check.py [HTML_DIR] [--search-word WORD]

HTML_DIR defaults to the FAST render, _build/fast/_build/html. The book is
served by a local http.server on 127.0.0.1 (search needs http://, file:// breaks
it) and every page is loaded in Debian's Chromium (/usr/bin/chromium, or
$CHROMIUM) driven by Playwright. Checks:

- no JavaScript error on any page: uncaught exceptions and console errors both
  count, except a console error reporting that a *remote* resource failed to
  load. Every request that leaves 127.0.0.1 is aborted on purpose (the check
  must not depend on the network), so the math CDN (MathJax, cdn.jsdelivr.net)
  never loads here and formulas stay as TeX source; those failures are reported
  by host and are the only ones tolerated;
- every image has a non-zero natural width (it was found and decoded);
- every local request succeeds (no 404 for a stylesheet, script or figure);
- every link to a page of the book resolves: the file exists and, for a
  #fragment, the page has an element with that id (cross-references to theorems,
  equations, exercises, sections);
- the search page finds a word of chapter 4 and lists chapter 4 among the
  results.

Exits 0 when every check passes, 1 otherwise (each failure printed), 2 without
Chromium.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_HTML = ROOT / "_build" / "fast" / "_build" / "html"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
#: A word of chapter 4 that the search must find there.
SEARCH_WORD = "Bingham"
SEARCH_TARGET = "chapters/04-exponential-mechanism.html"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


def serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``directory`` on a free loopback port, in a daemon thread."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def book_pages(html: Path) -> list[str]:
    """Every HTML page of the book, relative to ``html`` (theme assets
    excluded)."""
    return sorted(
        p.relative_to(html).as_posix()
        for p in html.rglob("*.html")
        if "_static" not in p.relative_to(html).parts
    )


def is_local(url: str, base: str) -> bool:
    return url.startswith(base) or url.startswith(("data:", "blob:", "about:"))


def check_page(page, url: str, base: str):
    """Load one page; return (problems, tolerated remote failures, ids,
    links, images)."""
    problems, remote = [], []

    def on_console(msg):
        if msg.type != "error":
            return
        source = (msg.location or {}).get("url", "")
        if (
            source
            and not is_local(source, base)
            and "Failed to load resource" in msg.text
        ):
            remote.append(urlsplit(source).netloc)
        else:
            problems.append(f"console error: {msg.text} ({source or 'no url'})")

    def on_response(response):
        if is_local(response.url, base) and response.status >= 400:
            problems.append(f"HTTP {response.status} for {response.url}")

    def on_request_failed(request):
        if is_local(request.url, base):
            problems.append(
                f"request failed: {request.url} ({request.failure})"
            )

    page.on("console", on_console)
    page.on("pageerror", lambda err: problems.append(f"JS exception: {err}"))
    page.on("response", on_response)
    page.on("requestfailed", on_request_failed)
    try:
        page.goto(url, wait_until="load", timeout=30_000)
        info = page.evaluate(
            """() => ({

                ids: [...document.querySelectorAll('[id]')].map(e => e.id),
                links: [...document.querySelectorAll('a[href]')].map(a => a.href),
                images: [...document.images].map(i => [i.currentSrc || i.src,
                                                       i.complete, i.naturalWidth]),
            })"""
        )
    finally:
        page.remove_listener("console", on_console)
        page.remove_listener("response", on_response)
        page.remove_listener("requestfailed", on_request_failed)
    return problems, remote, info


def redirect_target(html: Path, rel: str) -> str | None:
    """The page a meta-refresh page (the book's index.html) sends to,
    relative to ``html``."""
    text = (html / rel).read_text(errors="replace")[:2000]
    match = re.search(r'http-equiv="Refresh" content="0; url=([^"]+)"', text)
    if match is None:
        return None
    return (Path(rel).parent / match.group(1)).as_posix().removeprefix("./")


def local_target(link: str, base: str, html: Path) -> tuple[str, str] | None:
    """(page relative to ``html``, fragment) for a link into the book, else
    None."""
    if not link.startswith(base):
        return None
    parts = urlsplit(link)
    rel = unquote(parts.path)[len(urlsplit(base).path) :]
    if rel == "" or rel.endswith("/"):
        rel += "index.html"
    return rel, unquote(parts.fragment)


def search_finds(page, base: str, word: str, target: str) -> str | None:
    """None if search.html?q=word lists ``target``; else what went wrong."""
    page.goto(f"{base}search.html?q={word}", wait_until="load")
    selector = f"#search-results ul.search li a[href*='{target}']"
    try:
        page.wait_for_selector(selector, timeout=20_000)
    except Exception:
        hits = page.evaluate(
            "() => [...document.querySelectorAll('#search-results a')]"
            ".map(a => a.getAttribute('href'))"
        )
        return f"search for {word!r} did not list {target}; results: {hits}"
    return None


def run(
    html: Path, word: str | None = SEARCH_WORD, target: str = SEARCH_TARGET
):
    """Check the book in ``html``; return the list of failures (empty = pass).

    ``word=None`` skips the search check (for sites without Sphinx's search
    page)."""
    from playwright.sync_api import sync_playwright

    failures: list[str] = []
    pages = book_pages(html)
    if not pages:
        return [f"no HTML pages under {html}"]
    server, base = serve(html)
    ids: dict[str, set[str]] = {}
    links: dict[str, set[str]] = defaultdict(set)
    remote_hosts: dict[str, int] = defaultdict(int)
    n_images = 0
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS
            )
            context = browser.new_context()
            # Nothing leaves the machine: remote requests are aborted and
            # counted.
            context.route(
                lambda url: not is_local(url, base),
                lambda route: route.abort(),
            )
            page = context.new_page()
            for rel in pages:
                redirect = redirect_target(html, rel)
                if redirect is not None:  # index.html: checked as a link
                    links[base + redirect].add(rel)
                    continue
                problems, remote, info = check_page(page, base + rel, base)
                failures += [f"{rel}: {p}" for p in problems]
                for host in remote:
                    remote_hosts[host] += 1
                ids[rel] = set(info["ids"])
                for link in info["links"]:
                    links[link].add(rel)
                for src, complete, width in info["images"]:
                    n_images += 1
                    if not (complete and width > 0):
                        failures.append(
                            f"{rel}: image {src} not loaded (naturalWidth {width})"
                        )
            if word is not None:
                miss = search_finds(page, base, word, target)
                if miss:
                    failures.append(miss)
            browser.close()
    finally:
        server.shutdown()
    n_internal = 0
    for link, sources in sorted(links.items()):
        target_ = local_target(link, base, html)
        if target_ is None:
            continue
        n_internal += 1
        rel, fragment = target_
        where = ", ".join(sorted(sources)[:3])
        if not (html / rel).is_file():
            failures.append(f"broken link {link} (no file {rel}) in {where}")
        elif fragment and rel in ids and fragment not in ids[rel]:
            failures.append(
                f"broken anchor {link} (no id {fragment!r}) in {where}"
            )
    found = not any(f.startswith("search for") for f in failures)
    print(
        f"{len(pages)} pages, {n_images} images, {n_internal} distinct internal "
        "links checked"
        + (
            ""
            if word is None
            else f"; search for {word!r} lists {target}: {found}"
        )
    )
    if remote_hosts:
        print(
            "remote resources blocked (offline by design; tolerated): "
            + ", ".join(
                f"{h} on {n} pages" for h, n in sorted(remote_hosts.items())
            )
        )
    return failures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("html", nargs="?", type=Path, default=DEFAULT_HTML)
    parser.add_argument("--search-word", default=SEARCH_WORD)
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(
            f"browser check SKIPPED: no Chromium at {CHROMIUM} "
            "(apt-get install chromium, or set $CHROMIUM)"
        )
        return 2
    start = time.perf_counter()
    failures = run(args.html.resolve(), args.search_word)
    for failure in failures:
        print("FAIL", failure)
    print(
        f"browser check {'passed' if not failures else 'FAILED'} in "
        f"{time.perf_counter() - start:.1f} s ({len(failures)} failures)"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
