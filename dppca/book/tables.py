"""Numbers written for the page rather than printed by Python: a power of
ten as ``1.2×10⁻⁵`` instead of ``1.2e-05``, fixed decimals with a true minus
sign and no negative zero, and "—" for a missing value. The chapters pass
these as the per-column formats of :func:`table_of`, which makes a table for
the page, and glue their output where a sentence quotes a number."""

import math
import re

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
MISSING = "—"


def _minus(text: str) -> str:
    return text.replace("-", "−")


def _special(x) -> str | None:
    """How a table writes a value that has no digits to round: "—" for a
    missing or infinite one, "0" for zero; ``None`` for any other."""
    if x is None or not math.isfinite(float(x)):
        return MISSING
    return "0" if float(x) == 0 else None


def _rounded_mantissa(x: float, digits: int) -> tuple[float, int]:
    """(m, k) with x ≈ m·10ᵏ, m rounded to ``digits`` decimals and
    1 ≤ |m| < 10 after the rounding (9.96 to one decimal is 1.0×10¹)."""
    exponent = math.floor(math.log10(abs(x)))
    mantissa = round(x / 10.0**exponent, digits)
    if abs(mantissa) >= 10:
        mantissa, exponent = mantissa / 10, exponent + 1
    return mantissa, exponent


def times_ten(x, digits: int = 1) -> str:
    """``x`` with ``digits`` decimals in its mantissa, as ``2.5×10⁻⁴``;
    an exact power of ten as ``10⁵``; values from 0.001 to 10,000 as plain
    decimals (to ``digits`` places after the first significant one); "—"
    for a missing or infinite value, "0" for zero."""
    special = _special(x)
    if special is not None:
        return special
    x = float(x)
    exponent = math.floor(math.log10(abs(x)))
    if abs(abs(x) / 10.0**exponent - 1) < 1e-12 and not -3 <= exponent < 4:
        return (
            ("−" if x < 0 else "")
            + "10"
            + str(exponent).translate(_SUPERSCRIPT)
        )
    mantissa, exponent = _rounded_mantissa(x, digits)
    if -3 <= exponent < 4:
        return _minus(f"{x:.{max(digits - exponent, 0)}f}")
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return _minus(f"{mantissa:.{digits}f}") + "×" + power


def power_form(x, digits: int = 1) -> str:
    """``x`` always as a mantissa with ``digits`` decimals times a power of
    ten, ``1.00×10⁻⁵`` even for an exact power and ``2.5×10⁻³`` even where
    :func:`times_ten` would write a plain decimal, so that the values of one
    column read alike (a δ spent next to its target); a plain mantissa when
    the power is ``10⁰``; "—" for a missing or infinite value, "0" for
    zero."""
    special = _special(x)
    if special is not None:
        return special
    x = float(x)
    mantissa, exponent = _rounded_mantissa(x, digits)
    text = _minus(f"{mantissa:.{digits}f}")
    if exponent == 0:
        return text
    return text + "×10" + str(exponent).translate(_SUPERSCRIPT)


def decimals(digits: int, sign: bool = False):
    """A format for a table column: ``digits`` decimals, a true minus sign,
    no "−0.00" for a value that rounds to zero, "+" before a positive value
    if ``sign``, and "—" for a missing one."""

    def write(x) -> str:
        if x is None or (isinstance(x, float) and math.isnan(x)):
            return MISSING
        value = round(float(x), digits) + 0.0  # -0.0 + 0.0 is 0.0
        text = f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"
        return _minus(text.replace("+0." + "0" * digits, "0." + "0" * digits))

    return write


def significant(digits: int = 3):
    """A format for a table column: ``digits`` significant figures as a
    plain decimal (``16214.5`` -> ``16,210`` at four, ``1.4113`` ->
    ``1.41`` at three), thousands separated, a true minus sign, "0" for
    zero; a value below 0.001 or from 10⁶ on as :func:`times_ten` with
    ``digits − 1`` mantissa decimals; "—" for a missing or infinite one."""
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")

    def write(x) -> str:
        special = _special(x)
        if special is not None:
            return special
        x = float(x)
        exponent = math.floor(math.log10(abs(x)))
        if not -3 <= exponent < 6:
            return times_ten(x, digits - 1)
        places = digits - 1 - exponent
        value = round(x, places)
        if value != 0 and math.floor(math.log10(abs(value))) > exponent:
            places -= 1  # 9.996 to three figures is 10.0, not 10.00
            value = round(x, places)
        return _minus(f"{value:,.{max(places, 0)}f}")

    return write


def unit_fraction(x) -> str:
    """``x`` as ``1/k`` when it is the reciprocal of a whole number (a
    clipping radius of the dyadic grid, ``0.125`` -> ``1/8``), ``1`` for
    one, else with three decimals; "—" for a missing value."""
    if x is None or not math.isfinite(float(x)):
        return MISSING
    x = float(x)
    if x == 1:
        return "1"
    if 0 < x < 1 and abs(1 / x - round(1 / x)) < 1e-9:
        return f"1/{round(1 / x)}"
    return _minus(f"{x:.3f}")


def proposals_text(values) -> list[str]:
    """Counts of proposals written for a table: "—" where none applies
    (NaN), an infinite cap (one beyond 1e18, which no release could draw,
    :func:`dppca.book.peers.proposal_cap`) as "> 10¹⁸", counts below a
    million with thousands separators, larger ones as a power of ten
    (``2.6×10⁷``)."""
    out = []
    for v in values:
        v = float(v)
        if math.isnan(v):
            out.append("—")
        elif math.isinf(v):
            out.append("> 10¹⁸")
        elif v < 1e6:
            out.append(f"{v:,.0f}")
        else:
            exponent = math.floor(math.log10(v))
            mantissa = round(v / 10.0**exponent, 1)
            if mantissa >= 10:
                mantissa, exponent = mantissa / 10, exponent + 1
            power = str(exponent).translate(_SUPERSCRIPT)
            out.append(f"{mantissa:.1f}×10{power}")
    return out


def table_of(frame, columns: dict, index: bool = False, caption=None):
    """A table for the page (a pandas Styler, which the book's stylesheet
    pads): the columns of ``frame`` named in ``columns`` (``{column:
    (heading, format)}``, in that order), each with its own format (a format
    string such as ``"{:.3f}"`` or a function such as :func:`times_ten`),
    "—" for a missing value, no index unless ``index``, and ``caption``
    above it when given. The book numbers every table of a chapter ("Table
    4.3", tools/book_html_fixes.py), before its caption."""
    shown = frame[list(columns)].rename(
        columns={old: heading for old, (heading, _) in columns.items()}
    )
    styler = shown.style.format(
        {heading: rule for heading, rule in columns.values()}, na_rep=MISSING
    )
    if caption is not None:
        styler = styler.set_caption(str(caption))
    return styler if index else styler.hide(axis="index")


#: A table in a cell's HTML output, and whether a caption opens it.
_TABLE_OPENING = re.compile(r"<table(?=[\s>])[^>]*>(\s*<caption[\s>])?")


def _html_outputs(notebook: dict):
    """``(cell index, HTML)`` of every HTML output of an executed notebook,
    in the order of the page."""
    for index, cell in enumerate(notebook.get("cells", [])):
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html", "")
            yield index, "".join(html) if isinstance(html, list) else html


def uncaptioned_tables(notebook: dict) -> list[str]:
    """The tables of an executed notebook that a page would show without a
    caption.

    Every table of the book is made by :func:`table_of` with a caption, and
    the render puts its number ("Table 7.3") before that caption; a table
    shown any other way (a bare DataFrame, a Styler without a caption) reads
    as an unnumbered grid of numbers in the PDF.

    Parameters
    ----------
    notebook : dict
        The notebook as read from its JSON, with outputs.

    Returns
    -------
    list of str
        One entry per table without a caption, ``"cell N: <first words of
        the table>"``, in the order of the page; empty when every table has
        one.
    """
    faults = []
    for index, html in _html_outputs(notebook):
        for match in _TABLE_OPENING.finditer(html):
            if match.group(1) is None:
                text = re.sub(r"<[^>]+>", " ", html[match.end() :])
                words = " ".join(text.split())[:60]
                faults.append(f"cell {index}: {words}")
    return faults


#: A number as a table cell prints it: digits with optional thousands
#: separators, a decimal part, an exponent; not part of a word, a version
#: ("1.6.1") or a longer number.
_CELL_NUMBER = re.compile(
    r"(?<![\w.,])[-−]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])"
)
_CELL = re.compile(r"<t([dh])(?=[\s>])[^>]*>(.*?)</t\1>", re.S)

#: The most significant figures a table may print in a decimal number.
MAX_TABLE_FIGURES = 4


def significant_figures(text: str) -> int:
    """How many significant figures a decimal number shows as written:
    ``"16,214.5"`` 6, ``"0.0120"`` 3, ``"1.000"`` 4; a whole number (a
    count, ``"16,214"``) counts 0, since its figures are all needed."""
    digits = text.replace(",", "").lstrip("-−")
    if "." not in digits:
        return 0
    whole, fraction = digits.split(".")
    whole = whole.lstrip("0")
    return len(whole + fraction) if whole else len(fraction.lstrip("0"))


def long_numbers(notebook: dict) -> list[str]:
    """The numbers of an executed notebook's tables written as a machine
    prints them: a decimal with more than :data:`MAX_TABLE_FIGURES`
    significant figures (``"16214.5"``, ``"3.00002"``) or in e-notation
    (``"1e-07"``). A table for a reader shows three or four figures, powers
    of ten as ``10⁻⁷`` (:func:`significant`, :func:`times_ten`); where the
    point is that two values agree closely, a column with their difference
    says it better than long numbers.

    Parameters
    ----------
    notebook : dict
        The notebook as read from its JSON, with outputs.

    Returns
    -------
    list of str
        ``"cell N: <number> in <table's caption>"``, one per table and kind
        of fault, in the order of the page; empty when there is none.
    """
    faults = []
    for index, html in _html_outputs(notebook):
        for table in re.findall(r"<table.*?</table>", html, re.S):
            caption = re.search(r"<caption[^>]*>(.*?)</caption>", table, re.S)
            name = (
                " ".join(re.sub(r"<[^>]+>", " ", caption.group(1)).split())[:50]
                if caption
                else "a table without a caption"
            )
            bad = []
            for _, content in _CELL.findall(table):
                text = re.sub(r"<[^>]+>", " ", content)
                for number in _CELL_NUMBER.findall(text):
                    if "e" in number.lower() or (
                        significant_figures(number) > MAX_TABLE_FIGURES
                    ):
                        bad.append(number)
            if bad:
                shown = ", ".join(dict.fromkeys(bad))
                faults.append(f"cell {index}: {shown[:80]} in {name!r}")
    return faults
