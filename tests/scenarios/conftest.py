"""Fixtures shared by the scenario tests."""

import os
import time

import pytest


@pytest.fixture
def utc():
    """Local time is UTC for the test: standing reservations are planned in local time."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()
