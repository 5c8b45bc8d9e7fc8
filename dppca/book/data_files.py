"""The data sets' files: where they are found, how they are verified, how
they are cached (the machinery of :mod:`dppca.book.datasets`).

Raw files are found, in this order, in the cache directory
(``$DPPCA_DATA_CACHE``, default ``~/.cache/dppca``), in a local mirror directory
(``$DPPCA_DATA_MIRROR``), or downloaded from UCI's classic
``machine-learning-databases`` URLs (base overridable with
``$DPPCA_DATA_BASE_URL``, which must be an ``http(s)://``, ``ftp://`` or
``file://`` URL).

Trust model. A raw file is used only if the sha256 of its *uncompressed* content
equals the pinned value, and this is checked every time it is used, wherever it
comes from (cache, mirror or download): there is no "verified" stamp to forge,
so a cached file edited in place (even with its size and modification time
restored) is detected. Re-hashing the raw files costs 0.74 s (kddcup99), 0.59 s
(census), 0.34 s (localization) and 0.02 s (insurance) on one shared core,
against 3.5 s, 10.5 s, 0.9 s and 0.2 s to parse them, and happens only when a
preprocessed matrix is not cached. A cached preprocessed ``.npz`` has its sha256
stored beside it (``.npz.sha256``), checked before it is read (0.31 s of the
0.47 s a cached kddcup99 takes, 108 MB); it guards against corruption and
accidental edits, not against someone who can write both files (anyone who can
write the cache can also replace the package). A cache entry that fails its
check is removed and rebuilt from the mirror or a download, never served and
never an exception by itself.

Downloads go to a temporary file that is renamed into the cache only after the
checksum matched: a corrupted or truncated file is never cached. The timeout
(seconds without data from the server) is the ``timeout`` argument, else
``$DPPCA_DATA_TIMEOUT``, else :data:`DEFAULT_TIMEOUT`. If the cache directory
cannot be written (read-only, no permission), everything works from the mirror
or from downloads kept in a temporary directory for the process, and a
:class:`DataCacheWarning` says so once per directory. There is no lock: two
processes filling the same empty cache both download (or preprocess) every file;
each writes its own temporary file and renames it atomically, so the cache
always holds complete, verified files.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
from dataclasses import dataclass
from pathlib import Path

#: Base of UCI's classic file URLs (the ``machine-learning-databases`` tree).
UCI_BASE_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/"
_GZIP_MAGIC = b"\x1f\x8b"
#: Seconds without data after which a download is abandoned
#: (``$DPPCA_DATA_TIMEOUT`` overrides).
DEFAULT_TIMEOUT = 30.0
#: URL schemes accepted in ``$DPPCA_DATA_BASE_URL``.
URL_SCHEMES = ("http", "https", "ftp", "file")


class DataUnavailableError(RuntimeError):
    """No verified copy of a raw file could be found or downloaded."""


class ChecksumError(ValueError):
    """A file's uncompressed content does not have the pinned sha256."""


class DataConfigurationError(ValueError):
    """An environment variable or argument of the data loaders has an
    unusable value."""


class DataCacheWarning(UserWarning):
    """The cache directory cannot be written: data are used without being
    cached."""


@dataclass(frozen=True)
class RawFile:
    """One file as distributed by UCI: its name, URL path below
    :data:`UCI_BASE_URL` and the
    sha256 of its uncompressed content."""

    name: str
    url_path: str
    sha256: str


# ------------------------------------------------------------------------------
# Finding, verifying and downloading raw files
# ------------------------------------------------------------------------------


def cache_dir() -> Path:
    """The cache directory: ``$DPPCA_DATA_CACHE`` or ``~/.cache/dppca``."""
    return Path(
        os.environ.get("DPPCA_DATA_CACHE") or Path.home() / ".cache" / "dppca"
    )


def mirror_dir() -> Path | None:
    """The local mirror directory ``$DPPCA_DATA_MIRROR``, or None when unset."""
    value = os.environ.get("DPPCA_DATA_MIRROR")
    return Path(value) if value else None


def base_url() -> str:
    """Base URL of the downloads: ``$DPPCA_DATA_BASE_URL`` or
    :data:`UCI_BASE_URL`.

    Raises :class:`DataConfigurationError` unless it is an absolute URL with one
    of the schemes :data:`URL_SCHEMES` (and a host, except for ``file://``).
    """
    url = os.environ.get("DPPCA_DATA_BASE_URL") or UCI_BASE_URL
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in URL_SCHEMES or (
        parts.scheme != "file" and not parts.netloc
    ):
        raise DataConfigurationError(
            f"DPPCA_DATA_BASE_URL={url!r} is not a usable URL: expected an "
            "absolute "
            f"{'/'.join(URL_SCHEMES)} URL such as {UCI_BASE_URL!r} or "
            "'file:///path/to/mirror/'"
            " (to use a local directory of the files, set DPPCA_DATA_MIRROR "
            "instead)"
        )
    return url if url.endswith("/") else url + "/"


def download_timeout(timeout=None) -> float:
    """Seconds without data before a download is abandoned: ``timeout`` if
    given, else
    ``$DPPCA_DATA_TIMEOUT``, else :data:`DEFAULT_TIMEOUT` (a positive finite
    number)."""
    source = "timeout"
    if timeout is None:
        value = os.environ.get("DPPCA_DATA_TIMEOUT")
        if not value:
            return DEFAULT_TIMEOUT
        source, timeout = "DPPCA_DATA_TIMEOUT", value
    try:
        seconds = float(timeout)
    except (TypeError, ValueError):
        seconds = math.nan
    wrong_type = isinstance(timeout, bool) or (
        source == "timeout" and isinstance(timeout, str)
    )
    if wrong_type or not (math.isfinite(seconds) and seconds > 0):
        raise DataConfigurationError(
            f"{source} must be a positive number of seconds; got {timeout!r}"
        )
    return seconds


_WARNED_READ_ONLY: set[str] = set()
_SCRATCH: list = []


def _cache_is_writable(directory: Path) -> bool:
    """Whether files can be created in ``directory`` (created if missing), by
    trying it."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=directory, prefix=".probe.")
        os.close(fd)
        os.unlink(probe)
        return True
    except OSError:
        return False


def _warn_read_only(directory: Path, reason: str) -> None:
    key = str(directory)
    if key not in _WARNED_READ_ONLY:
        _WARNED_READ_ONLY.add(key)
        warnings.warn(
            f"the data cache {directory} cannot be written ({reason}); working "
            "from the "
            "mirror or from downloads kept in a temporary directory, without "
            "caching. Set "
            "DPPCA_DATA_CACHE to a writable directory to cache.",
            DataCacheWarning,
            stacklevel=3,
        )


def _scratch_dir() -> Path:
    """A temporary directory for downloads when the cache is read-only
    (removed at exit)."""
    if not _SCRATCH:
        _SCRATCH.append(tempfile.TemporaryDirectory(prefix="dppca-data-"))
    return Path(_SCRATCH[0].name)


def _open_content(path: Path):
    """Open a file for reading its uncompressed bytes (gzip recognised by its
    magic number)."""
    with open(path, "rb") as fh:
        magic = fh.read(2)
    return gzip.open(path, "rb") if magic == _GZIP_MAGIC else open(path, "rb")


def content_sha256(path) -> str:
    """sha256 of a file's uncompressed content (raises ChecksumError on a
    broken gzip stream)."""
    digest = hashlib.sha256()
    try:
        with _open_content(Path(path)) as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except (
        EOFError,
        OSError,
        gzip.BadGzipFile,
    ) as exc:  # truncated or corrupt gzip
        raise ChecksumError(
            f"{path}: unreadable compressed stream ({exc})"
        ) from exc
    return digest.hexdigest()


def verify(path, expected: str) -> None:
    """Raise ChecksumError unless the uncompressed content of ``path`` has
    sha256 ``expected``."""
    actual = content_sha256(path)
    if actual != expected:
        raise ChecksumError(
            f"{path}: sha256 of content is {actual}, expected {expected}"
        )


def _candidates(directory: Path, raw: RawFile) -> list[Path]:
    names = [raw.name]
    names.append(
        raw.name[:-3] if raw.name.endswith(".gz") else raw.name + ".gz"
    )
    return [directory / name for name in names]


def _atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".part"
    )
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


class _NoProgressBar:
    """Stands in for ``tqdm`` when it is not installed: no progress bar."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    def update(self, n=1):
        pass


def download(
    raw: RawFile,
    destination: Path,
    *,
    url: str | None = None,
    progress: bool = True,
    timeout: float | None = None,
) -> Path:
    """Download ``raw`` to ``destination`` (a directory) with a tqdm progress
    bar.

    The bytes go to a temporary file in the same directory; it is verified
    against the pinned sha256 and only then renamed into place (``os.replace``
    is atomic), so an interrupted, truncated or corrupted download never appears
    under the final name. ``timeout``: seconds without data from the server
    (:func:`download_timeout`).
    """
    try:
        from tqdm import tqdm
    except ModuleNotFoundError:  # optional (the `data` extra): no bar then
        tqdm = _NoProgressBar

    timeout = download_timeout(timeout)
    url = url or base_url() + raw.url_path
    destination.mkdir(parents=True, exist_ok=True)
    target = destination / raw.name
    fd, tmp_name = tempfile.mkstemp(
        dir=destination, prefix=f".{raw.name}.", suffix=".part"
    )
    tmp = Path(tmp_name)
    try:
        with (
            urllib.request.urlopen(url, timeout=timeout) as response,
            os.fdopen(fd, "wb") as out,
        ):
            total = int(response.headers.get("Content-Length") or 0) or None
            with tqdm(
                total=total,
                unit="B",
                unit_scale=True,
                desc=raw.name,
                disable=not progress,
            ) as bar:
                for block in iter(lambda: response.read(1 << 16), b""):
                    out.write(block)
                    bar.update(len(block))
        verify(tmp, raw.sha256)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def fetch(
    raw: RawFile, *, progress: bool = True, timeout: float | None = None
) -> Path:
    """Path of a verified copy of ``raw``: from the cache, else the mirror,
    else a download.

    Every candidate is re-hashed (module docstring). A cached copy that fails is
    removed (when the cache is writable) and never served. A download goes to
    the cache, or to a temporary directory with a :class:`DataCacheWarning` when
    the cache cannot be written. ``timeout`` as in :func:`download_timeout`.
    Raises DataUnavailableError, listing every place looked at and why it
    failed, and how to supply the file, when no verified copy can be obtained,
    and :class:`DataConfigurationError` for an unusable ``$DPPCA_DATA_BASE_URL``
    or timeout (both are read only when a download is needed).
    """
    tried = []
    cache = cache_dir()
    for path in _candidates(cache, raw):
        if path.exists():
            try:
                verify(path, raw.sha256)
                return path
            except (ChecksumError, OSError) as exc:
                tried.append(f"cache {path}: {exc}")
                try:  # a bad cached copy is dropped, never served
                    path.unlink(missing_ok=True)
                    path.with_name(path.name + ".sha256").unlink(
                        missing_ok=True
                    )  # side-car of older versions
                except OSError as unlink_exc:
                    tried.append(
                        f"cache {path}: cannot remove it ({unlink_exc})"
                    )
        else:
            tried.append(f"cache {path}: not present")
    mirror = mirror_dir()
    if mirror is None:
        tried.append("mirror: DPPCA_DATA_MIRROR is not set")
    else:
        for path in _candidates(mirror, raw):
            if path.exists():
                try:
                    verify(path, raw.sha256)
                    return path
                except (ChecksumError, OSError) as exc:
                    tried.append(f"mirror {path}: {exc}")
            else:
                tried.append(f"mirror {path}: not present")
    url = base_url() + raw.url_path
    timeout = download_timeout(timeout)
    destination = cache
    if not _cache_is_writable(cache):
        _warn_read_only(cache, "not writable")
        destination = _scratch_dir()
    try:
        return download(
            raw, destination, url=url, progress=progress, timeout=timeout
        )
    except (urllib.error.URLError, OSError, ValueError) as exc:
        tried.append(f"download {url}: {exc}")
    raise DataUnavailableError(
        f"Could not obtain a verified copy of {raw.name!r} (sha256 of its "
        f"content {raw.sha256}).\nWhere it looked:\n  - "
        + "\n  - ".join(tried)
        + f"\nHow to supply it: put {raw.name} (or a gzipped copy) in a "
        f"directory and set DPPCA_DATA_MIRROR to it, or place it in the "
        f"cache {cache}, or connect to the network so that it can be "
        f"downloaded from {url}."
    )


def _read_text(path: Path, encoding: str = "utf-8") -> str:
    with _open_content(path) as fh:
        return fh.read().decode(encoding)
