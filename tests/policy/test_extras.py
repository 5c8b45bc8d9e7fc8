"""The book's modules say how to install a missing extra, in words that
work from PyPI and in a clone of the repository."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("module", "missing", "extra"),
    [
        ("dppca.book.datasets", "pandas", "data"),
        ("dppca.book.experiments", "pandas", "data"),
        ("dppca.book.plotting", "matplotlib", "plot"),
    ],
)
def test_a_missing_extra_says_how_to_install_it_from_pypi_or_a_clone(
    module, missing, extra
):
    code = (
        "import sys\n"
        f"sys.modules[{missing!r}] = None\n"
        f"sys.modules[{missing + '.pyplot'!r}] = None\n"
        "try:\n"
        f"    import {module}\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True
    ).stdout
    assert f'pip install "dppca[{extra}]"' in out, out
    assert f'pip install -e ".[{extra}]"' in out, out
