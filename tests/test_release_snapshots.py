"""Every release is bit-identical to the snapshot taken before the package
was reshaped (issue 28): ``tools/release_snapshots.py`` recomputes the sha256
of every mechanism's released arrays and guarantee records under fixed
seeds, and ``tests/data/release_snapshots.json`` keeps the expected ones.

Refresh the file only for a mechanism whose release is meant to change:
``python tools/release_snapshots.py --out tests/data/release_snapshots.json``.
"""

import json
from pathlib import Path

import pytest
import release_snapshots  # tools/, put on sys.path by conftest.py

EXPECTED = json.loads(
    (Path(__file__).parent / "data" / "release_snapshots.json").read_text()
)


@pytest.fixture(scope="module")
def computed():
    return release_snapshots.snapshots()


def test_the_same_releases_are_fingerprinted(computed):
    assert sorted(computed) == sorted(EXPECTED)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_release_is_bit_identical(computed, key):
    assert computed[key] == EXPECTED[key], key
