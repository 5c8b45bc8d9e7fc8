"""Numbers written for the page rather than printed by Python: a power of
ten as ``1.2×10⁻⁵`` instead of ``1.2e-05``, fixed decimals with a true minus
sign and no negative zero, and "—" for a missing value. The chapters pass
these as the per-column formats of
:func:`dppca.book.plotting.utility_panels.table_of`, and glue their output
where a sentence quotes a number."""

import math

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
MISSING = "—"


def _minus(text: str) -> str:
    return text.replace("-", "−")


def times_ten(x, digits: int = 1) -> str:
    """``x`` with ``digits`` decimals in its mantissa, as ``2.5×10⁻⁴``;
    an exact power of ten as ``10⁵``; values from 0.001 to 10,000 as plain
    decimals (to ``digits`` places after the first significant one); "—"
    for a missing or infinite value, "0" for zero."""
    if x is None:
        return MISSING
    x = float(x)
    if not math.isfinite(x):
        return MISSING
    if x == 0:
        return "0"
    exponent = math.floor(math.log10(abs(x)))
    if abs(abs(x) / 10.0**exponent - 1) < 1e-12 and not -3 <= exponent < 4:
        return (
            ("−" if x < 0 else "")
            + "10"
            + str(exponent).translate(_SUPERSCRIPT)
        )
    mantissa = round(x / 10.0**exponent, digits)
    if abs(mantissa) >= 10:
        mantissa, exponent = mantissa / 10, exponent + 1
    if -3 <= exponent < 4:
        return _minus(f"{x:.{max(digits - exponent, 0)}f}")
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return _minus(f"{mantissa:.{digits}f}") + "×" + power


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
