"""sim.reduce: the fast reductions over a short last axis give numpy's exact result, dtype and shape."""

import numpy as np
import pytest

from sim.board import order_bits, unpack_bits
from sim.reduce import any_last, sum_last


@pytest.mark.parametrize("dtype", [bool, np.int8, np.int16, np.int32, np.int64])
def test_sum_and_any_match_numpy(dtype):
    rng = np.random.default_rng(7)
    for _ in range(60):
        shape = (int(rng.choice([3, 700, 4096])), *(int(k) for k in rng.integers(1, 26, rng.integers(1, 3))))
        a = rng.random(shape) < 0.1 if dtype is bool else rng.integers(-5, 9, shape).astype(dtype)
        for v in (a, a[::2], np.moveaxis(a, -1, 0)):  # contiguous, strided, last axis not contiguous
            want = v.sum(axis=-1)
            got = sum_last(v)
            assert got.dtype == want.dtype and np.array_equal(got, want)
            if dtype is bool:
                want, got = v.any(axis=-1), any_last(v)
                assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64])
def test_any_last_of_integers_is_numpys(dtype):
    """Only bool arrays take the fast paths: integers read as bytes or words would be wrong (an int64 row of 8 is 8
    words, not 1; a uint8 count of int16 bytes can wrap)."""
    rng = np.random.default_rng(11)
    for k in (8, 16, 5):
        a = (rng.random((4096, k)) < 0.05).astype(dtype) * np.array(257 if dtype != np.int8 else 1, dtype=dtype)
        a[::7, -1] = 3
        assert np.array_equal(any_last(a), a.any(axis=-1))


def test_any_last_word_path_sees_every_byte():
    for k in (8, 16, 24):  # the uint64 path: one True entry anywhere in the row
        a = np.zeros((4096, k), dtype=bool)
        a[np.arange(4096), np.arange(4096) % k] = True
        a[::3] = False
        assert np.array_equal(any_last(a), a.any(axis=1))


def test_order_bits_round_trip():
    rng = np.random.default_rng(3)
    for n in (1, 8, 17, 20):
        mask = rng.random((500, 3, n)) < 0.5
        bits = order_bits(mask)
        assert np.array_equal(bits, (mask.astype(np.int64) << np.arange(n)).sum(axis=2))
        assert np.array_equal(unpack_bits(bits, n), mask)


def test_order_bits_of_no_orders_are_zero_per_row():
    """A map without orders (O = 0): every row's mask is 0, in the rows' shape."""
    bits = order_bits(np.zeros((3, 2, 0), dtype=bool))
    assert bits.shape == (3, 2) and bits.dtype == np.int64 and not bits.any()


def test_a_full_row_of_256_is_not_counted_in_uint8():
    """The uint8 count is used only below 256 entries a row: 256 True entries would wrap to 0 (any: False, sum:
    0). A strided [G, 256] view (not the word path) and a contiguous bool sum, all True, give numpy's answer."""
    full = np.ones((16, 512), dtype=bool)[:, ::2]  # [16, 256], not contiguous
    assert not full.flags.c_contiguous and full.shape == (16, 256)
    assert any_last(full).all()
    assert (sum_last(np.ones((16, 256), dtype=bool)) == 256).all()
    assert (sum_last(np.ones((16, 255), dtype=bool)) == 255).all()
