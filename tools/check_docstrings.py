"""Validate the docstrings of the package with numpydoc's validator.

Usage: python tools/check_docstrings.py

Which checks run is stated in ``pyproject.toml``, ``[tool.dppca.docstrings]``:
``every`` for every public function, class and method of the library
(``dppca`` outside ``dppca.book``: a name without a leading underscore,
defined in the module that lists it), ``api`` for the names ``dppca`` itself
exports (``dppca.__all__``). The codes are numpydoc's
(https://numpydoc.readthedocs.io/en/latest/validation.html), e.g. ``GL08``
(no docstring), ``PR01`` (a parameter not documented), ``RT01`` (no Returns
section). Prints every failure and exits 1 if there is one; ``make lint`` runs
it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
import tomllib
from pathlib import Path

from numpydoc.validate import validate

ROOT = Path(__file__).resolve().parent.parent


def settings() -> dict:
    """The checks of ``pyproject.toml`` (``every`` and ``api`` lists)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return data["tool"]["dppca"]["docstrings"]


def library_modules(package) -> list[str]:
    """The modules of ``package`` outside its ``book`` subpackage."""
    return [
        info.name
        for info in pkgutil.walk_packages(
            package.__path__, package.__name__ + "."
        )
        if not info.name.startswith(package.__name__ + ".book")
    ]


def public_objects(module_name: str) -> list[str]:
    """Import paths of the public functions, classes and methods defined in
    ``module_name`` (those ``__all__`` lists, or without ``__all__`` every
    name without a leading underscore)."""
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    paths = []
    for name in names:
        obj = getattr(module, name, None)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if obj.__module__ != module_name:
            continue  # imported: checked where it is defined
        paths.append(f"{module_name}.{name}")
        if inspect.isclass(obj):
            for attr, value in vars(obj).items():
                if not attr.startswith("_") and inspect.isfunction(value):
                    paths.append(f"{module_name}.{name}.{attr}")
    return paths


def api_objects(package) -> list[str]:
    """Import paths of the functions and classes ``package.__all__`` names."""
    paths = []
    for name in package.__all__:
        obj = getattr(package, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            paths.append(f"{obj.__module__}.{obj.__qualname__}")
    return paths


def failures(paths, codes) -> list[str]:
    """``path: CODE message`` for each failed check among ``codes``."""
    out = []
    for path in paths:
        for code, message in validate(path)["errors"]:
            if code in codes:
                out.append(f"{path}: {code} {message}")
    return out


def main() -> int:
    import dppca

    checks = settings()
    every = sorted(
        {p for m in library_modules(dppca) for p in public_objects(m)}
    )
    api = api_objects(dppca)
    found = failures(every, set(checks["every"]))
    found += failures(api, set(checks["api"]) - set(checks["every"]))
    for line in found:
        print(line)
    print(
        f"numpydoc checks: {len(every)} public objects ({checks['every']}), "
        f"{len(api)} exported by dppca ({checks['api']}): "
        f"{len(found)} failure(s)"
    )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
