"""A small Sphinx extension (loaded through ``sphinx: local_extensions`` in
_config.yml) that
removes two JavaScript errors every page of a Jupyter Book 1.0 /
sphinx-book-theme 1.3 build shows in the browser console (found by
tools/browser_check.py):

- sphinx-thebe 0.3.1 registers its configuration script twice under Sphinx 7.4,
  and the second copy throws "Identifier 'THEBE_JS_URL' has already been
  declared": duplicate scripts are dropped from each page;
- the theme's colour mode defaults to "" and pydata-sphinx-theme logs "Got
  invalid theme mode" on a reader's first visit: the default becomes "auto"
  (follow the system setting).
"""

from __future__ import annotations


def fix_page(app, pagename, templatename, context, doctree) -> None:
    # default_mode is read by pydata-sphinx-theme's layout.html
    if not context.get("default_mode"):
        context["default_mode"] = "auto"
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        attributes = getattr(script, "attributes", {})
        filename = getattr(script, "filename", str(script)) or ""  # None or ""
        key = (filename, tuple(sorted(attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app):
    app.connect("html-page-context", fix_page, priority=1000)  # after the theme
    return {"parallel_read_safe": True, "parallel_write_safe": True}
