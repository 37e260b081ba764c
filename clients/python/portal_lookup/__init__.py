"""Python client of the Property lookup API (REST v1): standard library only."""

from .client import (
    OPERATION_METHODS,
    BatchItemResult,
    JobEvent,
    PortalApiError,
    PortalClient,
    PortalError,
    PortalHttpError,
    PortalNetworkError,
    RetryEvent,
    RetryPolicy,
    retry_after_seconds,
)
from .types import ERROR_CODES, OPERATIONS, VERSION

__version__ = VERSION

__all__ = [
    "ERROR_CODES",
    "OPERATIONS",
    "OPERATION_METHODS",
    "VERSION",
    "BatchItemResult",
    "JobEvent",
    "PortalApiError",
    "PortalClient",
    "PortalError",
    "PortalHttpError",
    "PortalNetworkError",
    "RetryEvent",
    "RetryPolicy",
    "__version__",
    "retry_after_seconds",
]
