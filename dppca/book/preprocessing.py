"""Section 6.1 of Chaudhuri, Sarwate & Sinha (JMLR 2013): a data set's table
turned into a matrix (:func:`one_hot_and_scale`), the result
(:class:`Preprocessed`) and its cached form.

One-hot encode each categorical feature, scale each column so that its
largest absolute entry is 1, then scale the whole matrix so that the largest
row norm is 1. A cached matrix is a ``.npz`` with its sha256 in a side-car file
(``.npz.sha256``), checked before it is read; which entry belongs to which data
set and parameters is decided by :func:`dppca.book.datasets.preprocess`.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse

from . import install_hint

try:
    import pandas as pd
except ModuleNotFoundError as error:  # pandas is the `data` extra's
    raise ModuleNotFoundError(
        "dppca.book.preprocessing needs pandas, which dppca's core does not "
        "install: " + install_hint("data"),
        name=error.name,
    ) from error

from .data_files import _atomic_write_text


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


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _checksum_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _read_preprocessed(path: Path, name: str, k: int) -> Preprocessed | None:
    """The cached matrix at ``path`` (of data set ``name``, whose paper's k is
    ``k``) if it and its side-car checksum are present and agree and
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
    return Preprocessed(name, X, columns, labels, k, A)


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
