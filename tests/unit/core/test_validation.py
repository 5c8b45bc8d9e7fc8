import numpy as np
import pytest

import dppca
from dppca.validation import ROW_NORM_TOLERANCE


def unit_rows(n=20, d=5, seed=0):
    return (
        dppca.validation.normalize_rows(
            np.random.default_rng(seed).standard_normal((n, d))
        )
        * 0.9
    )


def test_valid_data_passes_and_is_float():
    X = unit_rows()
    out = dppca.validation.check_data(X.astype(np.float32))
    assert out.dtype == float and out.shape == X.shape


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.ones(5), "2-D"),
        (np.ones((2, 2, 2)), "2-D"),
        (np.ones((0, 3)), "at least 1 row"),
        (np.ones((4, 1)) * 0.5, "2 columns"),
    ],
)
def test_wrong_shapes_are_rejected(bad, message):
    with pytest.raises(ValueError, match=message):
        dppca.validation.check_data(bad)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_values_are_rejected(value):
    X = unit_rows()
    X[3, 1] = value
    with pytest.raises(ValueError, match="X contains NaN or Inf$"):
        dppca.validation.check_data(X)


def test_long_rows_are_rejected_without_describing_them():
    """The refusal is an output: it names the tolerance, never how many rows
    are too long or how long they are."""
    messages = set()
    for length in (1.5, 3.0):
        X = unit_rows()
        X[0] = [length, 0, 0, 0, 0]
        if length > 2:
            X[7] *= 1.5 / np.linalg.norm(X[7])
        with pytest.raises(ValueError, match="norm > 1") as error:
            dppca.validation.check_data(X)
        messages.add(str(error.value))
    assert len(messages) == 1
    assert "tolerance 1 + 10⁻⁹" in messages.pop()


def test_round_off_above_one_is_tolerated_but_not_more():
    X = dppca.validation.normalize_rows(unit_rows())
    dppca.validation.check_data(X * (1 + ROW_NORM_TOLERANCE / 2))
    with pytest.raises(ValueError):
        dppca.validation.check_data(X * (1 + 10 * ROW_NORM_TOLERANCE))


def test_check_data_never_modifies_or_clips():
    X = unit_rows()
    before = X.copy()
    dppca.validation.check_data(X)
    np.testing.assert_array_equal(X, before)


def test_explicit_rescaling_helpers():
    X = np.array([[3.0, 4.0], [0.0, 1.0], [0.0, 0.0]])
    np.testing.assert_allclose(
        dppca.validation.normalize_rows(X), [[0.6, 0.8], [0, 1], [0, 0]]
    )
    np.testing.assert_allclose(dppca.validation.scale_to_unit_ball(X), X / 5)
    dppca.validation.check_data(dppca.validation.scale_to_unit_ball(X))


@pytest.mark.parametrize("eps", [0, -1, np.inf, np.nan])
def test_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        dppca.validation.check_epsilon(eps)


@pytest.mark.parametrize("delta", [0, 1, -0.1, 1.5, np.nan])
def test_bad_delta(delta):
    with pytest.raises(ValueError, match="delta"):
        dppca.validation.check_delta(delta)


@pytest.mark.parametrize("k", [0, 5, 6, -1])
def test_bad_k(k):
    with pytest.raises(ValueError, match="1 <= k < d = 5"):
        dppca.validation.check_k(k, 5)


@pytest.mark.parametrize("k", [1.5, "2", True])
def test_non_integer_k(k):
    with pytest.raises(TypeError):
        dppca.validation.check_k(k, 5)


def test_symmetric_and_orthonormal_checks():
    with pytest.raises(ValueError, match="symmetric"):
        dppca.validation.check_symmetric(np.array([[1.0, 2.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="square"):
        dppca.validation.check_symmetric(np.ones((2, 3)))
    with pytest.raises(ValueError, match="orthonormal"):
        dppca.validation.check_orthonormal(np.ones((4, 2)))


def test_rng_policy():
    g = np.random.default_rng(1)
    assert dppca.validation.as_generator(g) is g
    a = dppca.validation.as_generator(123).standard_normal(3)
    b = dppca.validation.as_generator(123).standard_normal(3)
    np.testing.assert_array_equal(a, b)
    # default: fresh entropy, two draws differ
    assert not np.array_equal(
        dppca.validation.as_generator().standard_normal(4),
        dppca.validation.as_generator().standard_normal(4),
    )
    with pytest.raises(TypeError):
        dppca.validation.as_generator("seed")


def test_check_hermitian_accepts_hermitian_and_refuses_the_rest():
    from dppca.validation import check_hermitian

    H = np.array([[1.0, 2 - 1j], [2 + 1j, 3.0]])
    out = check_hermitian(H)
    assert out.dtype == complex and np.array_equal(out, H)
    assert check_hermitian(np.eye(2)).dtype == complex  # real symmetric is
    with pytest.raises(ValueError, match="must be Hermitian"):
        check_hermitian(np.array([[1.0, 2 - 1j], [2 - 1j, 3.0]]))
    with pytest.raises(ValueError, match="NaN or Inf"):
        check_hermitian(np.array([[np.nan, 0], [0, 1.0]]))
    with pytest.raises(ValueError, match="square"):
        check_hermitian(np.ones((2, 3)))
    with pytest.raises(TypeError, match="numeric"):
        check_hermitian(np.array([["a", "b"], ["c", "d"]]))


def test_check_positive_and_check_choice():
    from dppca.validation import check_choice, check_positive

    assert check_positive(np.float32(0.5), "sigma") == 0.5
    for bad in (0.0, -1.0, np.nan, np.inf, "x", None):
        with pytest.raises(ValueError, match="sigma must be a finite number"):
            check_positive(bad, "sigma")
    assert check_choice("real", ("real", "rank_k"), "output") == "real"
    with pytest.raises(ValueError, match="output must be one of"):
        check_choice("imaginary", ("real", "rank_k"), "output")
