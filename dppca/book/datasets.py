"""The four UCI data sets of Chaudhuri, Sarwate & Sinha (JMLR 2013, Section
6.1) and their preprocessing.

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

Preprocessing (:func:`preprocess`) follows Section 6.1: one-hot encode each
categorical feature, scale each column so that its largest absolute entry is 1,
then scale the whole matrix so that the largest row norm is 1. The result is
cached (sparse), keyed by the pinned checksums, the preprocessing parameters and
:data:`PREPROCESSING_VERSION`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse

try:
    import pandas as pd
except ModuleNotFoundError as error:  # pandas is the `data` extra's
    raise ModuleNotFoundError(
        "dppca.book.datasets needs pandas, which dppca's core does not "
        "install: "
        "pip install 'dppca[data]' (or 'dppca[book]')",
        name=error.name,
    ) from error

#: Base of UCI's classic file URLs (the ``machine-learning-databases`` tree).
UCI_BASE_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/"
#: Bump when :func:`preprocess` changes meaning; it is part of every cache key.
PREPROCESSING_VERSION = 1
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


@dataclass(frozen=True)
class DatasetSpec:
    """What a data set is made of and how Section 6.1 of the paper turns it
    into a matrix."""

    name: str
    uci_id: int
    files: tuple[RawFile, ...]
    categorical: tuple[str, ...]
    dropped: tuple[str, ...]
    label: str
    k: int
    paper: dict = field(default_factory=dict)


# Pinned sha256 of the uncompressed UCI files (see shared/data/MANIFEST.md for
# their provenance).
_KDD_DATA = RawFile(
    "kddcup.data_10_percent.gz",
    "kddcup99-mld/kddcup.data_10_percent.gz",
    "f8c8267ebcd9c0ed1fd7d6277fe5bfff8732e9b7db8e61b873542b2a534b6f9a",
)
_KDD_NAMES = RawFile(
    "kddcup.names",
    "kddcup99-mld/kddcup.names",
    "24ad45a4c5de85cd73bcc81cf4965a58bbf3e83b48c6e6d3b0284119e7d42efd",
)
_CENSUS_DATA = RawFile(
    "census-income.data.gz",
    "census-income-mld/census-income.data.gz",
    "3676a81db7d3528f3f8b9f3c699d0f0aa28db45e6e994fa0b8ed38327539ee86",
)
_CENSUS_NAMES = RawFile(
    "census-income.names",
    "census-income-mld/census-income.names",
    "d6fea52977f68504ab3149351980458e09bfc3116808da8986646710d254ef98",
)
_LOC_DATA = RawFile(
    "ConfLongDemo_JSI.txt",
    "00196/ConfLongDemo_JSI.txt",
    "1fbc965b8d7faf499ea854428b2138132d94e6a26404bc8e4b0c62144f513e8a",
)
_TIC_TRAIN = RawFile(
    "ticdata2000.txt",
    "tic-mld/ticdata2000.txt",
    "5d5bdca1be0b9a6c012b93a8c8104761201bd70f7e08764fa67f2cfb26243723",
)
_TIC_EVAL = RawFile(
    "ticeval2000.txt",
    "tic-mld/ticeval2000.txt",
    "fddb767ff809088e8046a4136abde77807de08e1e33871d013f72d7185431ed0",
)
_TIC_TARGETS = RawFile(
    "tictgts2000.txt",
    "tic-mld/tictgts2000.txt",
    "0d15ce4120d397c0315d6c00ba29c5e59463afd9fff720d175a376a363ecb9cd",
)
_TIC_DICTIONARY = RawFile(
    "dictionary.txt",
    "tic-mld/dictionary.txt",
    "0b971c074a242ddccc1f005f8c9640e29d7889f9b02497aa67458cc882c2b1ef",
)

#: Column names of ``ConfLongDemo_JSI.txt`` as listed on the UCI page (the file
#: has no header).
LOCALIZATION_COLUMNS = (
    "sequence",
    "tag",
    "timestamp",
    "date",
    "x",
    "y",
    "z",
    "activity",
)

_CENSUS_CATEGORICAL = (
    "class of worker",
    "detailed industry recode",
    "detailed occupation recode",
    "education",
    "enroll in edu inst last wk",
    "marital stat",
    "major industry code",
    "major occupation code",
    "race",
    "hispanic origin",
    "sex",
    "member of a labor union",
    "reason for unemployment",
    "full or part time employment stat",
    "tax filer stat",
    "region of previous residence",
    "state of previous residence",
    "detailed household and family stat",
    "detailed household summary in household",
    "migration code-change in msa",
    "migration code-change in reg",
    "migration code-move within reg",
    "live in this house 1 year ago",
    "migration prev res in sunbelt",
    "family members under 18",
    "country of birth father",
    "country of birth mother",
    "country of birth self",
    "citizenship",
    "own business or self employed",
    "fill inc questionnaire for veteran's admin",
    "veterans benefits",
    "year",
)

DATASETS: dict[str, DatasetSpec] = {
    "kddcup99": DatasetSpec(
        "kddcup99",
        130,
        (_KDD_DATA, _KDD_NAMES),
        categorical=("protocol_type", "service", "flag"),
        dropped=(),
        label="label",
        k=4,
        paper={"n": 494_021, "d": 116, "q_F": 0.6587, "ratio": 0.96},
    ),
    "census": DatasetSpec(
        "census",
        117,
        (_CENSUS_DATA, _CENSUS_NAMES),
        categorical=_CENSUS_CATEGORICAL,
        dropped=(),
        label="income",
        k=8,
        paper={"n": 199_523, "d": 513, "q_F": 0.7321, "ratio": 0.81},
    ),
    "localization": DatasetSpec(
        "localization",
        196,
        (_LOC_DATA,),
        categorical=("sequence", "tag", "activity"),
        dropped=("date",),
        label="",
        k=10,
        paper={"n": 164_860, "d": 44, "q_F": 0.5672, "ratio": 0.81},
    ),
    "insurance": DatasetSpec(
        "insurance",
        125,
        (_TIC_TRAIN, _TIC_EVAL, _TIC_TARGETS, _TIC_DICTIONARY),
        categorical=("MOSTYPE", "MGEMLEEF", "MOSHOOFD"),
        dropped=(),
        label="CARAVAN",
        k=11,
        paper={"n": 9_822, "d": 150, "q_F": 0.5118, "ratio": 0.81},
    ),
}


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


def fetch_dataset(
    name: str, *, progress: bool = True, timeout: float | None = None
) -> dict[str, Path]:
    """Verified paths of every raw file of data set ``name``, keyed by file
    name."""
    return {
        raw.name: fetch(raw, progress=progress, timeout=timeout)
        for raw in _spec(name).files
    }


def _spec(name: str) -> DatasetSpec:
    try:
        return DATASETS[name]
    except KeyError:
        raise ValueError(
            f"unknown data set {name!r}; choose one of {sorted(DATASETS)}"
        ) from None


def _read_text(path: Path, encoding: str = "utf-8") -> str:
    with _open_content(path) as fh:
        return fh.read().decode(encoding)


# ------------------------------------------------------------------------------
# Tidy tables, with column names from the .names / dictionary files
# ------------------------------------------------------------------------------


def kddcup_column_names(names_text: str) -> list[str]:
    """The 41 feature names of ``kddcup.names`` (lines ``name:
    continuous.|symbolic.``)."""
    names = []
    for line in names_text.splitlines()[1:]:
        if ":" in line:
            names.append(line.split(":")[0].strip())
    return names


def census_column_names(names_text: str) -> list[str]:
    """The 41 attribute names of ``census-income.names`` in file order (after
    the class line
    ``- 50000, 50000+.``; lines starting with ``|`` are comments)."""
    lines = names_text.splitlines()
    start = next(
        i for i, line in enumerate(lines) if line.startswith("- 50000")
    )
    return [
        line.split(":")[0].strip()
        for line in lines[start + 1 :]
        if ":" in line and not line.startswith("|")
    ]


def insurance_column_names(dictionary_text: str) -> list[str]:
    """The 86 variable names of the COIL 2000 ``dictionary.txt`` (lines ``Nr
    NAME description``)."""
    names = {}
    for line in dictionary_text.splitlines():
        parts = line.split()
        if (
            len(parts) >= 2
            and parts[0].isdigit()
            and parts[1].isupper()
            and len(names) < 86
        ):
            names[int(parts[0])] = parts[1]
        if len(names) == 86:
            break
    return [names[i] for i in range(1, 87)]


def _load_kddcup99(paths) -> pd.DataFrame:
    columns = kddcup_column_names(_read_text(paths[_KDD_NAMES.name]))
    with _open_content(paths[_KDD_DATA.name]) as fh:
        table = pd.read_csv(fh, header=None, names=columns + ["label"])
    for column in ("protocol_type", "service", "flag", "label"):
        table[column] = table[column].astype("category")
    return table


def _load_census(paths) -> pd.DataFrame:
    columns = census_column_names(_read_text(paths[_CENSUS_NAMES.name]))
    with _open_content(paths[_CENSUS_DATA.name]) as fh:
        table = pd.read_csv(
            fh,
            header=None,
            names=columns + ["income"],
            sep=",",
            skipinitialspace=True,
            dtype=str,
            keep_default_na=False,
        )
    for column in table.columns:
        if column in _CENSUS_CATEGORICAL or column == "income":
            table[column] = table[column].astype("category")
        else:
            table[column] = pd.to_numeric(table[column])
    return table


def _load_localization(paths) -> pd.DataFrame:
    with _open_content(paths[_LOC_DATA.name]) as fh:
        table = pd.read_csv(
            fh,
            header=None,
            names=list(LOCALIZATION_COLUMNS),
            dtype={"timestamp": np.int64},
        )
    for column in ("sequence", "tag", "activity"):
        table[column] = table[column].astype("category")
    return table


def _load_insurance(paths) -> pd.DataFrame:
    columns = insurance_column_names(
        _read_text(paths[_TIC_DICTIONARY.name], "cp1252")
    )
    with _open_content(paths[_TIC_TRAIN.name]) as fh:
        train = pd.read_csv(fh, sep="\t", header=None, names=columns)
    with _open_content(paths[_TIC_EVAL.name]) as fh:
        evaluation = pd.read_csv(fh, sep="\t", header=None, names=columns[:-1])
    with _open_content(paths[_TIC_TARGETS.name]) as fh:
        evaluation[columns[-1]] = (
            pd.read_csv(fh, header=None).iloc[:, 0].to_numpy()
        )
    table = pd.concat([train, evaluation], ignore_index=True)
    table.insert(
        0,
        "split",
        pd.Categorical(["train"] * len(train) + ["eval"] * len(evaluation)),
    )
    return table


_LOADERS = {
    "kddcup99": _load_kddcup99,
    "census": _load_census,
    "localization": _load_localization,
    "insurance": _load_insurance,
}


def load(
    name: str, *, progress: bool = True, timeout: float | None = None
) -> pd.DataFrame:
    """The raw data set ``name`` as a tidy table (one row per individual,
    named columns).

    ``name`` is one of ``kddcup99``, ``census``, ``localization``,
    ``insurance``. Every raw file is verified against its pinned sha256
    (re-hashed on every call, cache included) before it is parsed; see the
    module docstring for where files come from and ``timeout``.
    """
    spec = _spec(name)
    return _LOADERS[spec.name](
        fetch_dataset(name, progress=progress, timeout=timeout)
    )


# ------------------------------------------------------------------------------
# Preprocessing (Section 6.1) with a cache
# ------------------------------------------------------------------------------


@dataclass
class Preprocessed:
    """A preprocessed data set: ``X`` (sparse CSR, n x d, rows of norm <= 1),
    its column names,
    labels, the paper's k, and the second-moment matrix ``A = X^T X / n`` of
    all rows."""

    name: str
    X: scipy.sparse.csr_matrix
    columns: list[str]
    labels: np.ndarray
    k: int
    A: np.ndarray

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    def rows(self, index=None) -> np.ndarray:
        """Dense float64 copy of the rows ``index`` (all rows when None)."""
        part = self.X if index is None else self.X[np.asarray(index)]
        return part.toarray()


def _second_moment(S) -> np.ndarray:
    A = (S.T @ S).toarray() / S.shape[0]
    return (A + A.T) / 2


def one_hot_and_scale(table: pd.DataFrame, categorical, dropped=()):
    """Section 6.1 of Chaudhuri et al. (2013) in three steps; returns (sparse
    X, column names).

    1. Each categorical column with q observed values becomes q indicator
       columns in {0, 1}^q (sorted values; a missing-value code such as census's
       ``?`` is one of the values).
    2. Each column is divided by its largest absolute entry ("each entry has
       maximum value 1"). Columns that are identically zero carry no information
       and cannot be scaled; they are dropped (kddcup99's ``num_outbound_cmds``
       and ``is_host_login``).
    3. The matrix is divided by its largest row norm (the paper's "maximum
       column norm is 1", its data matrix having one column per individual), so
       that every row has norm <= 1.
    """
    from scipy import sparse

    features = table.drop(columns=list(dropped))
    n = len(features)
    blocks, names = [], []
    for column in features.columns:
        values = features[column]
        if column in categorical:
            codes, uniques = pd.factorize(values.astype(str), sort=True)
            block = sparse.csr_matrix(
                (np.ones(n), (np.arange(n), codes)), shape=(n, len(uniques))
            )
            names.extend(f"{column}={u}" for u in uniques)
        else:
            block = sparse.csr_matrix(
                values.to_numpy(dtype=np.float64).reshape(-1, 1)
            )
            names.append(column)
        blocks.append(block)
    X = sparse.hstack(blocks, format="csc")
    scale = abs(X).max(axis=0).toarray().ravel()
    keep = np.flatnonzero(scale > 0)
    X = (X[:, keep] @ sparse.diags(1.0 / scale[keep])).tocsr()
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = (X / norms.max()).tocsr()
    X.sort_indices()
    return X, [names[j] for j in keep]


def _cache_key(spec: DatasetSpec, params: dict) -> str:
    payload = json.dumps(
        {
            "files": [raw.sha256 for raw in spec.files],
            "params": params,
            "version": PREPROCESSING_VERSION,
        },
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _checksum_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _read_preprocessed(path: Path, spec: DatasetSpec) -> Preprocessed | None:
    """The cached matrix at ``path`` if it and its side-car checksum are
    present and agree and
    its arrays are consistent; else None (the caller rebuilds it)."""
    from scipy import sparse

    try:
        expected = _checksum_path(path).read_text().split()[0]
        if _file_sha256(path) != expected:
            return None
        with np.load(path, allow_pickle=False) as stored:
            shape = tuple(int(v) for v in stored["shape"])
            X = sparse.csr_matrix(
                (stored["data"], stored["indices"], stored["indptr"]),
                shape=shape,
            )
            columns = [str(c) for c in stored["columns"]]
            labels, A = stored["labels"], stored["A"]
    except (
        OSError,
        IndexError,
        KeyError,
        ValueError,
        zipfile.BadZipFile,
        EOFError,
    ):
        return None
    if len(columns) != X.shape[1] or A.shape != (X.shape[1],) * 2:
        return None
    if labels.shape != (X.shape[0],):
        return None
    return Preprocessed(spec.name, X, columns, labels, spec.k, A)


def _write_preprocessed(path: Path, data: Preprocessed) -> None:
    """Write ``data`` and its side-car checksum atomically (raises OSError if
    impossible)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.stem}.", suffix=".npz"
    )
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(
                fh,
                data=data.X.data,
                indices=data.X.indices,
                indptr=data.X.indptr,
                shape=np.array(data.X.shape),
                columns=np.array(data.columns),
                labels=data.labels,
                A=data.A,
            )
        digest = _file_sha256(Path(tmp))
        # the side-car first: a reader that sees the new .npz also sees its
        # checksum (or the old one, which then fails and triggers a rebuild,
        # never a wrong answer)
        _atomic_write_text(_checksum_path(path), f"{digest}  {path.name}\n")
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def preprocess(
    name: str,
    *,
    include_label: bool = False,
    use_cache: bool = True,
    progress: bool = True,
    timeout: float | None = None,
) -> Preprocessed:
    """The data set ``name`` preprocessed as in Section 6.1 (see
    :func:`one_hot_and_scale`).

    The label column (kddcup99's attack type, census's income class, insurance's
    CARAVAN) is left out unless ``include_label``; it is returned separately in
    ``labels``. For localization the activity stays a feature (that is how the
    paper's 44 dimensions arise) and is also returned as the label; its ``date``
    column is dropped because it repeats the timestamp as text. The result is
    cached under :func:`cache_dir`/``preprocessed``, keyed by the raw files'
    checksums, these parameters and :data:`PREPROCESSING_VERSION`, with its
    sha256 in a side-car file checked on every read: a missing, corrupt or
    edited entry is rebuilt from the raw files (and the cache repaired). A cache
    that cannot be written is skipped with one :class:`DataCacheWarning`.
    ``timeout`` applies to downloads (:func:`download_timeout`).
    """
    spec = _spec(name)
    params = {
        "include_label": bool(include_label),
        "categorical": list(spec.categorical),
        "dropped": list(spec.dropped),
    }
    path = (
        cache_dir() / "preprocessed" / f"{name}-{_cache_key(spec, params)}.npz"
    )
    if use_cache and path.exists():
        cached = _read_preprocessed(path, spec)
        if cached is not None:
            return cached
    table = load(name, progress=progress, timeout=timeout)
    if name == "localization":
        labels = table["activity"].astype(str).to_numpy()
        dropped = spec.dropped
    else:
        labels = table[spec.label].astype(str).to_numpy()
        dropped = spec.dropped + (() if include_label else (spec.label,))
    categorical = spec.categorical + (
        (spec.label,) if include_label and spec.label else ()
    )
    if name == "insurance":
        dropped = dropped + ("split",)
    X, columns = one_hot_and_scale(table, categorical, dropped)
    data = Preprocessed(
        name, X, columns, labels.astype(str), spec.k, _second_moment(X)
    )
    if use_cache:
        if _cache_is_writable(path.parent):
            try:
                _write_preprocessed(path, data)
            except OSError as exc:
                _warn_read_only(path.parent, str(exc))
        else:
            _warn_read_only(path.parent, "not writable")
    return data


def summary_row(data: Preprocessed) -> dict:
    """n, d, k, q_F(V_k) and q_F(V_k)/tr(A) of a preprocessed data set (Table
    1 of the paper)."""
    from ..linalg.dense import top_k_eigh

    A = data.A
    top = top_k_eigh(A, data.k)[0]
    q_F = float(top.sum())
    return {
        "data set": data.name,
        "n": data.n,
        "d": data.d,
        "k": data.k,
        "q_F(V_k)": q_F,
        "q_F/tr(A)": q_F / float(np.trace(A)),
        "q_F/||A||_F": q_F / float(np.linalg.norm(A)),
    }
