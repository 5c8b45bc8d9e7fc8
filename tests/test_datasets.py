"""Loaders of dppca.datasets: checksums, mirror, download over a local HTTP server, corruption,
offline error, column names, and the Section 6.1 preprocessing."""

from __future__ import annotations

import functools
import gzip
import http.server
import shutil
import socket
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dppca import datasets as ds

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
needs_mirror = pytest.mark.skipif(
    not (SHARED / "MANIFEST.md").exists(),
    reason="the shared data mirror is not present",
)
TIC = ds.DATASETS["insurance"].files[
    0
]  # ticdata2000.txt, 1 MB: small enough for tests


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """Fresh cache, no mirror, downloads pointed at a closed local port (never the network)."""
    monkeypatch.setenv("DPPCA_DATA_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("DPPCA_DATA_MIRROR", raising=False)
    monkeypatch.setenv(
        "DPPCA_DATA_BASE_URL", f"http://127.0.0.1:{_free_port()}/"
    )
    return tmp_path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path, monkeypatch):
    """A local http.server (in a thread) serving tmp_path/"site" laid out like UCI's tree."""
    site = tmp_path / "site"
    site.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv(
        "DPPCA_DATA_BASE_URL", f"http://127.0.0.1:{httpd.server_address[1]}/"
    )
    yield site
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _raw_bytes(raw: ds.RawFile) -> bytes:
    path = SHARED / (
        raw.name if (SHARED / raw.name).exists() else raw.name + ".gz"
    )
    with ds._open_content(path) as fh:
        return fh.read()


def _serve(site: Path, raw: ds.RawFile, content: bytes) -> None:
    target = site / raw.url_path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)


def _cache_listing(root: Path) -> list[str]:
    cache = root / "cache"
    return sorted(p.name for p in cache.rglob("*")) if cache.exists() else []


@needs_mirror
def test_pinned_checksums_match_every_mirror_file():
    for spec in ds.DATASETS.values():
        for raw in spec.files:
            candidates = [p for p in ds._candidates(SHARED, raw) if p.exists()]
            assert candidates, raw.name
            ds.verify(candidates[0], raw.sha256)


def test_checksum_is_of_uncompressed_content(tmp_path):
    payload = b"1\t2\t3\r\n" * 100
    plain, packed = tmp_path / "a.txt", tmp_path / "a.txt.gz"
    plain.write_bytes(payload)
    packed.write_bytes(gzip.compress(payload))
    assert ds.content_sha256(plain) == ds.content_sha256(packed)
    with pytest.raises(ds.ChecksumError):
        ds.verify(plain, "0" * 64)


@needs_mirror
def test_mirror_is_used_without_download(isolated, monkeypatch):
    monkeypatch.setenv("DPPCA_DATA_MIRROR", str(SHARED))
    path = ds.fetch(TIC, progress=False)
    assert path.parent == SHARED
    assert _cache_listing(isolated) == []  # nothing downloaded or copied


@needs_mirror
def test_download_from_local_server_then_cache(isolated, server, monkeypatch):
    _serve(server, TIC, _raw_bytes(TIC))
    path = ds.fetch(TIC, progress=False)
    assert path == isolated / "cache" / TIC.name
    ds.verify(path, TIC.sha256)
    # The next call is served from the cache, even with the server gone.
    shutil.rmtree(server)
    monkeypatch.setenv(
        "DPPCA_DATA_BASE_URL", f"http://127.0.0.1:{_free_port()}/"
    )
    assert ds.fetch(TIC, progress=False) == path
    assert not [
        name for name in _cache_listing(isolated) if name.endswith(".part")
    ]


@needs_mirror
@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_corrupted_or_truncated_download_is_rejected_and_not_cached(
    isolated, server, damage
):
    content = bytearray(_raw_bytes(TIC))
    if damage == "flip":
        content[len(content) // 2] ^= 0x01
    else:
        content = content[: len(content) // 2]
    _serve(server, TIC, bytes(content))
    with pytest.raises(ds.DataUnavailableError, match="sha256"):
        ds.fetch(TIC, progress=False)
    assert (
        _cache_listing(isolated) == []
    )  # no final file and no temporary left behind
    assert not (isolated / "cache" / TIC.name).exists()


@needs_mirror
def test_truncated_gzip_in_mirror_is_rejected(isolated, monkeypatch):
    mirror = isolated / "mirror"
    mirror.mkdir()
    packed = (SHARED / (TIC.name + ".gz")).read_bytes()
    (mirror / (TIC.name + ".gz")).write_bytes(packed[: len(packed) // 2])
    monkeypatch.setenv("DPPCA_DATA_MIRROR", str(mirror))
    with pytest.raises(ds.DataUnavailableError) as info:
        ds.fetch(TIC, progress=False)
    assert "unreadable compressed stream" in str(info.value)
    assert not (isolated / "cache" / TIC.name).exists()


@needs_mirror
def test_bad_cached_copy_is_dropped_and_refetched(isolated, server):
    cache = isolated / "cache"
    cache.mkdir()
    (cache / TIC.name).write_bytes(b"not the file\n")
    _serve(server, TIC, _raw_bytes(TIC))
    path = ds.fetch(TIC, progress=False)
    ds.verify(path, TIC.sha256)


def test_offline_error_says_what_where_and_how(isolated):
    with pytest.raises(ds.DataUnavailableError) as info:
        ds.fetch(TIC, progress=False)
    message = str(info.value)
    assert TIC.name in message and TIC.sha256 in message  # what is missing
    assert str(isolated / "cache") in message  # where it looked
    assert "DPPCA_DATA_MIRROR is not set" in message
    assert TIC.url_path in message
    assert "How to supply it" in message and "DPPCA_DATA_MIRROR" in message


@needs_mirror
def test_column_names_come_from_the_description_files():
    kdd = ds.kddcup_column_names((SHARED / "kddcup.names").read_text())
    census = ds.census_column_names(
        (SHARED / "census-income.names").read_text()
    )
    tic = ds.insurance_column_names(
        (SHARED / "dictionary.txt").read_bytes().decode("cp1252")
    )
    assert (
        len(kdd) == 41
        and kdd[0] == "duration"
        and kdd[-1] == "dst_host_srv_rerror_rate"
    )
    assert (
        len(census) == 41
        and census[0] == "age"
        and census[24] == "instance weight"
    )
    assert census[-1] == "year"
    assert len(tic) == 86 and tic[0] == "MOSTYPE" and tic[-1] == "CARAVAN"


def test_one_hot_and_scale_follows_section_6_1():
    table = pd.DataFrame(
        {
            "colour": ["red", "blue", "red", "green"],
            "size": [2.0, 4.0, -8.0, 1.0],
            "unused": [0.0, 0.0, 0.0, 0.0],
        }
    )
    X, columns = ds.one_hot_and_scale(table, categorical=("colour",))
    X = X.toarray()
    assert columns == [
        "colour=blue",
        "colour=green",
        "colour=red",
        "size",
    ]  # zero column dropped
    indicator = X[:, :3] > 0
    np.testing.assert_array_equal(indicator.sum(axis=1), 1)  # one-hot rows
    norms = np.linalg.norm(X, axis=1)
    assert norms.max() == pytest.approx(1.0, abs=1e-15)
    # Before the global factor, each column's largest |entry| was 1, and the row with
    # size -8 (scaled to -1) plus its indicator had the largest norm sqrt(2).
    np.testing.assert_allclose(np.abs(X).max(axis=0) * np.sqrt(2), 1.0)


@needs_mirror
def test_preprocess_insurance_and_its_cache(isolated, monkeypatch):
    monkeypatch.setenv("DPPCA_DATA_MIRROR", str(SHARED))
    first = ds.preprocess("insurance", progress=False)
    assert (first.n, first.d) == (9822, 138)
    assert np.sqrt(
        first.X.multiply(first.X).sum(axis=1)
    ).max() == pytest.approx(1.0)
    cached = list((isolated / "cache" / "preprocessed").glob("insurance-*.npz"))
    assert len(cached) == 1
    second = ds.preprocess("insurance", progress=False)
    assert (first.X != second.X).nnz == 0 and np.array_equal(first.A, second.A)
    np.testing.assert_allclose(
        first.A, (first.X.T @ first.X).toarray() / first.n, atol=1e-15
    )
    table = ds.load("insurance", progress=False)
    assert (
        table.shape == (9822, 87) and int(table["CARAVAN"].sum()) == 348 + 238
    )


def test_unknown_dataset_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown data set"):
        ds.preprocess("mnist")
