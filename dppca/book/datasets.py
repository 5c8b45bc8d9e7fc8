"""The four UCI data sets of Chaudhuri, Sarwate & Sinha (JMLR 2013, Section
6.1) and their preprocessing: the public loaders.

:func:`load` gives a data set as a tidy table, :func:`preprocess` its matrix of
Section 6.1 and :func:`summary_row` its line of Table 1. Where the raw files
come from and how they are verified and cached is :mod:`dppca.book.data_files`;
the preprocessing itself (:func:`~dppca.book.preprocessing.one_hot_and_scale`)
and the cached matrices are :mod:`dppca.book.preprocessing`.

Preprocessing (:func:`preprocess`) follows Section 6.1: one-hot encode each
categorical feature, scale each column so that its largest absolute entry is 1,
then scale the whole matrix so that the largest row norm is 1. The result is
cached (sparse), keyed by the pinned checksums, the preprocessing parameters and
:data:`PREPROCESSING_VERSION`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import install_hint

try:
    import pandas as pd
except ModuleNotFoundError as error:  # pandas is the `data` extra's
    raise ModuleNotFoundError(
        "dppca.book.datasets needs pandas, which dppca's core does not "
        "install: " + install_hint("data"),
        name=error.name,
    ) from error

from .data_files import (
    RawFile,
    _cache_is_writable,
    _open_content,
    _read_text,
    _warn_read_only,
    cache_dir,
    fetch,
)
from .preprocessing import (
    Preprocessed,
    _read_preprocessed,
    _second_moment,
    _write_preprocessed,
    one_hot_and_scale,
)

#: Bump when :func:`preprocess` (or
#: :func:`~dppca.book.preprocessing.one_hot_and_scale`) changes meaning; it is
#: part of every cache key.
PREPROCESSING_VERSION = 1


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
    (re-hashed on every call, cache included) before it is parsed; see
    :mod:`dppca.book.data_files` for where files come from and ``timeout``.
    """
    spec = _spec(name)
    return _LOADERS[spec.name](
        fetch_dataset(name, progress=progress, timeout=timeout)
    )


# ------------------------------------------------------------------------------
# Preprocessing (Section 6.1) with a cache
# ------------------------------------------------------------------------------


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


def preprocess(
    name: str,
    *,
    include_label: bool = False,
    use_cache: bool = True,
    progress: bool = True,
    timeout: float | None = None,
) -> Preprocessed:
    """The data set ``name`` preprocessed as in Section 6.1 (see
    :func:`~dppca.book.preprocessing.one_hot_and_scale`).

    The label column (kddcup99's attack type, census's income class, insurance's
    CARAVAN) is left out unless ``include_label``; it is returned separately in
    ``labels``. For localization the activity stays a feature (that is how the
    paper's 44 dimensions arise) and is also returned as the label; its ``date``
    column is dropped because it repeats the timestamp as text. The result is
    cached under :func:`~dppca.book.data_files.cache_dir`/``preprocessed``,
    keyed by the raw files' checksums, these parameters and
    :data:`PREPROCESSING_VERSION`, with its sha256 in a side-car file checked
    on every read: a missing, corrupt or edited entry is rebuilt from the raw
    files (and the cache repaired). A cache that cannot be written is skipped
    with one :class:`~dppca.book.data_files.DataCacheWarning`. ``timeout``
    applies to downloads (:func:`~dppca.book.data_files.download_timeout`).
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
        cached = _read_preprocessed(path, spec.name, spec.k)
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
