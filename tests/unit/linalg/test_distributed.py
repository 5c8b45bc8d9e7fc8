import dask
import dask.array as da
import numpy as np
import pytest

import dppca
from dppca.linalg import distributed as dist
from dppca.mechanisms import power_method as pm


@pytest.fixture
def rows():
    rng = np.random.default_rng(0)
    scales = np.linspace(2.0, 0.3, 9)
    return (
        dppca.validation.normalize_rows(rng.standard_normal((2345, 9)) * scales)
        * 0.9
    )


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def test_second_moment_matches_in_memory(rows):
    X = da.from_array(rows, chunks=(400, 4))  # uneven rows, split columns
    A = dppca.linalg.second_moment(X)  # dispatches to the Dask path
    np.testing.assert_allclose(
        A, dppca.linalg.second_moment(rows), rtol=0, atol=1e-15
    )
    np.testing.assert_array_equal(A, A.T)


def test_validation_per_chunk_and_explicit_clipping(rows):
    bad = rows.copy()
    bad[2000] *= 3.0
    X = da.from_array(bad, chunks=(400, 9))
    with pytest.raises(ValueError, match="norm > 1"):
        dppca.linalg.second_moment(X)
    nan = rows.copy()
    nan[5, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        dist.second_moment_dask(da.from_array(nan, chunks=(400, 9)))
    np.testing.assert_allclose(
        dist.second_moment_dask(X, clip=True),
        dppca.linalg.second_moment(dist.clip_rows(bad)),
        atol=1e-15,
    )
    with pytest.raises(ValueError, match="norm > 1"):
        pm.noisy_power_method(X, 2, epsilon=1.0, delta=1e-6, rng=0)


def test_power_method_same_draws_as_in_memory(rows):
    X = da.from_array(rows, chunks=(300, 9))
    for block in (None, 4):
        V_dask = pm.noisy_power_method(
            X, 3, epsilon=1.0, delta=1e-6, block_size=block, rng=11
        )
        V_mem = pm.noisy_power_method(
            rows, 3, epsilon=1.0, delta=1e-6, block_size=block, rng=11
        )
        np.testing.assert_allclose(V_dask, V_mem, atol=1e-10)


def test_parquet_round_trip_reads_chunks_lazily(rows, tmp_path):
    path = tmp_path / "rows.parquet"
    dist.write_parquet_rows(rows, path, chunk_rows=500)
    assert len(list(path.glob("*.parquet"))) == 5
    X = dist.read_parquet_rows(path)
    assert X.shape == rows.shape and len(X.chunks[0]) == 5
    np.testing.assert_allclose(
        dppca.linalg.second_moment(X),
        dppca.linalg.second_moment(rows),
        atol=1e-15,
    )
    np.testing.assert_allclose(
        pm.noisy_power_method(X, 2, epsilon=1.0, delta=1e-6, rng=4),
        pm.noisy_power_method(rows, 2, epsilon=1.0, delta=1e-6, rng=4),
        atol=1e-10,
    )


def test_synthetic_rows_are_lazy_unit_and_repeatable():
    X = dist.synthetic_rows(1000, 6, [0.5, 0.2, 0.05], chunk_rows=300, seed=3)
    assert X.chunks[0] == (300, 300, 300, 100)
    first, second = X.compute(), X.compute()
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0)
    other = dist.synthetic_rows(
        1000, 6, [0.5, 0.2, 0.05], chunk_rows=300, seed=4
    )
    assert not np.array_equal(first, other.compute())


def test_local_cluster_gives_the_same_answers(rows):
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=1,
            threads_per_worker=2,
            processes=False,
            dashboard_address=":0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.register_plugin(dist.WorkerMemorySampler(0.01))
        X = da.from_array(rows, chunks=(250, 9))
        with dask.config.set(scheduler=client):
            A = dppca.linalg.second_moment(X)
            V = pm.noisy_power_method(X, 2, epsilon=1.0, delta=1e-6, rng=9)
        np.testing.assert_allclose(
            A, dppca.linalg.second_moment(rows), atol=1e-15
        )
        np.testing.assert_allclose(
            V,
            pm.noisy_power_method(rows, 2, epsilon=1.0, delta=1e-6, rng=9),
            atol=1e-10,
        )
        samples = dist.collect_memory_samples(client)
        limits = dist.worker_memory_limits(client)
        assert set(samples) == set(limits)
        assert all(
            times.size > 0 and (rss > 0).all()
            for times, rss in samples.values()
        )


def test_parquet_rows_keep_their_order_across_many_files(rows, tmp_path):
    path = tmp_path / "many.parquet"
    dist.write_parquet_rows(
        rows, path, chunk_rows=200
    )  # 12 files: part.10 after part.9
    X = dist.read_parquet_rows(path)
    assert len(X.chunks[0]) == 12
    np.testing.assert_array_equal(X.compute(), rows)
    first_two = dist.read_parquet_rows(path, columns=["x1", "x0"])
    np.testing.assert_array_equal(first_two.compute(), rows[:, [1, 0]])
    with pytest.raises(ValueError, match="columns"):
        dist.read_parquet_rows(path, columns=["nope"])
