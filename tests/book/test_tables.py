import math

import numpy as np
import pandas as pd
import pytest

from dppca.book.tables import (
    decimals,
    power_form,
    proposals_text,
    table_of,
    times_ten,
    unit_fraction,
)


def test_times_ten_writes_powers_of_ten_not_e_notation():
    assert times_ten(3.775856e16) == "3.8×10¹⁶"
    assert times_ten(2e10, 0) == "2×10¹⁰"
    assert times_ten(1.004520149e5, 2) == "1.00×10⁵"  # not an exact power
    assert times_ten(1e5) == "10⁵"
    assert times_ten(0.00042, 2) == "4.20×10⁻⁴"
    assert times_ten(-1.5e-7) == "−1.5×10⁻⁷"
    assert times_ten(9.96e5, 1) == "1.0×10⁶"  # the mantissa rounds to 10


def test_times_ten_keeps_ordinary_numbers_plain():
    assert times_ten(0.0720, 2) == "0.0720"
    assert times_ten(1234.4, 1) == "1234"
    assert times_ten(-0.5, 1) == "−0.50"
    assert times_ten(0) == "0"


def test_missing_and_infinite_values_are_a_dash():
    assert times_ten(None) == "—"
    assert times_ten(math.nan) == "—"
    assert times_ten(math.inf) == "—"
    assert decimals(2)(math.nan) == "—"


def test_power_form_keeps_one_form_in_a_column():
    assert power_form(1e-5, 3) == "1.000×10⁻⁵"  # not the bare 10⁻⁵
    assert power_form(1.0000000000001e-5, 3) == "1.000×10⁻⁵"
    assert power_form(0.001, 2) == "1.00×10⁻³"  # not 0.0010
    assert power_form(1.1e-211) == "1.1×10⁻²¹¹"
    assert power_form(-0.00996, 1) == "−1.0×10⁻²"  # the mantissa rounds to 10
    assert power_form(7.36) == "7.4"  # the power 10⁰ is not written
    assert power_form(0) == "0"
    assert power_form(math.nan) == power_form(None) == "—"


def test_decimals_has_a_true_minus_and_no_negative_zero():
    assert decimals(2)(-0.001) == "0.00"
    assert decimals(2)(-25.413) == "−25.41"
    assert decimals(1, sign=True)(18.53) == "+18.5"
    assert decimals(1, sign=True)(-0.07) == "−0.1"
    assert decimals(2, sign=True)(0.001) == "0.00"


def test_unit_fraction_writes_radii_of_the_dyadic_grid():
    assert unit_fraction(1.0) == "1"
    assert unit_fraction(0.125) == "1/8"
    assert unit_fraction(0.03125) == "1/32"
    assert unit_fraction(0.3) == "0.300"
    assert unit_fraction(math.nan) == "—"


def test_thousandths_stay_plain_and_smaller_values_take_a_power():
    assert times_ten(0.00801, 2) == "0.00801"
    assert times_ten(0.000244, 2) == "2.44×10⁻⁴"


def test_proposals_text():
    got = proposals_text([np.nan, math.inf, 1234.0, 2.6e7, 9.96e6])
    assert got == ["—", "> 10¹⁸", "1,234", "2.6×10⁷", "1.0×10⁷"]


def test_table_of_hides_the_index_and_marks_missing():
    frame = pd.DataFrame(
        {"a": [1.23456, np.nan], "b": ["x", "y"]}, index=[7, 8]
    )
    html = table_of(frame, {"a": ("A", "{:.2f}"), "b": ("B", "{}")}).to_html()
    assert "1.23" in html and "—" in html and ">A<" in html
    assert ">7<" not in html


def test_significant_figures():
    from dppca.book.tables import significant

    four, three = significant(4), significant(3)
    assert four(16214.5) == "16,210"
    assert three(1.4113) == "1.41"
    assert four(3.00002) == "3.000"
    assert three(-2.5665) == "−2.57"
    assert three(9.996) == "10.0"  # the carry drops a decimal
    assert three(0.000123) == "1.23×10⁻⁴"
    assert three(2e7) == "2.00×10⁷"
    assert three(0.0) == "0"
    assert three(None) == "—" and three(float("nan")) == "—"
    for x in (16214.5, 0.0123456, -7.77777, 123.456):
        kept = four(x).replace(",", "").replace("−", "-")
        assert abs(float(kept) - x) <= 0.5 * 10 ** (
            int(f"{abs(x):e}".split("e")[1]) - 3
        )
    with pytest.raises(ValueError):
        significant(0)


def _notebook(*tables):
    html = "".join(tables)
    return {
        "cells": [{"outputs": [{"data": {"text/html": html}}]}],
    }


def test_long_numbers_catch_planted_faults():
    from dppca.book.tables import long_numbers, significant_figures

    assert significant_figures("16,214.5") == 6
    assert significant_figures("0.0120") == 3
    assert significant_figures("1.000") == 4
    assert significant_figures("16,214") == 0  # a count keeps its figures
    good = (
        "<table><caption>Good</caption><tr><th>n = 16,214</th>"
        "<td>1.234</td><td>−0.0123</td><td>2.5×10⁻⁴</td><td>1.6.1</td>"
        "<td>16,214</td></tr></table>"
    )
    assert long_numbers(_notebook(good)) == []
    planted = [
        "16214.5",
        "3.00002",
        "1e-07",
        "−2.5665",
        "2.27e+03",
        "0.33333",
        "1,847.1",
    ]
    for number in planted:
        bad = f"<table><caption>Bad</caption><tr><td>{number}</td></tr></table>"
        faults = long_numbers(_notebook(good, bad))
        assert len(faults) == 1 and number in faults[0] and "Bad" in faults[0]
