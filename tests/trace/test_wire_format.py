"""The worker keeps its own standard-library copy of the wire format (it must not import the app's pydantic
models); the two copies must say the same thing, or a request the runner builds is refused by the worker."""

from __future__ import annotations

from typing import get_args

from configurator.engine.time.steptime import step_protocol
from configurator.trace import protocol
from configurator.trace.worker import request as wire_request
from configurator.trace.worker import result as wire_result


def test_worker_accepts_exactly_what_the_protocol_sends() -> None:
    assert get_args(protocol.TraceMethod) == wire_request.METHODS
    assert get_args(protocol.TracePrecision) == wire_request.PRECISIONS
    assert get_args(protocol.TraceOptimizer) == wire_request.OPTIMIZERS
    assert get_args(protocol.TraceOptimizerImpl) == wire_request.IMPLS
    assert get_args(protocol.CheckpointingKind) == wire_request.CHECKPOINTING
    assert get_args(protocol.TraceAttention) == wire_request.ATTENTION
    assert get_args(protocol.Arch) == wire_request.ARCHS
    # the acceptance kit's step protocol names the same checkpointing kinds (the engine may not import trace)
    assert get_args(step_protocol.CheckpointingKind) == get_args(protocol.CheckpointingKind)


def test_worker_answers_in_the_protocols_schema() -> None:
    assert wire_result.SCHEMA == protocol.SCHEMA
    assert wire_result.LIBRARIES == protocol.LIBRARIES
    assert set(wire_result.KINDS) == set(protocol.Breakdown.model_fields)
