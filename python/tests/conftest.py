"""Shared paths: the repository's examples are the real data of these tests."""

from __future__ import annotations

import pathlib

import pytest

pytest_plugins = ["pytester"]

REPO = pathlib.Path(__file__).resolve().parents[2]
AGENTDOJO = REPO / "examples" / "agentdojo"


@pytest.fixture
def agentdojo() -> pathlib.Path:
    return AGENTDOJO
