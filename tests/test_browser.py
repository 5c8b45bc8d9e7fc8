"""The browser check (tools/browser_check.py) on small hand-made sites: it
passes a sound one
and names each planted fault. The check of the real book runs after the
render (make test)."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import browser_check  # noqa: E402

pytestmark = pytest.mark.skipif(
    not Path(browser_check.CHROMIUM).exists(),
    reason=f"no Chromium at {browser_check.CHROMIUM}",
)

# A 1 x 1 PNG.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def page(body: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"


def sound_site(root: Path) -> None:
    (root / "chapters").mkdir(parents=True)
    (root / "_images").mkdir()
    (root / "_images" / "fig.png").write_bytes(PIXEL)
    (root / "index.html").write_text(
        '<meta http-equiv="Refresh" content="0; url=chapters/one.html" />'
    )
    (root / "chapters" / "one.html").write_text(
        page(
            '<h1 id="top">One</h1><img src="../_images/fig.png">'
            '<a href="two.html#thm-1">Theorem 2.1</a><a href="#top">up</a>'
            '<a href="https://example.org/">elsewhere</a>',
            # a remote script: blocked by the check, reported, tolerated
            head='<script src="https://cdn.jsdelivr.net/npm/x.js"></script>',
        )
    )
    (root / "chapters" / "two.html").write_text(
        page('<div id="thm-1">Theorem</div><a href="one.html">back</a>')
    )


def run(root: Path) -> list[str]:
    return browser_check.run(root, word=None)


def test_a_sound_site_passes(tmp_path):
    sound_site(tmp_path)
    assert run(tmp_path) == []


def test_each_planted_fault_is_reported(tmp_path):
    sound_site(tmp_path)
    chapters = tmp_path / "chapters"
    (tmp_path / "_images" / "bad.png").write_bytes(b"not a png")
    faults = {
        "image.html": ('<img src="../_images/bad.png">', "image"),
        "anchor.html": ('<a href="two.html#missing">x</a>', "broken anchor"),
        "file.html": ('<a href="gone.html">x</a>', "broken link"),
        "exception.html": ("<script>undefinedName();</script>", "JS exception"),
        "asset.html": (
            '<script src="../_static/gone.js"></script>',
            "HTTP 404",
        ),
        "console.html": ("<script>console.error('boom')</script>", "boom"),
    }
    for name, (body, _) in faults.items():
        (chapters / name).write_text(page(body))
    failures = run(tmp_path)
    for name, (_, expected) in faults.items():
        assert any(name in f and expected in f for f in failures), (
            name,
            failures,
        )
    sound_pages = ("chapters/one.html:", "chapters/two.html:")
    assert not any(f.startswith(sound_pages) for f in failures), failures
