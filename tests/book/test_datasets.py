"""Loaders of dppca.book.datasets and their machinery (dppca.book.data_files,
dppca.book.preprocessing): checksums, mirror, download over a local HTTP
server, corruption,
offline error, column names, and the Section 6.1 preprocessing."""

from __future__ import annotations

import functools
import gzip
import http.server
import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dppca.book import data_files, preprocessing
from dppca.book import datasets as ds

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
needs_mirror = pytest.mark.skipif(
    not (SHARED / "MANIFEST.md").exists(),
    reason="the shared data mirror is not present",
)
TIC = ds.DATASETS["insurance"].files[
    0
]  # ticdata2000.txt, 1 MB: small enough for tests


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """Fresh cache, no mirror, downloads pointed at a closed local port
    (never the network)."""
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
    """A local http.server (in a thread) serving tmp_path/"site" laid out
    like UCI's tree."""
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


def _raw_bytes(raw: data_files.RawFile) -> bytes:
    path = SHARED / (
        raw.name if (SHARED / raw.name).exists() else raw.name + ".gz"
    )
    with data_files._open_content(path) as fh:
        return fh.read()


def _serve(site: Path, raw: data_files.RawFile, content: bytes) -> None:
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
            candidates = [
                p for p in data_files._candidates(SHARED, raw) if p.exists()
            ]
            assert candidates, raw.name
            data_files.verify(candidates[0], raw.sha256)


def test_checksum_is_of_uncompressed_content(tmp_path):
    payload = b"1\t2\t3\r\n" * 100
    plain, packed = tmp_path / "a.txt", tmp_path / "a.txt.gz"
    plain.write_bytes(payload)
    packed.write_bytes(gzip.compress(payload))
    assert data_files.content_sha256(plain) == data_files.content_sha256(packed)
    with pytest.raises(data_files.ChecksumError):
        data_files.verify(plain, "0" * 64)


@needs_mirror
def test_mirror_is_used_without_download(isolated, monkeypatch):
    monkeypatch.setenv("DPPCA_DATA_MIRROR", str(SHARED))
    path = data_files.fetch(TIC, progress=False)
    assert path.parent == SHARED
    assert _cache_listing(isolated) == []  # nothing downloaded or copied


@needs_mirror
def test_download_from_local_server_then_cache(isolated, server, monkeypatch):
    _serve(server, TIC, _raw_bytes(TIC))
    path = data_files.fetch(TIC, progress=False)
    assert path == isolated / "cache" / TIC.name
    data_files.verify(path, TIC.sha256)
    # The next call is served from the cache, even with the server gone.
    shutil.rmtree(server)
    monkeypatch.setenv(
        "DPPCA_DATA_BASE_URL", f"http://127.0.0.1:{_free_port()}/"
    )
    assert data_files.fetch(TIC, progress=False) == path
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
    with pytest.raises(data_files.DataUnavailableError, match="sha256"):
        data_files.fetch(TIC, progress=False)
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
    with pytest.raises(data_files.DataUnavailableError) as info:
        data_files.fetch(TIC, progress=False)
    assert "unreadable compressed stream" in str(info.value)
    assert not (isolated / "cache" / TIC.name).exists()


@needs_mirror
def test_bad_cached_copy_is_dropped_and_refetched(isolated, server):
    cache = isolated / "cache"
    cache.mkdir()
    (cache / TIC.name).write_bytes(b"not the file\n")
    _serve(server, TIC, _raw_bytes(TIC))
    path = data_files.fetch(TIC, progress=False)
    data_files.verify(path, TIC.sha256)


def test_offline_error_says_what_where_and_how(isolated):
    with pytest.raises(data_files.DataUnavailableError) as info:
        data_files.fetch(TIC, progress=False)
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
    X, columns = preprocessing.one_hot_and_scale(table, categorical=("colour",))
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
    # Before the global factor, each column's largest |entry| was 1, and the row
    # with size -8 (scaled to -1) plus its indicator had the largest norm
    # sqrt(2).
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


# ---- issue 11: a trustworthy cache
# -------------------------------------------------------------
def _mirror_with(tmp_path: Path, raw: data_files.RawFile) -> Path:
    """A local mirror directory holding a valid copy of ``raw`` (made from
    the shared mirror)."""
    mirror = tmp_path / "local-mirror"
    mirror.mkdir(exist_ok=True)
    (mirror / raw.name).write_bytes(_raw_bytes(raw))
    return mirror


def _edit_in_place_keeping_size_and_mtime(path: Path) -> None:
    before = path.stat()
    content = bytearray(path.read_bytes())
    content[len(content) // 3] ^= 0x01
    path.write_bytes(bytes(content))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (
        before.st_size,
        before.st_mtime_ns,
    )


@pytest.fixture
def read_only(monkeypatch):
    """Make a directory tree read-only: chmod, and for root (whom chmod does
    not stop) make
    every creation or removal of a file below it fail as on a read-only file
    system."""
    roots = []

    def below(path) -> bool:
        path = Path(path).resolve()
        return any(path == r or r in path.parents for r in roots)

    real_mkstemp, real_unlink, real_mkdir = (
        tempfile.mkstemp,
        Path.unlink,
        Path.mkdir,
    )

    def mkstemp(*args, dir=None, **kwargs):
        if dir is not None and below(dir):
            raise PermissionError(13, "Permission denied", str(dir))
        return real_mkstemp(*args, dir=dir, **kwargs)

    def unlink(self, *args, **kwargs):
        if below(self):
            raise PermissionError(13, "Permission denied", str(self))
        return real_unlink(self, *args, **kwargs)

    def mkdir(self, *args, **kwargs):
        if below(self) and not self.exists():
            raise PermissionError(13, "Permission denied", str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(Path, "unlink", unlink)
    monkeypatch.setattr(Path, "mkdir", mkdir)
    monkeypatch.setattr(data_files, "_WARNED_READ_ONLY", set())

    def make(directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        for path in [directory, *directory.rglob("*")]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        roots.append(directory.resolve())
        return directory

    yield make
    for root in roots:
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)


@needs_mirror
def test_cached_raw_file_edited_in_place_with_size_and_mtime_restored_is_not_served(
    isolated, server, monkeypatch
):
    _serve(server, TIC, _raw_bytes(TIC))
    cached = data_files.fetch(TIC, progress=False)  # downloaded into the cache
    assert (
        data_files.fetch(TIC, progress=False) == cached
    )  # served from the cache
    _edit_in_place_keeping_size_and_mtime(cached)
    monkeypatch.setenv("DPPCA_DATA_MIRROR", str(_mirror_with(isolated, TIC)))
    path = data_files.fetch(TIC, progress=False)
    data_files.verify(path, TIC.sha256)  # the edited copy is never served
    assert path.parent == isolated / "local-mirror"
    assert not cached.exists()  # and it was dropped from the cache


@needs_mirror
def test_corrupt_cached_raw_file_is_repaired_by_a_download(isolated, server):
    _serve(server, TIC, _raw_bytes(TIC))
    cached = data_files.fetch(TIC, progress=False)
    assert (
        data_files.fetch(TIC, progress=False) == cached
    )  # served from the cache
    _edit_in_place_keeping_size_and_mtime(cached)
    assert data_files.fetch(TIC, progress=False) == cached
    data_files.verify(cached, TIC.sha256)  # the cache holds a good copy again


def _tamper_npz(path: Path) -> None:
    with np.load(path, allow_pickle=False) as stored:
        arrays = {key: stored[key] for key in stored.files}
    arrays["A"] = arrays["A"] * 2.0
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


@needs_mirror
@pytest.mark.parametrize("damage", ["tamper", "truncate", "empty", "garbage"])
def test_corrupt_preprocessed_cache_is_rebuilt_and_repaired(
    isolated, monkeypatch, damage
):
    monkeypatch.setenv("DPPCA_DATA_MIRROR", str(SHARED))
    first = ds.preprocess("insurance", progress=False)
    (path,) = (isolated / "cache" / "preprocessed").glob("insurance-*.npz")
    if damage == "tamper":
        _tamper_npz(path)
    elif damage == "truncate":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    else:
        path.write_bytes(b"PK\x03\x04 not a zip file at all")
    second = ds.preprocess("insurance", progress=False)
    assert np.array_equal(first.A, second.A) and (first.X != second.X).nnz == 0
    # the cache was repaired: the next read is served from it and is right
    monkeypatch.delenv("DPPCA_DATA_MIRROR")
    third = ds.preprocess("insurance", progress=False)
    assert np.array_equal(first.A, third.A)


@needs_mirror
def test_preprocessed_cache_without_its_checksum_is_rebuilt(
    isolated, monkeypatch
):
    monkeypatch.setenv("DPPCA_DATA_MIRROR", str(SHARED))
    first = ds.preprocess("insurance", progress=False)
    (path,) = (isolated / "cache" / "preprocessed").glob("insurance-*.npz")
    _tamper_npz(path)
    path.with_name(path.name + ".sha256").unlink()
    assert np.array_equal(ds.preprocess("insurance", progress=False).A, first.A)


@needs_mirror
def test_read_only_cache_with_a_corrupt_file_does_not_block_a_valid_mirror(
    isolated, monkeypatch, read_only
):
    cache = isolated / "cache"
    cache.mkdir()
    (cache / TIC.name).write_bytes(b"not the file\n")
    read_only(cache)
    monkeypatch.setenv("DPPCA_DATA_MIRROR", str(_mirror_with(isolated, TIC)))
    path = data_files.fetch(TIC, progress=False)
    assert path.parent == isolated / "local-mirror"
    data_files.verify(path, TIC.sha256)


@needs_mirror
def test_read_only_cache_works_from_the_mirror_and_says_so_once(
    isolated, monkeypatch, read_only
):
    read_only(isolated / "cache")
    monkeypatch.setenv("DPPCA_DATA_MIRROR", str(SHARED))
    with pytest.warns(
        data_files.DataCacheWarning, match="cannot be written"
    ) as caught:
        first = ds.preprocess("insurance", progress=False)
        second = ds.preprocess("insurance", progress=False)
    assert (
        len([w for w in caught if w.category is data_files.DataCacheWarning])
        == 1
    )
    assert np.array_equal(first.A, second.A) and first.n == 9822
    assert _cache_listing(isolated) == []


@needs_mirror
def test_read_only_cache_downloads_to_a_temporary_directory(
    isolated, server, read_only
):
    _serve(server, TIC, _raw_bytes(TIC))
    read_only(isolated / "cache")
    with pytest.warns(data_files.DataCacheWarning):
        path = data_files.fetch(TIC, progress=False)
    data_files.verify(path, TIC.sha256)
    assert isolated / "cache" not in path.parents
    assert _cache_listing(isolated) == []


@pytest.mark.parametrize(
    "url", ["notaurl", "/some/dir", "http://", "gopher://x/"]
)
def test_unusable_base_url_is_a_clear_package_error(isolated, monkeypatch, url):
    monkeypatch.setenv("DPPCA_DATA_BASE_URL", url)
    with pytest.raises(
        data_files.DataConfigurationError, match="DPPCA_DATA_BASE_URL"
    ):
        data_files.fetch(TIC, progress=False)


@needs_mirror
def test_file_url_serves_as_base(isolated, monkeypatch):
    site = isolated / "site"
    _serve(site, TIC, _raw_bytes(TIC))
    monkeypatch.setenv("DPPCA_DATA_BASE_URL", site.as_uri() + "/")
    path = data_files.fetch(TIC, progress=False)
    assert path == isolated / "cache" / TIC.name
    data_files.verify(path, TIC.sha256)


@pytest.fixture
def stalled_server(monkeypatch):
    """A loopback port that accepts connections (kernel backlog) and never
    answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    monkeypatch.setenv(
        "DPPCA_DATA_BASE_URL", f"http://127.0.0.1:{sock.getsockname()[1]}/"
    )
    yield
    sock.close()


@pytest.mark.parametrize("how", ["argument", "environment"])
def test_download_timeout_is_a_parameter_and_an_environment_variable(
    isolated, stalled_server, monkeypatch, how
):
    kwargs = {}
    if how == "argument":
        kwargs["timeout"] = 0.5
    else:
        monkeypatch.setenv("DPPCA_DATA_TIMEOUT", "0.5")
    start = time.perf_counter()
    with pytest.raises(data_files.DataUnavailableError, match="timed out"):
        data_files.fetch(TIC, progress=False, **kwargs)
    assert time.perf_counter() - start < 5.0


@pytest.mark.parametrize("value", ["soon", "0", "-1", "nan", "inf"])
def test_unusable_timeout_is_a_clear_package_error(
    isolated, monkeypatch, value
):
    monkeypatch.setenv("DPPCA_DATA_TIMEOUT", value)
    with pytest.raises(
        data_files.DataConfigurationError, match="DPPCA_DATA_TIMEOUT"
    ):
        data_files.fetch(TIC, progress=False)
    monkeypatch.delenv("DPPCA_DATA_TIMEOUT")
    with pytest.raises(data_files.DataConfigurationError, match="timeout"):
        data_files.fetch(TIC, progress=False, timeout=value)
    assert data_files.download_timeout() == data_files.DEFAULT_TIMEOUT
