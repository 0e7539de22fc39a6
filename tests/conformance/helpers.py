"""Small assertions shared by the conformance tests."""

import contextlib
import math
import os
import time

import pytest
from mlflow.exceptions import MlflowException


@contextlib.contextmanager
def raises_code(error_code: str, match: str | None = None):
    """Expect an `MlflowException` carrying MLflow's `error_code` (and optionally a message)."""
    with pytest.raises(MlflowException) as info:
        yield info
    assert info.value.error_code == error_code, (
        f"expected {error_code}, got {info.value.error_code}: {info.value.message}"
    )
    if match is not None:
        assert match in info.value.message, info.value.message


def now_ms() -> int:
    """Wall-clock milliseconds, as MLflow timestamps are."""
    return int(time.time() * 1000)


def same_float(a: float, b: float) -> bool:
    """Equality that treats NaN as equal to NaN and keeps the sign of infinities."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b


def against_runlens() -> bool:
    """True when the suite drives its own `runlens serve`, False against another server
    (`CONFORMANCE_TRACKING_URI`, say a real `mlflow server`). For marks such as
    `pytest.mark.xfail(against_runlens(), strict=True, ...)`: a known gap in runlens that
    MLflow itself does not have."""
    return not os.environ.get("CONFORMANCE_TRACKING_URI")
