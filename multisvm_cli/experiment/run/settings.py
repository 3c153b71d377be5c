"""How a run is carried out (not what it computes): results root, workers, backend, data
locations, resume and output options; and the joblib backend the work runs on.

Workers: ``n_jobs`` follows joblib's convention and is resolved once, by
:func:`multisvm_cli.base.parallel.resolve_n_jobs`, into the number of grid points that run at once
(``Workers.grid``) and the threads of the final fits' estimators (``Workers.fit``). By default
both run on threads of this process (libsvm and BLAS release the GIL, nothing is copied);
``backend`` selects another joblib backend: ``loky`` (worker processes), ``threading``, or
``dask``, where every worker of the cluster takes grid points and the final fits run here with
``n_jobs`` threads, so large Gram matrices stay where they are computed.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from ...base.errors import MultisvmError, one_line
from ...base.parallel import resolve_n_jobs

BACKENDS = ("loky", "threading", "dask")


@dataclass(frozen=True)
class Settings:
    """How to run: see the module docstring. ``force`` redoes cached grid points; ``quiet``
    hides progress bars; ``progress`` says how progress is shown (see :mod:`.progress`)."""

    out: str = "results"
    n_jobs: int | None = None
    backend: str | None = None
    scheduler: str | None = None
    force: bool = False
    quiet: bool = False
    mirror: str | None = None
    data_home: str | None = None
    argv: tuple | None = None  # the command line run.json records [sys.argv]
    figure_format: str = "png"  # png | svg | pdf
    dpi: int | None = None      # [report.figures.drawing.DPI]
    figures: bool = True        # False: no figures (quick reruns)
    progress: str = "auto"      # auto | bar | lines | none  [experiment.progress.MODES]


@dataclass(frozen=True)
class Workers:
    """Resolved worker counts: grid points at once, threads of a final fit, and the backend."""

    grid: int
    fit: int
    backend: str


@contextmanager
def workers(settings: Settings):
    """Run the body on the settings' joblib backend; yields its :class:`Workers`."""
    import joblib

    if settings.backend not in (None, *BACKENDS):
        raise MultisvmError(f"unknown backend {settings.backend!r}; choose one of "
                            f"{', '.join(BACKENDS)}")
    if settings.scheduler and settings.backend != "dask":
        raise MultisvmError("--scheduler needs --backend dask")
    try:
        threads = resolve_n_jobs(settings.n_jobs)
    except ValueError as exc:
        raise MultisvmError(f"--n-jobs: {exc}") from None
    if settings.backend is None:
        yield Workers(threads, threads, "threads")
        return
    if settings.backend != "dask":
        with joblib.parallel_config(backend=settings.backend):
            yield Workers(threads, threads, settings.backend)
        return
    with _dask_client(settings.scheduler), joblib.parallel_config(backend="dask"):
        yield Workers(joblib.effective_n_jobs(-1), threads, "dask")


def _dask_client(scheduler):
    """A ``distributed.Client`` for ``scheduler`` (an in-process cluster without one)."""
    try:
        from distributed import Client
    except ImportError:
        raise MultisvmError("the dask backend needs dask.distributed: "
                            "pip install multisvm[dask]") from None
    try:
        if scheduler:
            _probe(scheduler)
        return Client(scheduler, timeout=30) if scheduler else Client(processes=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise MultisvmError(f"cannot reach the dask scheduler {scheduler}: "
                            f"{one_line(exc)}") from None


def _probe(address):
    """Fail fast (connection refused, unknown host) before distributed's retry loop."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(address)
    if parts.scheme == "tcp" and parts.hostname and parts.port:
        socket.create_connection((parts.hostname, parts.port), timeout=10).close()
