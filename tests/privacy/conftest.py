"""The privacy suite: tests that try to break every privacy claim of dppca.

Every test collected under this folder carries the ``privacy`` marker, so the
suite runs alone with ``pytest -m privacy`` (``make privacy``) and with
everything else in ``make test``.
"""

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/privacy/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.privacy)
